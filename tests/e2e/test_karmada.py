"""TarsK8S's TServer through Karmada (``tools/e2e/karmada``, built by ``tools/e2e/toolchain``)
in push mode over two loopback clusters: the TServer CRD of TarsK8S v1.4.1 (read from the
shared upstream data, on karmada-apiserver from the session's start) propagated to both
members by a ClusterPropagationPolicy, then a TServer propagated to both by a
PropagationPolicy, one member's copy changed by an OverridePolicy. Each member is checked as
a user would check it: ``kubectl get tserver`` on that member."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-karmada"
CRD = "tservers.k8s.tars.io"
NAME = "shop-orderserver"
VERSION = "v1beta3"
POLICY_ID = "propagationpolicy.karmada.io/permanent-id"  # karmada-webhook's defaulting


def tserver() -> dict[str, Any]:
    return {
        "apiVersion": f"k8s.tars.io/{VERSION}",
        "kind": "TServer",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {
            "app": "Shop",
            "server": "OrderServer",
            "subType": "tars",
            "tars": {
                "template": "tars.cpp",
                "servants": [{"name": "OrderObj", "port": 10000}],
            },
            "k8s": {"replicas": 2},
            "release": {"id": "v1", "image": "registry.example/shop/orderserver:v1"},
        },
    }


def selector(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj["metadata"]
    found = {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": meta["name"]}
    if "namespace" in meta:
        found["namespace"] = meta["namespace"]
    return found


def placement(members: list[str]) -> dict[str, Any]:
    return {"clusterAffinity": {"clusterNames": members}}


def kind_list(*items: dict[str, Any]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)})


def established(cluster: e2e.Cluster) -> bool:
    """The TServer CRD is there and served (``kubectl wait`` fails on a CRD without status)."""
    done = cluster.kubectl("get", "crd", CRD, "-o", "json", check=False)
    if done.returncode != 0:
        return False
    conditions = (json.loads(done.stdout).get("status") or {}).get("conditions") or []
    return any(c["type"] == "Established" and c["status"] == "True" for c in conditions)


def reporting(plane: e2e.Cluster) -> set[str]:
    """The members whose Cluster status lists the TServer API."""
    found = set()
    for cluster in plane.get("clusters.cluster.karmada.io")["items"]:
        for api in (cluster.get("status") or {}).get("apiEnablements") or []:
            kinds = {r.get("kind") for r in api.get("resources") or []}
            if api.get("groupVersion") == f"k8s.tars.io/{VERSION}" and "TServer" in kinds:
                found.add(cluster["metadata"]["name"])
    return found


def member_copy(member: e2e.Cluster) -> dict[str, Any] | None:
    done = member.kubectl(
        "get", "tserver", NAME, f"--namespace={NAMESPACE}", "-o", "json", check=False
    )
    return json.loads(done.stdout) if done.returncode == 0 else None


def test_a_tserver_reaches_each_member_with_that_members_override(
    karmada: e2e.Karmada,
) -> None:
    members = sorted(karmada.members)
    plane = karmada.plane
    crd = plane.get("crd", CRD)
    crd_policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "tars-crds"},
        "spec": {"resourceSelectors": [selector(crd)], "placement": placement(members)},
    }
    plane.kubectl("apply", "-f", "-", stdin=kind_list(crd_policy))
    for where in (plane, *karmada.members.values()):
        e2e.wait_for(f"{where.name}: {CRD} established", lambda c=where: established(c), 60)
    # Karmada's scheduler places an object only on members that report its API (their Cluster
    # status, read every 3 s here), and retries an unplaceable one only after 5 minutes
    e2e.wait_for(f"{members} report TServer", lambda: reporting(plane) >= set(members), 60)

    server = tserver()
    override_on, replicas = members[-1], 3
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {"resourceSelectors": [selector(server)], "placement": placement(members)},
    }
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {
            "resourceSelectors": [selector(server)],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": [override_on]},
                    "overriders": {
                        "plaintext": [
                            {"path": "/spec/k8s/replicas", "operator": "replace", "value": replicas}
                        ]
                    },
                }
            ],
        },
    }
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    plane.kubectl("apply", "-f", "-", stdin=kind_list(namespace, policy, override, server))
    # karmada-webhook defaulted the policy (Karmada's controllers claim objects by that id)
    assert (
        POLICY_ID
        in plane.get("propagationpolicy", NAME, f"--namespace={NAMESPACE}")["metadata"]["labels"]
    )

    # the template as Karmada stores it (the CRD's defaults filled in), and member b's override
    template = plane.get("tserver", NAME, f"--namespace={NAMESPACE}")["spec"]
    expected = {m: copy.deepcopy(template) for m in members}
    expected[override_on]["k8s"]["replicas"] = replicas

    def propagated() -> dict[str, Any]:
        return {m: (member_copy(c) or {}).get("spec") for m, c in karmada.members.items()}

    try:
        e2e.wait_for(f"{NAME} on {members}", lambda: propagated() == expected, seconds=90)
    except AssertionError:
        assert propagated() == expected
    for name, member in karmada.members.items():
        found = member_copy(member)
        assert found is not None
        assert found["metadata"]["labels"].get("karmada.io/managed") == "true", name
    assert template["k8s"]["replicas"] == 2  # the override is member b's only
