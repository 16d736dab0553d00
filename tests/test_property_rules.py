"""Property tests: random edits of valid documents never crash loading or the rules.

Whatever the edit (a dropped key, a value of another type, a random string or number, a
duplicated list entry, an extra key, a value wrapped in a list or mapping), ``load_texts``
either raises :class:`LoadError` or returns a stack, and then ``validate`` returns violations
with known codes and file locations, the same before and after mutation, and
``validate_change`` works against the unedited stack in both directions.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_rules_common import (
    base_docs,
    edited,
    framework,
    normal_server,
    tars_server,
    template,
)

from tars_components.document_set import DocumentSet
from tars_components.errors import LoadError, Violation
from tars_components.loading.load import load_texts
from tars_components.mutation import mutate
from tars_components.rules import RULES, validate, validate_change

FILE = "stack.yaml"
NS = "tars-dev"

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


def random_document(data: st.DataObject) -> Any:
    doc = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        path = data.draw(st.sampled_from(all_paths(doc)))
        doc = edit(doc, path, data.draw(st.sampled_from(OPS)), data)
    return doc


def unedited() -> DocumentSet:
    templates = [template("tars.default"), template("tars.cpp", "tars.default")]
    return load_texts({FILE: yaml.safe_dump_all([*templates, *SEEDS])}, namespace=NS)


def check_stack(stack: DocumentSet) -> list[Violation]:
    found = validate(stack)
    for v in found:
        assert v.code in RULES
        assert v.severity is RULES[v.code].severity
        assert v.file == FILE and v.line is not None and v.line >= 1, v.format()
        assert v.format().startswith(f"{FILE}:{v.line}: {v.code} ")
    assert validate(mutate(stack)) == found
    return found


def test_unedited_seeds_are_valid() -> None:
    assert validate(unedited()) == []


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_random_edits_never_crash(data: st.DataObject) -> None:
    docs = [random_document(data) for _ in range(data.draw(st.integers(1, 2)))]
    extra = data.draw(st.sampled_from([[], base_docs(), SEEDS]))
    text = yaml.safe_dump_all([*extra, *docs], sort_keys=False)
    try:
        stack = load_texts({FILE: text}, namespace=NS)
    except LoadError as exc:
        assert exc.problems and all(p.file == FILE for p in exc.problems)
        return
    check_stack(stack)
    before = unedited()
    for v in validate_change(before, stack) + validate_change(stack, before):
        assert RULES[v.code].change


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_random_edits_of_one_field_at_a_time(data: st.DataObject) -> None:
    """Single edits keep most of the document valid, so the rules (not the schema) see it."""
    doc = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
    path = data.draw(st.sampled_from([p for p in all_paths(doc) if len(p) >= 2]))
    doc = put(doc, path, data.draw(st.one_of(st.sampled_from(INTERESTING), values)))
    text = yaml.safe_dump_all([*base_docs(), doc], sort_keys=False)
    try:
        stack = load_texts({FILE: text}, namespace=NS)
    except LoadError:
        return
    check_stack(stack)
