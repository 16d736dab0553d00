"""What a CRD says that the models do not carry as JSON Schema: the ``oneOf`` choices (model
validators), ``status``, the API server's defaults of whole objects, ``format: date-time``, and
the v1.4.1 patterns where a model checks more than the API server should (release images:
``validate`` admits digests, the CRD keeps the chart's pattern so that the installed platform
admits what v1.4.1 admits).

A path is a dotted list of property names; ``[]`` steps into an array's items and ``{}`` into
an object's ``additionalProperties``.
"""

from __future__ import annotations

from typing import Any

from ..models.base import P_IMAGE_OR_EMPTY
from ..models.taccount import BCRYPT_LENGTH

_SERVER = "spec.k8s"
_SOURCES = (
    "configMap",
    "secret",
    "persistentVolumeClaim",
    "persistentVolumeClaimTemplate",
    "hostPath",
    "emptyDir",
    "tLocalVolume",
)
ONE_OF: dict[str, dict[str, tuple[tuple[str, ...], ...]]] = {
    "TServer": {
        "spec": (("tars", "k8s"), ("normal", "k8s")),
        f"{_SERVER}.env[]": (("value",), ("valueFrom",)),
        f"{_SERVER}.env[].valueFrom": (
            ("fieldRef",),
            ("resourceFieldRef",),
            ("configMapKeyRef",),
            ("secretKeyRef",),
        ),
        f"{_SERVER}.envFrom[]": (("configMapRef",), ("secretRef",)),
        f"{_SERVER}.mounts[].source": tuple((s,) for s in _SOURCES),
    },
    "TAccount": {"spec.authentication": (("password",), ("bcryptPassword",))},
}
"""``oneOf`` of required property sets: each a model validator's "exactly one of"."""

DATE_TIMES: dict[str, tuple[str, ...]] = {
    "TAccount": (
        "spec.authentication.tokens[].expirationTime",
        "spec.authentication.tokens[].updateTime",
        "spec.authorization[].updateTime",
    ),
    "TConfig": ("updateTime",),
    "TImage": ("build.last.createTime", "build.running.createTime", "releases[].createTime"),
    "TServer": ("spec.release.time",),
    "TTree": ("apps[].createTime", "businesses[].createTime"),
}
"""RFC 3339 timestamps the API server checks (``format: date-time``)."""

PATCHES: dict[str, dict[str, dict[str, Any]]] = {
    "TServer": {
        f"{_SERVER}.resources": {"default": {}},
        f"{_SERVER}.updateStrategy": {"default": {}},
        f"{_SERVER}.updateStrategy.rollingUpdate": {"default": {}},
        f"{_SERVER}.nodeSelector": {"default": []},
        "spec.tars.servants": {"default": []},
        "spec.normal.ports": {"default": []},
        "spec.release.image": {"pattern": P_IMAGE_OR_EMPTY},
        "spec.release.nodeImage": {"pattern": P_IMAGE_OR_EMPTY},
        "spec.release.time": {"pattern": None},
    },
    "TAccount": {
        "spec.authentication.password": {
            "type": "string",
            "minLength": 6,
            "maxLength": 32,
            "pattern": r"^[\x21-\x7e]*$",
        },
        "spec.authentication.bcryptPassword": {
            "type": "string",
            "minLength": BCRYPT_LENGTH,
            "maxLength": BCRYPT_LENGTH,
        },
        # TarsK8S's Go types serialise a zero timestamp as null (pruned, so absent) and nothing
        # fails on an incomplete token or grant: the API server admits what v1.4.1 admits and
        # only ``validate`` asks for whole items
        "spec.authentication.tokens[]": {"required": None},
        "spec.authorization[]": {"required": None},
    },
    "TFrameworkConfig": {
        "expand": {"default": {}},
        "recordLimit": {"default": {}},
        "upChain": {"default": {}},
        "nodeImage.image": {"pattern": P_IMAGE_OR_EMPTY},
        # an incomplete upChain endpoint fails nothing: as v1.4.1
        "upChain{}[]": {"required": None},
    },
}
"""Keywords set (``None``: removed) at a path."""

VERSION_PATCHES: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    # v1.4.1's v1beta3 dropped the bound its v1beta2 has; a pod admits a longer pull-secret
    # name (imagePullSecrets names are not validated), so the API server admits it too
    ("TFrameworkConfig", "v1beta3"): {"nodeImage.secret": {"maxLength": None}},
}
"""Like :data:`PATCHES`, for one version of a kind."""

STATUS: dict[str, dict[str, Any]] = {
    "TServer": {
        "type": "object",
        "properties": {
            "replicas": {"type": "integer"},
            "readyReplicas": {"type": "integer"},
            "currentReplicas": {"type": "integer"},
            "selector": {"type": "string"},
        },
        "required": ["replicas", "readyReplicas", "currentReplicas", "selector"],
    },
}
"""``status`` written by the controller (the models ignore it)."""


V1BETA1: dict[str, dict[str, dict[str, Any] | None]] = {
    "TServer": {
        f"{_SERVER}.imagePullPolicy": None,
        f"{_SERVER}.launcherType": None,
        f"{_SERVER}.updateStrategy": None,
        f"{_SERVER}.resources": {"default": None},
        f"{_SERVER}.mounts[].name": {"pattern": r"^[A-Za-z][-0-9A-Za-z]{1,47}$", "maxLength": None},
        "spec.normal.ports": {"default": None},
        "spec.normal": {"required": ["ports"]},
        "spec.release.nodeImage": None,
        "spec.release.nodeSecret": None,
        "spec.release.source": {"type": "string", "maxLength": 253},
    },
    "TImage": {
        "build.last.secret": {"default": ""},
        "releases[].image": {"pattern": r"^[\x2e-\x3a\x61-\x7a]*$"},
    },
}
"""v1beta1, which the models do not know (the project never writes it): what it lacks
(``None``), has in addition (a schema with ``type``) or says otherwise, relative to v1beta2."""


def _at(schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    node: dict[str, Any] | None = schema
    for step in path.split("."):
        if node is None:
            return None
        name = step.rstrip("[]{}")
        node = node.get("properties", {}).get(name)
        for suffix in step[len(name) :]:
            if node is not None and suffix == "[":
                node = node.get("items")
            elif node is not None and suffix == "{":
                node = node.get("additionalProperties")
    return node


def apply_overlays(kind: str, version: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the CRD-only parts of ``kind`` in ``version`` added (paths a version
    does not have are skipped)."""
    for path, choices in ONE_OF.get(kind, {}).items():
        node = _at(schema, path)
        if node is not None:
            node["oneOf"] = [{"required": list(c)} for c in choices]
    for path in DATE_TIMES.get(kind, ()):
        node = _at(schema, path)
        if node is not None:
            node["format"] = "date-time"
    patches = {**PATCHES.get(kind, {}), **VERSION_PATCHES.get((kind, version), {})}
    for path, keywords in patches.items():
        node = _at(schema, path)
        if node is None:
            continue
        for key, value in keywords.items():
            if value is None:
                node.pop(key, None)
            else:
                node[key] = value
    if version == "v1beta1":
        _older(schema, V1BETA1.get(kind, {}))
    if kind in STATUS:
        schema["properties"]["status"] = STATUS[kind]
    return schema


def _older(schema: dict[str, Any], changes: dict[str, dict[str, Any] | None]) -> None:
    for path, change in changes.items():
        parent_path, _, name = path.rpartition(".")
        parent = _at(schema, parent_path) if parent_path else schema
        if parent is None:
            raise KeyError(f"no {parent_path} for the v1beta1 change of {path}")
        props = parent["properties"]
        if change is None:
            del props[name]
        elif "type" in change and name not in props:
            props[name] = dict(change)
        else:
            for key, value in change.items():
                if value is None:
                    props[name].pop(key, None)
                else:
                    props[name][key] = value
