"""TarsK8S's TServer through Karmada (``tools/e2e/karmada``, built by ``tools/e2e/toolchain``)
in push mode over two loopback clusters: the TServer CRD of TarsK8S v1.4.1 (read from the
shared upstream data, on karmada-apiserver from the session's start) propagated to both
members by a ClusterPropagationPolicy, then a TServer propagated to both by a
PropagationPolicy, one member's copy changed by an OverridePolicy. Each member is checked as
a user would check it: ``kubectl get tserver`` on that member."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
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


FLEET = "tars-fleet"
BINDING = f"{NAME}-tserver"  # Karmada's ResourceBinding of a TServer: <name>-<kind>


def rendered_tree(venv: Path, root: Path, members: list[str]) -> Path:
    """``render --target karmada`` of a crd-mode stack with one TServer on ``members``
    (Stellaris Cluster documents), member ``members[-1]`` at 3 replicas by a ClusterOverride."""
    from support.builders.clusters import override, stellaris_cluster
    from support.builders.documents import stack_text
    from support.builders.rollouts import base, server

    documents = [
        *base(),
        server(replicas=2),
        *(stellaris_cluster(m, "east") for m in members),
        override(
            "last-replicas",
            clusters=[members[-1]],
            targets=[{"kind": "TServer", "name": NAME}],
            replicas=3,
        ),
    ]
    stack = root / "stack"
    stack.mkdir(parents=True, exist_ok=True)
    (stack / "stack.yaml").write_text(stack_text(*documents).replace("tars-dev", FLEET))
    out = root / "out"
    done = subprocess.run(
        [
            str(venv / "bin" / "tars-components"),
            *("render", str(stack), "--namespace", FLEET, "--mode", "crd"),
            *("--target", "karmada", "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def fleet_copy(member: e2e.Cluster) -> dict[str, Any] | None:
    done = member.kubectl("get", "tserver", NAME, f"--namespace={FLEET}", "-o", "json", check=False)
    return json.loads(done.stdout) if done.returncode == 0 else None


def health(plane: e2e.Cluster) -> dict[str, str]:
    """Each member's health of the TServer, as Karmada's ResourceBinding reports it."""
    done = plane.kubectl(
        "get", "resourcebinding", BINDING, f"--namespace={FLEET}", "-o", "json", check=False
    )
    if done.returncode != 0:
        return {}
    items = (json.loads(done.stdout).get("status") or {}).get("aggregatedStatus") or []
    return {i["clusterName"]: str(i.get("health")) for i in items}


def write_status(member: e2e.Cluster, replicas: int, ready: int) -> None:
    """The TServer status as the TarsK8S controller writes it (no controller runs here)."""
    status = {
        "replicas": replicas,
        "currentReplicas": replicas,
        "readyReplicas": ready,
        "selector": "tars.io/ServerApp=Shop,tars.io/ServerName=OrderServer",
    }
    member.kubectl(
        *("patch", "tserver", NAME, f"--namespace={FLEET}", "--subresource=status"),
        *("--type=merge", "-p", json.dumps({"status": status})),
    )


def test_the_karmada_tree_teaches_karmada_the_tserver(
    karmada: e2e.Karmada, venv: Path, tmp_path: Path
) -> None:
    """The product's ``render --target karmada`` on a real Karmada: the TServer reaches each
    member with its override, its status is summed on the Karmada API server, its health
    follows a member's ready count, and a member's TarsWeb-style release change is kept
    until the stack changes the release."""
    members = sorted(karmada.members)
    plane = karmada.plane
    out = rendered_tree(venv, tmp_path, members)
    plane.kubectl("create", "namespace", FLEET)
    plane.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(out / "0-crd"))
    # the interpreter's Lua is compiled by karmada-webhook: a script it refuses fails here
    plane.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(out / "1-manifest"))
    e2e.wait_for(f"{members} report TServer", lambda: reporting(plane) >= set(members), 60)

    def replicas() -> dict[str, Any]:
        return {
            m: ((fleet_copy(c) or {}).get("spec") or {}).get("k8s", {}).get("replicas")
            for m, c in karmada.members.items()
        }

    e2e.wait_for(f"{NAME} on {members}", lambda: replicas() == {members[0]: 2, members[-1]: 3}, 90)

    # the status each member's controller writes, summed on the Karmada API server
    write_status(karmada.members[members[0]], 2, 2)
    write_status(karmada.members[members[-1]], 3, 3)

    def summed() -> dict[str, Any]:
        status = plane.get("tserver", NAME, f"--namespace={FLEET}").get("status") or {}
        return {k: status.get(k) for k in ("replicas", "currentReplicas", "readyReplicas")}

    e2e.wait_for("the status summed", lambda: summed() == dict.fromkeys(summed(), 5), 60)
    e2e.wait_for("both healthy", lambda: health(plane) == dict.fromkeys(members, "Healthy"), 60)
    # the last member's pods held unready: 1 of 3 ready
    write_status(karmada.members[members[-1]], 3, 1)
    e2e.wait_for(
        "the last member unhealthy",
        lambda: health(plane) == {members[0]: "Healthy", members[-1]: "Unhealthy"},
        60,
    )

    # TarsWeb publishes a release on the first member itself
    first = karmada.members[members[0]]
    tarsweb = {"id": "v9", "image": "registry/shop.orderserver:v9"}
    first.kubectl(
        *("patch", "tserver", NAME, f"--namespace={FLEET}", "--type=merge"),
        *("--field-manager=tarsweb", "-p", json.dumps({"spec": {"release": tarsweb}})),
    )
    # the template changes elsewhere: Karmada applies it again, keeping the member's release
    plane.kubectl("annotate", "tserver", NAME, f"--namespace={FLEET}", "example.com/touched=1")

    def touched() -> bool:
        found = fleet_copy(first) or {}
        return (found["metadata"].get("annotations") or {}).get("example.com/touched") == "1"

    e2e.wait_for("the template applied again", touched, 60)
    assert (fleet_copy(first) or {})["spec"]["release"]["id"] == "v9"
    # the stack's own next release wins (a new render: the release and what it records)
    stack_release = {"id": "v2", "image": "registry/shop.orderserver:v2"}
    plane.kubectl(
        *("patch", "tserver", NAME, f"--namespace={FLEET}", "--type=merge", "-p"),
        json.dumps(
            {
                "metadata": {"annotations": {"tars-components.io/propagated-release": "v2"}},
                "spec": {"release": stack_release},
            }
        ),
    )
    e2e.wait_for(
        "the stack's release on the first member",
        lambda: ((fleet_copy(first) or {}).get("spec") or {}).get("release", {}).get("id") == "v2",
        60,
    )
