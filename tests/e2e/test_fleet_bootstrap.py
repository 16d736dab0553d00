"""A fleet that bootstraps (docs/pulumi/clusters.md, "Bootstrapping the fleet"), on two real
loopback clusters ``a`` and ``b``: ``tars:installController`` installs the TarsK8S controller
on each through its provider, each with a webhook CA of its own made by the program (its key
never in the state in plain text, the same CA on the next preview); ``pulumi destroy`` leaves
the CRDs, as the chart does. Then ``tars:installFramework`` installs the framework of the
stack namespace on each cluster, labelling the nodes the per-cluster mapping names.

The loopback clusters run no TarsK8S webhook (kwok fakes the controller's pods), and the
webhook configurations fail closed: the stacks here hold only a ConfigMap (the framework
stack's in the namespace the framework creates), and the framework is installed once the
controller stack is destroyed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-boot"
"""The stack namespace: created by the framework install."""
POOL = "tars-pool"
"""The namespace whose fake node each cluster gets (labelled for it, not for NAMESPACE)."""
MEMBERS = ("a", "b")
SYSTEM = "tars-system"
STORAGE_CLASS = "tars-storage-class"
"""The controller's StorageClass, which the loopback clusters have already (with another
provisioner: server-side apply would refuse to take it over)."""


@pytest.fixture(scope="module")
def fleet(
    tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, e2e.Cluster]]:
    root = tmp_path_factory.mktemp("bootstrap")
    with e2e.fleet_up(root, MEMBERS, tools["kubectl"], (POOL,)) as clusters:
        for cluster in clusters.values():  # a new cluster: the controller brings its own
            cluster.kubectl("delete", "storageclass", STORAGE_CLASS, "--ignore-not-found")
        yield clusters


@pytest.fixture(scope="module")
def project(
    fleet: dict[str, e2e.Cluster],
    venv: Path,
    pulumi: e2e.Pulumi,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    dest = tmp_path_factory.mktemp("bootstrap-project") / "tars"
    project = e2e.project_copy(dest, venv)
    clusters, secrets = e2e.clusters_config(fleet)
    for stack, namespace in (("controller", POOL), ("framework", NAMESPACE)):
        note = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "bootstrap-note", "namespace": namespace},
            "data": {"stack": stack},
        }
        (project / "stacks" / stack).mkdir()
        (project / "stacks" / stack / "note.yaml").write_text(yaml.safe_dump(note))
        e2e.fleet_stack(project, pulumi, stack, namespace, {"tars:clusters": clusters}, secrets)
    return project


def webhook_bundles(cluster: e2e.Cluster) -> set[str]:
    found = set()
    for kind in ("validatingwebhookconfigurations", "mutatingwebhookconfigurations"):
        for item in cluster.get(kind)["items"]:
            if item["metadata"]["name"].startswith("tars-"):
                found |= {w["clientConfig"]["caBundle"] for w in item["webhooks"]}
    return found


def test_the_controller_is_installed_on_every_cluster_with_a_ca_of_its_own(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    stack = ["--stack", "controller"]
    pulumi("config", "set", "tars:installController", "true", *stack, cwd=project).ok()
    up = pulumi("up", "--yes", "--skip-preview", *stack, cwd=project).ok()
    certs = {}
    for name, cluster in fleet.items():
        assert cluster.exists("crd", "tservers.k8s.tars.io"), up.output
        deployments = cluster.get("deployments", f"--namespace={SYSTEM}")["items"]
        assert deployments and all(
            (d.get("status") or {}).get("readyReplicas") == d["spec"]["replicas"]
            for d in deployments
        )
        secret = cluster.get("secret", "tars-webhook-ca", f"--namespace={SYSTEM}")
        certs[name] = secret["data"]["ca.crt"]
        # the webhook configurations trust the CA of their own cluster's Secret
        assert webhook_bundles(cluster) == {certs[name]}
    assert certs["a"] != certs["b"]
    state = pulumi("stack", "export", *stack, cwd=project).ok().stdout
    assert "PRIVATE KEY" not in state  # the CA keys are secrets in the state
    again = pulumi("preview", "--expect-no-changes", *stack, cwd=project)
    assert again.code == 0, again.output  # the same CA: nothing to change

    pulumi("destroy", "--yes", "--skip-preview", *stack, cwd=project).ok()
    for cluster in fleet.values():
        assert webhook_bundles(cluster) == set()
        assert cluster.exists("crd", "tservers.k8s.tars.io")  # kept, as the chart keeps them


def test_the_framework_is_installed_on_every_cluster_with_its_own_nodes(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    stack = ["--stack", "framework"]
    nodes = {m: c.get("nodes")["items"][0]["metadata"]["name"] for m, c in fleet.items()}
    label = f"tars.io/node.{NAMESPACE}"
    assert not any(label in c.get("node", nodes[m])["metadata"]["labels"] for m, c in fleet.items())
    pulumi("config", "set", "tars:installFramework", "true", *stack, cwd=project).ok()
    pulumi("config", "set", "tars:frameworkNodes", json.dumps(nodes), *stack, cwd=project).ok()
    up = pulumi("up", "--yes", "--skip-preview", *stack, cwd=project).ok()
    for name, cluster in fleet.items():
        ns = f"--namespace={NAMESPACE}"
        assert cluster.exists("tframeworkconfig", "tars-framework", NAMESPACE), up.output
        servers = cluster.kubectl("get", "tservers", ns, "-o", "name").stdout
        assert "tars-tarsregistry" in servers
        assert label in cluster.get("node", nodes[name])["metadata"]["labels"]
