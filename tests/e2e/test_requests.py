"""TDeploy requests on the real engine, with no previous stack directory: the request as last
deployed comes from the Pulumi state, so a request created with its own approval, a second
approval and the rejection of a deployed request all fail a plain ``pulumi preview``; an
approval deploys the server, and its TServer document takes over without recreating it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-req"
STACK = "req"
APPLY = {
    "app": "Test",
    "server": "DemoTest",
    "subType": "tars",
    "tars": {"template": "tars.nodejs", "servants": [{"name": "DemoTest1Obj", "port": 13333}]},
    "k8s": {"replicas": 1},
    "release": {"id": "v1", "image": "example.com/test/demotest:v1"},
}
APPROVE = {
    "person": "alice",
    "reason": "reviewed in PR 12",
    "result": True,
    "time": "2026-11-25T01:00:00Z",
}


def write(project: Path, document: dict[str, Any]) -> None:
    """stacks/req/50-request.yaml holds ``document`` alone."""
    path = project / "stacks" / STACK / "50-request.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def request(approve: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TDeploy",
        "metadata": {"name": "test-demotest", "namespace": NAMESPACE},
        "apply": APPLY,
    }
    if approve is not None:
        doc["approve"] = approve
    return doc


@pytest.fixture(scope="module")
def project(
    venv: Path,
    tmp_path_factory: pytest.TempPathFactory,
    cluster: e2e.Cluster,
    pulumi: e2e.Pulumi,
) -> Path:
    """The project with an expand-mode stack of its own: the dev framework and templates in
    tars-req (the server's pods are not awaited: no node serves tars-req)."""
    project = e2e.project_copy(tmp_path_factory.mktemp("tdeploy") / "tars", venv)
    stack = project / "stacks" / STACK
    stack.mkdir()
    for name in ("00-framework.yaml", "10-templates.yaml"):
        text = (project / "stacks" / "dev" / name).read_text(encoding="utf-8")
        (stack / name).write_text(text.replace("tars-dev", NAMESPACE), encoding="utf-8")
    (project / f"Pulumi.{STACK}.yaml").write_text(
        "config:\n"
        f"  tars:namespace: {NAMESPACE}\n"
        f"  tars:stackDir: stacks/{STACK}\n"
        "  tars:mode: expand\n"
        '  tars:skipAwait: "true"\n'
        '  tars:renderDir: ""\n',
        encoding="utf-8",
    )
    cluster.kubectl("create", "namespace", NAMESPACE)
    pulumi("stack", "init", STACK, cwd=project).ok()
    return project


def refused(result: e2e.Result, code: str, field: str) -> None:
    """The preview or up failed on the request's check, with the rule code at the field."""
    assert result.code != 0, result.output
    assert re.search(
        rf"{NAMESPACE}/test-demotest-request-validation.*{field}.*{code}: ", result.output
    ), result.output
    assert "Traceback" not in result.output


def statefulset(cluster: e2e.Cluster) -> dict[str, Any] | None:
    found = cluster.kubectl(
        "get", "statefulset", "test-demotest", "-n", NAMESPACE, "-o", "json", check=False
    )
    return json.loads(found.stdout) if found.returncode == 0 else None


def request_state(pulumi: e2e.Pulumi, project: Path) -> str:
    """The ``state`` output of the request's component, as the state file holds it."""
    state = json.loads(pulumi("stack", "export", "--stack", STACK, cwd=project).ok().stdout)
    [component] = [r for r in state["deployment"]["resources"] if r["type"] == "tars:index:TDeploy"]
    return str(component["outputs"]["state"])


def test_a_request_created_with_its_own_approval_fails_a_plain_preview(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    write(project, request(APPROVE))
    for command in ("preview", "up"):
        args = [command, "--stack", STACK] + (["--yes"] if command == "up" else [])
        refused(pulumi(*args, cwd=project), "TD001", "approve")
    assert statefulset(cluster) is None


def test_approving_a_pending_request_deploys_its_server(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    write(project, request())
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert statefulset(cluster) is None
    assert request_state(pulumi, project) == "pending"
    write(project, request(APPROVE))
    pulumi("preview", "--stack", STACK, cwd=project).ok()
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert statefulset(cluster) is not None
    assert request_state(pulumi, project) == "deployed"


def test_the_decision_is_final_on_a_plain_preview(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    before = statefulset(cluster)
    assert before is not None
    write(project, request({**APPROVE, "person": "bob", "time": "2026-11-26T09:00:00Z"}))
    refused(pulumi("preview", "--stack", STACK, cwd=project), "TD008", "approve")
    write(project, request({**APPROVE, "result": False}))  # would delete the server
    refused(pulumi("up", "--yes", "--stack", STACK, cwd=project), "TD008", "approve")
    after = statefulset(cluster)
    assert after is not None and after["metadata"]["uid"] == before["metadata"]["uid"]


def test_its_tserver_document_takes_over_without_recreating_anything(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    before = statefulset(cluster)
    assert before is not None
    (project / "stacks" / STACK / "50-request.yaml").unlink()
    server = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": "test-demotest", "namespace": NAMESPACE},
        "spec": APPLY,
    }
    path = project / "stacks" / STACK / "50-server.yaml"
    path.write_text(yaml.safe_dump(server, sort_keys=False), encoding="utf-8")
    preview = pulumi("preview", "--json", "--stack", STACK, cwd=project).ok()
    steps = [
        (s["op"], s["urn"].rsplit("::", 1)[1])
        for s in e2e.preview_steps(preview)
        if s["op"] not in ("same", "read")
    ]
    # nothing of the server changes (the preview lists every step but the unchanged ones)
    assert sorted(steps) == [
        ("delete", f"{NAMESPACE}/test-demotest"),
        ("delete", f"{NAMESPACE}/test-demotest-request-validation"),
    ], steps
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    after = statefulset(cluster)
    assert after is not None and after["metadata"]["uid"] == before["metadata"]["uid"]
