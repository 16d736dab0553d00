"""Every constraint of the v1beta2/v1beta3 TServer, TTemplate and TFrameworkConfig CRD schemas
is enforced (issue #9, item 5).

The schemas are read from ``tarsk8s/crd-schemas/`` of the shared folder (see ``upstream.py``;
the module is skipped when it is absent). The test walks
them and, for every ``pattern``, ``maxLength``, ``minimum``/``maximum``, ``enum``,
``required``, ``minItems``, ``oneOf``, ``format`` and ``x-kubernetes-int-or-string``, takes a
complete valid document, breaks that one constraint at its place and checks that validation
rejects it with an error at that field; and, the other way round, that values the CRD admits
are admitted, except where this project is deliberately stricter (``STRICTER``, each with its
reason) or looser (``LOOSER``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from support.assertions.upstream import shared_path
from support.builders.documents import FRAMEWORK, NAMESPACE, stack_text, template

from tars_components.kernel.errors import Violation
from tars_components.kernel.paths import format_path
from tars_components.loading.load import load_texts
from tars_components.pipeline import check as pipeline_check
from tars_components.rules import validate
from tars_components.settings.options import Mode, Options

CRDS = shared_path("tarsk8s", "crd-schemas")
if not CRDS.is_dir():
    pytest.skip(
        "upstream data tarsk8s/crd-schemas not found ($TARS_SHARED, ../shared, /work/shared)",
        allow_module_level=True,
    )
SCHEMA_CODES = {"TServer", "TTemplate", "TFrameworkConfig"}
SCHEMA_CODE = {"TServer": "TS021", "TTemplate": "TT006", "TFrameworkConfig": "TF001"}
KEYWORDS = (
    "pattern",
    "maxLength",
    "minimum",
    "maximum",
    "enum",
    "required",
    "minItems",
    "oneOf",
    "format",
    "x-kubernetes-int-or-string",
)
# Values tried against every pattern: what the CRD refuses must be refused.
PATTERN_PROBES = (
    "a b",
    "-",
    "-a",
    "a-",
    "A",
    "Ab",
    "a_b",
    "a.b",
    "a..b",
    "a/b",
    "A/b",
    "0",
    "é",
    "",
    "my-",
    "db.password",
)

Seg = tuple[str, Any]  # ("prop", name) | ("item", None) | ("value", None)


@dataclass(frozen=True)
class Constraint:
    """One keyword of one schema node."""

    kind: str
    version: str
    path: tuple[Seg, ...]
    keyword: str
    value: Any

    @property
    def label(self) -> str:
        text = "".join(
            f".{v}" if k == "prop" else "[]" if k == "item" else "{}" for k, v in self.path
        )
        return f"{self.kind}.{self.version}:{text or '.'}:{self.keyword}"


def _walk(node: Any, path: tuple[Seg, ...]) -> Iterator[tuple[tuple[Seg, ...], str, Any]]:
    if not isinstance(node, dict):
        return
    for keyword in KEYWORDS:
        if keyword == "required" and keyword in node:
            # a required field with a default is filled in before the schema is checked
            props = node.get("properties") or {}
            names = [n for n in node["required"] if "default" not in props.get(n, {})]
            yield path, keyword, names
        elif keyword in node:
            yield path, keyword, node[keyword]
    for name, child in (node.get("properties") or {}).items():
        yield from _walk(child, (*path, ("prop", name)))
    if "items" in node:
        yield from _walk(node["items"], (*path, ("item", None)))
    if isinstance(node.get("additionalProperties"), dict):
        yield from _walk(node["additionalProperties"], (*path, ("value", None)))


def constraints() -> list[Constraint]:
    """Every constraint of the v1.4.1 schemas (status is not input: skipped)."""
    found = []
    for file in sorted(CRDS.glob("*.yaml")):
        kind, version = file.stem.split(".")
        schema = yaml.safe_load(file.read_text(encoding="utf-8"))
        for path, keyword, value in _walk(schema, ()):
            if path[:1] == (("prop", "status"),):
                continue
            found.append(Constraint(kind, version, path, keyword, value))
    return found


# --- complete valid documents -----------------------------------------------------------------

CLAIM_TEMPLATE = {
    "metadata": {"labels": {"tier": "db"}, "annotations": {"note": "x"}},
    "spec": {
        "accessModes": ["ReadWriteOnce"],
        "volumeMode": "Filesystem",
        "resources": {"requests": {"storage": "1Gi"}, "limits": {"storage": "2Gi"}},
        "selector": {
            "matchLabels": {"disk": "ssd"},
            "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
        },
    },
}
MOUNTS = [
    {
        "name": "cfg",
        "mountPath": "/cfg",
        "source": {
            "configMap": {
                "name": "cfg",
                "defaultMode": 420,
                "items": [{"key": "a.conf", "path": "a.conf", "mode": 420}],
            }
        },
    },
    {
        "name": "sec",
        "mountPath": "/sec",
        "source": {
            "secret": {
                "secretName": "sec",
                "defaultMode": 420,
                "items": [{"key": "db.password", "path": "pw", "mode": 256}],
            }
        },
    },
    {
        "name": "claim",
        "mountPath": "/claim",
        "source": {"persistentVolumeClaim": {"claimName": "c"}},
    },
    {
        "name": "data",
        "mountPath": "/data",
        "source": {"persistentVolumeClaimTemplate": CLAIM_TEMPLATE},
    },
    {
        "name": "host",
        "mountPath": "/host",
        "mountPropagation": "None",
        "source": {"hostPath": {"path": "/h", "type": "Directory"}},
    },
    {
        "name": "tmp",
        "mountPath": "/tmp",
        "source": {"emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
    },
    {
        "name": "local",
        "mountPath": "/local",
        "source": {"tLocalVolume": {"uid": "1000", "gid": "1000", "mode": "755"}},
    },
]
ENV = [
    {"name": "PLAIN", "value": "1"},
    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
    {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}},
    {"name": "CM", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "db-host"}}},
    {"name": "PW", "valueFrom": {"secretKeyRef": {"name": "sec", "key": "db.password"}}},
]


def full_server(version: str, sub_type: str) -> dict[str, Any]:
    """A TServer that uses every field the CRD constrains (tars or normal section)."""
    k8s: dict[str, Any] = {
        "serviceAccount": "runner",
        "env": copy.deepcopy(ENV),
        "envFrom": [
            {"prefix": "CFG_", "configMapRef": {"name": "cm"}},
            {"secretRef": {"name": "sec"}},
        ],
        "hostPorts": [{"nameRef": "MainObj" if sub_type == "tars" else "http", "port": 30001}],
        "mounts": copy.deepcopy(MOUNTS if sub_type == "tars" else MOUNTS[:3] + MOUNTS[4:6]),
        "nodeSelector": [{"key": "disk", "operator": "In", "values": ["ssd"]}],
        "abilityAffinity": "AppOrServerPreferred",
        "podManagementPolicy": "Parallel",
        "replicas": 2,
        "resources": {
            "requests": {"cpu": "100m", "memory": "64Mi"},
            "limits": {"cpu": "1", "memory": "1Gi"},
        },
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "imagePullPolicy": "IfNotPresent",
        "launcherType": "background",
    }
    if version == "v1beta3":
        k8s["readinessGates"] = ["example.com/ready"]
        k8s["command"] = ["/bin/run"]
        k8s["args"] = ["-v"]
    else:
        k8s["readinessGate"] = "example.com/ready"
    spec: dict[str, Any] = {
        "app": "Full",
        "server": "Server" if sub_type == "tars" else "Web",
        "subType": sub_type,
        "important": 3,
        "k8s": k8s,
        "release": {
            "id": "v1",
            "image": "reg.example.com/full:v1",
            "secret": "pull-secret",
            "time": "2024-01-02T03:04:05Z",
            "nodeImage": "reg.example.com/tarsnode:v1",
            "nodeSecret": "node-secret",
        },
    }
    if sub_type == "tars":
        spec["tars"] = {
            "template": "tars.cpp",
            "profile": "",
            "asyncThread": 3,
            "servants": [
                {
                    "name": "MainObj",
                    "port": 10000,
                    "thread": 3,
                    "capacity": 100,
                    "connection": 100,
                    "timeout": 100,
                    "isTars": True,
                    "isTcp": True,
                }
            ],
            "ports": [{"name": "admin", "port": 9000, "isTcp": True}],
        }
    else:
        del spec["release"]["nodeImage"], spec["release"]["nodeSecret"]
        spec["normal"] = {"ports": [{"name": "http", "port": 8080, "isTcp": True}]}
    name = f"{spec['app'].lower()}-{spec['server'].lower()}"
    return {
        "apiVersion": f"k8s.tars.io/{version}",
        "kind": "TServer",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def full_framework(version: str) -> dict[str, Any]:
    """A TFrameworkConfig that uses every field the CRD constrains."""
    doc: dict[str, Any] = {
        "apiVersion": f"k8s.tars.io/{version}",
        "kind": "TFrameworkConfig",
        "metadata": {"name": "tars-framework", "namespace": NAMESPACE},
        "imageBuild": {"maxBuildTime": 300},
        "recordLimit": {"texitedPod": 48, "tconfigHistory": 48, "timageRelease": 48},
        "nodeImage": {"image": "reg.example.com/tarsnode:v1", "secret": "node-secret"},
        "upChain": {"default": [{"host": "registry.example.com", "port": 17890}]},
    }
    if version == "v1beta3":
        doc["imageBuild"]["executor"] = {"image": "reg.example.com/kaniko:v1", "secret": "ks"}
        doc["imageUpload"] = {"registry": "reg.example.com/up", "secret": "up-secret"}
    else:
        doc["imageRegistry"] = {"registry": "reg.example.com/up", "secret": "up-secret"}
    return doc


def full_documents(kind: str, version: str) -> list[dict[str, Any]]:
    if kind == "TServer":
        return [full_server(version, "tars"), full_server(version, "normal")]
    if kind == "TTemplate":
        doc = template("tars.full", "tars.default")
        doc["apiVersion"] = f"k8s.tars.io/{version}"
        return [doc]
    return [full_framework(version)]


def check_doc(doc: dict[str, Any], crd: bool = False) -> list[Violation]:
    """Violations of ``doc`` in a stack with the usual templates (and framework config); with
    ``crd``, as crd mode checks it (where the TarsK8S CRD itself meets the document)."""
    docs = [template("tars.default"), template("tars.cpp", "tars.default"), doc]
    if doc["kind"] != "TFrameworkConfig":
        docs.insert(0, copy.deepcopy(FRAMEWORK))
    stack = load_texts({"stack.yaml": stack_text(*docs)}, NAMESPACE)
    found = (
        pipeline_check(stack, Options(namespace=NAMESPACE, mode=Mode.CRD))
        if crd
        else validate(stack)
    )
    return [v for v in found if v.name == doc["metadata"]["name"]]


# --- placing a value at a schema path --------------------------------------------------------


def _resolve(node: Any, path: tuple[Seg, ...], at: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The concrete path of the first existing node at ``path`` under ``node``."""
    if not path:
        return at
    (kind, name), rest = path[0], path[1:]
    if kind == "prop":
        if isinstance(node, dict) and name in node:
            return _resolve(node[name], rest, (*at, name))
        return None
    if kind == "item" and isinstance(node, list):
        for index, item in enumerate(node):
            found = _resolve(item, rest, (*at, index))
            if found is not None:
                return found
        return None
    if kind == "value" and isinstance(node, dict):
        for key, item in node.items():
            found = _resolve(item, rest, (*at, key))
            if found is not None:
                return found
    return None


def _get(doc: Any, at: tuple[Any, ...]) -> Any:
    for key in at:
        doc = doc[key]
    return doc


def placed(c: Constraint, value: Any) -> tuple[dict[str, Any], tuple[Any, ...]] | None:
    """A full document with ``value`` at the constraint's node (its parent must exist)."""
    *parent, (kind, name) = c.path
    for doc in full_documents(c.kind, c.version):
        at = _resolve(doc, tuple(parent), ())
        if at is None:
            continue
        doc = copy.deepcopy(doc)
        container = _get(doc, at)
        if kind == "prop" and isinstance(container, dict):
            container[name] = value
            return doc, (*at, name)
        if kind == "item" and isinstance(container, list) and container:
            container[0] = value
            return doc, (*at, 0)
        if kind == "value" and isinstance(container, dict):
            container["probe"] = value
            return doc, (*at, "probe")
    return None


def node_of(c: Constraint) -> tuple[dict[str, Any], tuple[Any, ...]] | None:
    """A full document and the concrete path of the constraint's node (it must exist)."""
    for doc in full_documents(c.kind, c.version):
        at = _resolve(doc, c.path, ())
        if at is not None:
            return copy.deepcopy(doc), at
    return None


def errors_at(violations: list[Violation], at: tuple[Any, ...]) -> list[Violation]:
    if not at:  # the document itself
        return [v for v in violations if v.is_error]
    field = format_path(at)
    return [
        v
        for v in violations
        if v.is_error and (v.field == field or v.field.startswith((f"{field}.", f"{field}[")))
    ]


def schema_errors_at(c: Constraint, violations: list[Violation], at: tuple[Any, ...]) -> list:
    return [v for v in errors_at(violations, at) if v.code == SCHEMA_CODE[c.kind]]


# --- deliberate differences ---------------------------------------------------------------------

STRICTER: dict[tuple[str, str], str] = {
    # (schema path, keyword): why a value the CRD admits is refused here
    (".spec.k8s.nodeSelector[].key", "pattern"): "a node label key is a qualified name "
    "(lowercase DNS prefix); Kubernetes refuses the pod's affinity otherwise",
    (
        ".spec.k8s.mounts[].source.persistentVolumeClaimTemplate.spec.selector.matchExpressions[].key",
        "pattern",
    ): "a label selector key is a qualified name (lowercase DNS prefix)",
    (".spec.k8s.readinessGates[]", "pattern"): "a pod condition type is a qualified name",
    (".spec.k8s.readinessGate", "pattern"): "a pod condition type is a qualified name",
    (".spec.release.image", "pattern"): "an empty release.image is refused (no image to run); "
    "release images also follow the OCI reference grammar (e.g. no lone '-')",
    (".spec.release.nodeImage", "pattern"): "release images also follow the OCI reference "
    "grammar (e.g. no lone '-')",
    (".nodeImage.image", "pattern"): "an empty nodeImage.image gives every Tars server's "
    "tarsnode container no image; it also follows the OCI reference grammar (issue #17: "
    "no repo:v1.4.:0 in every tarsnode container)",
    (".imageBuild.executor.image", "pattern"): "the OCI reference grammar (issue #17)",
    (".imageUpload.registry", "pattern"): "a repository or registry host by the OCI reference "
    "grammar, no tag (issue #17)",
    (".imageRegistry.registry", "pattern"): "as imageUpload.registry (v1beta2's name)",
}
LOOSER: dict[tuple[str, str], str] = {
    (".spec.k8s.env[].valueFrom.secretKeyRef.key", "pattern"): "keys like db.password are "
    "legal (issue #9; Kubernetes' own key rule)",
    (".spec.k8s.env[].valueFrom.configMapKeyRef.key", "pattern"): "keys like db.password are "
    "legal (issue #9; Kubernetes' own key rule)",
    (".spec", "oneOf"): "a normal server carrying spec.tars instead of spec.normal is a TS014 "
    "warning (design §5)",
}


CRD_MODE: dict[tuple[str, str], str] = {
    # (schema path, keyword): why the constraint holds in crd mode only
    (".spec.release.image", "pattern"): "expand mode takes any OCI reference (digests, '_'); "
    "the CRD's pattern applies where the TServer itself is written (crd mode)",
    (".spec.release.nodeImage", "pattern"): "as release.image",
}


def _key(c: Constraint) -> tuple[str, str]:
    return c.label.split(":", 1)[1].rsplit(":", 1)[0], c.keyword


ALL = constraints()


def test_the_walk_finds_every_constraint_kind() -> None:
    assert {c.keyword for c in ALL} == set(KEYWORDS)
    assert {(c.kind, c.version) for c in ALL} == {
        (k, v) for k in SCHEMA_CODES for v in ("v1beta2", "v1beta3")
    }
    assert len(ALL) > 300


@pytest.mark.parametrize("kind", sorted(SCHEMA_CODES))
@pytest.mark.parametrize("version", ["v1beta2", "v1beta3"])
def test_full_documents_are_valid(kind: str, version: str) -> None:
    for doc in full_documents(kind, version):
        assert [v.format() for v in check_doc(doc) if v.is_error] == []


def _cases() -> list[Any]:
    return [pytest.param(c, id=c.label) for c in ALL]


@pytest.mark.parametrize("c", _cases())
def test_constraint_is_enforced(c: Constraint) -> None:
    key = _key(c)
    crd = key in CRD_MODE

    def check(doc: dict[str, Any]) -> list[Violation]:
        return check_doc(doc, crd)

    if c.keyword == "pattern":
        regex = re.compile(c.value)
        tried = 0
        for probe in PATTERN_PROBES:
            target = placed(c, probe)
            assert target is not None, f"no place for {c.label}"
            doc, at = target
            crd_admits = regex.search(probe) is not None
            if crd_admits:
                if key in STRICTER:
                    continue
                assert schema_errors_at(c, check(doc), at) == [], (c.label, probe)
            else:
                if key in LOOSER:
                    continue
                assert errors_at(check(doc), at), (c.label, probe)
                tried += 1
        assert tried or key in LOOSER, f"no probe violates {c.label}"
    elif c.keyword == "maxLength":
        doc, at = placed(c, "a" * (c.value + 1)) or pytest.fail(c.label)
        assert errors_at(check(doc), at), c.label
    elif c.keyword in ("minimum", "maximum"):
        outside = c.value - 1 if c.keyword == "minimum" else c.value + 1
        doc, at = placed(c, outside) or pytest.fail(c.label)
        assert errors_at(check(doc), at), (c.label, outside)
        doc, at = placed(c, c.value) or pytest.fail(c.label)
        assert schema_errors_at(c, check(doc), at) == [], (c.label, c.value)
    elif c.keyword == "enum":
        doc, at = placed(c, "Bogus") or pytest.fail(c.label)
        assert errors_at(check(doc), at), c.label
        for allowed in c.value:
            doc, at = placed(c, allowed) or pytest.fail(c.label)
            assert schema_errors_at(c, check(doc), at) == [], (c.label, allowed)
    elif c.keyword == "required":
        node = node_of(c)
        assert node is not None, f"no place for {c.label}"
        for name in c.value:
            doc, at = copy.deepcopy(node)
            container = _get(doc, at)
            if isinstance(container, list):  # `required` on an array applies to its items
                container, at = container[0], (*at, 0)
            if name not in container:
                continue  # the other oneOf branch
            del container[name]
            found = errors_at(check(doc), at)
            if key in LOOSER:
                assert found == [], (c.label, name)
            else:
                assert found, (c.label, name)
    elif c.keyword == "minItems":
        doc, at = placed(c, []) or pytest.fail(c.label)
        assert errors_at(check(doc), at), c.label
    elif c.keyword == "oneOf":
        node = node_of(c)
        assert node is not None, f"no place for {c.label}"
        branches = [b["required"] for b in c.value]
        doc, at = copy.deepcopy(node)
        container = _get(doc, at)
        if isinstance(container, list):
            container, at = container[0], (*at, 0)
        present = [b for b in branches if all(k in container for k in b)]
        assert len(present) == 1, c.label
        for name in present[0]:  # no branch
            if all(name in b for b in branches):
                continue  # shared by every branch (k8s): its absence is `required`
            del container[name]
        assert errors_at(check(doc), at), (c.label, "none")
        doc, at = copy.deepcopy(node)
        container = _get(doc, at)
        if isinstance(container, list):
            container, at = container[0], (*at, 0)
        other = next(b for b in branches if b != present[0])
        sample = full_documents(c.kind, c.version)
        for name in other:  # two branches: borrow the other branch's value
            for candidate in sample:
                where = _resolve(candidate, c.path, ())
                if where is None:
                    continue
                source = _get(candidate, where)
                source = source if isinstance(source, dict) else None
                if source is None:
                    for item in _get(candidate, where):
                        if name in item:
                            source = item
                            break
                if source and name in source:
                    container[name] = copy.deepcopy(source[name])
                    break
            else:
                container[name] = {}
        found = errors_at(check(doc), at)
        if key in LOOSER:
            return
        assert found, (c.label, "both")
    elif c.keyword == "format":
        assert c.value == "date-time"
        doc, at = placed(c, "yesterday") or pytest.fail(c.label)
        assert errors_at(check(doc), at), c.label
        doc, at = placed(c, "2024-01-02T03:04:05+08:00") or pytest.fail(c.label)
        assert schema_errors_at(c, check(doc), at) == [], c.label
    elif c.keyword == "x-kubernetes-int-or-string":
        for value in (5, "5"):
            doc, at = placed(c, value) or pytest.fail(c.label)
            assert schema_errors_at(c, check(doc), at) == [], (c.label, value)
    else:  # pragma: no cover - KEYWORDS lists what is handled
        pytest.fail(c.keyword)


def test_deliberate_differences_name_real_constraints() -> None:
    keys = {_key(c) for c in ALL}
    assert set(STRICTER) <= keys
    assert set(LOOSER) <= keys
