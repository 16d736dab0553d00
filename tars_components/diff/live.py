"""The build against what runs (``diff --live``, docs/cli/diff.md#against-a-live-export): a
pure stage taking the build's objects and the objects of a live export (``kubectl get ... -o
yaml --show-managed-fields``).

**Drift** is what ``pulumi up`` would change, as the usual change list: each object of the
build is compared with the live object of the same identity on the fields the build declares
only, so that what the API server and the webhooks fill in (defaults, labels, readiness gates,
``release.time``, ``status``, ``metadata`` the server adds, items a webhook appends to a map
list) is never a change. Lists Kubernetes merges by name (containers, env, ...) are matched by
name; other lists are compared item by item when both sides have as many items, on the fields
the build declares (the CRD defaults inside servants and mounts are the server's). A build
object absent from the export is a ``create``; live objects the build does not have are not
reported (an export holds pods, controller objects and other stacks' objects too). Fields
another manager owns (``initial``, ``external``: docs/concepts/ownership.md) are left out.

**Conflicts** are what server-side apply would refuse: each field the build applies that
another field manager owns in ``metadata.managedFields`` (``fieldsV1``) with a different value.
A list without list keys (every TarsK8S list: servants, env, mounts) is one field, as the API
server treats an atomic list. Entries of the ``status`` subresource are left out; managers of
this stack (``own_managers``, and pulumi-kubernetes' default ``pulumi-kubernetes-*``) are not
others. A conflict names the manager, the field (for a TServer, the field an ownership setting
names: ``spec.release``, ``spec.k8s.env``), the live and the build's value, and the setting
that avoids it.

Secret values (Secret data, TAccount credentials) are masked on both sides before anything is
compared (:mod:`.redact`), so neither drift nor a conflict prints one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from ..expansion.ownership import ObjectKey, ignored_paths
from ..kernel.errors import LoadError, LoadProblem
from ..kernel.limits import Limits
from ..kernel.yaml_reader import (
    YamlLimitError,
    describe_yaml_error,
    load_documents,
)
from ..loading.exports import list_items
from ..models.kind_facts import CLUSTER_SCOPED_KINDS
from ..models.ownership import FieldOwnership, display_name
from ..models.vocabulary import LABEL_SERVER_ID as SERVER_ID_LABEL
from .fields import by_name, key_segment, list_key
from .model import Change, Diff
from .objects import Identity, comparable, identity, object_change
from .redact import redact_pair
from .stacks import without_owned

PULUMI_DEFAULT_MANAGER = "pulumi-kubernetes"
"""pulumi-kubernetes' own field managers start with this (``pulumi-kubernetes-<random>``)."""

_MISSING: Any = object()
_SECTIONS = ("k8s", "tars", "normal")


@dataclass(frozen=True)
class Conflict:
    """A field the build applies that another manager owns with another value."""

    manager: str
    api_version: str
    kind: str
    namespace: str
    name: str
    field: str
    live: Any
    build: Any
    avoid: str

    def to_json(self) -> dict[str, Any]:
        """``{"manager", "field", "live", "build", ...}`` with the object and the advice."""
        return {
            "manager": self.manager,
            "field": self.field,
            "live": self.live,
            "build": self.build,
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace or None,
            "name": self.name,
            "avoid": self.avoid,
        }

    @property
    def title(self) -> str:
        """``Kind namespace/name``."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"


@dataclass(frozen=True)
class LiveDiff:
    """Drift (what ``pulumi up`` would change) and conflicts (what it would be refused)."""

    drift: Diff
    conflicts: tuple[Conflict, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"changes", "summary", "conflicts"}``: the diff's shape plus the conflicts."""
        return {**self.drift.to_json(), "conflicts": [c.to_json() for c in self.conflicts]}

    @property
    def differs(self) -> bool:
        """True when something drifted or conflicts."""
        return bool(self.drift.changes or self.conflicts)


def live_diff(
    build: Sequence[Mapping[str, Any]],
    live: Iterable[Mapping[str, Any]],
    ownerships: Mapping[ObjectKey, FieldOwnership] | None = None,
    own_managers: Iterable[str] = (),
    crd_mode: bool = False,
) -> LiveDiff:
    """Drift and conflicts of ``build`` (the objects as applied: ``external`` fields already
    left out) against the ``live`` objects, as the module docstring says."""
    ownerships = ownerships or {}
    ours = frozenset(own_managers)
    by_id: dict[Identity, Mapping[str, Any]] = {}
    for obj in live:
        if isinstance(obj, Mapping):
            by_id.setdefault(identity(obj), obj)
    pairs = [(obj, by_id.get(identity(obj))) for obj in build]
    found = [(b, lv) for b, lv in pairs if lv is not None]
    masked_live, masked_build = redact_pair(
        [dict(lv) for _, lv in found], [dict(b) for b, _ in found]
    )
    changes: list[Change] = []
    conflicts: list[Conflict] = []
    for (obj, _), live_obj, built in zip(found, masked_live, masked_build, strict=True):
        wanted = comparable(built)
        change = object_change(project(comparable(live_obj), wanted), wanted)
        if change is not None:
            changes.append(change)
        ignored = _ignored(obj, ownerships)
        conflicts.extend(object_conflicts(live_obj, built, ours, ignored))
    _, created = redact_pair([], [dict(b) for b, lv in pairs if lv is None])
    for obj in created:
        change = object_change(None, comparable(obj))
        if change is not None:
            changes.append(change)
    changes.sort(key=lambda c: (c.namespace, c.name, c.kind, c.api_version))
    changes = without_owned(changes, dict(ownerships))
    conflicts.sort(key=lambda c: (c.namespace, c.name, c.kind, c.field, c.manager))
    return LiveDiff(Diff(changes=tuple(changes), crd_mode=crd_mode), tuple(conflicts))


def _ignored(obj: Mapping[str, Any], ownerships: Mapping[ObjectKey, FieldOwnership]) -> list[str]:
    meta = obj.get("metadata") or {}
    ownership = ownerships.get((str(meta.get("namespace") or ""), str(meta.get("name") or "")))
    return ignored_paths(str(obj.get("kind")), ownership) if ownership else []


def parse_export(
    texts: Mapping[str, str], limits: Limits | None = None, namespace: str | None = None
) -> list[dict[str, Any]]:
    """The objects of an export (``{file: text}``: one file or every file of a directory):
    every document, a ``kind: List``'s or a typed list's items unwrapped; a namespaced object
    without ``metadata.namespace`` is in ``namespace`` when one is given. Raises
    :class:`LoadError` naming the file and line of each YAML that does not parse and of each
    item that is not an object with ``apiVersion``, ``kind`` and ``metadata.name`` (no value
    is quoted: an export may hold Secrets)."""
    objects: list[dict[str, Any]] = []
    problems: list[LoadProblem] = []
    for file, text in sorted(texts.items()):
        try:
            documents = load_documents(text, limits)
        except yaml.YAMLError as exc:
            line, message = describe_yaml_error(exc)
            problems.append(LoadProblem(file, line, f"invalid YAML: {message}"))
            continue
        except YamlLimitError as exc:
            problems.append(LoadProblem(file, exc.line or 1, exc.message))
            continue
        for index, document in enumerate(documents):
            if document is None:
                continue
            for item, where in list_items(document):
                meta = item.get("metadata") if isinstance(item, dict) else None
                if (
                    not isinstance(item, dict)
                    or not isinstance(item.get("kind"), str)
                    or not isinstance(item.get("apiVersion"), str)
                    or not isinstance(meta, dict)
                    or not isinstance(meta.get("name"), str)
                ):
                    at = ".".join(str(s) for s in where) or "the document"
                    problems.append(
                        LoadProblem(
                            file,
                            _document_line(text, index),
                            f"document {index + 1}: {at} is not a Kubernetes object "
                            "(apiVersion, kind and metadata.name)",
                        )
                    )
                    continue
                local = item["kind"] not in CLUSTER_SCOPED_KINDS
                if namespace and local and not meta.get("namespace"):
                    item = {**item, "metadata": {**meta, "namespace": namespace}}
                objects.append(item)
    if problems:
        raise LoadError(problems)
    return objects


def _document_line(text: str, index: int) -> int:
    """The first line of the ``index``-th document of ``text`` (1-based)."""
    if index == 0:
        return 1
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("---"):
            seen += 1
            if seen == index + (0 if not text.startswith("---") else 1):
                return number
    return 1


# --- drift -----------------------------------------------------------------------------------


def project(live: Any, build: Any, field: str | None = None) -> Any:
    """``live`` on the fields ``build`` declares: mappings keep the build's keys that live
    has; lists merged by name keep the live items the build names, in the build's order;
    other lists of the same length are projected item by item; anything else is live as is."""
    if isinstance(build, dict) and isinstance(live, dict):
        return {k: project(live[k], v, k) for k, v in build.items() if k in live}
    if isinstance(build, list) and isinstance(live, list):
        keyed = list_key(field)
        if keyed is not None:
            live_named = by_name(live, keyed)
            build_named = by_name(build, keyed)
            if live_named is not None and build_named is not None:
                return [
                    project(live_named[name], item)
                    for name, item in build_named.items()
                    if name in live_named
                ]
        if len(live) == len(build):
            return [project(a, b) for a, b in zip(live, build, strict=True)]
    return live


# --- conflicts -------------------------------------------------------------------------------

Segment = str | int | tuple[str, Any]
"""A step of a managed-fields path: a key, an index, ``("k", {key fields})`` (an item of a
keyed list) or ``("v", value)`` (a member of a set list)."""


def object_conflicts(
    live: Mapping[str, Any],
    build: Mapping[str, Any],
    ours: frozenset[str],
    ignored: Sequence[str] = (),
) -> Iterator[Conflict]:
    """The conflicts of one object: see the module docstring. ``ignored`` paths (fields
    Pulumi ignores, docs/concepts/ownership.md) never conflict: pulumi-kubernetes leaves them
    out of the apply when another manager owns them."""
    meta = live.get("metadata")
    entries = meta.get("managedFields") if isinstance(meta, Mapping) else None
    if not isinstance(entries, list):
        return
    namespace, name, kind, _ = identity(build)
    seen: set[tuple[str, str]] = set()
    for entry in entries:
        if not isinstance(entry, Mapping) or entry.get("subresource") == "status":
            continue
        manager = str(entry.get("manager") or "")
        if manager in ours or manager.startswith(PULUMI_DEFAULT_MANAGER):
            continue
        fields = entry.get("fieldsV1")
        if not isinstance(fields, Mapping):
            continue
        for path in owned_leaves(fields):
            if path[:1] == ("status",):
                continue
            wanted = resolve(build, path)
            if wanted is _MISSING:
                continue
            if _same(project(resolve(live, path), wanted), wanted):
                continue
            group = conflict_group(kind, path)
            shown = format_segments(group)
            if any(_under(shown, p) or _under(p, shown) for p in ignored):
                continue
            if (manager, shown) in seen:
                continue
            seen.add((manager, shown))
            live_value, build_value = resolve(live, group), resolve(build, group)
            yield Conflict(
                manager=manager,
                api_version=str(build.get("apiVersion") or ""),
                kind=kind,
                namespace=namespace,
                name=name,
                field=shown,
                live=None if live_value is _MISSING else live_value,
                build=None if build_value is _MISSING else build_value,
                avoid=avoiding(kind, group),
            )


def owned_leaves(
    fields: Mapping[str, Any], at: tuple[Segment, ...] = ()
) -> Iterator[tuple[Segment, ...]]:
    """The leaf paths a ``fieldsV1`` set names: ``f:`` keys, ``k:`` items of keyed lists,
    ``v:`` members of set lists, ``i:`` positions; a key whose set is empty (or only ``.``)
    is owned whole (an atomic list or map, a scalar)."""
    children = [k for k in fields if k != "."]
    if not children:
        if at:
            yield at
        return
    for key in children:
        sub = fields[key]
        sub = sub if isinstance(sub, Mapping) else {}
        kind, _, rest = key.partition(":")
        try:
            if kind == "f":
                yield from owned_leaves(sub, (*at, rest))
            elif kind == "k":
                yield from owned_leaves(sub, (*at, ("k", json.loads(rest))))
            elif kind == "v":
                yield (*at, ("v", json.loads(rest)))
            elif kind == "i":
                yield from owned_leaves(sub, (*at, int(rest)))
        except ValueError:
            continue  # a key this version cannot read: not a field the build could hold


def resolve(obj: Any, path: Sequence[Segment]) -> Any:
    """The value at ``path`` in ``obj``, or the missing marker."""
    node = obj
    for seg in path:
        if isinstance(seg, tuple):
            if not isinstance(node, list):
                return _MISSING
            how, key = seg
            if how == "v":
                return key if key in node else _MISSING
            node = next(
                (
                    item
                    for item in node
                    if isinstance(item, dict)
                    and isinstance(key, dict)
                    and all(item.get(k) == v for k, v in key.items())
                ),
                _MISSING,
            )
        elif isinstance(seg, int):
            node = node[seg] if isinstance(node, list) and 0 <= seg < len(node) else _MISSING
        else:
            node = node.get(seg, _MISSING) if isinstance(node, dict) else _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def conflict_group(kind: str, path: tuple[Segment, ...]) -> tuple[Segment, ...]:
    """The field a conflict is named by: for a TServer, the spec field an ownership setting
    names (``spec.release``, ``spec.k8s.env``; the ``tars.io/ServerID`` label the webhook derives
    from ``release.id`` goes with ``spec.release``); the leaf itself otherwise."""
    if kind == "TServer" and path == ("metadata", "labels", SERVER_ID_LABEL):
        return ("spec", "release")
    if kind == "TServer" and path[:1] == ("spec",) and len(path) > 1:
        if path[1] in _SECTIONS and len(path) > 2:
            return path[:3]
        return path[:2]
    return path


def format_segments(path: Sequence[Segment]) -> str:
    """A managed-fields path as a diff path: ``spec.template.spec.containers[name=app].image``."""
    out = ""
    for seg in path:
        if isinstance(seg, tuple):
            how, key = seg
            if how == "k" and isinstance(key, dict):
                inner = ",".join(f"{k}={v}" for k, v in key.items())
                out += f"[{inner}]"
            else:
                out += f"[{json.dumps(key, sort_keys=True)}]"
        elif isinstance(seg, int):
            out += f"[{seg}]"
        else:
            out = key_segment(out, seg)
    return out


def avoiding(kind: str, group: tuple[Segment, ...]) -> str:
    """The setting that avoids a conflict on ``group``."""
    field = None
    if kind == "TServer" and group[:1] == ("spec",):
        field = ".".join(str(s) for s in group[1:])
    elif kind == "StatefulSet" and group == ("spec", "replicas"):
        field = "k8s.replicas"
    if field is None:
        return (
            "leave the field out of the stack, or take it over with the "
            "pulumi.com/patchForce annotation"
        )
    name = display_name(field)
    return (
        f"{name}=external (or {name}=initial) in tars:fieldOwnership, --field-ownership or "
        "the server's tars-components.io/field-ownership annotation"
    )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b and type(a) is type(b)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


__all__ = [
    "PULUMI_DEFAULT_MANAGER",
    "Conflict",
    "LiveDiff",
    "avoiding",
    "conflict_group",
    "format_segments",
    "live_diff",
    "object_conflicts",
    "owned_leaves",
    "parse_export",
    "project",
    "resolve",
]
