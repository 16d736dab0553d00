"""The cluster read at preview (docs/concepts/live.md): which objects a stack's checks read,
reading them (:func:`read_live`, the one function here that does I/O), and the conflicts of
a build with them (:func:`forecast`).

The Pulumi program reads the stack's namespaces before it checks anything, so that
``pulumi preview`` decides with what runs, not with what a file says ran: the replicas
another manager owns (:func:`~tars_components.stages.with_running`), the HPAs that scale a
server (TO003), the StorageClasses a growing claim needs
(:func:`~tars_components.settings.options.with_storage_classes`) and the fields other field
managers own (:func:`forecast`). ``diff --live-from CONTEXT`` reads the same objects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..diff.live import Conflict, live_diff
from ..diff.objects import api_group, identity
from ..expansion.kruise import KRUISE_API_VERSION
from ..expansion.ownership import object_key, owned_paths, server_ownerships
from ..expansion.tapp import TAPP_API_VERSION
from ..kubeapi import ApiClient, Connection, connection, read_objects, resource_path
from ..loading.document_set import DocumentSet
from ..models.live import HPA_API_VERSION, STORAGE_CLASS_API_VERSION, LiveState
from ..models.managed_fields import (
    Handover,
    all_entries,
    client_side_managers,
    handover,
    only_ours,
    owners,
)
from ..models.ownership import PATCH_FORCE_ANNOTATION, FieldOwnership, Ownership, dotted
from ..settings.options import Mode, Options, Workload
from ..stages import workload_kind


def live_kinds(options: Options) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(namespaced, cluster-scoped)`` ``(apiVersion, kind)`` pairs a stack's checks read:
    the objects Pulumi applies for its servers (their Services and workloads in expand
    mode, the TServers in crd mode), the HPAs, the PersistentVolumeClaims (the sizes that
    run) and the StorageClasses."""
    namespaced = [(HPA_API_VERSION, "HorizontalPodAutoscaler"), ("v1", "PersistentVolumeClaim")]
    kind = workload_kind(options)  # the kind that holds the live count, as the stages read it
    if options.mode == Mode.CRD:
        namespaced.append((options.crd_api_version, kind))
    else:
        version = {Workload.KRUISE: KRUISE_API_VERSION, Workload.TAPP: TAPP_API_VERSION}.get(
            Workload(options.workload), "apps/v1"
        )
        namespaced = [("v1", "Service"), (version, kind), ("apps/v1", "DaemonSet"), *namespaced]
    return namespaced, [(STORAGE_CLASS_API_VERSION, "StorageClass")]


def read_live(
    options: Options,
    namespaces: Sequence[str],
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> LiveState:
    """The objects of :func:`live_kinds` in ``namespaces``, read with the kubeconfig's
    ``context`` (None: its current one). Raises
    :class:`~tars_components.kubeapi.LiveReadError`."""
    return read_live_with(connection(context, environ), options, namespaces)


def read_live_with(conn: Connection, options: Options, namespaces: Sequence[str]) -> LiveState:
    """:func:`read_live` through a connection already made (a cluster's own credentials)."""
    namespaced, cluster_scoped = live_kinds(options)
    objects = read_objects(ApiClient(conn), namespaced, namespaces, cluster_scoped)
    return LiveState(tuple(objects), tuple(namespaces), f"context {conn.context}")


@dataclass(frozen=True)
class Forecast:
    """What the next ``pulumi up`` meets in the fields other managers own: ``conflicts`` it
    would be refused for, and ``taken`` fields it takes back with force (a server with a
    field ownership setting or ``pulumi.com/patchForce``)."""

    conflicts: tuple[Conflict, ...] = ()
    taken: tuple[Conflict, ...] = ()


def _forced(obj: Mapping[str, Any], forced_servers: set[tuple[str, str]]) -> bool:
    meta = obj.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
    return annotations.get(PATCH_FORCE_ANNOTATION) == "true" or key in forced_servers


def forecast(
    objects: Sequence[Mapping[str, Any]],
    live: LiveState,
    stack: DocumentSet,
    options: Options,
    own_managers: Iterable[str],
    forcing: FieldOwnership | None = None,
    forced_servers: Iterable[tuple[str, str]] = (),
) -> Forecast:
    """The conflicts of the build ``objects`` (as applied) with the live objects'
    ``managedFields``: every field another manager owns with another value (this stack's
    managers ``own_managers`` and pulumi-kubernetes' own are not others; ``initial`` and
    ``external`` fields of ``options.field_ownership`` never conflict). Objects Pulumi
    applies with force are ``taken``, not refused: those with ``pulumi.com/patchForce``, and
    the servers' with a field ownership setting in ``forcing`` (default: the options'; the
    components force for a setting, not for ``tars:externalReplicas`` alone), and those of
    ``forced_servers`` (``(namespace, object name)``: applied under the stack's manager)."""
    ownerships = server_ownerships(stack, options)
    result = live_diff(objects, live.objects, ownerships, own_managers)
    if forcing is None:
        forced = set(ownerships)
    else:
        forced = set(server_ownerships(stack, replace(options, field_ownership=forcing)))
    forced.update(forced_servers)
    by_key = {identity(o): o for o in objects}
    conflicts: list[Conflict] = []
    taken: list[Conflict] = []
    for conflict in result.conflicts:
        key = (conflict.namespace, conflict.name, conflict.kind, api_group(conflict.api_version))
        obj = by_key.get(key, {})
        (taken if _forced(obj, forced) else conflicts).append(conflict)
    return Forecast(tuple(conflicts), tuple(taken))


@dataclass(frozen=True)
class Held:
    """An ``external`` field that only this stack's managers hold on the cluster: left out
    of the apply it would be reset, so Pulumi keeps it at its live value until another
    manager writes it."""

    kind: str
    namespace: str
    name: str
    field: str
    live: Any


@dataclass(frozen=True)
class HandoverPlan:
    """What the next ``pulumi up`` does with the field managers of the live objects
    (docs/concepts/live.md, "Field managers handed over"):

    * ``handovers``: the objects whose client-side appliers (``kubectl apply``) and
      pulumi-kubernetes' random managers hand their fields to the stack's manager first;
    * ``live``: the live objects as they are after those hand-overs (what the conflicts are
      forecast against);
    * ``servers``: ``(namespace, object name)`` of the servers applied under the stack's
      manager (a field ownership setting, a client-side applier, or that manager already);
    * ``held``: the ``external`` fields kept at their live value (:class:`Held`)."""

    handovers: tuple[Handover, ...]
    live: LiveState
    servers: frozenset[tuple[str, str]]
    held: tuple[Held, ...]

    def held_keys(self) -> frozenset[tuple[str, str, str]]:
        """``(namespace, object name, dotted path)`` of every held field."""
        return frozenset((h.namespace, h.name, h.field) for h in self.held)


def _server_objects(
    objects: Sequence[Mapping[str, Any]], servers: set[tuple[str, str]]
) -> Iterator[tuple[tuple[str, str], Mapping[str, Any]]]:
    for obj in objects:
        key = object_key(obj)
        if key in servers:
            yield key, obj


def plan_handover(
    objects: Sequence[Mapping[str, Any]],
    live: LiveState,
    stack: DocumentSet,
    options: Options,
    manager: str,
) -> HandoverPlan:
    """The hand-overs and held fields of the build ``objects`` (as applied) against
    ``live``, for a stack whose field manager is ``manager``."""
    ownerships = server_ownerships(stack, options)
    keys = {(s.namespace, s.object_name) for s in stack.servers}
    stable = set(ownerships)
    for key, obj in _server_objects(objects, keys):
        found = live.get(str(obj.get("kind")), *key)
        if found is not None and (
            client_side_managers(found)
            or any(e.get("manager") == manager for e in all_entries(found))
        ):
            stable.add(key)
    handovers: list[Handover] = []
    after = {id(o): o for o in live.objects}
    for key, obj in _server_objects(objects, stable):
        found = live.get(str(obj.get("kind")), *key)
        moved = handover(found, manager) if found is not None else None
        if found is not None and moved is not None:
            handovers.append(moved)
            after[id(found)] = moved.applied(found)
    now = replace(live, objects=tuple(after[id(o)] for o in live.objects))
    held: list[Held] = []
    for key, obj in _server_objects(objects, set(ownerships)):
        kind = str(obj.get("kind"))
        found = now.get(kind, *key)
        if found is None:
            continue
        for path, owner in owned_paths(kind, ownerships[key]):
            if owner is Ownership.EXTERNAL and only_ours(owners(found, path), manager):
                held.append(Held(kind, *key, dotted(path), _at(found, path)))
    return HandoverPlan(tuple(handovers), now, frozenset(stable), tuple(held))


def _at(obj: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = obj
    for name in path:
        node = node.get(name) if isinstance(node, Mapping) else None
    return node


def handover_message(moved: Handover, manager: str, dry_run: bool) -> str:
    """One line for a hand-over: the object, the managers and who takes their fields."""
    names = ", ".join(name for name, _ in moved.managers)
    when = "pulumi up hands" if dry_run else "handed"
    return (
        f"{moved.kind} {moved.namespace}/{moved.name}: {when} the fields of {names} to "
        f"{manager} (as kubectl apply --server-side does)"
    )


def held_message(held: Held, manager: str) -> str:
    """One line for an ``external`` field Pulumi keeps at its live value."""
    return (
        f"{held.kind} {held.namespace}/{held.name} {held.field}: external, but no manager "
        f"other than this stack's ({manager}) holds it on the cluster: giving it up now "
        f"would reset it, so Pulumi keeps it at its live value ({_shown(held.live)}) until "
        "another manager writes it (kubectl scale, an HPA, TarsWeb)"
    )


def write_handovers(
    plan: HandoverPlan, context: str | None = None, environ: Mapping[str, str] | None = None
) -> None:
    """Write each hand-over of ``plan`` to the cluster (a JSON patch of ``managedFields``
    that tests the ``resourceVersion`` read). Raises
    :class:`~tars_components.kubeapi.LiveReadError`."""
    if not plan.handovers:
        return
    client = ApiClient(connection(context, environ))
    for moved in plan.handovers:
        path = resource_path(moved.api_version, moved.kind, moved.namespace, moved.name)
        client.json_patch(path, moved.patch())


def conflict_message(conflict: Conflict, source: str) -> str:
    """One line for ``pulumi preview``: the object, the field, its manager, both values and
    the fix."""
    return (
        f"{conflict.kind} {conflict.namespace}/{conflict.name} {conflict.field}: owned by "
        f"{conflict.manager} in {source} (live {_shown(conflict.live)}), the stack applies "
        f"{_shown(conflict.build)}: the next pulumi up is refused with an apply conflict; "
        f"avoid with {conflict.avoid}"
    )


def taken_message(conflict: Conflict, source: str) -> str:
    """One line for a field the next ``up`` takes back with force."""
    return (
        f"{conflict.kind} {conflict.namespace}/{conflict.name} {conflict.field}: owned by "
        f"{conflict.manager} in {source} (live {_shown(conflict.live)}); the next pulumi up "
        f"applies {_shown(conflict.build)} with force and takes it over"
    )


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


__all__ = [
    "Forecast",
    "HandoverPlan",
    "Held",
    "conflict_message",
    "forecast",
    "handover_message",
    "held_message",
    "live_kinds",
    "plan_handover",
    "read_live",
    "taken_message",
    "write_handovers",
]
