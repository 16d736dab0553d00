"""The fan-out before mutation: each cluster's documents with the overrides applied in their
documented precedence (every cluster, then clusters matching labels, then one cluster), built
by the same pipeline, every violation naming its cluster."""

from __future__ import annotations

from typing import Any

import pytest
from support.builders.clusters import override, stellaris_cluster
from support.builders.documents import load, normal_server, tars_server

from tars_components.kernel.errors import UsageError
from tars_components.loading.document_set import DocumentSet
from tars_components.pipeline import ONE_CLUSTER, Run, build, run, targets
from tars_components.rules.clusters import stack_inventory
from tars_components.settings.options import Options
from tars_components.stages import for_cluster

OPTIONS = Options(namespace="tars-dev")


def build_clusters(stack: DocumentSet, options: Options, only: str | None = None) -> Run:
    """The one run, for every cluster of the stack's inventory or ``only``."""
    return run(stack, targets(stack, only=only), options)


SERVER = "test-demotest"
CLUSTERS = [
    stellaris_cluster("sh", "east"),
    stellaris_cluster("bj", "north"),
    stellaris_cluster("gz", "north"),
]


def _objects(*documents: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{cluster: {Kind/name: object}}``."""
    result = build_clusters(load(*CLUSTERS, *documents), OPTIONS)
    assert result.ok, [v.format() for v in result.all_violations]
    return {
        r.name: {f"{o['kind']}/{o['metadata']['name']}": o for o in r.build.objects}
        for r in result.results
    }


def _container(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_without_overrides_every_cluster_gets_the_one_cluster_objects() -> None:
    single = build(load(tars_server(), normal_server()), OPTIONS).objects
    clusters = build_clusters(load(*CLUSTERS, tars_server(), normal_server()), OPTIONS)
    assert [r.build.objects for r in clusters.results] == [single, single, single]


def test_precedence_every_cluster_then_labels_then_one_cluster() -> None:
    found = _objects(
        tars_server(),
        override("one", clusters=["gz"], replicas=4),
        override("north", clusterSelector={"matchLabels": {"region": "north"}}, replicas=3),
        override("all", replicas=2),
    )
    replicas = {c: found[c][f"StatefulSet/{SERVER}"]["spec"]["replicas"] for c in found}
    assert replicas == {"sh": 2, "bj": 3, "gz": 4}


def test_env_resources_node_selector_and_release() -> None:
    found = _objects(
        tars_server(env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]),
        override(
            "bj",
            clusters=["bj"],
            env=[{"name": "B", "value": "bj"}, {"name": "C", "value": "3"}],
            resources={"limits": {"cpu": "2"}},
            nodeSelector=[{"key": "zone", "operator": "In", "values": ["bj-1"]}],
            release={"image": "reg.example.com/test.demotest:v2-bj"},
        ),
    )
    sh = found["sh"][f"StatefulSet/{SERVER}"]
    bj = found["bj"][f"StatefulSet/{SERVER}"]
    env = {e["name"]: e.get("value") for e in _container(bj)["env"]}
    assert (env["A"], env["B"], env["C"]) == ("1", "bj", "3")
    assert "C" not in {e["name"] for e in _container(sh)["env"]}
    assert _container(bj)["resources"]["limits"] == {"cpu": "2"}
    assert _container(bj)["image"] == "reg.example.com/test.demotest:v2-bj"
    assert _container(sh)["image"] == "reg.example.com/test.demotest:v1"
    affinity = bj["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
    assert "bj-1" in str(affinity)
    assert "bj-1" not in str(sh["spec"]["template"]["spec"].get("affinity"))


def test_exclude_everywhere_then_include_on_one_cluster() -> None:
    found = _objects(
        tars_server(),
        normal_server(),
        override("off", targets=[{"kind": "TServer", "name": "web-portal"}], exclude=True),
        override(
            "on-bj",
            clusters=["bj"],
            targets=[{"kind": "TServer", "name": "web-portal"}],
            exclude=False,
        ),
    )
    assert "StatefulSet/web-portal" in found["bj"]
    assert "StatefulSet/web-portal" not in found["sh"]
    assert "StatefulSet/web-portal" not in found["gz"]
    assert f"StatefulSet/{SERVER}" in found["sh"]


def test_a_plain_object_can_be_excluded() -> None:
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "shared", "namespace": "tars-dev"},
        "data": {"a": "1"},
    }
    found = _objects(
        tars_server(),
        config_map,
        override("no-cm", clusters=["sh"], targets=[{"kind": "ConfigMap"}], exclude=True),
    )
    assert "ConfigMap/shared" in found["bj"] and "ConfigMap/shared" not in found["sh"]


def test_cluster_documents_are_never_emitted() -> None:
    found = _objects(tars_server(), override("all", replicas=2))
    kinds = {key.split("/")[0] for objects in found.values() for key in objects}
    assert not kinds & {"Cluster", "ClusterOverride"}


def test_a_rule_error_in_one_cluster_names_that_cluster() -> None:
    stack = load(
        *CLUSTERS,
        tars_server(),
        override("bad-port", clusters=["bj"], env=[{"name": "X", "valueFrom": {}}]),
    )
    result = build_clusters(stack, OPTIONS)
    assert not result.ok
    errors = [v for v in result.all_violations if v.is_error]
    assert errors and {v.cluster for v in errors} == {"bj"}
    assert all(v.format().endswith("(cluster bj)") for v in errors)
    assert [r.build.ok for r in result.results] == [True, False, True]


def test_base_for_karmada_has_only_every_cluster_overrides() -> None:
    stack = load(
        *CLUSTERS,
        tars_server(),
        override("all", replicas=2),
        override("bj", clusters=["bj"], replicas=3),
    )
    inventory, _ = stack_inventory(stack)
    base = for_cluster(stack, inventory, None)
    assert [s.spec.k8s.replicas for s in base.servers] == [2]


def test_only_one_cluster() -> None:
    result = build_clusters(load(*CLUSTERS, tars_server()), OPTIONS, only="bj")
    assert [r.name for r in result.results] == ["bj"]
    with pytest.raises(UsageError, match=r"--cluster xx: no such cluster \(sh, bj, gz\)"):
        build_clusters(load(*CLUSTERS, tars_server()), OPTIONS, only="xx")


def test_one_cluster_is_the_degenerate_case_of_the_same_run() -> None:
    """A stack without an inventory runs through the same ``run``: one result, the stack
    itself, the very build ``build`` gives; ``--cluster`` has nothing to choose from."""
    stack = load(tars_server(), normal_server())
    assert targets(stack) is ONE_CLUSTER
    result = run(stack, targets(stack), OPTIONS)
    [one] = result.results
    assert (one.cluster, one.name, one.stack) == (None, "", stack)
    assert one.build == build(stack, OPTIONS)
    with pytest.raises(UsageError, match="--cluster bj: the stack has no cluster inventory"):
        targets(stack, only="bj")


def test_a_check_only_run_gives_violations_and_no_objects() -> None:
    stack = load(*CLUSTERS, tars_server(), override("all", replicas=2))
    checked = run(stack, targets(stack), OPTIONS, objects=False)
    assert checked.ok and [r.build.objects for r in checked.results] == [[], [], []]
    built = run(stack, targets(stack), OPTIONS)
    assert all(r.build.objects for r in built.results)


def test_tm009_replicas_override_outside_the_annotations_is_clamped() -> None:
    bounded = tars_server()
    bounded["metadata"]["annotations"] = {
        "tars.io/MinReplicas": "1",
        "tars.io/MaxReplicas": "4",
    }
    stack = load(*CLUSTERS, bounded, override("big", clusters=["bj"], replicas=6))
    result = build_clusters(stack, OPTIONS)
    assert result.ok
    found = [(v.code, v.kind, v.name, v.field, v.cluster) for v in result.all_violations]
    assert found == [("TM009", "ClusterOverride", "big", "spec.replicas", "bj")]
    (bj,) = [r for r in result.results if r.name == "bj"]
    (sts,) = [o for o in bj.build.objects if o["kind"] == "StatefulSet"]
    assert sts["spec"]["replicas"] == 4
    within = load(*CLUSTERS, bounded, override("ok", clusters=["bj"], replicas=3))
    assert build_clusters(within, OPTIONS).all_violations == []
