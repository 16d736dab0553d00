"""The fuzz cases: well-formed documents of every kind, broken the ways users and reviewers
break them, each carrying secret markers unique to the case.

A case is drawn from a hypothesis ``data`` object (so a run is reproducible from its seed):
seed documents (a TServer, a TAccount, a Secret, plain objects, helm-lib and chart values
files) are mutated as trees (a value of another type, a key removed or added, keys that are
not strings, a TarsK8S kind under another API group, a document slipped under ``apiVersion``
or ``kind``), written as YAML, and the text mutated (a tag that does not fit its value, a
truncated file, a tab, a flow collection tagged as another). Secret markers are planted only
where a value is a secret by the product's contract: a TAccount's credentials, a Secret's
data, a Pulumi secret, a values file's password, and any value under a key that names a
secret (so moving them around never makes them a legitimate output).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import yaml
from hypothesis import strategies as st

from tars_components.secrets.redaction import holds_secrets, names_secret

Doc = dict[str, Any]


@dataclass
class Case:
    """One input: files by name, and the markers that must never be printed."""

    index: int
    marker: str
    """Planted at secret places: never in any message, output, answer or registration
    (a written file created 0600, a Secret's own file, excepted)."""
    files: dict[str, str] = field(default_factory=dict)
    documents: list[Any] = field(default_factory=list)
    """The documents before they were written as text (the provider and component targets
    take them as values)."""


MARKER_PREFIX = "zqsek"


def marker_for(index: int, salt: int) -> str:
    """A marker no output could make up: lowercase letters and digits (names are lowercased),
    unique per case."""
    return f"{MARKER_PREFIX}{index:07d}x{salt:06x}"


API_VERSION_SLIPS = [
    "k8s.tars.com/v1beta3",
    "k8swtars.io/v1beta3",
    "v1",
    "K8S.tars.io/v1beta3",
    "k8s.tars.io/v1beta1",
    "k8s.tars.io/v9",
    "k8s.tars.io",
    "apps/v1",
    "",
]
KIND_SLIPS: list[Any] = ["taccount", "TACCOUNT", "Secrets", "secret", "TServers", "Unknown", ""]
KEY_POOL: list[Any] = [
    "password",
    "token",
    "data",
    "stringData",
    "extra",
    "x-y.z",
    1,
    True,
    None,
    1.5,
    "metadata",
    "spec",
    "apiVersion",
    "kind",
]
FILLERS: list[Any] = [0, -1, 2**40, 1.5, True, False, None, "", "x", [], {}, [1, "a"], {"a": 1}]


def tserver() -> Doc:
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": "shop-orderserver"},
        "spec": {
            "app": "Shop",
            "server": "OrderServer",
            "subType": "tars",
            "tars": {
                "template": "tars.cpp",
                "servants": [{"name": "OrderObj", "port": 10001}],
            },
            "k8s": {"replicas": 1, "env": [{"name": "A", "value": "b"}]},
            "release": {"id": "v1", "image": "reg.example.com/shop/order:v1"},
        },
    }


def framework() -> list[Doc]:
    return [
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TFrameworkConfig",
            "metadata": {"name": "tars-framework"},
            "imageBuild": {
                "maxBuildTime": 600,
                "idFormat": "",
                "executor": {"image": "reg.example.com/kaniko:v1", "secret": "s"},
            },
            "imageUpload": {"registry": "reg.example.com/up", "secret": "s"},
            "nodeImage": {"image": "reg.example.com/tarsnode:v1", "secret": "s"},
            "recordLimit": {"tconfigHistory": 32, "texitedPod": 32, "timageRelease": 60},
            "upChain": {},
            "expand": {"nativeDBConfig": "", "nativeFrameworkConfig": ""},
        },
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TTemplate",
            "metadata": {"name": "tars.default"},
            "spec": {"parent": "tars.default", "content": "<tars></tars>"},
        },
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TTemplate",
            "metadata": {"name": "tars.cpp"},
            "spec": {"parent": "tars.default", "content": ""},
        },
    ]


def taccount(marker: str) -> Doc:
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TAccount",
        "metadata": {"name": "21232f297a57a5a743894a0e4a801fc3"},
        "spec": {
            "username": "admin",
            "authentication": {
                "password": f"{marker}p",
                "tokens": [
                    {
                        "name": "web",
                        "content": f"{marker}t",
                        "updateTime": "2024-03-02T10:00:00Z",
                        "expirationTime": "2099-01-01T00:00:00Z",
                    }
                ],
            },
            "authorization": [{"role": "admin", "flag": "*"}],
        },
    }


def secret(marker: str) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db"},
        "type": "Opaque",
        "stringData": {"password": f"{marker}s"},
        "data": {"token": f"{marker}d"},
    }


def plain(marker: str) -> Doc:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Thing",
        "metadata": {"name": "thing", "labels": {"a": "b"}},
        "spec": {"dbPassword": f"{marker}q", "nested": {"client_secret": f"{marker}c"}},
    }


def config_map(marker: str) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cm"},
        "data": {"plain": "value", "api_token": f"{marker}k"},
    }


def helm_values(marker: str) -> Doc:
    return {
        "app": "Demo",
        "server": "HelloServer",
        "template": "tars.cpp",
        "profile": "",
        "servants": [{"name": "HelloObj", "port": 10000, "isTars": True, "isTcp": True}],
        "envVars": [{"name": "DB_PASSWORD", "value": "x"}],
        "repo": {"id": "v1", "image": "reg.example.com/demo/hello:v1", "secret": "s"},
        "config": [{"name": "hello.conf", "content": "<main></main>"}],
        "helm": {"dockerhub": {"password": f"{marker}h"}},
    }


def chart_values(marker: str, which: str) -> Doc:
    image = {"registry": "reg.example.com/tars", "tag": "v1.4.1", "secret": "pull"}
    values: Doc = {"helm": {"dockerhub": {"password": f"{marker}v"}}}
    if which == "controller":
        values["controller"] = image
    else:
        values["framework"] = image
        values["upload"] = {"registry": "reg.example.com/up", "secret": "pull"}
    return values


# --- tree mutations ---------------------------------------------------------------------------


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*at, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*at, index)))
    return found


def _secret_path(path: tuple[Any, ...]) -> bool:
    """A path at or below a key whose value holds a marker (its leaves are left alone: a
    filler there is no secret, but then a marker's mapping could lose its secret key)."""
    return any(
        names_secret(p) or holds_secrets(p) or p in ("data", "stringData", "content") for p in path
    )


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    node = doc
    for part in path[:-1]:
        node = node[part]
    return node


def mutate(data: st.DataObject, doc: Any, marker: str) -> Any:
    """``doc`` with one tree mutation applied (a copy)."""
    doc = copy.deepcopy(doc)
    operation = data.draw(
        st.sampled_from(
            [
                "retype",
                "delete",
                "add",
                "api_version",
                "kind",
                "slip_under_api_version",
                "slip_under_kind",
                "secret_as_key",
                "nothing",
            ]
        )
    )
    if not isinstance(doc, dict):
        return doc
    paths = [p for p in _paths(doc) if p]
    if operation == "api_version":
        doc["apiVersion"] = data.draw(st.sampled_from(API_VERSION_SLIPS))
    elif operation == "kind":
        doc["kind"] = data.draw(st.sampled_from([*KIND_SLIPS, [doc.get("kind")], {"a": 1}]))
    elif operation == "slip_under_api_version":
        inner = {k: v for k, v in doc.items() if k != "apiVersion"}
        doc = {"apiVersion": inner, **{k: v for k, v in doc.items() if k != "apiVersion"}}
    elif operation == "slip_under_kind":
        doc["kind"] = {k: v for k, v in doc.items() if k not in ("kind", "apiVersion")}
    elif operation == "secret_as_key":
        doc.setdefault("spec", {})
        if isinstance(doc["spec"], dict):
            doc["spec"]["password"] = {f"{marker}n": "x"}
    elif paths and operation in ("retype", "delete", "add"):
        path = data.draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        if operation == "retype" and not _secret_path(path[:-1]):
            parent[path[-1]] = copy.deepcopy(data.draw(st.sampled_from(FILLERS)))
        elif operation == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif operation == "delete" and isinstance(parent, list):
            parent.pop(path[-1])
        elif operation == "add" and isinstance(parent, dict):
            key = data.draw(st.sampled_from(KEY_POOL))
            value = data.draw(st.sampled_from(FILLERS))
            if key in ("password", "token", "data", "stringData"):
                value = (
                    {"password": f"{marker}a"} if key in ("data", "stringData") else f"{marker}a"
                )
            if key not in parent:
                parent[key] = copy.deepcopy(value)
    return doc


# --- text mutations ---------------------------------------------------------------------------

TAGS = ["!!int", "!!float", "!!bool", "!!binary", "!!map", "!!seq", "!!set", "!!str", "!!null"]


def dump(documents: list[Any]) -> str:
    return "".join(
        "---\n" + yaml.safe_dump(d, sort_keys=False, allow_unicode=True, default_flow_style=False)
        for d in documents
    )


def mutate_text(data: st.DataObject, text: str) -> str:
    """``text`` with one text mutation applied (or none)."""
    lines = text.splitlines(keepends=True)
    operation = data.draw(
        st.sampled_from(
            ["none", "none", "tag", "tag", "truncate", "tab", "flow", "dedent", "empty_int"]
        )
    )
    if operation == "none" or not lines:
        return text
    index = data.draw(st.integers(0, len(lines) - 1))
    line = lines[index]
    if operation == "tag" and ": " in line:
        key, value = line.split(": ", 1)
        lines[index] = f"{key}: {data.draw(st.sampled_from(TAGS))} {value}"
    elif operation == "truncate":
        return text[: data.draw(st.integers(0, len(text)))]
    elif operation == "tab":
        lines[index] = "\t" + line
    elif operation == "flow" and line.rstrip().endswith(":"):
        lines[index] = (
            line.rstrip("\n")
            + " "
            + data.draw(st.sampled_from(["!!map [a]", "!!set x", "[]", "{}"]))
            + "\n"
        )
    elif operation == "dedent" and not line.lstrip().startswith(MARKER_PREFIX):
        # (a secret written as a key, moved out of its secret parent, would be just a key)
        lines[index] = line.lstrip(" ")
    elif operation == "empty_int" and ": " in line:
        lines[index] = line.split(": ", 1)[0] + ': !!int ""\n'
    return "".join(lines)


# --- whole cases ------------------------------------------------------------------------------


def stack_case(data: st.DataObject, index: int, salt: int) -> Case:
    """A stack directory's documents: the framework, and some of the seeds, mutated."""
    marker = marker_for(index, salt)
    seeds = [tserver(), taccount(marker), secret(marker), plain(marker), config_map(marker)]
    chosen = data.draw(st.lists(st.sampled_from(range(len(seeds))), min_size=1, max_size=3))
    documents: list[Any] = [*framework()]
    for position in chosen:
        document = seeds[position]
        for _ in range(data.draw(st.integers(0, 3))):
            document = mutate(data, document, marker)
        documents.append(document)
    text = mutate_text(data, _safe_dump(documents))
    return Case(index, marker, {"stack.yaml": text}, documents)


def values_case(data: st.DataObject, index: int, salt: int, which: str) -> Case:
    """A values file: helm-lib (``convert``) or a chart's (``controller``, ``framework``)."""
    marker = marker_for(index, salt)
    seed = helm_values(marker) if which == "helm" else chart_values(marker, which)
    for _ in range(data.draw(st.integers(0, 3))):
        seed = mutate(data, seed, marker)
        if isinstance(seed, dict):  # a values file has no apiVersion or kind of its own
            for key in ("apiVersion", "kind"):
                if data.draw(st.booleans()):
                    seed.pop(key, None)
    text = mutate_text(data, _safe_dump([seed]).removeprefix("---\n"))
    return Case(index, marker, {"values.yaml": text}, [seed])


def _safe_dump(documents: list[Any]) -> str:
    try:
        return dump(documents)
    except yaml.YAMLError:  # a key PyYAML cannot write (never expected): the documents alone
        return dump([d for d in documents if isinstance(d, dict)][:1])


__all__ = ["Case", "marker_for", "mutate", "mutate_text", "stack_case", "values_case"]
