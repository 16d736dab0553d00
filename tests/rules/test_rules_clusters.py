"""The cluster inventory and ClusterOverride rules (TM codes): each broken field reported at
that field, a valid inventory none; ``tars:clusters`` mistakes refused naming the entry."""

from __future__ import annotations

from typing import Any

import pytest
from support.builders.clusters import ORDER, override, stellaris_cluster
from support.builders.documents import edited, load, tars_server

from tars_components.kernel.errors import UsageError
from tars_components.loading.clusters import clusters_from_config
from tars_components.models.cluster import Cluster
from tars_components.rules.clusters import stack_inventory


def _found(*documents: dict[str, Any], configured: tuple[Cluster, ...] = ()):
    stack = load(tars_server(), *documents)
    inventory, violations = stack_inventory(stack, configured)
    return inventory, [(v.code, v.kind, v.name, v.field) for v in violations]


def test_stellaris_clusters_make_the_inventory() -> None:
    inventory, found = _found(stellaris_cluster("sh", "east"), stellaris_cluster("bj", "north", 2))
    assert found == []
    assert inventory.names == ["sh", "bj"]
    bj = inventory.cluster("bj")
    assert bj is not None
    assert (bj.api_server, bj.credentials_key, bj.credentials_type, bj.wave) == (
        "https://bj.example.com:6443",
        "kubeconfig-bj",
        "kubeconfig",
        2,
    )
    assert dict(bj.labels) == {"region": "north"}
    assert [[c.name for c in wave] for wave in inventory.waves()] == [["sh"], ["bj"]]


def test_credentials_annotation_names_the_config_key() -> None:
    doc = stellaris_cluster("sh", "east")
    doc["metadata"]["annotations"] = {"tars-components.io/credentials": "sh-token"}
    doc["spec"]["secretRef"]["type"] = "token"
    inventory, found = _found(doc)
    assert found == []
    assert inventory.clusters[0].credentials_key == "sh-token"
    assert inventory.clusters[0].credentials_type == "token"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"spec__apiserver": "http://1.2.3.4:8443"}, "spec.apiserver"),
        ({"spec__secretRef__type": "password"}, "spec.secretRef.type"),
        ({"spec__secretRef__field": ""}, "spec.secretRef.field"),
        ({"spec__secretRef": "cluster-secret"}, "spec.secretRef"),
    ],
)
def test_tm001_stellaris_cluster_fields(change: dict[str, Any], field: str) -> None:
    inventory, found = _found(edited(stellaris_cluster("sh", "east"), **change))
    assert found == [("TM001", "Cluster", "sh", field)]
    assert not inventory


def test_tm002_cluster_names() -> None:
    _, found = _found(stellaris_cluster("sh", "east"), stellaris_cluster("sh", "north"))
    assert found == [("TM002", "Cluster", "sh", "metadata.name")]
    _, found = _found(stellaris_cluster("Shanghai_1", "east"))
    assert found == [("TM002", "Cluster", "Shanghai_1", "metadata.name")]


def test_tm003_wave_annotation() -> None:
    doc = stellaris_cluster("sh", "east")
    doc["metadata"]["annotations"] = {"tars-components.io/wave": "first"}
    _, found = _found(doc)
    assert found == [("TM003", "Cluster", "sh", "metadata.annotations.tars-components.io/wave")]


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"replicas": 100}, "spec.replicas"),
        ({"replicas": "3"}, "spec.replicas"),
        ({"env": {"A": "1"}}, "spec.env"),
        ({"release": "v2"}, "spec.release"),
        ({"nodeSelector": "zone=a"}, "spec.nodeSelector"),
        ({"exclude": "yes"}, "spec.exclude"),
        ({"replica": 3}, "spec.replica"),
        ({"clusterSelector": {"region": "east"}}, "spec.clusterSelector.region"),
        ({"targets": [{"kind": "ConfigMap", "name": "x"}], "replicas": 2}, "spec.targets"),
    ],
)
def test_tm004_override_fields(spec: dict[str, Any], field: str) -> None:
    _, found = _found(stellaris_cluster("sh", "east"), override("bad", **spec))
    assert found == [("TM004", "ClusterOverride", "bad", field)]


def test_tm005_override_names_an_unknown_cluster() -> None:
    _, found = _found(
        stellaris_cluster("sh", "east"), override("o", clusters=["sh", "gz"], replicas=2)
    )
    assert found == [("TM005", "ClusterOverride", "o", "spec.clusters[1]")]


def test_tm006_override_target_matching_nothing_is_a_warning() -> None:
    inventory, found = _found(
        stellaris_cluster("sh", "east"),
        override("o", targets=[{"kind": "TServer", "name": "test-nosuch"}], replicas=2),
    )
    assert found == [("TM006", "ClusterOverride", "o", "spec.targets[0]")]
    assert inventory.names == ["sh"]


def test_tm007_clusters_in_config_and_documents() -> None:
    configured = clusters_from_config([{"name": "sh"}])
    _, found = _found(stellaris_cluster("bj", "north"), configured=configured)
    assert found == [("TM007", "Cluster", "bj", "metadata.name")]


def test_tm008_override_without_inventory() -> None:
    _, found = _found(override("o", replicas=2))
    assert found == [("TM008", "ClusterOverride", "o", "spec")]


def test_no_cluster_documents_no_inventory() -> None:
    inventory, found = _found()
    assert (bool(inventory), found) == (False, [])


def test_config_entries_equal_stellaris_documents() -> None:
    configured = clusters_from_config(
        [
            {
                "name": "sh",
                "apiServer": "https://sh.example.com:6443",
                "credentials": "kubeconfig-sh",
                "labels": {"region": "east"},
            },
            {
                "name": "bj",
                "credentials": "kubeconfig-bj",
                "labels": {"region": "north"},
                "wave": 1,
            },
        ]
    )
    from_config, _ = _found(configured=configured)
    from_docs, _ = _found(stellaris_cluster("sh", "east"), stellaris_cluster("bj", "north", 1))
    shape = [(c.name, c.credentials_key, c.labels, c.wave) for c in from_config.clusters]
    assert shape == [(c.name, c.credentials_key, c.labels, c.wave) for c in from_docs.clusters]


def test_config_accepts_pulumi_json_text() -> None:
    assert [c.name for c in clusters_from_config('[{"name": "sh"}, {"name": "bj"}]')] == [
        "sh",
        "bj",
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"name": "sh"}, r"tars:clusters: must be a list"),
        ([{"name": "SH"}], r"tars:clusters\[0\]\.name: a cluster name must be a DNS label"),
        ([{"name": "sh"}, {"name": "sh"}], r"tars:clusters\[1\]\.name: cluster sh is declared"),
        ([{"name": "sh", "wave": -1}], r"tars:clusters\[0\]\.wave"),
        ([{"name": "sh", "credentialsType": "cert"}], r"tars:clusters\[0\]\.credentialsType"),
        ([{"name": "sh", "kubeconfig": "x"}], r"tars:clusters\[0\]\.kubeconfig: unknown field"),
        (
            [{"name": "sh", "overrides": [{"replicas": 200}]}],
            r"tars:clusters\[0\]\.overrides\[0\]\.replicas: must be an integer",
        ),
        (
            [{"name": "sh", "overrides": [{"clusters": ["bj"], "replicas": 2}]}],
            r"tars:clusters\[0\]\.overrides\[0\]: an entry's overrides apply to that cluster",
        ),
    ],
)
def test_config_mistakes_name_the_entry(value: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        clusters_from_config(value)


def test_credentials_value_is_never_shown() -> None:
    secret = "apiVersion: v1\nusers: [{user: {token: s3cr3t}}]"
    with pytest.raises(UsageError) as caught:
        clusters_from_config([{"name": "sh", "credentials": {"inline": secret}}])
    assert "s3cr3t" not in str(caught.value)


def test_entry_overrides_apply_to_that_cluster() -> None:
    configured = clusters_from_config(
        [{"name": "sh"}, {"name": "bj", "overrides": [{"replicas": 3}]}]
    )
    inventory, found = _found(configured=configured)
    assert found == []
    bj, sh = inventory.cluster("bj"), inventory.cluster("sh")
    assert bj is not None and sh is not None
    assert [o.fields for o in inventory.for_cluster(bj)] == [{"replicas": 3}]
    assert inventory.for_cluster(sh) == []
    assert inventory.overrides[0].selects("TServer", ORDER)
