"""Components in other stacks, on the real engine (issue #31, "import components in other
stacks"): the project's program ``up`` as a platform stack (a framework and its templates in
their own namespace), then ``examples/consumer`` as its own Pulumi project on the same
cluster and the same file backend, taking that namespace and those templates through a
``StackReference`` (``PlatformStack``), as Outputs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-platform"
PLATFORM = "platform"
REFERENCE = f"organization/tars/{PLATFORM}"  # the file backend's fully qualified name
CONSUMER = e2e.ROOT / "examples" / "consumer"


def platform_documents(project: Path) -> None:
    """stacks/platform/: the dev stack's framework config and its ``tars.*`` templates (the
    ones the framework chart installs), in the platform's namespace; no server."""
    out = project / "stacks" / PLATFORM
    out.mkdir()
    for name in ("00-framework.yaml", "10-templates.yaml"):
        text = (project / "stacks" / "dev" / name).read_text(encoding="utf-8")
        documents = [
            d
            for d in yaml.safe_load_all(text.replace("tars-dev", NAMESPACE))
            if d and d["metadata"]["name"] in ("tars-framework", "tars.default", "tars.cpp")
        ]
        (out / name).write_text(yaml.safe_dump_all(documents), encoding="utf-8")


@pytest.fixture(scope="module")
def namespace(cluster: e2e.Cluster) -> Iterator[str]:
    """The platform's namespace, with a fake node of its own."""
    with e2e.namespace_with_node(cluster, NAMESPACE) as name:
        yield name


@pytest.fixture(scope="module")
def platform(
    namespace: str, venv: Path, pulumi: e2e.Pulumi, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The project's program, up as the stack ``platform``."""
    project = e2e.project_copy(tmp_path_factory.mktemp("other-stacks") / "tars", venv)
    platform_documents(project)
    pulumi("stack", "init", PLATFORM, cwd=project).ok()
    for key, value in (("namespace", namespace), ("stackDir", f"stacks/{PLATFORM}")):
        pulumi("config", "set", f"tars:{key}", value, "--stack", PLATFORM, cwd=project).ok()
    pulumi("up", "--yes", "--skip-preview", "--stack", PLATFORM, cwd=project).ok()
    try:
        yield project
    finally:
        pulumi("destroy", "--yes", "--skip-preview", "--stack", PLATFORM, cwd=project)


@pytest.fixture(scope="module")
def consumer(platform: Path, venv: Path, pulumi: e2e.Pulumi) -> Iterator[Path]:
    """examples/consumer as its own project, stack ``dev`` on the cluster (no renderDir),
    its framework the platform's (``platformStack``)."""
    project = platform.parent / "consumer"
    shutil.copytree(CONSUMER, project, ignore=shutil.ignore_patterns("venv", "out"))
    (project / "venv").symlink_to(venv)
    pulumi("stack", "init", "dev", cwd=project).ok()
    pulumi("config", "rm", "renderDir", "--stack", "dev", cwd=project).ok()
    pulumi("config", "set", "platformStack", REFERENCE, "--stack", "dev", cwd=project).ok()
    try:
        yield project
    finally:
        pulumi("destroy", "--yes", "--skip-preview", "--stack", "dev", cwd=project)


def steps(result: e2e.Result) -> dict[str, dict[str, Any]]:
    """The preview's steps by resource name."""
    return {s["urn"].rsplit("::", 1)[1]: s for s in e2e.preview_steps(result)}


def test_the_platform_exports_its_namespace_and_templates(
    platform: Path, pulumi: e2e.Pulumi
) -> None:
    outputs = json.loads(
        pulumi("stack", "output", "--json", "--stack", PLATFORM, cwd=platform).ok().stdout
    )
    assert outputs["namespaces"] == [NAMESPACE]
    assert outputs["templates"] == {
        f"{NAMESPACE}/tars.default": ["tars.default"],
        f"{NAMESPACE}/tars.cpp": ["tars.cpp", "tars.default"],
    }


def test_the_consumers_preview_knows_the_platforms_namespace(
    consumer: Path, pulumi: e2e.Pulumi
) -> None:
    found = steps(pulumi("preview", "--json", "--stack", "dev", cwd=consumer).ok())
    # Every object is in the preview (registered at once, not inside an apply), with the
    # namespace the StackReference read from the platform's state.
    for name in (
        "shop-orderserver-service",
        "shop-orderserver-statefulset",
        "web-portal-service",
        "web-portal-statefulset",
    ):
        assert found[name]["op"] == "create", found[name]
        inputs = found[name]["newState"]["inputs"]
        assert inputs["metadata"]["namespace"] == NAMESPACE, inputs["metadata"]
    sts = found["shop-orderserver-statefulset"]["newState"]["inputs"]
    terms = sts["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert {"key": f"tars.io/node.{NAMESPACE}", "operator": "Exists"} in terms[0][
        "matchExpressions"
    ]
    validation = found["shop-orderserver-validation"]["newState"]["inputs"]
    assert validation["namespace"] == NAMESPACE
    assert validation["templates"] == {"shop.cpp": "tars.cpp"}


def test_a_template_the_platform_lacks_fails_the_consumers_preview(
    consumer: Path, pulumi: e2e.Pulumi
) -> None:
    program = consumer / "__main__.py"
    text = program.read_text(encoding="utf-8")
    assert text.count('parent="tars.cpp"') == 1
    program.write_text(text.replace('parent="tars.cpp"', 'parent="tars.java"'), encoding="utf-8")
    try:
        result = pulumi("preview", "--stack", "dev", cwd=consumer)
    finally:
        program.write_text(text, encoding="utf-8")
    assert result.code != 0, result.output
    assert "TT002" in result.output and "tars.java" in result.output, result.output


def test_up_puts_the_consumers_objects_in_the_platforms_namespace(
    consumer: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    pulumi("up", "--yes", "--skip-preview", "--stack", "dev", cwd=consumer).ok()
    for kind in ("service", "statefulset"):
        for name in ("shop-orderserver", "web-portal"):
            stored = cluster.get(kind, name, f"--namespace={NAMESPACE}")
            assert stored["metadata"]["namespace"] == NAMESPACE
    sts = cluster.get("statefulset", "shop-orderserver", f"--namespace={NAMESPACE}")
    assert sts["status"].get("readyReplicas") == 2, sts["status"]
    outputs = json.loads(
        pulumi("stack", "output", "--json", "--stack", "dev", cwd=consumer).ok().stdout
    )
    assert outputs["namespace"] == NAMESPACE
    assert outputs["templateChain"] == ["shop.cpp", "tars.cpp", "tars.default"]
    assert f"apps/v1/StatefulSet:{NAMESPACE}/shop-orderserver" in outputs["objects"]
    # nothing of the consumer in the example's own default namespace
    assert not cluster.exists("statefulset", "shop-orderserver", "shop-dev")


def test_a_second_preview_has_no_changes(consumer: Path, pulumi: e2e.Pulumi) -> None:
    pulumi("preview", "--expect-no-changes", "--stack", "dev", cwd=consumer).ok()
