"""Schemas of the kinds the project does not model: the controller's own records (TEndpoint,
TExitedRecord) and what TarsWeb writes (TFrameworkKey, TPlugin).

Written as shapes: a type name (``"string"``, ``"integer"``, ``"boolean"``) is a leaf, a dict
an object with those properties, a one-item list an array of that item; :func:`obj` and
:func:`arr` add ``required`` and other keywords.
"""

from __future__ import annotations

from typing import Any

Shape = str | dict[str, Any] | list[Any]


class Built(dict[str, Any]):
    """A schema already built by :func:`obj` or :func:`arr` (not a shape to convert)."""


def schema(shape: Shape) -> dict[str, Any]:
    """The structural schema of a shape."""
    if isinstance(shape, str):
        return {"type": shape}
    if isinstance(shape, list):
        return {"type": "array", "items": schema(shape[0])}
    if isinstance(shape, Built):
        return dict(shape)
    return {"type": "object", "properties": {k: schema(v) for k, v in shape.items()}}


def obj(properties: dict[str, Shape], *required: str) -> dict[str, Any]:
    """An object with ``required`` properties."""
    out = Built(schema(dict(properties)))
    if required:
        out["required"] = list(required)
    return out


def arr(item: Shape, **keywords: Any) -> dict[str, Any]:
    """An array with keywords such as ``maxItems``."""
    return Built(type="array", items=schema(item), **keywords)


_PORT = {"name": "string", "port": "integer", "isTcp": "boolean"}
_SERVANT = {
    "name": "string",
    "port": "integer",
    "thread": "integer",
    "capacity": "integer",
    "connection": "integer",
    "isTars": "boolean",
    "isTcp": "boolean",
    "timeout": "integer",
}
_TERMINATED = {
    "containerID": "string",
    "exitCode": "integer",
    "finishedAt": "string",
    "message": "string",
    "reason": "string",
    "signal": "integer",
    "startedAt": "string",
}
_CONTAINER_STATE = {
    "running": {"startedAt": "string"},
    "terminated": _TERMINATED,
    "waiting": {"message": "string", "reason": "string"},
}
_CONTAINER_STATUS = {
    "containerID": "string",
    "image": "string",
    "imageID": "string",
    "lastState": _CONTAINER_STATE,
    "name": "string",
    "ready": "boolean",
    "restartCount": "integer",
    "started": "boolean",
    "state": _CONTAINER_STATE,
}
_ENDPOINT_POD = {
    "containerStatuses": [_CONTAINER_STATUS],
    "hostIP": "string",
    "name": "string",
    "podIP": "string",
    "presentMessage": "string",
    "presentState": "string",
    "settingState": "string",
    "startTime": "string",
    "id": "string",
    "uid": "string",
    "pid": "string",
}

TENDPOINT = schema(
    {
        "spec": {
            "app": "string",
            "server": "string",
            "important": "integer",
            "subType": "string",
            "tars": {
                "profile": "string",
                "servants": [_SERVANT],
                "ports": [_PORT],
                "asyncThread": "integer",
                "template": "string",
            },
            "normal": {"ports": [_PORT]},
            "hostPorts": [{"nameRef": "string", "port": "integer"}],
            "release": {
                k: "string" for k in ("id", "image", "secret", "time", "nodeImage", "nodeSecret")
            },
        },
        "status": obj({"pods": [_ENDPOINT_POD]}, "pods"),
    }
)
"""TEndpoint: a TServer's spec as the controller copied it, and its pods' state."""

TEXITED_RECORD = obj(
    {
        "app": "string",
        "server": "string",
        "pods": arr(
            {
                k: "string"
                for k in ("uid", "name", "id", "nodeIP", "podIP", "createTime", "deleteTime")
            },
            maxItems=150,
        ),
    },
    "app",
    "server",
    "pods",
)
"""TExitedRecord: the last 150 pods of a server that exited."""

TFRAMEWORK_KEY = schema({"spec": {"cuid": "string", "pri_key": "string", "autologin": "integer"}})
"""TFrameworkKey: TarsWeb's login key."""


def tplugin(version: str) -> dict[str, Any]:
    """TPlugin: a TarsWeb plugin; ``extern`` came in v1beta2."""
    spec: dict[str, Shape] = {
        "name": "string",
        "name_en": "string",
        "obj": "string",
        "type": "integer",
        "path": "string",
    }
    if version != "v1beta1":
        spec["extern"] = "integer"
    return schema({"spec": spec})
