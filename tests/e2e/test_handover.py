"""Field managers handed over on a real API server (docs/concepts/live.md, "Field managers
handed over"): a TServer created with a client-side ``kubectl apply`` is taken over by
``pulumi up`` the way ``kubectl apply --server-side`` migrates it (no conflict with
``kubectl-client-side-apply``, whose fields become the stack's), and an ``external`` field is
given up for real in ``managedFields`` once another manager holds it, kept at its live value
while only the stack does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.builders.rollouts import server
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-handover"
STACK = "handover"
NAME = "shop-orderserver"
MANAGER = f"tars-components-{STACK}"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@pytest.fixture(scope="module")
def project(
    venv: Path, tmp_path_factory: pytest.TempPathFactory, cluster: e2e.Cluster, pulumi: e2e.Pulumi
) -> Iterator[Path]:
    """A crd-mode stack of one TServer (4 replicas) in a namespace of its own, not up yet."""
    dest = tmp_path_factory.mktemp("handover") / "tars"
    with e2e.crd_stack(dest, venv, pulumi, cluster, STACK, NAMESPACE, server()) as project:
        yield project


def tserver(cluster: e2e.Cluster) -> dict[str, Any]:
    return cluster.get(
        "tservers.k8s.tars.io", NAME, f"--namespace={NAMESPACE}", "--show-managed-fields"
    )


def test_a_kubectl_applied_tserver_moves_to_the_stack_manager_without_a_conflict(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster, venv: Path
) -> None:
    # the server as its operator had it: the same TServer at 3 replicas, kubectl apply
    [rendered] = [o for o in e2e.render_stack(project, venv, STACK) if o["kind"] == "TServer"]
    rendered["spec"]["k8s"]["replicas"] = 3
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(rendered))
    before = tserver(cluster)
    assert LAST_APPLIED in before["metadata"]["annotations"]
    assert e2e.owners_of(before, "spec", "k8s", "replicas") == ["kubectl-client-side-apply"]

    preview = pulumi("preview", "--stack", STACK, cwd=project).ok()
    assert f"pulumi up hands the fields of kubectl-client-side-apply to {MANAGER}" in (
        preview.output
    )
    assert "conflict" not in preview.output.lower()
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert f"handed the fields of kubectl-client-side-apply to {MANAGER}" in up.output
    after = tserver(cluster)
    managers = [e["manager"] for e in after["metadata"]["managedFields"]]
    assert "kubectl-client-side-apply" not in managers
    assert e2e.owners_of(after, "spec", "k8s", "replicas") == [MANAGER]
    assert after["spec"]["k8s"]["replicas"] == 4
    # the annotation was kubectl's, now the stack's, which does not apply it
    assert LAST_APPLIED not in (after["metadata"].get("annotations") or {})
    # from then on an unchanged stack is an empty preview
    pulumi("preview", "--expect-no-changes", "--stack", STACK, cwd=project).ok()


def test_an_external_field_is_held_while_only_the_stack_holds_it_then_given_up(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    pulumi(
        "config", "set", "tars:fieldOwnership", "replicas=external", "--stack", STACK, cwd=project
    ).ok()
    # nobody else holds the replicas: leaving them out would reset them, so they are kept
    up = pulumi("up", "--yes", "--stack", STACK, cwd=project).ok()
    assert "keeps it at its live value (4) until another manager writes it" in up.output
    live = tserver(cluster)
    assert live["spec"]["k8s"]["replicas"] == 4
    assert e2e.owners_of(live, "spec", "k8s", "replicas") == [MANAGER]

    # TarsWeb applies the same count under its own manager: both hold it now
    body = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {"k8s": {"replicas": 4}},
    }
    cluster.kubectl(
        "apply", "--server-side", "--field-manager=tarsweb", "-f", "-", stdin=json.dumps(body)
    )
    assert sorted(e2e.owners_of(tserver(cluster), "spec", "k8s", "replicas")) == sorted(
        [MANAGER, "tarsweb"]
    )
    # the next change of the server gives the replicas up for real
    e2e.write_documents(project, STACK, NAMESPACE, server(env=[{"name": "TZ", "value": "UTC"}]))
    up = pulumi("up", "--yes", "--stack", STACK, cwd=project).ok()
    assert "keeps it at its live value" not in up.output
    live = tserver(cluster)
    assert e2e.owners_of(live, "spec", "k8s", "replicas") == ["tarsweb"]
    assert live["spec"]["k8s"]["replicas"] == 4
    assert live["spec"]["k8s"]["env"] == [{"name": "TZ", "value": "UTC"}]
