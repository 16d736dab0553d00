"""Field-level comparison of two objects (plain data: dicts, lists, scalars).

Paths are dotted (``spec.replicas``); a key that is not a plain identifier is quoted
(``metadata.labels["tars.io/ServerApp"]``). Lists that Kubernetes' strategic merge patch merges
by name are matched by name and addressed ``[name=<name>]``, so inserting a container or an
environment variable reports that one item, not every item after it; other lists are compared
by position, ``[<index>]``.

Lists matched by name (the field's name decides, wherever it appears):

* Kubernetes strategic-merge lists keyed by ``name``: ``containers``, ``initContainers``,
  ``ephemeralContainers``, ``env``, ``volumes``, ``imagePullSecrets``, ``schedulingGates``,
  ``resourceClaims``.
* ``ports`` and ``volumeMounts``: Kubernetes merges them by ``containerPort``/``port`` and
  ``mountPath``, but every port and mount the product writes has a unique name (TS016), so the
  name is the readable key of the same item.

Everything else is positional, as Kubernetes treats it: a StatefulSet's
``volumeClaimTemplates`` (no merge key; the replace reason names the templates whose claims are
kept or orphaned), ``readinessGates``, ``tolerations``, ``args``; and the TarsK8S custom
resources' own lists (``servants``, ``mounts``, ``hostPorts``: the CRDs declare no list keys, so
the API server replaces them whole). The same field names inside a TServer (``spec.k8s.env``,
``spec.tars.ports``, ``spec.normal.ports``) are matched by name too.

A list is matched by name only when every item is a mapping with a distinct string name;
otherwise it falls back to positions. A list whose items only moved reports one change at the
list's path with the names in the old and the new order (a moved container or variable still
changes the pod template, so Kubernetes rolls the pods).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .model import FieldChange

_NAME_KEYED = frozenset(
    {
        "containers",
        "initContainers",
        "ephemeralContainers",
        "env",
        "volumes",
        "imagePullSecrets",
        "schedulingGates",
        "resourceClaims",
        "ports",
        "volumeMounts",
    }
)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def _item_name(item: Any) -> Any:
    return item.get("name") if isinstance(item, dict) else None


def list_key(field: str | None) -> Callable[[Any], Any] | None:
    """How the items of the list under ``field`` are named, or None for positional lists."""
    return _item_name if field in _NAME_KEYED else None


def key_segment(path: str, key: str) -> str:
    """``path`` extended by a mapping key."""
    if _IDENT.fullmatch(key):
        return f"{path}.{key}" if path else key
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'{path}["{escaped}"]'


def field_changes(old: Any, new: Any, path: str = "") -> list[FieldChange]:
    """Every changed leaf between ``old`` and ``new`` (None: absent), in the new value's key
    order followed by removed keys. An added or removed mapping or list is one change."""
    found: list[FieldChange] = []
    _walk(old, new, path, None, found)
    return found


def _same(old: Any, new: Any) -> bool:
    # == alone says True == 1 and 1 == 1.0; a YAML type change is a change.
    return old == new and type(old) is type(new)


def _walk(old: Any, new: Any, path: str, field: str | None, found: list[FieldChange]) -> None:
    if _same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in new.items():
            _walk(old.get(key), value, key_segment(path, key), key, found)
        for key, value in old.items():
            if key not in new and value is not None:
                found.append(FieldChange(key_segment(path, key), value, None))
        return
    if isinstance(old, list) and isinstance(new, list):
        keyed = list_key(field)
        if keyed is not None and by_name(old, keyed) is not None:
            named_new = by_name(new, keyed)
            if named_new is not None:
                _walk_named(by_name(old, keyed) or {}, named_new, path, found)
                return
        _walk_positions(old, new, path, found)
        return
    found.append(FieldChange(path, old, new))


def by_name(items: list[Any], keyed: Callable[[Any], Any]) -> dict[str, Any] | None:
    """``{name: item}`` in list order, or None when some item has no distinct string name."""
    named: dict[str, Any] = {}
    for item in items:
        name = keyed(item)
        if not isinstance(name, str) or name in named:
            return None
        named[name] = item
    return named


def _walk_named(
    old: dict[str, Any], new: dict[str, Any], path: str, found: list[FieldChange]
) -> None:
    for name, item in new.items():
        _walk(old.get(name), item, f"{path}[name={name}]", None, found)
    for name, item in old.items():
        if name not in new:
            found.append(FieldChange(f"{path}[name={name}]", item, None))
    kept_old = [n for n in old if n in new]
    kept_new = [n for n in new if n in old]
    if kept_old != kept_new:
        found.append(FieldChange(path, kept_old, kept_new))


def _walk_positions(old: list[Any], new: list[Any], path: str, found: list[FieldChange]) -> None:
    for index in range(max(len(old), len(new))):
        was = old[index] if index < len(old) else None
        now = new[index] if index < len(new) else None
        _walk(was, now, f"{path}[{index}]", None, found)
