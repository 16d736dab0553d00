"""Field ownership on the build (docs/concepts/ownership.md): where each TServer field that is
not ``managed`` sits in the objects of its server, and those objects without their
``external`` fields.

A TServer field lands at ``spec.<field>`` of the custom resource (crd mode). In expand mode
only the replica count has a place of its own (``spec.replicas`` of the StatefulSet); the
other fields shape the pod template, which Pulumi applies whole: their ownership has no
effect there (TO002 says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..loading.document_set import DocumentSet
from ..models.ownership import FieldOwnership, Ownership, dotted, object_paths, server_ownership
from ..settings.options import Options

ObjectKey = tuple[str, str]
"""(namespace, name) of a server's objects."""


def owned_paths(kind: str, ownership: FieldOwnership) -> list[tuple[tuple[str, ...], Ownership]]:
    """The paths of an object of ``kind`` that are ``initial`` or ``external``, in field
    order."""
    found: list[tuple[tuple[str, ...], Ownership]] = []
    for field, owner in ownership.not_managed():
        found.extend((path, owner) for path in object_paths(kind, field))
    return found


def ignored_paths(kind: str, ownership: FieldOwnership) -> list[str]:
    """The dotted paths Pulumi must ignore (``ignore_changes``) in an object of ``kind``:
    every ``initial`` and ``external`` one."""
    return [dotted(path) for path, _ in owned_paths(kind, ownership)]


def without_external(obj: Mapping[str, Any], ownership: FieldOwnership) -> dict[str, Any]:
    """``obj`` without its ``external`` fields (a copy along the paths it changes; the
    object itself when none is present)."""
    result: dict[str, Any] = dict(obj)
    for path, owner in owned_paths(str(obj.get("kind")), ownership):
        if owner is Ownership.EXTERNAL:
            result = _removed(result, path)
    return result


def _removed(node: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    head, rest = path[0], path[1:]
    if head not in node:
        return node
    copy = dict(node)
    if not rest:
        del copy[head]
        return copy
    child = copy[head]
    if isinstance(child, dict):
        copy[head] = _removed(child, rest)
    return copy


def server_ownerships(stack: DocumentSet, options: Options) -> dict[ObjectKey, FieldOwnership]:
    """Each TServer's ownership (the stack's setting, its annotation on top), by the
    namespace and name of its objects; only servers with a field not ``managed``."""
    found: dict[ObjectKey, FieldOwnership] = {}
    for server in stack.servers:
        ownership = server_ownership(server.metadata.annotations, options.field_ownership)
        if ownership:
            found[(server.namespace, server.object_name)] = ownership
    return found


def object_key(obj: Mapping[str, Any]) -> ObjectKey:
    """(namespace, name) of an output object."""
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def apply_ownership(
    objects: list[dict[str, Any]], ownerships: Mapping[ObjectKey, FieldOwnership]
) -> list[dict[str, Any]]:
    """The objects as applied: those of a server without its ``external`` fields; the
    list itself when no server has any."""
    if not ownerships:
        return objects
    out = []
    for obj in objects:
        ownership = ownerships.get(object_key(obj))
        out.append(without_external(obj, ownership) if ownership else obj)
    return out


__all__ = [
    "ObjectKey",
    "apply_ownership",
    "ignored_paths",
    "object_key",
    "owned_paths",
    "server_ownerships",
    "without_external",
]
