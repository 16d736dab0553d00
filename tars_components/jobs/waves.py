"""Waves that wait and can stop (docs/pulumi/clusters.md, "Waves"): between two waves of a
cluster inventory, ``pulumi up`` waits until the servers of the wave before are Ready on its
clusters, tolerates at most ``maxFailures`` clusters that are not (a count, or a percentage of
the wave's clusters, rounded down, as OCM's rollouts count them), and then pauses
``pauseSeconds`` before the next wave starts.

The settings (:func:`wave_settings`, ``tars:waves``), what a server's workload says about its
readiness (:func:`not_ready`), which objects a wave watches (:func:`watched`) and the verdict
on a wave (:func:`verdict`) are pure; :func:`watch_wave` polls the clusters' API servers (the
one function here that does I/O, through :mod:`tars_components.kubeapi`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..kernel.errors import UsageError
from ..kubeapi import ApiClient, LiveReadError, resource_path
from ..loading.clusters import known_fields, structured_setting
from ..loading.document_set import DocumentSet
from ..models import TServerDocument
from ..models.kind_facts import object_of_id
from ..pipeline.stack import expand_server
from ..settings.options import Mode, Options
from .fleet import cluster_connection

DEFAULT_TIMEOUT = 600
"""Seconds a wave's servers have to become Ready (pulumi-kubernetes' await default)."""
POLL = 2.0
"""Seconds between two reads of a wave's clusters."""

WATCHED_KINDS = frozenset({"StatefulSet", "DaemonSet", "TServer", "CloneSet", "TApp"})
"""The kinds whose status says whether a server is Ready: its workload (expand mode, with
OpenKruise or TApp) or its TServer (crd mode: the status the TarsK8S controller writes)."""


@dataclass(frozen=True)
class WaveSettings:
    """``tars:waves``: the clusters of a wave that may fail (``max_failures``: a count, or a
    percentage of the wave's clusters when ``percent``), the seconds to pause before the
    next wave and the seconds a wave has to become Ready."""

    max_failures: int = 0
    percent: bool = False
    pause_seconds: int = 0
    timeout_seconds: int = DEFAULT_TIMEOUT
    approved: int | None = None
    """``approvedWaves``: how many waves, from the first, take the change (None: all); the
    later ones are held (:meth:`held`)."""

    def held(self, wave: int) -> bool:
        """True when wave ``wave`` (from 0) waits for its approval."""
        return self.approved is not None and wave >= self.approved

    def allowed(self, clusters: int) -> int:
        """The clusters of a wave of ``clusters`` that may fail."""
        if self.percent:
            return math.floor(clusters * self.max_failures / 100)
        return self.max_failures

    @property
    def gated(self) -> bool:
        """True when the waves need a gate of their own (a failure to tolerate, a pause)."""
        return self.max_failures > 0 or self.pause_seconds > 0


_WAVE_KEYS = ("maxFailures", "pauseSeconds", "timeoutSeconds", "approvedWaves")


def wave_settings(value: Any) -> WaveSettings:
    """``tars:waves`` (a mapping or its JSON text): ``maxFailures`` (a count or ``"N%"``),
    ``pauseSeconds``, ``timeoutSeconds``, ``approvedWaves``. Raises :class:`UsageError`
    naming the field."""
    where = "tars:waves"
    if value is None or value == "":
        return WaveSettings()
    value = structured_setting(value, where, "not valid JSON")
    if not isinstance(value, Mapping):
        raise UsageError(
            f"{where}: a mapping {{maxFailures, pauseSeconds, timeoutSeconds, approvedWaves}}"
        )
    known_fields(value, where, _WAVE_KEYS)
    failures, percent = _failures(value.get("maxFailures", 0), where)
    pause = _seconds(value.get("pauseSeconds", 0), f"{where}.pauseSeconds", 0)
    timeout = _seconds(value.get("timeoutSeconds", DEFAULT_TIMEOUT), f"{where}.timeoutSeconds", 1)
    approved = value.get("approvedWaves")
    if approved is not None:
        if isinstance(approved, bool) or not str(approved).isdigit():
            raise UsageError(
                f"{where}.approvedWaves: how many waves, from the first, take the change "
                f"(0 or more), got {approved!r}"
            )
        approved = int(approved)
    return WaveSettings(failures, percent, pause, timeout, approved)


def _failures(value: Any, where: str) -> tuple[int, bool]:
    at = f"{where}.maxFailures"
    if isinstance(value, str) and value.strip().endswith("%"):
        number = value.strip()[:-1]
        if number.isdigit() and int(number) <= 100:
            return int(number), True
        raise UsageError(f"{at}: a percentage from 0% to 100%, got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise UsageError(f'{at}: a non-negative count or a percentage ("34%"), got {value!r}')
    return int(value), False


def _seconds(value: Any, where: str, least: int) -> int:
    if isinstance(value, bool) or not str(value).isdigit() or int(value) < least:
        raise UsageError(f"{where}: a whole number of seconds of at least {least}, got {value!r}")
    return int(value)


@dataclass(frozen=True, order=True)
class Watched:
    """One object whose status says whether a server is Ready on a cluster."""

    api_version: str
    kind: str
    namespace: str
    name: str

    def to_dict(self) -> dict[str, str]:
        """As a gate's input."""
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
        }


def watched(objects: Iterable[Mapping[str, Any]]) -> list[Watched]:
    """The objects of a cluster's render whose status says whether its servers are Ready
    (:data:`WATCHED_KINDS`), sorted."""
    found = set()
    for obj in objects:
        if obj.get("kind") in WATCHED_KINDS:
            meta = obj.get("metadata") or {}
            found.add(
                Watched(
                    str(obj.get("apiVersion")),
                    str(obj.get("kind")),
                    str(meta.get("namespace") or "default"),
                    str(meta.get("name")),
                )
            )
    return sorted(found)


def not_ready(obj: Mapping[str, Any] | None) -> str | None:
    """Why a server's workload or TServer (as read; None: not found) is not Ready, None when
    it is: every replica Ready and of the current revision, as the controller reports it for
    the generation it was given."""
    if obj is None:
        return "not found"
    kind = obj.get("kind")
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    if kind == "TServer":
        wanted = int(((spec.get("k8s") or {}).get("replicas")) or 0)
        ready = int(status.get("readyReplicas") or 0)
        return None if ready >= wanted else f"{ready} of {wanted} ready (TServer status)"
    observed = status.get("observedGeneration")
    if observed is not None and int(observed) < int(meta.get("generation") or 0):
        return "its controller has not seen the last change yet"
    if kind == "DaemonSet":
        wanted = int(status.get("desiredNumberScheduled") or 0)
        ready = int(status.get("numberReady") or 0)
        updated = int(status.get("updatedNumberScheduled") or 0)
    else:
        wanted = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
        ready = int(status.get("readyReplicas") or 0)
        updated = int(status.get("updatedReplicas", ready) or 0)
    if ready < wanted:
        return f"{ready} of {wanted} ready"
    if updated < wanted:
        return f"{updated} of {wanted} updated"
    return None


@dataclass(frozen=True)
class WaveResult:
    """A wave's verdict: ``ok`` when no more clusters failed than allowed; ``failed`` maps
    each failed cluster to why; ``lines`` say it (one per cluster)."""

    ok: bool
    failed: Mapping[str, str] = field(default_factory=dict)
    lines: tuple[str, ...] = ()


def verdict(
    wave: int, findings: Mapping[str, Mapping[str, str | None]], allowed: int
) -> WaveResult:
    """The verdict on wave ``wave`` from ``findings`` (cluster to each watched object's
    :func:`not_ready`, or ``{"": why}`` for a cluster that could not be read): a cluster
    fails when one of its objects is not Ready."""
    failed: dict[str, str] = {}
    lines: list[str] = []
    for cluster in sorted(findings):
        problems = {k: v for k, v in findings[cluster].items() if v}
        if problems:
            why = "; ".join(f"{k}: {v}" if k else v for k, v in sorted(problems.items()))
            failed[cluster] = why
            lines.append(f"wave {wave}: cluster {cluster} is not Ready ({why})")
        else:
            lines.append(f"wave {wave}: cluster {cluster} Ready")
    ok = len(failed) <= allowed
    lines.append(
        f"wave {wave}: {len(failed)} of {len(findings)} cluster(s) not Ready, at most "
        f"{allowed} allowed (tars:waves maxFailures): "
        + ("the next wave goes on" if ok else "the waves after it are not applied")
    )
    return WaveResult(ok, failed, tuple(lines))


@dataclass(frozen=True)
class HoldPlan:
    """What a held cluster (a wave beyond ``approvedWaves``) is declared with: ``stack``, its
    documents but those new to it, whose objects (``waiting``) wait for the wave's approval;
    ``problems``: the rest of the change that cannot wait (an object deleted there, or created
    for a document it has already)."""

    stack: DocumentSet
    waiting: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


Identity = tuple[str, str, str]


def _identity(obj: Mapping[str, Any]) -> Identity:
    meta = obj.get("metadata") or {}
    return str(obj["kind"]), str(meta.get("namespace") or "default"), str(meta["name"])


def hold_plan(
    cluster: str,
    reason: str,
    stack: DocumentSet,
    options: Options,
    rendered: Collection[str],
    deployed: Collection[str],
) -> HoldPlan:
    """How ``cluster``, held for ``reason``, keeps its objects as the last update left them
    (``deployed``, ``apiVersion/kind:namespace/name``) while this change renders ``rendered``
    from ``stack`` for it: a document (a TServer, any document in crd mode, a plain object)
    none of whose objects is deployed there waits, left out of the stack; any other creation
    or deletion is a problem. Nothing deployed (a cluster the stack never reached): nothing is
    declared, everything waits."""
    if not deployed:
        return HoldPlan(replace(stack, documents=(), objects=()), tuple(sorted(rendered)))
    by_identity: dict[Identity, list[str]] = {}
    for item in rendered:
        by_identity.setdefault(_identity(object_of_id(item)), []).append(item)
    had = set(deployed)
    waiting: list[str] = []

    def new(identities: Iterable[Identity]) -> bool:
        found = [i for identity in identities for i in by_identity.get(identity, [])]
        if found and had.isdisjoint(found):
            waiting.extend(found)
            return True
        return False

    documents = []
    for doc in stack.documents:
        if options.mode == Mode.EXPAND and isinstance(doc, TServerDocument):
            framework = stack.framework(doc.namespace)
            identities = [_identity(o) for o in expand_server(doc, framework, options)]
        else:
            identities = [(doc.kind, doc.namespace or "default", doc.name)]
        if not new(identities):
            documents.append(doc)
    objects = [o for o in stack.objects if not new([_identity(o.body)])]
    rest = set(rendered) - set(waiting)
    problems = []
    for what, names in (("create", rest - had), ("delete", had - rest)):
        if names:
            problems.append(
                f"cluster {cluster} is held ({reason}) but this change would {what} "
                f"{', '.join(sorted(names))} there, which cannot wait with a new document: "
                "approve the wave (tars:waves approvedWaves) to make that change"
            )
    kept = replace(stack, documents=tuple(documents), objects=tuple(objects))
    return HoldPlan(kept, tuple(sorted(waiting)), tuple(problems))


Reader = Callable[[str, Watched], Mapping[str, Any] | None]


def watch_wave(
    clusters: Mapping[str, Sequence[Watched]],
    kubeconfigs: Mapping[str, str],
    timeout: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    reader: Reader | None = None,
) -> dict[str, dict[str, str | None]]:
    """Poll each cluster's watched objects until every one is Ready or ``timeout`` seconds
    passed; the last findings (see :func:`verdict`). ``reader`` reads one object of one
    cluster (default: through its kubeconfig text in ``kubeconfigs``, ``""`` for the ambient
    kubeconfig's context of its name)."""
    read = reader or _api_reader(kubeconfigs)
    deadline = clock() + timeout
    while True:
        findings: dict[str, dict[str, str | None]] = {}
        for cluster, objects in sorted(clusters.items()):
            try:
                findings[cluster] = {
                    f"{o.kind} {o.namespace}/{o.name}": not_ready(read(cluster, o)) for o in objects
                }
            except LiveReadError as exc:
                findings[cluster] = {"": f"cannot be read: {exc}"}
        if all(not v for found in findings.values() for v in found.values()) or clock() >= deadline:
            return findings
        sleep(POLL)


def _api_reader(kubeconfigs: Mapping[str, str]) -> Reader:
    clients: dict[str, ApiClient] = {}

    def read(cluster: str, o: Watched) -> Mapping[str, Any] | None:
        if cluster not in clients:
            conn = cluster_connection(kubeconfigs.get(cluster) or None, cluster)
            clients[cluster] = ApiClient(conn, timeout=10.0)
        return clients[cluster].get(resource_path(o.api_version, o.kind, o.namespace, o.name))

    return read


__all__ = [
    "DEFAULT_TIMEOUT",
    "WATCHED_KINDS",
    "HoldPlan",
    "Watched",
    "WaveResult",
    "WaveSettings",
    "hold_plan",
    "not_ready",
    "verdict",
    "watch_wave",
    "watched",
    "wave_settings",
]
