"""The v1.4.1 ``tserver`` library chart as a pure render: values → the documents it produces, each
field with the values path it came from; the chart's defaults and quirks are on the package page."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from ..kernel.paths import Segment
from ..kernel.yaml_reader import YamlLoader
from ..models.document import V1BETA2
from ..models.vocabulary import (
    LABEL_APP,
    LABEL_IMAGE_TYPE,
    LABEL_SERVER,
    LABEL_SUBTYPE,
    LABEL_TEMPLATE,
)
from ..secrets.redaction import quote

CHART = "helm-lib v1.4.1 (tserver chart 1.3.0)"


MARKER_KEYS = ("app", "server", "repo", "servants")
"""A values file has at least one of these top-level keys (and no apiVersion or kind)."""


READ_KEYS = frozenset(
    {
        "app",
        "server",
        "subtype",
        "template",
        "profile",
        "asyncThread",
        "servants",
        "replicas",
        "hostNetwork",
        "hostIPC",
        "hostPorts",
        "nodeSelector",
        "resources",
        "abilityAffinity",
        "notStacked",
        "daemonSet",
        "imagePullPolicy",
        "launcherType",
        "updateStrategy",
        "podManagementPolicy",
        "envVars",
        "mounts",
        "repo",
        "config",
        "nodeConfig",
        "appConfig",
        "user",
        "reason",
    }
)
"""Every top-level values key the v1.4.1 chart reads."""


IGNORED_HINTS = {
    "labelMatch": "helm-lib v1.4.1 renders nodeSelector, not labelMatch: the TServer gets "
    "nodeSelector: [] (move the expressions to nodeSelector)",
    "important": "helm-lib v1.4.1 always writes spec.important: 5",
}


K8S_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("abilityAffinity", "AppOrServerPreferred"),
    ("notStacked", False),
    ("daemonSet", False),
    ("imagePullPolicy", "Always"),
    ("launcherType", "background"),
)


SERVANT_DEFAULTS = (("thread", 5), ("capacity", 100000), ("connection", 100000))


BASE_ENV: tuple[dict[str, Any], ...] = tuple(
    {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}
    for name, path in (
        ("Namespace", "metadata.namespace"),
        ("PodName", "metadata.name"),
        ("PodIP", "status.podIP"),
        ("ServerApp", "metadata.labels['tars.io/ServerApp']"),
    )
)


LOG_MOUNT: dict[str, Any] = {
    "name": "host-log-dir",
    "source": {"hostPath": {"path": "/usr/local/app/tars/app_log", "type": "DirectoryOrCreate"}},
    "mountPath": "/usr/local/app/tars/app_log",
    "subPathExpr": "$(Namespace)/$(PodName)",
}


KEEP = {"helm.sh/resource-policy": "keep"}


Origins = tuple[tuple[tuple[Segment, ...], tuple[Segment, ...]], ...]


@dataclass(frozen=True)
class Produced:
    """One document the chart renders, with the values path of each of its fields."""

    body: dict[str, Any]
    origins: Origins


class Unrenderable(Exception):
    def __init__(self, path: tuple[Segment, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _empty(value: Any) -> bool:
    """Go template/sprig emptiness (``if``, ``default``): nil, false, 0, "", empty list/map."""
    return value is None or value is False or value == 0 or value in ("", [], {})


def _default(fallback: Any, value: Any) -> Any:
    return fallback if _empty(value) else value


def _strval(value: Any) -> str:
    """Go's ``fmt`` text of a values scalar (what ``quote`` and bare insertion write)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _quote(value: Any, path: tuple[Segment, ...]) -> str | None:
    """``{{ x | quote }}``: the value's text as a string; nil writes nothing (null). A mapping
    or list is refused: helm would write Go's ``map[…]`` text of it, never what was meant."""
    if isinstance(value, (dict, list)):
        raise Unrenderable(path, f"must be a single value: {CHART} writes it as quoted text")
    return None if value is None else _strval(value)


def _bare(value: Any, path: tuple[Segment, ...]) -> Any:
    """``{{ x }}`` written into YAML and read back, as the API server reads helm's output."""
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        raise Unrenderable(
            path, f"must be a single value: {CHART} writes it as text, not as YAML structure"
        )
    text = _strval(value)
    if "\n" in text:
        raise Unrenderable(path, f"must be one line: {CHART} writes it unquoted")
    try:
        parsed = yaml.load(f"v: {text}", Loader=YamlLoader)
    except yaml.YAMLError:
        parsed = None
    if not isinstance(parsed, dict) or list(parsed) != ["v"] or isinstance(parsed["v"], dict):
        raise Unrenderable(
            path,
            f"{quote(text, path)} is written unquoted by {CHART} and is then not valid YAML "
            "(quote it)",
        )
    return parsed["v"]


def _lower(value: Any, path: tuple[Segment, ...]) -> str:
    if not isinstance(value, str):
        what = "missing" if value is None else f"a {type(value).__name__}, not a string"
        raise Unrenderable(path, f"is {what}: {CHART} cannot render without it (lower)")
    return value.lower()


def _items(values: Mapping[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
    """The entries of a list value that the chart ranges over (nil or empty: none)."""
    value = values.get(key)
    if _empty(value):
        return []
    if not isinstance(value, list):
        raise Unrenderable((key,), f"must be a list, got {type(value).__name__}")
    out = []
    for position, item in enumerate(value):
        if not isinstance(item, dict):
            raise Unrenderable((key, position), "must be a mapping")
        out.append((position, item))
    return out


def config_suffix(body: Mapping[str, Any]) -> str:
    """The name suffix of a TConfig: 10 hex digits of the SHA-256 of its fields (name left out),
    in place of helm's Unix time, so unchanged values render the same name."""
    fields = {k: v for k, v in body.items() if k != "metadata"}
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()
    return digest[:10]


def render_values(values: Mapping[str, Any]) -> Iterator[Produced]:
    app, server = values.get("app"), values.get("server")
    name = f"{_lower(app, ('app',))}-{_lower(server, ('server',))}"
    repo = values.get("repo")
    if not isinstance(repo, dict):
        raise Unrenderable(("repo",), f"must be a mapping with id, image and secret ({CHART})")
    if not _empty(values.get("updateStrategy")):
        raise Unrenderable(
            ("updateStrategy",),
            f"{CHART} writes updateStrategy without its key, which helm cannot parse; remove it "
            "(the chart's default is RollingUpdate, partition 0), or `convert` the file and set "
            "spec.k8s.updateStrategy",
        )
    server_doc = _tserver(values, name, repo)
    configs = [
        _config(values, name, "config", item, position, None)
        for position, item in _items(values, "config")
    ]
    node_configs = [
        _config(values, name, "nodeConfig", item, position, item)
        for position, item in _items(values, "nodeConfig")
    ]
    app_configs = [
        _config(values, name, "appConfig", item, position, None)
        for position, item in _items(values, "appConfig")
    ]
    yield server_doc
    yield from configs
    yield from node_configs
    yield from app_configs
    yield _timage(values, name, repo)


def _tserver(values: Mapping[str, Any], name: str, repo: Mapping[str, Any]) -> Produced:
    v = values
    origins: list[tuple[tuple[Segment, ...], tuple[Segment, ...]]] = [
        (("metadata",), ("app",)),
        (("metadata", "labels", LABEL_SERVER), ("server",)),
        (("metadata", "labels", LABEL_SUBTYPE), ("subtype",)),
        (("metadata", "labels", LABEL_TEMPLATE), ("template",)),
        (("spec", "app"), ("app",)),
        (("spec", "server"), ("server",)),
        (("spec", "tars", "template"), ("template",)),
        (("spec", "tars", "profile"), ("profile",)),
        (("spec", "tars", "asyncThread"), ("asyncThread",)),
        (("spec", "tars", "servants"), ("servants",)),
        (("spec", "k8s"), ()),
        (("spec", "release"), ("repo",)),
    ]
    servants = []
    for position, item in _items(v, "servants"):
        at: tuple[Segment, ...] = ("servants", position)
        servant = {"name": _bare(item.get("name"), (*at, "name"))}
        servant["port"] = _bare(item.get("port"), (*at, "port"))
        servant["isTars"] = _bare(item.get("isTars"), (*at, "isTars"))
        for key, fallback in SERVANT_DEFAULTS:
            servant[key] = _bare(_default(fallback, item.get(key)), (*at, key))
        servant["isTcp"] = _bare(item.get("isTcp"), (*at, "isTcp"))
        servant["timeout"] = _bare(_default(60000, item.get("timeout")), (*at, "timeout"))
        servants.append(servant)
        origins.append((("spec", "tars", "servants", position), at))
    k8s: dict[str, Any] = {
        "replicas": _bare(_default(1, v.get("replicas")), ("replicas",)),
        "hostNetwork": _bare(v.get("hostNetwork"), ("hostNetwork",)),
        "hostIPC": _bare(v.get("hostIPC"), ("hostIPC",)),
    }
    for key in ("replicas", "hostNetwork", "hostIPC", "hostPorts", "nodeSelector", "resources"):
        origins.append((("spec", "k8s", key), (key,)))
    host_ports = _items(v, "hostPorts")
    if host_ports:
        k8s["hostPorts"] = [
            {
                "nameRef": _bare(item.get("nameRef"), ("hostPorts", i, "nameRef")),
                "port": _bare(item.get("port"), ("hostPorts", i, "port")),
            }
            for i, item in host_ports
        ]
    k8s["nodeSelector"] = [] if _empty(v.get("nodeSelector")) else v["nodeSelector"]
    if not _empty(v.get("resources")):
        k8s["resources"] = v["resources"]
    for key, fallback in K8S_DEFAULTS:
        k8s[key] = _bare(_default(fallback, v.get(key)), (key,))
        origins.append((("spec", "k8s", key), (key,)))
    k8s["updateStrategy"] = {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"}
    k8s["podManagementPolicy"] = _bare(
        _default("Parallel", v.get("podManagementPolicy")), ("podManagementPolicy",)
    )
    origins.append((("spec", "k8s", "podManagementPolicy"), ("podManagementPolicy",)))
    env = [json.loads(json.dumps(e)) for e in BASE_ENV]
    origins.append((("spec", "k8s", "env"), ("envVars",)))
    for i, item in _items(v, "envVars"):
        env.append(
            {
                "name": _bare(item.get("name"), ("envVars", i, "name")),
                "value": _quote(item.get("value"), ("envVars", i, "value")),
            }
        )
        origins.append((("spec", "k8s", "env", len(env) - 1), ("envVars", i)))
    k8s["env"] = env
    mounts = [json.loads(json.dumps(LOG_MOUNT))]
    origins.append((("spec", "k8s", "mounts"), ("mounts",)))
    user_mounts = v.get("mounts")
    if not _empty(user_mounts):
        if not isinstance(user_mounts, list):
            raise Unrenderable(("mounts",), "must be a list")
        for i, mount in enumerate(user_mounts):
            mounts.append(mount)
            origins.append((("spec", "k8s", "mounts", i + 1), ("mounts", i)))
    k8s["mounts"] = mounts
    labels = {
        LABEL_APP: _bare(v.get("app"), ("app",)),
        LABEL_SERVER: _bare(v.get("server"), ("server",)),
        LABEL_SUBTYPE: _bare(_default("tars", v.get("subtype")), ("subtype",)),
        LABEL_TEMPLATE: _bare(v.get("template"), ("template",)),
    }
    body: dict[str, Any] = {
        "apiVersion": V1BETA2,
        "kind": "TServer",
        "metadata": {"name": name, "labels": labels, "annotations": {"name": name}},
        "spec": {
            "app": labels[LABEL_APP],
            "server": labels[LABEL_SERVER],
            "subType": "tars",
            "important": 5,
            "tars": {
                "template": labels[LABEL_TEMPLATE],
                "profile": _quote(v.get("profile"), ("profile",)),
                "asyncThread": _bare(_default(3, v.get("asyncThread")), ("asyncThread",)),
                "servants": servants,
            },
            "k8s": k8s,
            "release": {
                "id": _quote(repo.get("id"), ("repo", "id")),
                "image": _bare(repo.get("image"), ("repo", "image")),
                "secret": _bare(repo.get("secret"), ("repo", "secret")),
            },
        },
    }
    for key in ("id", "image", "secret"):
        origins.append((("spec", "release", key), ("repo", key)))
    return Produced(body, tuple(origins))


def _person(values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    return (
        _quote(_default("helm", values.get("user")), ("user",)),
        _quote(_default("helm install", values.get("reason")), ("reason",)),
    )


def _config(
    values: Mapping[str, Any],
    name: str,
    key: str,
    item: Mapping[str, Any],
    position: int,
    node: Mapping[str, Any] | None,
) -> Produced:
    at: tuple[Segment, ...] = (key, position)
    file_part = _lower(item.get("name"), (*at, "name")).replace(".", "-")
    person, reason = _person(values)
    body: dict[str, Any] = {
        "apiVersion": V1BETA2,
        "kind": "TConfig",
        "metadata": {"name": "", "annotations": dict(KEEP)},
        "app": _bare(values.get("app"), ("app",)),
        # app-level configs: the chart writes server: "" literally
        "server": "" if key == "appConfig" else _bare(values.get("server"), ("server",)),
    }
    if node is not None:
        body["podSeq"] = _quote(node.get("podSeq"), (*at, "podSeq"))
    body["configName"] = _bare(item.get("name"), (*at, "name"))
    body["configContent"] = _quote(item.get("content"), (*at, "content"))
    body["updatePerson"] = person
    body["updateReason"] = reason
    body["activated"] = True
    seq = ""
    if node is not None:  # bare {{ .podSeq }} in the name: nil writes nothing
        seq = "-" + ("" if node.get("podSeq") is None else _strval(node["podSeq"]))
    body["metadata"]["name"] = f"{name}-{file_part}{seq}-{config_suffix(body)}"
    origins: Origins = (
        ((), at),
        (("metadata", "name"), (*at, "name")),
        (("app",), ("app",)),
        (("server",), at if key == "appConfig" else ("server",)),
        (("podSeq",), (*at, "podSeq")),
        (("configName",), (*at, "name")),
        (("configContent",), (*at, "content")),
        (("updatePerson",), ("user",)),
        (("updateReason",), ("reason",)),
    )
    return Produced(body, origins)


def _timage(values: Mapping[str, Any], name: str, repo: Mapping[str, Any]) -> Produced:
    person, reason = _person(values)
    body: dict[str, Any] = {
        "apiVersion": V1BETA2,
        "kind": "TImage",
        "metadata": {
            "name": name,
            "labels": {
                LABEL_IMAGE_TYPE: "server",
                LABEL_APP: _bare(values.get("app"), ("app",)),
                LABEL_SERVER: _bare(values.get("server"), ("server",)),
            },
        },
        "imageType": "server",
        "releases": [
            {
                "image": _bare(repo.get("image"), ("repo", "image")),
                "secret": _bare(repo.get("secret"), ("repo", "secret")),
                "id": _bare(repo.get("id"), ("repo", "id")),
                "createPerson": person,
                "mark": reason,
            }
        ],
    }
    origins: Origins = (
        ((), ("repo",)),
        (("metadata",), ("app",)),
        (("metadata", "labels", LABEL_SERVER), ("server",)),
        (("releases", 0), ("repo",)),
        (("releases", 0, "createPerson"), ("user",)),
        (("releases", 0, "mark"), ("reason",)),
    )
    return Produced(body, origins)
