"""The ``tars.io/Conversion.1b21b3`` annotation, byte for byte as the TarsK8S v1.4.1
conversion webhook writes it and with its reading rules.

When a v1beta3 object is served as v1beta2, the webhook keeps what v1beta2 cannot express in
this annotation, ``json.Marshal`` of a Go struct (``webhook/conversion/tars/v1beta3``):

* TServer: ``{"append":{"command":[…],"args":[…],"readinessGates":[…]},"drop":{}}``: every
  field present, ``null`` when the slice is nil; ``readinessGates`` holds the gates after the
  first (the first becomes ``readinessGate``), ``null`` when there are none;
* TFrameworkConfig: ``{"append":{"executor":{"image":"…","secret":"…"}},"drop":{}}`` (image and
  secret are ``omitempty``).

Reading (v1beta2 to v1beta3): an absent or empty annotation, or one that Go's
``json.Unmarshal`` refuses, restores nothing; otherwise ``command`` and ``args`` are replaced
by the annotation's (absent when ``null``) and its readiness gates are appended after the
v1beta2 ``readinessGate``. The annotation stays on the converted object, as in Go.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .document import V1BETA3
from .vocabulary import CONVERSION_ANNOTATION


def go_json(value: Any) -> str:
    """``value`` as Go's ``encoding/json.Marshal`` (Go 1.15/1.16, as v1.4.1 builds) writes it:
    no spaces, mapping order kept (a Go struct's field order), ``None`` as ``null``, HTML
    characters and U+2028/U+2029 escaped, control characters as ``\\u00XX`` except ``\\n``,
    ``\\r``, ``\\t``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, Mapping):
        items = ",".join(f"{_go_string(str(k))}:{go_json(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    raise TypeError(f"cannot marshal {type(value).__name__}")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _go_string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or char in "<>&" or code in (0x2028, 0x2029):
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")  # not valid UTF-8: Go writes the replacement character
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class ServerAppend:
    """What a v1beta2 TServer's annotation restores in v1beta3 (``None``: absent)."""

    command: list[str] | None = None
    args: list[str] | None = None
    readiness_gates: list[str] | None = None


def server_annotation(
    command: list[str] | None, args: list[str] | None, readiness_gates: list[str] | None
) -> str:
    """The TServer annotation Go writes when serving a v1beta3 TServer as v1beta2;
    ``readiness_gates`` are the v1beta3 gates after the first."""
    append = {"command": command, "args": args, "readinessGates": readiness_gates or None}
    return go_json({"append": append, "drop": {}})


def framework_annotation(image: str, secret: str) -> str:
    """The TFrameworkConfig annotation Go writes when serving a v1beta3 config as v1beta2."""
    executor: dict[str, str] = {}
    if image:
        executor["image"] = image
    if secret:
        executor["secret"] = secret
    return go_json({"append": {"executor": executor}, "drop": {}})


class _Refused(Exception):
    """Go's json.Unmarshal returns an error: nothing is restored."""


def read_server_annotation(annotations: Mapping[str, Any] | None) -> ServerAppend | None:
    """What a v1beta2 TServer's annotation restores, or None when Go restores nothing
    (annotation absent, empty, or refused by ``json.Unmarshal``)."""
    data = _read(annotations)
    if data is None:
        return None
    try:
        append = _fields(data, {"append": None, "drop": None})
        _struct(append.get("drop"), {})
        fields = _struct(
            append.get("append"), {"command": None, "args": None, "readinessGates": None}
        )
        return ServerAppend(
            command=_strings(fields.get("command")),
            args=_strings(fields.get("args")),
            readiness_gates=_strings(fields.get("readinessGates")),
        )
    except _Refused:
        return None


def read_framework_annotation(annotations: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The executor (``image``/``secret``, empty when absent) a v1beta2 TFrameworkConfig's
    annotation restores, or None when Go restores nothing."""
    data = _read(annotations)
    if data is None:
        return None
    try:
        top = _fields(data, {"append": None, "drop": None})
        _struct(top.get("drop"), {})
        append = _struct(top.get("append"), {"executor": None})
        executor = _struct(append.get("executor"), {"image": None, "secret": None})
        return {key: _string(executor.get(key)) for key in ("image", "secret")}
    except _Refused:
        return None


def _read(annotations: Mapping[str, Any] | None) -> Any:
    raw = (annotations or {}).get(CONVERSION_ANNOTATION)
    if not isinstance(raw, str) or raw == "":
        return None
    try:
        return json.loads(raw, parse_constant=_refuse)
    except ValueError:
        return None


def _refuse(_: str) -> Any:
    raise ValueError("not JSON")  # NaN and Infinity are Python extensions


def _fields(value: Any, names: dict[str, None]) -> dict[str, Any]:
    """A JSON object decoded into a Go struct with these fields: keys match case-insensitively
    (an exact match wins), unknown keys are ignored, ``null`` decodes to the zero struct."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Refused
    found: dict[str, Any] = {}
    exact: set[str] = set()
    for key, item in value.items():
        for name in names:
            if key == name:
                found[name] = item
                exact.add(name)
            elif key.lower() == name.lower() and name not in exact:
                found[name] = item
    return found


def _struct(value: Any, names: dict[str, None]) -> dict[str, Any]:
    return _fields(value, names)


def _strings(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _Refused
    return [_string(item) for item in value]


def _string(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Refused
    return value


def convert(document: dict[str, Any], api_version: str) -> dict[str, Any]:
    """A TarsK8S document converted to ``api_version`` (a copy; the input is not changed)."""
    doc: dict[str, Any] = _copy_tree(document)
    source = doc.get("apiVersion")
    doc["apiVersion"] = api_version
    if source == api_version:
        return doc
    kind = doc.get("kind")
    if kind == "TServer":
        return _server_to_v1beta3(doc) if api_version == V1BETA3 else _server_to_v1beta2(doc)
    if kind == "TFrameworkConfig":
        if api_version == V1BETA3:
            return _framework_to_v1beta3(doc)
        return _framework_to_v1beta2(doc)
    if kind == "TTemplate":
        return doc
    raise ValueError(f"cannot convert kind {kind!r}")


def _copy_tree(value: Any) -> Any:
    """A copy of the mappings and lists; leaves (possibly ``pulumi.Output`` values) are
    shared."""
    if isinstance(value, dict):
        return {key: _copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_tree(item) for item in value]
    return value


def _metadata(doc: dict[str, Any]) -> dict[str, Any]:
    """The document's metadata, or an empty mapping for metadata that is not one (the
    loader reports it)."""
    meta = doc.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _annotations(doc: dict[str, Any]) -> dict[str, Any]:
    annotations = _metadata(doc).get("annotations")
    return annotations if isinstance(annotations, dict) else {}


def _drop_conversion(doc: dict[str, Any]) -> None:
    """Go deletes an empty or unreadable annotation from the converted object."""
    meta = _metadata(doc)
    annotations = meta.get("annotations")
    if not isinstance(annotations, dict) or CONVERSION_ANNOTATION not in annotations:
        return
    del annotations[CONVERSION_ANNOTATION]
    if not annotations:
        del meta["annotations"]


def _put_conversion(doc: dict[str, Any], value: str) -> None:
    meta = doc.setdefault("metadata", {})
    if not isinstance(meta, dict):
        return  # metadata that is not a mapping: kept as written, for the loader to report
    annotations = meta.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}
    annotations[CONVERSION_ANNOTATION] = value
    meta["annotations"] = annotations


def _server_to_v1beta3(doc: dict[str, Any]) -> dict[str, Any]:
    k8s = doc["spec"]["k8s"]
    gate = k8s.pop("readinessGate", None)
    gates = [gate] if gate else []
    restored = read_server_annotation(_annotations(doc))
    if restored is None:
        _drop_conversion(doc)
    else:  # the annotation stays on the object, as in Go
        for key, value in (("command", restored.command), ("args", restored.args)):
            if value:
                k8s[key] = list(value)
            else:
                k8s.pop(key, None)  # nil or empty: omitted (omitempty)
        gates.extend(restored.readiness_gates or [])
    k8s["readinessGates"] = gates
    return doc


def _server_to_v1beta2(doc: dict[str, Any]) -> dict[str, Any]:
    k8s = doc["spec"]["k8s"]
    gates = k8s.pop("readinessGates", None) or []
    command = k8s.pop("command", None)
    args = k8s.pop("args", None)
    if gates:
        k8s["readinessGate"] = gates[0]
    _put_conversion(doc, server_annotation(command, args, gates[1:] if len(gates) > 1 else None))
    return doc


def _framework_to_v1beta3(doc: dict[str, Any]) -> dict[str, Any]:
    if "imageRegistry" in doc:
        doc["imageUpload"] = doc.pop("imageRegistry")
    executor = read_framework_annotation(_annotations(doc))
    if executor is None:
        _drop_conversion(doc)
    else:  # the annotation stays on the object, as in Go
        build = doc.setdefault("imageBuild", {})
        build["executor"] = {key: value for key, value in executor.items() if value}
    return doc


def _framework_to_v1beta2(doc: dict[str, Any]) -> dict[str, Any]:
    if "imageUpload" in doc:
        doc["imageRegistry"] = doc.pop("imageUpload")
    executor = (doc.get("imageBuild") or {}).pop("executor", None) or {}
    annotation = framework_annotation(executor.get("image", ""), executor.get("secret", ""))
    _put_conversion(doc, annotation)
    return doc


__all__ = [
    "CONVERSION_ANNOTATION",
    "ServerAppend",
    "convert",
    "framework_annotation",
    "go_json",
    "read_framework_annotation",
    "read_server_annotation",
    "server_annotation",
]
