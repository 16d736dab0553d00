"""Field ownership: which fields of a TServer Pulumi applies, sets once, or leaves to another
field manager (TarsWeb, an HPA, a CI pipeline), docs/concepts/ownership.md.

A setting maps a TServer field, named by its path under ``spec`` (``release``,
``k8s.replicas``, ``k8s.env``, ...; ``replicas`` is short for ``k8s.replicas``), to one of

* ``managed``: Pulumi applies it and resets it on every ``up`` (the default);
* ``initial``: applied when the object is created, then ignored (``ignore_changes``): the
  field stays in the applied object, later changes of the stack are not applied;
* ``external``: never applied (left out of the applied object, so that server-side apply
  gives the field up): the live value is kept. It is also ignored while no other manager holds
  it, or when no one read the cluster (docs/concepts/live.md, "Field managers handed over").

Settings come from the stack (``tars:fieldOwnership``, ``--field-ownership``) and from the
server (the :data:`ANNOTATION` annotation), the server's winning field by field. The text form
is ``release=external,replicas=initial``; a mapping ``{release: external}`` says the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .vocabulary import LABEL_SERVER_ID

ANNOTATION = "tars-components.io/field-ownership"
"""The TServer annotation that sets its own field ownership (``release=external,...``)."""

FIELD_MANAGER_ANNOTATION = "pulumi.com/patchFieldManager"
"""The annotation pulumi-kubernetes reads the server-side apply field manager from."""

PATCH_FORCE_ANNOTATION = "pulumi.com/patchForce"
"""The annotation that makes pulumi-kubernetes apply with ``force``: set beside
:data:`FIELD_MANAGER_ANNOTATION`, so that the stack's own fields, applied until then under
pulumi-kubernetes' random manager, pass to the stable one instead of conflicting with it."""


class Ownership(str, Enum):
    """Who owns a field: see the module docstring."""

    MANAGED = "managed"
    INITIAL = "initial"
    EXTERNAL = "external"

    def __str__(self) -> str:
        return self.value


ALIASES: dict[str, str] = {"replicas": "k8s.replicas"}
"""Short names of fields."""

_SECTIONS = ("k8s", "tars", "normal")


def _section_fields() -> dict[str, frozenset[str]]:
    from .base import TarsModel
    from .tserver import K8sSpec, NormalSpec, TarsSpec

    models: tuple[type[TarsModel], ...] = (K8sSpec, TarsSpec, NormalSpec)
    found: dict[str, frozenset[str]] = {}
    for section, model in zip(_SECTIONS, models, strict=True):
        found[section] = frozenset(
            (info.alias or name) for name, info in model.model_fields.items()
        )
    return found


_TOP_FIELDS = frozenset({"release", "important"})
_FIELDS_CACHE: dict[str, frozenset[str]] = {}


def canonical_field(name: str) -> str:
    """The field's path under ``spec`` (``replicas`` → ``k8s.replicas``); raises ValueError
    naming the fields that may be owned when ``name`` is not one of them."""
    path = ALIASES.get(name.strip(), name.strip())
    if path in _TOP_FIELDS:
        return path
    section, _, rest = path.partition(".")
    if not _FIELDS_CACHE:
        _FIELDS_CACHE.update(_section_fields())
    if section in _FIELDS_CACHE and rest in _FIELDS_CACHE[section]:
        return path
    raise ValueError(
        f"unknown field {name!r}: expected replicas, release, important, or k8s.<field>, "
        "tars.<field>, normal.<field> of a TServer spec"
    )


def display_name(path: str) -> str:
    """The short name of a field for messages (``k8s.replicas`` → ``replicas``)."""
    for short, full in ALIASES.items():
        if full == path:
            return short
    return path


@dataclass(frozen=True)
class FieldOwnership:
    """Ownership of TServer fields, as ``(field path under spec, ownership)`` pairs sorted by
    path; fields not named are ``managed``."""

    fields: tuple[tuple[str, Ownership], ...] = ()

    def __bool__(self) -> bool:
        return any(o is not Ownership.MANAGED for _, o in self.fields)

    def of(self, path: str) -> Ownership:
        """The ownership of the field at ``path`` (under ``spec``)."""
        for name, ownership in self.fields:
            if name == path:
                return ownership
        return Ownership.MANAGED

    def not_managed(self) -> tuple[tuple[str, Ownership], ...]:
        """The fields that are ``initial`` or ``external``, in path order."""
        return tuple((p, o) for p, o in self.fields if o is not Ownership.MANAGED)

    def merged(self, other: FieldOwnership) -> FieldOwnership:
        """These settings with ``other``'s on top, field by field."""
        combined = dict(self.fields)
        combined.update(dict(other.fields))
        return FieldOwnership(tuple(sorted(combined.items())))

    def with_default(self, path: str, ownership: Ownership) -> FieldOwnership:
        """These settings, with ``path`` set to ``ownership`` unless it is set already."""
        if any(p == path for p, _ in self.fields):
            return self
        return FieldOwnership(tuple(sorted([*self.fields, (path, ownership)])))

    def text(self) -> str:
        """``release=external,replicas=initial``: the annotation's and the flag's form."""
        return ",".join(f"{display_name(p)}={o.value}" for p, o in self.fields)

    @classmethod
    def parse(cls, value: Any) -> FieldOwnership:
        """From a mapping ``{field: ownership}``, its JSON text (what ``pulumi.Config.get``
        returns for an object) or ``field=ownership,...``; an empty value is no setting.
        Raises ValueError with a message that names the bad entry."""
        if value is None or isinstance(value, FieldOwnership):
            return value or cls()
        pairs: Iterable[tuple[Any, Any]]
        if isinstance(value, Mapping):
            pairs = value.items()
        elif isinstance(value, str):
            text = value.strip()
            if text.startswith("{"):
                try:
                    loaded = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"not a JSON object: {exc.msg}") from None
                return cls.parse(loaded)
            pairs = []
            for entry in (e.strip() for e in text.split(",")):
                if not entry:
                    continue
                name, sep, setting = entry.partition("=")
                if not sep:
                    raise ValueError(f"{entry!r}: expected field=managed|initial|external")
                pairs.append((name.strip(), setting.strip()))
        else:
            raise ValueError(
                "expected a mapping of fields to managed|initial|external, or "
                "field=ownership,... text"
            )
        found: dict[str, Ownership] = {}
        for name, setting in pairs:
            if not isinstance(name, str):
                raise ValueError(f"field {name!r}: expected a field name")
            path = canonical_field(name)
            try:
                found[path] = Ownership(str(setting).strip().lower())
            except ValueError:
                raise ValueError(
                    f"{name}: {setting!r} is not managed, initial or external"
                ) from None
        return cls(tuple(sorted(found.items())))


RELEASE_MANAGED = FieldOwnership((("release", Ownership.MANAGED),))
"""``release=managed``: what an aborting Rollout puts on top of a server's ownership (the
stable release is applied whoever owned the release, docs/concepts/rollout.md)."""


_WORKLOAD_PATHS: dict[str, dict[str, tuple[str, ...]]] = {
    "StatefulSet": {"k8s.replicas": ("spec", "replicas")},
}
"""Expand mode: the fields with a place of their own in a workload."""

_COMPANIONS: dict[str, tuple[tuple[str, ...], ...]] = {
    "release": (("metadata", "labels", LABEL_SERVER_ID),),
}
"""What the TarsK8S webhook derives from a TServer field in the same request (the
``tars.io/ServerID`` label from ``release.id``): owned by whoever sets the field."""


def object_paths(kind: str, field: str) -> tuple[tuple[str, ...], ...]:
    """Where the TServer field ``field`` (its path under ``spec``) and what the webhook
    derives from it sit in an object of ``kind`` built from the server; empty when the field
    has no place of its own there."""
    if kind == "TServer":
        return (("spec", *field.split(".")), *_COMPANIONS.get(field, ()))
    found = _WORKLOAD_PATHS.get(kind, {}).get(field)
    return (found,) if found is not None else ()


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def dotted(path: tuple[str, ...]) -> str:
    """``("spec", "k8s", "replicas")`` → ``spec.k8s.replicas``; a key that is not an
    identifier is quoted (``metadata.labels["tars.io/ServerID"]``): the path of a diff and of
    Pulumi's ``ignore_changes``."""
    out = ""
    for seg in path:
        if _IDENT.fullmatch(seg):
            out = f"{out}.{seg}" if out else seg
        else:
            out += '["' + seg.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return out


def server_ownership(
    annotations: Mapping[str, Any] | None, stack: FieldOwnership
) -> FieldOwnership:
    """A server's ownership: the stack's, with its :data:`ANNOTATION` on top (an annotation
    that does not parse adds nothing; the rules report it)."""
    raw = (annotations or {}).get(ANNOTATION)
    if not isinstance(raw, str) or not raw.strip():
        return stack
    try:
        own = FieldOwnership.parse(raw)
    except ValueError:
        return stack
    return stack.merged(own)


__all__ = [
    "ALIASES",
    "ANNOTATION",
    "FIELD_MANAGER_ANNOTATION",
    "PATCH_FORCE_ANNOTATION",
    "RELEASE_MANAGED",
    "FieldOwnership",
    "Ownership",
    "canonical_field",
    "display_name",
    "dotted",
    "object_paths",
    "server_ownership",
]
