"""Overrides that reach config (docs/pulumi/clusters.md#overrides): per cluster, a TConfig's
``configContent``, a ConfigMap's ``data`` and a Secret's ``data``/``stringData`` (key by key,
null removes a key), clusters chosen by ``matchExpressions``; the precedence of the TServer
fields; a Secret override's values never in a message."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from support.builders.clusters import override, stellaris_cluster
from support.builders.documents import load, tars_server
from support.builders.namespace_documents import config

from tars_components.pipeline import run, targets
from tars_components.rules.clusters import stack_inventory
from tars_components.settings.options import Mode, Options

CLUSTERS = [
    stellaris_cluster("sh", "east"),
    stellaris_cluster("bj", "north"),
    stellaris_cluster("gz", "north"),
]
COMMON = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "shop-common"},
    "data": {"region": "any", "debug": "false", "legacy": "yes"},
}
DB = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "shop-db"},
    "stringData": {"password": "base-Passw0rd"},
}
BJ_PASSWORD = "bj-only-Passw0rd"


def _objects(
    *documents: dict[str, Any], mode: Mode = Mode.CRD, config_maps: bool = False
) -> dict[str, dict[str, Any]]:
    """``{cluster: {Kind/name: object}}``."""
    stack = load(*CLUSTERS, *documents)
    options = Options(namespace="tars-dev", mode=mode, tconfig_config_maps=config_maps)
    result = run(stack, targets(stack), options)
    assert result.ok, [v.format() for v in result.all_violations]
    return {
        r.name: {f"{o['kind']}/{o['metadata']['name']}": o for o in r.build.objects}
        for r in result.results
    }


def _found(*documents: dict[str, Any]) -> list[tuple[str, str, str]]:
    _, violations = stack_inventory(load(tars_server(), *CLUSTERS, *documents))
    return [(v.code, v.field, v.message) for v in violations]


def test_tconfig_content_per_cluster_in_both_modes() -> None:
    bj_conf = override(
        "bj-conf",
        clusters=["bj"],
        targets=[{"kind": "TConfig", "name": "server-conf-v1"}],
        configContent="<tars><db host=bj-db/></tars>",
    )
    crd = _objects(tars_server(), config(), bj_conf)
    assert crd["bj"]["TConfig/server-conf-v1"]["configContent"] == "<tars><db host=bj-db/></tars>"
    assert crd["sh"]["TConfig/server-conf-v1"]["configContent"] == "<tars></tars>"
    expand = _objects(tars_server(), config(), bj_conf, mode=Mode.EXPAND, config_maps=True)
    served = {n: o["ConfigMap/test-demotest-tconfig"]["data"] for n, o in expand.items()}
    assert served["bj"] == {"server.conf": "<tars><db host=bj-db/></tars>"}
    assert served["sh"] == served["gz"] == {"server.conf": "<tars></tars>"}


def test_config_map_data_merged_by_key_in_precedence_order() -> None:
    target = [{"kind": "ConfigMap", "name": "shop-common"}]
    found = _objects(
        tars_server(),
        COMMON,
        override("gz", clusters=["gz"], targets=target, data={"region": "gz"}),
        override(
            "north",
            clusterSelector={"matchLabels": {"region": "north"}},
            targets=target,
            data={"region": "north", "legacy": None},
        ),
        override("all", targets=target, data={"debug": "true"}),
    )
    data = {name: objects["ConfigMap/shop-common"]["data"] for name, objects in found.items()}
    assert data["sh"] == {"region": "any", "debug": "true", "legacy": "yes"}
    assert data["bj"] == {"region": "north", "debug": "true"}
    assert data["gz"] == {"region": "gz", "debug": "true"}


def test_secret_data_and_string_data_per_cluster() -> None:
    target = [{"kind": "Secret", "name": "shop-db"}]
    encoded = base64.b64encode(b"bj-user").decode()
    found = _objects(
        tars_server(),
        DB,
        override(
            "bj-db",
            clusters=["bj"],
            targets=target,
            stringData={"password": BJ_PASSWORD},
            data={"user": encoded},
        ),
    )
    bj, sh = found["bj"]["Secret/shop-db"], found["sh"]["Secret/shop-db"]
    assert (bj["stringData"], bj["data"]) == ({"password": BJ_PASSWORD}, {"user": encoded})
    assert sh["stringData"] == {"password": "base-Passw0rd"} and "data" not in sh


@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        ({"key": "region", "operator": "In", "values": ["north"]}, ["bj", "gz"]),
        ({"key": "region", "operator": "NotIn", "values": ["north"]}, ["sh"]),
        ({"key": "region", "operator": "Exists"}, ["sh", "bj", "gz"]),
        ({"key": "tier", "operator": "DoesNotExist"}, ["sh", "bj", "gz"]),
        ({"key": "tier", "operator": "Exists"}, []),
        ({"key": "tier", "operator": "NotIn", "values": ["canary"]}, ["sh", "bj", "gz"]),
    ],
)
def test_match_expressions_select_clusters(expression: dict[str, Any], selected: list[str]) -> None:
    found = _objects(
        tars_server(),
        override("o", clusterSelector={"matchExpressions": [expression]}, replicas=3),
        mode=Mode.EXPAND,
    )
    replicas = {name: objects["StatefulSet/test-demotest"] for name, objects in found.items()}
    assert [n for n, o in replicas.items() if o["spec"]["replicas"] == 3] == selected


def test_match_labels_and_expressions_all_must_match() -> None:
    found = _objects(
        tars_server(),
        override(
            "o",
            clusterSelector={
                "matchLabels": {"region": "north"},
                "matchExpressions": [{"key": "region", "operator": "NotIn", "values": ["east"]}],
            },
            replicas=3,
        ),
        override("gz", clusters=["gz"], replicas=4),  # a named cluster still wins
        mode=Mode.EXPAND,
    )
    counts = {n: o["StatefulSet/test-demotest"]["spec"]["replicas"] for n, o in found.items()}
    assert counts == {"sh": 1, "bj": 3, "gz": 4}


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (
            {"clusterSelector": {"matchExpressions": [{"key": "r", "operator": "in"}]}},
            "spec.clusterSelector.matchExpressions[0].operator",
        ),
        (
            {"clusterSelector": {"matchExpressions": [{"key": "r", "operator": "In"}]}},
            "spec.clusterSelector.matchExpressions[0].values",
        ),
        (
            {
                "clusterSelector": {
                    "matchExpressions": [{"key": "r", "operator": "Exists", "values": ["a"]}]
                }
            },
            "spec.clusterSelector.matchExpressions[0].values",
        ),
        (
            {"clusterSelector": {"matchExpressions": [{"operator": "Exists"}]}},
            "spec.clusterSelector.matchExpressions[0].key",
        ),
        (
            {"clusterSelector": {"matchExpressions": {"key": "r"}}},
            "spec.clusterSelector.matchExpressions",
        ),
        ({"clusterSelector": {"region": "east"}}, "spec.clusterSelector.region"),
        ({"targets": [{"kind": "TServer"}], "configContent": "x"}, "spec.targets"),
        ({"targets": [{"kind": "TConfig"}], "configContent": 3}, "spec.configContent"),
        ({"targets": [{"kind": "TConfig"}], "data": {"a": "b"}}, "spec.targets"),
        ({"targets": [{"kind": "ConfigMap"}], "stringData": {"a": "b"}}, "spec.targets"),
        ({"targets": [{"kind": "Secret"}], "data": {"a": "not base64!"}}, "spec.data.a"),
        ({"targets": [{"kind": "ConfigMap"}], "data": ["a"]}, "spec.data"),
        ({"targets": [{"kind": "ConfigMap"}], "data": {"a": "b"}, "replicas": 2}, "spec"),
        ({"targets": [{"kind": "ConfigMap"}], "binaryData": {"a": "b"}}, "spec.binaryData"),
    ],
)
def test_tm004_for_bad_selectors_and_content(spec: dict[str, Any], field: str) -> None:
    found = _found(override("bad", **spec))
    assert [(code, path) for code, path, _ in found] == [("TM004", field)]


def test_a_secret_override_value_never_shows_in_a_message() -> None:
    found = _found(
        override(
            "bad",
            targets=[{"kind": "Secret", "name": "shop-db"}],
            stringData={"password": 12345678, "token": BJ_PASSWORD},
            data={"key": BJ_PASSWORD},
        )
    )
    assert found and all(code == "TM004" for code, _, _ in found)
    text = " ".join(message for _, _, message in found)
    assert "12345678" not in text and BJ_PASSWORD not in text
