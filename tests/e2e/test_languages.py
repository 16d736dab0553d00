"""Every Pulumi language, on the real engine (issue #31): ``examples/typescript``,
``examples/go`` and ``examples/yaml`` each run ``pulumi install`` (the component provider
plugin's virtualenv from ``plugin/requirements.txt``; the TypeScript and Go SDKs generated from
the schema the plugin serves, and linked into the program) and ``pulumi up`` a framework, a
template and a Tars server to the loopback cluster. A rule error fails their preview with its
code and the argument's path; the admission rules' own resources are served by the plugin,
never by a ``pulumi-python`` dynamic provider the program's language cannot start
(pulumi/pulumi#5455). ``examples/consumer``, a Python program of your own, goes through
``pulumi install`` and ``pulumi up`` too."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.engines import e2e

from tars_components.kernel.version import __version__ as VERSION

pytestmark = pytest.mark.e2e

#: Each example, the file with its order server's ports, and the namespace its stack uses.
EXAMPLES = {
    "typescript": ("index.ts", "tars-ts"),
    "go": ("main.go", "tars-go"),
    "yaml": ("Pulumi.yaml", "tars-yaml"),
}
#: The second servant's port in each program, and the same port as the first servant's.
SECOND_PORT = {
    "typescript": ('{ name: "AdminObj", port: 10001 }', '{ name: "AdminObj", port: 10000 }'),
    "go": ("Port: pulumi.Int(10001)", "Port: pulumi.Int(10000)"),
    "yaml": ("port: 10001", "port: 10000"),
}
#: What the examples need of the repository (``plugin/requirements.txt`` installs ``..``,
#: ``examples/consumer/requirements.txt`` ``../..``).
PACKAGE = ("pyproject.toml", "README.md", "tars_components", "plugin")
CONSUMER_STACK = "installed"
SKIP = shutil.ignore_patterns("__pycache__", "venv", "node_modules", "sdks", "go.sum", "out")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package, the plugin and the three examples, laid out as in the repository (the
    examples name the plugin ``../../plugin``)."""
    root = tmp_path_factory.mktemp("languages")
    for name in PACKAGE:
        source = e2e.ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=SKIP)
        else:
            shutil.copy2(source, root / name)
    for language in EXAMPLES:
        shutil.copytree(e2e.ROOT / "examples" / language, root / "examples" / language, ignore=SKIP)
    return root


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def example(
    request: pytest.FixtureRequest,
    workspace: Path,
    pulumi: e2e.Pulumi,
    cluster: e2e.Cluster,
) -> Iterator[tuple[str, Path]]:
    """One example installed (``pulumi install``) and up as its stack ``dev``, in a namespace
    of its own; destroyed afterwards."""
    language: str = request.param
    namespace = EXAMPLES[language][1]
    project = workspace / "examples" / language
    with e2e.namespace_with_node(cluster, namespace):
        pulumi("install", cwd=project, timeout=1800).ok()
        pulumi("stack", "init", "dev", cwd=project).ok()
        pulumi("config", "set", "namespace", namespace, "--stack", "dev", cwd=project).ok()
        up = pulumi("up", "--yes", "--skip-preview", "--stack", "dev", cwd=project, timeout=1800)
        try:
            yield language, project
        finally:
            pulumi("destroy", "--yes", "--skip-preview", "--stack", "dev", cwd=project)
        up.ok()


def state(pulumi: e2e.Pulumi, project: Path) -> list[dict[str, Any]]:
    """The resources of the stack's state."""
    exported = json.loads(pulumi("stack", "export", "--stack", "dev", cwd=project).ok().stdout)
    return list(exported["deployment"]["resources"])


def test_install_generates_and_links_the_sdk(example: tuple[str, Path]) -> None:
    language, project = example
    sdk = project / "sdks" / "tars"
    if language == "typescript":
        manifest = json.loads((sdk / "package.json").read_text(encoding="utf-8"))
        assert manifest["name"] == "@tars-components/tars"
        program = json.loads((project / "package.json").read_text(encoding="utf-8"))
        assert program["dependencies"]["@tars-components/tars"] == "file:sdks/tars"
        assert (project / "node_modules" / "@tars-components" / "tars").exists()
        # the component reference's TypeScript examples type-check against the generated SDK
        reference = sorted((e2e.ROOT / "docs" / "examples").glob("*.ts"))
        checked = project / "reference"
        checked.mkdir()
        for source in reference:
            shutil.copy2(source, checked / source.name)
        config = json.loads((project / "tsconfig.json").read_text(encoding="utf-8"))
        config["files"] = [p.name for p in reference]
        config["compilerOptions"]["paths"] = {"@tars-components/tars": ["../sdks/tars"]}
        (checked / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
        (checked / "node_modules").symlink_to(project / "node_modules")
        done = subprocess.run(
            [str(project / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", str(checked)],
            capture_output=True,
            text=True,
            check=False,
            timeout=900,
        )
        assert len(reference) == 9 and done.returncode == 0, done.stdout + done.stderr
    elif language == "go":
        assert "module github.com/tars-components/tars-components/sdk/go" in (
            sdk / "go.mod"
        ).read_text(encoding="utf-8")
        gomod = (project / "go.mod").read_text(encoding="utf-8")
        assert "github.com/tars-components/tars-components/sdk/go => ./sdks/tars" in gomod
    else:  # Pulumi YAML: a declaration of the package, no code
        declared = yaml.safe_load((sdk / f"tars-{VERSION}.yaml").read_text(encoding="utf-8"))
        assert declared == {"packageDeclarationVersion": 1, "name": "tars", "version": VERSION}


def test_up_puts_the_server_on_the_cluster(
    example: tuple[str, Path], pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    language, project = example
    namespace = EXAMPLES[language][1]
    outputs = json.loads(
        pulumi("stack", "output", "--json", "--stack", "dev", cwd=project).ok().stdout
    )
    assert outputs == {
        "objectName": "shop-order",
        "objects": [
            f"v1/Service:{namespace}/shop-order",
            f"apps/v1/StatefulSet:{namespace}/shop-order",
        ],
    }
    sts = cluster.get("statefulset", "shop-order", f"--namespace={namespace}")
    assert sts["status"].get("readyReplicas") == 2, sts["status"]
    container = sts["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "reg.example.com/shop/order:v1"
    assert {"name": "LOG_LEVEL", "value": "debug"} in container["env"]
    assert cluster.exists("service", "shop-order", namespace)


def test_the_plugin_serves_the_admission_rules_resources(
    example: tuple[str, Path], pulumi: e2e.Pulumi
) -> None:
    _, project = example
    types = [r["type"] for r in state(pulumi, project)]
    assert types.count("tars:index:TarsValidation") == 3, types
    assert not [t for t in types if t.startswith(("pulumi-python", "pulumi:providers:pulumi-"))]


def test_a_second_preview_has_no_changes(example: tuple[str, Path], pulumi: e2e.Pulumi) -> None:
    _, project = example
    pulumi("preview", "--expect-no-changes", "--stack", "dev", cwd=project).ok()


def test_a_rule_error_fails_the_preview_with_its_code(
    example: tuple[str, Path], pulumi: e2e.Pulumi
) -> None:
    language, project = example
    program = project / EXAMPLES[language][0]
    text = program.read_text(encoding="utf-8")
    good, bad = SECOND_PORT[language]
    assert text.count(good) == 1
    program.write_text(text.replace(good, bad), encoding="utf-8")
    try:
        result = pulumi("preview", "--stack", "dev", cwd=project)
    finally:
        program.write_text(text, encoding="utf-8")
    assert result.code != 0, result.output
    assert (
        "TServer 'shop-order': tars.servants[1].port: "
        "TS004: port 10000 is already used by servant OrderObj"
    ) in result.output, result.output


#: Each program with its second servant's port given as text, and what refuses it: the
#: TypeScript compiler and the Go compiler against the generated SDK, Pulumi YAML against the
#: schema the plugin serves.
PORT_AS_TEXT = {
    "typescript": (
        ('{ name: "AdminObj", port: 10001 }', '{ name: "AdminObj", port: "10001" }'),
        ["node_modules/.bin/tsc", "--noEmit", "-p", "."],
        "Type 'string' is not assignable to type 'Input<number>'",
    ),
    "go": (
        ("Port: pulumi.Int(10001)", 'Port: pulumi.String("10001")'),
        ["go", "build", "-o", "/dev/null", "."],
        "pulumi.String does not implement pulumi.IntInput",
    ),
    "yaml": (
        ("port: 10001", "port: ten"),
        [],  # the preview
        "Cannot assign '{name: string, port: string}' to 'tars:index:Servant'",
    ),
}


def test_the_arguments_are_typed_as_the_schema_says(
    example: tuple[str, Path], pulumi: e2e.Pulumi
) -> None:
    language, project = example
    (good, bad), command, refusal = PORT_AS_TEXT[language]
    program = project / EXAMPLES[language][0]
    text = program.read_text(encoding="utf-8")
    assert text.count(good) == 1
    program.write_text(text.replace(good, bad), encoding="utf-8")
    try:
        if command:
            done = subprocess.run(
                command, cwd=project, capture_output=True, text=True, check=False, timeout=900
            )
            code, output = done.returncode, done.stdout + done.stderr
        else:
            result = pulumi("preview", "--stack", "dev", cwd=project)
            code, output = result.code, result.output
    finally:
        program.write_text(text, encoding="utf-8")
    assert code != 0, output
    assert refusal in output, output


def test_the_python_consumer_installs_and_runs(
    workspace: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    """``examples/consumer`` (a Python program of your own) through ``pulumi install`` (its
    virtualenv from its requirements: this repository and the pinned pulumi-kubernetes), then
    ``pulumi up`` on the cluster instead of its default render directory."""
    project = workspace / "examples" / "consumer"
    shutil.copytree(e2e.ROOT / "examples" / "consumer", project, ignore=SKIP)
    namespace = "tars-consumer"
    with e2e.namespace_with_node(cluster, namespace):
        pulumi("install", cwd=project, timeout=1800).ok()
        assert (project / "venv" / "bin" / "python").exists()
        # a stack name of its own: the suite's file backend is shared (tars-consumer/dev is
        # test_other_stacks')
        shutil.copy2(project / "Pulumi.dev.yaml", project / f"Pulumi.{CONSUMER_STACK}.yaml")
        pulumi("stack", "init", CONSUMER_STACK, cwd=project).ok()
        stack = ("--stack", CONSUMER_STACK)
        pulumi("config", "rm", "renderDir", *stack, cwd=project).ok()
        pulumi("config", "set", "namespace", namespace, *stack, cwd=project).ok()
        try:
            pulumi("up", "--yes", "--skip-preview", *stack, cwd=project).ok()
            for name in ("shop-orderserver", "web-portal"):
                sts = cluster.get("statefulset", name, f"--namespace={namespace}")
                assert sts["status"].get("readyReplicas") == sts["spec"]["replicas"], sts["status"]
            pulumi("preview", "--expect-no-changes", *stack, cwd=project).ok()
        finally:
            pulumi("destroy", "--yes", "--skip-preview", *stack, cwd=project)
            pulumi("stack", "rm", "--yes", *stack, cwd=project)
