"""What a diff finds: per object an action and its field changes (the JSON shape of
docs/cli/diff.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Action(str, Enum):
    """What applying the new stack does to one object."""

    CREATE = "create"
    UPDATE = "update"
    REPLACE = "replace"
    DELETE = "delete"

    def __str__(self) -> str:
        return self.value


ACTIONS: tuple[Action, ...] = (Action.CREATE, Action.UPDATE, Action.REPLACE, Action.DELETE)
"""Every action, in the order of the summary."""


@dataclass(frozen=True)
class FieldChange:
    """One changed field: a dotted path (``spec.template.spec.containers[name=main].image``),
    its old value (None when it is added) and its new value (None when it is removed)."""

    path: str
    old: Any
    new: Any

    def to_json(self) -> dict[str, Any]:
        """``{"path", "old", "new"}``."""
        return {"path": self.path, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class Change:
    """One object that changes.

    * ``api_version``: the new object's apiVersion (the old one's for a ``delete``).
    * ``fields``: the changed fields; for a ``create``/``delete`` the top-level fields of the
      whole object (old or new None).
    * ``reason``: why the object is deleted and recreated, with the consequence for stateful
      workloads; None unless ``replace``.
    * ``effects``: crd mode only (None in expand mode): for a TServer, what the controller will
      change in its Service/StatefulSet/DaemonSet, as changes of the same shape.
    """

    action: Action
    api_version: str
    kind: str
    namespace: str
    name: str
    fields: tuple[FieldChange, ...] = ()
    reason: str | None = None
    effects: tuple[Change, ...] | None = None

    @property
    def qualified_name(self) -> str:
        """``namespace/name``, or ``name`` for a cluster-scoped object."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def title(self) -> str:
        """``Kind namespace/name`` (``Kind name`` for a cluster-scoped object)."""
        return f"{self.kind} {self.qualified_name}"

    def to_json(self) -> dict[str, Any]:
        """The issue's shape; ``effects`` only when set (crd mode)."""
        out: dict[str, Any] = {
            "action": self.action.value,
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace or None,
            "name": self.name,
            "fields": [f.to_json() for f in self.fields],
            "reason": self.reason,
        }
        if self.effects is not None:
            out["effects"] = [e.to_json() for e in self.effects]
        return out


@dataclass(frozen=True)
class Diff:
    """The changes between two builds of a stack, in a stable order (namespace, name, kind,
    API group), and the mode they were built in."""

    changes: tuple[Change, ...] = ()
    crd_mode: bool = False
    plan: tuple[str, ...] = ()
    """The Rollout plan of the new stack, one line per TServer a Rollout drives
    (docs/concepts/rollout.md)."""
    steps: tuple[str, ...] = ()
    """Where each of those Rollouts stands: its step and the gate it holds at
    (``shop-orderserver: step 1 of 3 ("50%"); the next step waits for spec.approved >= 1``)."""
    release_changes: tuple[str, ...] = ()
    """The ordinals whose release changes (``shop-orderserver: ordinal 2 v1.4.0 -> v1.5.0``),
    for the TServers a Rollout names in either stack."""
    requests: tuple[str, ...] = ()
    """The TDeploy requests whose state changes (``tars-dev/r: pending -> approved (…)``;
    :func:`tars_components.loading.tdeploy.request_lines`)."""

    def summary(self) -> dict[str, int]:
        """Number of changed objects per action (every action present, 0 when none)."""
        counts = {a.value: 0 for a in ACTIONS}
        for change in self.changes:
            counts[change.action.value] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """``{"changes": [...], "summary": {...}}``, with ``plan``, ``steps`` and
        ``releaseChanges`` when a Rollout is involved, and ``requests`` when a TDeploy request
        changes state."""
        out: dict[str, Any] = {
            "changes": [c.to_json() for c in self.changes],
            "summary": self.summary(),
        }
        if self.plan or self.release_changes:
            out["plan"] = list(self.plan)
            out["steps"] = list(self.steps)
            out["releaseChanges"] = list(self.release_changes)
        if self.requests:
            out["requests"] = list(self.requests)
        return out
