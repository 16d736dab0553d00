"""The command line as a user runs it: in a subprocess, checking exit codes, output and files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.builders.documents import stack_text, tars_server
from support.engines.cli import run

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev"
LINE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+): (?P<code>T[STFCIRAX]\d{3}) (?P<severity>error|warning) "
    r"(?P<kind>\w+) (?P<ns>[-a-z0-9]+)/(?P<name>[-.a-z0-9]*) (?P<field>\S+): (?P<message>.+)$"
)


def _manifest(root: Path, relative: str) -> dict:
    """One rendered file, parsed."""
    return yaml.safe_load((root / relative).read_text())


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the dev stack with its own Pulumi.dev.yaml."""
    shutil.copytree(DEV, tmp_path / "stacks" / "dev")
    (tmp_path / "Pulumi.dev.yaml").write_text(
        "config:\n  tars:namespace: tars-dev\n  tars:stackDir: stacks/dev\n"
    )
    return tmp_path


def test_render_writes_the_render_yaml_to_directory_layout(project: Path) -> None:
    result = run("render", "--stack", "dev", "--out", "out/dev", cwd=project)
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in (project / "out/dev/1-manifest").iterdir())
    assert "v1-service-tars-dev-shop-orderserver.yaml" in files
    assert "apps_v1-statefulset-tars-dev-shop-orderserver.yaml" in files
    assert "apps_v1-daemonset-tars-dev-base-logagent.yaml" in files
    assert (project / "out/dev/0-crd").is_dir()
    for name in files:
        obj = yaml.safe_load((project / "out/dev/1-manifest" / name).read_text())
        expected = f"{obj['apiVersion'].replace('/', '_')}-{obj['kind'].lower()}-tars-dev-"
        assert name == f"{expected}{obj['metadata']['name']}.yaml"
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("rendered 5 servers from stacks/dev into out/dev")
    assert f"{len(files)} objects (1 DaemonSet, 4 Service, 4 StatefulSet), 1 warning(s)" in summary
    for name in files:
        assert f"out/dev/1-manifest/{name}" in result.stdout


def test_render_by_directory_equals_render_by_stack(project: Path) -> None:
    assert run("render", "--stack", "dev", "--out", "a", cwd=project).returncode == 0
    by_dir = run("render", "stacks/dev", "--namespace", "tars-dev", "--out", "b", cwd=project)
    assert by_dir.returncode == 0, by_dir.stderr
    assert _tree(project / "a") == _tree(project / "b")


def test_render_is_byte_identical_and_replaces_stale_files(project: Path) -> None:
    assert run("render", "--stack", "dev", "--out", "out", cwd=project).returncode == 0
    first = _tree(project / "out")
    stale = project / "out/1-manifest/v1-service-tars-dev-gone.yaml"
    stale.write_text("stale")
    assert run("render", "--stack", "dev", "--out", "out", cwd=project).returncode == 0
    assert _tree(project / "out") == first


def test_flags_override_the_stack_config(project: Path) -> None:
    result = run(
        "render",
        "--stack",
        "dev",
        "--out",
        "out",
        "--no-delay-bind",
        "--local-volume-storage-class",
        "local-ssd",
        "--no-tars-readiness-gate",
        "--skip-await",
        cwd=project,
    )
    assert result.returncode == 0, result.stderr
    gateway = _manifest(
        project, "out/1-manifest/apps_v1-statefulset-tars-dev-shop-gatewayserver.yaml"
    )
    assert "volumeClaimTemplates" not in gateway["spec"]
    assert gateway["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    assert "readinessGates" not in gateway["spec"]["template"]["spec"]
    payment = _manifest(
        project, "out/1-manifest/apps_v1-statefulset-tars-dev-shop-paymentserver.yaml"
    )
    assert payment["spec"]["volumeClaimTemplates"][0]["spec"]["storageClassName"] == "local-ssd"


def test_render_crd_mode_writes_the_mutated_custom_resources(project: Path) -> None:
    result = run("render", "--stack", "dev", "--mode", "crd", "--out", "out", cwd=project)
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in (project / "out/1-manifest").iterdir())
    assert "k8s.tars.io_v1beta3-tserver-tars-dev-shop-orderserver.yaml" in names
    assert "k8s.tars.io_v1beta3-ttemplate-tars-dev-tars.default.yaml" in names
    assert "k8s.tars.io_v1beta3-tframeworkconfig-tars-dev-tars-framework.yaml" in names
    server = _manifest(
        project, "out/1-manifest/k8s.tars.io_v1beta3-tserver-tars-dev-shop-orderserver.yaml"
    )
    assert server["metadata"]["labels"]["tars.io/Template"] == "shop.cpp"
    assert server["spec"]["k8s"]["readinessGates"] == ["tars.io/active"]
    as_v1beta2 = ("--mode", "crd", "--crd-api-version", "k8s.tars.io/v1beta2", "--out", "out2")
    refused = run("render", "--stack", "dev", *as_v1beta2, cwd=project)
    assert refused.returncode == 1 and "00-framework.yaml" in refused.stdout + refused.stderr
    assert "TF005 error TFrameworkConfig tars-dev/tars-framework apiVersion" in refused.stdout
    assert "remove this document from the stack" in refused.stdout
    assert not (project / "out2").exists()
    flag_alone = run(
        "render", "--stack", "dev", *as_v1beta2, "--existing-framework-config", cwd=project
    )  # the advice says so: the stack's document is still written, still refused
    assert flag_alone.returncode == 1 and " TF005 error " in flag_alone.stdout
    (project / "stacks/dev/00-framework.yaml").unlink()  # the cluster keeps its own
    v1beta2 = run(
        "render", "--stack", "dev", *as_v1beta2, "--existing-framework-config", cwd=project
    )
    assert v1beta2.returncode == 0, v1beta2.stderr
    server2 = _manifest(
        project, "out2/1-manifest/k8s.tars.io_v1beta2-tserver-tars-dev-web-portal.yaml"
    )
    assert server2["spec"]["k8s"]["readinessGate"] == "example.com/warmed-up"
    assert "command" not in server2["spec"]["k8s"]
    assert "tars.io/Conversion.1b21b3" in server2["metadata"]["annotations"]


def _broken_stack(root: Path) -> Path:
    stack = root / "x"
    stack.mkdir()
    doc = tars_server()
    doc["spec"]["tars"]["servants"].append({"name": "DemoTest2Obj", "port": 10001})
    (stack / "servers.yaml").write_text(stack_text(doc))
    (stack / "templates.yaml").write_text(
        "apiVersion: k8s.tars.io/v1beta3\nkind: TTemplate\nmetadata: {name: tars.cpp}\n"
        "spec: {content: '', parent: tars.cpp}\n---\n"
        "apiVersion: k8s.tars.io/v1beta3\nkind: TFrameworkConfig\n"
        "metadata: {name: tars-framework}\n"
        "imageBuild: {executor: {image: k}}\nimageUpload: {registry: r}\nnodeImage: {image: n}\n"
    )
    return stack


def test_validate_prints_one_line_per_violation_and_exits_1(tmp_path: Path) -> None:
    stack = _broken_stack(tmp_path)
    result = run("validate", str(stack), "--namespace", "tars-dev")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    for line in lines:
        assert LINE.match(line), line
    text = (stack / "servers.yaml").read_text().splitlines()
    port_line = [i for i, t in enumerate(text, 1) if t.strip() == "port: 10001"][1]
    assert (
        f"{stack / 'servers.yaml'}:{port_line}: TS004 error TServer tars-dev/test-demotest "
        "spec.tars.servants[1].port: port 10001 is already used by servant DemoTest1Obj"
    ) in lines


def test_validate_counts_a_document_that_fails_its_schema(tmp_path: Path) -> None:
    stack = _broken_stack(tmp_path)
    doc = tars_server()
    doc["spec"]["tars"]["servants"][0]["port"] = "not a port"  # TS021: the TServer is rejected
    (stack / "servers.yaml").write_text(stack_text(doc))
    result = run("validate", str(stack), "--namespace", "tars-dev")
    assert result.returncode == 1 and " TS021 error " in result.stdout
    assert f"{stack}: 3 documents, 0 plain objects, 1 error(s)" in result.stderr


def test_render_refuses_a_stack_with_errors_and_writes_nothing(tmp_path: Path) -> None:
    stack = _broken_stack(tmp_path)
    result = run("render", str(stack), "--namespace", "tars-dev", "--out", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "TS004 error" in result.stdout
    assert not (tmp_path / "out").exists()
    assert "Traceback" not in result.stdout + result.stderr


def test_validate_dev_stack_passes_with_its_warning() -> None:
    result = run("validate", "stacks/dev", "--namespace", "tars-dev")
    assert result.returncode == 0, result.stdout + result.stderr
    [line] = result.stdout.splitlines()
    assert LINE.match(line) and " TS015 warning " in line


def test_validate_previous_runs_the_change_rules(tmp_path: Path) -> None:
    old = tmp_path / "old"
    new = tmp_path / "new"
    shutil.copytree(DEV, old)
    shutil.copytree(DEV, new)
    path = new / "20-shop-order.yaml"
    path.write_text(path.read_text().replace("subType: tars", "subType: normal", 1))
    result = run("validate", str(new), "--namespace", "tars-dev", "--previous", str(old))
    assert result.returncode == 1
    assert any(
        " TS001 error " in line and "spec.subType" in line for line in result.stdout.splitlines()
    )


def test_validate_previous_names_the_unreadable_files_of_both_stacks(tmp_path: Path) -> None:
    old = tmp_path / "old"
    new = tmp_path / "new"
    shutil.copytree(DEV, old)
    shutil.copytree(DEV, new)
    (old / "90-broken.yaml").write_text("kind: [\n")
    (new / "91-broken.yaml").write_text("kind: [\n")
    result = run("validate", str(new), "--namespace", "tars-dev", "--previous", str(old))
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert f"{new / '91-broken.yaml'}:" in result.stderr
    assert f"{old / '90-broken.yaml'}:" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["render"],
        ["render", "stacks/dev"],
        ["render", "stacks/dev", "--stack", "dev", "--out", "o"],
        ["validate", "stacks/dev", "--mode", "sideways"],
        ["render", "--stack", "nosuchenv", "--out", "o"],
        ["validate", "no/such/dir"],
        ["render", "stacks/dev", "--out", "o", "--mode", "sideways"],
    ],
)
def test_usage_errors_exit_2_without_traceback(args: list[str], tmp_path: Path) -> None:
    result = run(*args, cwd=ROOT)
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3


def test_validate_takes_the_render_options() -> None:
    """What ``validate`` passes, ``render`` writes: crd mode is checked with its conversion."""
    result = run(
        "validate", "stacks/dev", "--mode", "crd", "--crd-api-version", "k8s.tars.io/v1beta2"
    )
    assert result.returncode == 1, result.stderr
    assert "1 error(s)" in result.stderr and " TF005 error " in result.stdout


def test_console_script_and_module_are_the_same_program() -> None:
    result = run("--help")
    assert result.returncode == 0
    assert "render" in result.stdout and "validate" in result.stdout


def test_render_refuses_outputs_it_would_damage(project: Path) -> None:
    stack = project / "stacks" / "dev"
    before = _tree(stack)
    (project / "notes").mkdir()
    (project / "notes" / "todo.txt").write_text("keep me")
    (project / "afile").write_text("keep me")
    (project / "link").symlink_to(project / "notes")
    for out in ("stacks/dev", "stacks", "afile", "link", "notes"):
        result = run("render", "--stack", "dev", "--out", out, cwd=project)
        assert result.returncode == 2, (out, result.stdout, result.stderr)
        assert result.stderr.startswith(f"tars-components: error: --out {out}"), result.stderr
        assert "Traceback" not in result.stderr
    assert _tree(stack) == before
    assert (project / "notes" / "todo.txt").read_text() == "keep me"
    assert (project / "afile").read_text() == "keep me"
    assert (project / "link").is_symlink()


def test_validate_output_order_does_not_depend_on_hashing(tmp_path: Path) -> None:
    stack = tmp_path / "tie"
    stack.mkdir()
    doc = tars_server()
    doc["metadata"]["name"] = "wrong-" + "x" * 60  # two TS016 at metadata.name
    doc["spec"]["k8s"]["mounts"] = [
        {"name": "a", "mountPath": "/etc/localtime", "source": {"emptyDir": {}}},
        {"name": "b", "mountPath": "/etc/localtime/", "source": {"emptyDir": {}}},
    ]
    (stack / "s.yaml").write_text(stack_text(doc))
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-m", "tars_components", "validate", str(stack)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=60,
        )
        assert result.returncode == 1
        outputs.add(result.stdout)
    assert len(outputs) == 1


# --- option values are checked like documents (issue #9, item 11) ---------------------------

BAD_FLAGS = [
    (["--namespace", "Tars_Dev"], "--namespace 'Tars_Dev': not a valid namespace"),
    (["--namespace", ""], "--namespace '': not a valid namespace"),
    (["--namespace", "n" * 64], f"--namespace '{'n' * 64}': not a valid namespace"),
    (["--namespace", "tars.dev"], "--namespace 'tars.dev': not a valid namespace"),
    (
        ["--local-volume-storage-class", "Fast SSD"],
        "--local-volume-storage-class 'Fast SSD': not a valid storage class name",
    ),
    (
        ["--local-volume-storage-class=-ssd"],
        "--local-volume-storage-class '-ssd': not a valid storage class name",
    ),
]


@pytest.mark.parametrize(("flags", "message"), BAD_FLAGS)
@pytest.mark.parametrize("command", ["render", "validate"])
def test_bad_option_flags_exit_2_naming_the_flag(
    command: str, flags: list[str], message: str, project: Path
) -> None:
    out = ["--out", "out"] if command == "render" else []
    result = run(command, "--stack", "dev", *out, *flags, cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"tars-components: error: {message}"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not (project / "out").exists()


BAD_KEYS = [
    ("namespace", "Tars_Dev", "tars:namespace 'Tars_Dev': not a valid namespace"),
    ("namespace", "-dev", "tars:namespace '-dev': not a valid namespace"),
    (
        "localVolumeStorageClass",
        "local_ssd",
        "tars:localVolumeStorageClass 'local_ssd': not a valid storage class name",
    ),
    ("crdApiVersion", "k8s.tars.io/v1", "tars:crdApiVersion must be one of"),
    ("mode", "apply", "tars:mode must be expand or crd, got 'apply'"),
    ("delayBind", "maybe", "tars:delayBind must be true or false"),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD_KEYS)
@pytest.mark.parametrize("command", ["render", "validate"])
def test_bad_stack_config_values_exit_2_naming_the_key(
    command: str, key: str, value: str, message: str, project: Path
) -> None:
    (project / "Pulumi.dev.yaml").write_text(
        f"config:\n  tars:stackDir: stacks/dev\n  tars:{key}: {value!r}\n"
    )
    out = ["--out", "out"] if command == "render" else []
    result = run(command, "--stack", "dev", *out, cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"tars-components: error: {message}"), result.stderr
    assert not (project / "out").exists()


def test_a_flag_replaces_a_bad_config_value_only_when_the_config_is_valid(project: Path) -> None:
    """A bad key is refused even when a flag would override it: the stack's config is wrong."""
    (project / "Pulumi.dev.yaml").write_text(
        "config:\n  tars:stackDir: stacks/dev\n  tars:namespace: Bad\n"
    )
    result = run("validate", "--stack", "dev", "--namespace", "tars-dev", cwd=project)
    assert result.returncode == 2
    assert "tars:namespace 'Bad'" in result.stderr


OPTION_SETS = [
    [],
    ["--mode", "crd"],
    ["--mode", "crd", "--crd-api-version", "k8s.tars.io/v1beta2"],
    ["--namespace", "other-ns", "--local-volume-storage-class", "fast.ssd-1"],
    ["--no-delay-bind", "--no-tars-readiness-gate", "--skip-await"],
    ["--mode", "crd", "--namespace", "BAD"],
    ["--local-volume-storage-class", "UPPER"],
]


@pytest.mark.parametrize("flags", OPTION_SETS, ids=" ".join)
def test_what_validate_passes_render_writes(flags: list[str], project: Path) -> None:
    validated = run("validate", "stacks/dev", *flags, cwd=project)
    rendered = run("render", "stacks/dev", "--out", "out", *flags, cwd=project)
    assert validated.returncode == rendered.returncode, validated.stderr + rendered.stderr
    assert ((project / "out").is_dir()) == (rendered.returncode == 0)
    if rendered.returncode == 0:
        for path in (project / "out").rglob("*.yaml"):
            obj = yaml.safe_load(path.read_text())
            assert obj["metadata"]["namespace"] in ("tars-dev", "other-ns", "default")
