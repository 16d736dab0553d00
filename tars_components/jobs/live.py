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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..diff.live import Conflict, live_diff
from ..diff.objects import api_group, identity
from ..expansion.kruise import KRUISE_API_VERSION
from ..expansion.ownership import server_ownerships
from ..expansion.tapp import TAPP_API_VERSION
from ..kubeapi import ApiClient, connection, read_objects
from ..loading.document_set import DocumentSet
from ..models.live import HPA_API_VERSION, STORAGE_CLASS_API_VERSION, LiveState
from ..models.ownership import PATCH_FORCE_ANNOTATION, FieldOwnership
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
    conn = connection(context, environ)
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
) -> Forecast:
    """The conflicts of the build ``objects`` (as applied) with the live objects'
    ``managedFields``: every field another manager owns with another value (this stack's
    managers ``own_managers`` and pulumi-kubernetes' own are not others; ``initial`` and
    ``external`` fields of ``options.field_ownership`` never conflict). Objects Pulumi
    applies with force are ``taken``, not refused: those with ``pulumi.com/patchForce``, and
    the servers' with a field ownership setting in ``forcing`` (default: the options'; the
    components force for a setting, not for ``tars:externalReplicas`` alone)."""
    ownerships = server_ownerships(stack, options)
    result = live_diff(objects, live.objects, ownerships, own_managers)
    if forcing is None:
        forced = set(ownerships)
    else:
        forced = set(server_ownerships(stack, replace(options, field_ownership=forcing)))
    by_key = {identity(o): o for o in objects}
    conflicts: list[Conflict] = []
    taken: list[Conflict] = []
    for conflict in result.conflicts:
        key = (conflict.namespace, conflict.name, conflict.kind, api_group(conflict.api_version))
        obj = by_key.get(key, {})
        (taken if _forced(obj, forced) else conflicts).append(conflict)
    return Forecast(tuple(conflicts), tuple(taken))


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
    "conflict_message",
    "forecast",
    "live_kinds",
    "read_live",
    "taken_message",
]
