"""Random edits of valid documents: the seed documents, the edit operations and the paths they apply
to."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from support.builders.documents import edited
from support.builders.rules import framework, normal_server, tars_server, template

Path = tuple[Any, ...]

RICH_TARS = edited(
    tars_server(),
    metadata__annotations={"tars.io/MinReplicas": "1", "tars.io/MaxReplicas": "3"},
    spec__tars__servants=[
        {"name": "AObj", "port": 10001, "thread": 3, "isTcp": True},
        {"name": "BObj", "port": 10002, "timeout": 100},
    ],
    spec__tars__ports=[{"name": "metrics", "port": 9100}],
    spec__k8s__hostPorts=[{"nameRef": "AObj", "port": 3000}],
    spec__k8s__mounts=[
        {"name": "logs", "mountPath": "/logs", "source": {"hostPath": {"path": "/l", "type": ""}}},
        {"name": "data", "mountPath": "/data", "source": {"tLocalVolume": {"uid": "1000"}}},
    ],
    spec__k8s__env=[{"name": "A", "value": "b"}],
    spec__k8s__abilityAffinity="ServerRequired",
    spec__k8s__readinessGates=["example.com/ready"],
)

V1BETA2_SERVER = edited(
    tars_server("Test", "Old"),
    apiVersion="k8s.tars.io/v1beta2",
    spec__k8s__readinessGate="tars.io/active",
    spec__k8s__daemonSet=True,
)

SEEDS = [
    RICH_TARS,
    V1BETA2_SERVER,
    normal_server(),
    template("tars.java", "tars.default"),
    framework(),
]

INTERESTING: list[Any] = [
    "tars", "normal", "NodeObj", 19385, "tars.cpp", "tars.default", "host-timezone",
    "/etc/localtime", "AppOrServerPreferred", "OnDelete", "tars-framework", "Test", "DemoTest",
    "a--b", "", " ", 0, -1, 65536, True, None, 1.5, "tars.io/MaxReplicas", "k8s.tars.io/v1beta2",
]  # fmt: skip

FIELD_NAMES = [
    "name", "port", "app", "server", "subType", "tars", "normal", "k8s", "release", "template",
    "parent", "servants", "ports", "mounts", "hostPorts", "daemonSet", "nodeImage", "annotations",
    "namespace", "abilityAffinity", "readinessGate", "readinessGates", "source", "tLocalVolume",
]  # fmt: skip

scalars = st.one_of(
    st.sampled_from(INTERESTING),
    st.integers(min_value=-(2**33), max_value=2**33),
    st.text(max_size=12),
    st.booleans(),
    st.none(),
)

values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8)), inner,
                        max_size=3),
    ),
    max_leaves=6,
)  # fmt: skip


def all_paths(node: Any, prefix: Path = ()) -> list[Path]:
    """Every path in a JSON-like tree, the root included."""
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += all_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += all_paths(value, (*prefix, i))
    return found


def get(node: Any, path: Path) -> Any:
    for seg in path:
        node = node[seg]
    return node


def put(root: Any, path: Path, value: Any) -> Any:
    """``root`` with the value at ``path`` replaced (the root itself when the path is empty)."""
    if not path:
        return value
    get(root, path[:-1])[path[-1]] = value
    return root


def edit(root: Any, path: Path, op: str, data: st.DataObject) -> Any:
    """One random edit at ``path``."""
    target = get(root, path)
    if op == "drop" and path:
        parent = get(root, path[:-1])
        del parent[path[-1]]
        return root
    if op == "duplicate" and isinstance(target, list) and target:
        target.append(copy.deepcopy(data.draw(st.sampled_from(target))))
        return root
    if op == "add" and isinstance(target, dict):
        key = data.draw(st.one_of(st.sampled_from(FIELD_NAMES), st.text(max_size=8)))
        target[key] = data.draw(values)
        return root
    if op == "nest":
        wrapped = data.draw(st.sampled_from([[target], {"value": target}, [target, target]]))
        return put(root, path, copy.deepcopy(wrapped))
    return put(root, path, data.draw(values))


OPS = ["drop", "set", "duplicate", "add", "nest"]
