"""Finishing the growth of bound claims on the cluster (docs/concepts/storage.md, "Waiting
for the new capacity"): what ``pulumi up`` does once the claims' patches are applied.

Growing a claim is two steps in Kubernetes: the volume is expanded by its driver's resizer
(the PersistentVolume's capacity), then its file system, by the kubelet. A driver that
expands only offline leaves the claim with the condition ``FileSystemResizePending`` until a
pod that mounts it starts again. So, for the claims that grew:

1. wait until each is at its new capacity (``status.capacity``) or reports
   ``FileSystemResizePending``;
2. restart the pods of the pending ones **one at a time**, highest ordinal first (the order of
   a StatefulSet's own rolling update): delete the pod (only the one read: a uid
   precondition), wait for its controller to start it again and for it to be Ready, then for
   its claims at their new capacity;
3. every claim at its new capacity, or the ``up`` fails naming the claim, what it still
   reports and what it waits for. A pending claim whose pod does not run (a server scaled to
   fewer instances) is left pending: it grows when a pod mounts it again.

The cluster is reached through :class:`ClusterView`, so the sequence is tested against a
scripted cluster; :func:`api_view` is the real one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..kubeapi import ApiClient, resource_path
from ..rules.storage import quantity_bytes

RESIZE_PENDING = "FileSystemResizePending"
"""The claim condition of a volume whose file system grows only when a pod mounts it again."""

TIMEOUT = 600.0
"""Seconds ``pulumi up`` waits for the claims of one server (all steps together)."""


@dataclass(frozen=True)
class ClaimTarget:
    """A claim that grew: its name, the size asked (``10Gi``) and the pod that mounts it."""

    name: str
    storage: str
    pod: str


class ResizeError(Exception):
    """A claim that does not reach its new capacity in time, or a pod that does not return."""


class ClusterView(Protocol):
    """What the sequence reads and does on the cluster, in one namespace."""

    def claim(self, name: str) -> Mapping[str, Any] | None:
        """The PersistentVolumeClaim ``name``, if any."""

    def pod(self, name: str) -> Mapping[str, Any] | None:
        """The pod ``name``, if any."""

    def delete_pod(self, name: str, uid: str) -> None:
        """Delete the pod ``name`` while its uid is ``uid``."""


def at_capacity(claim: Mapping[str, Any], wanted: str) -> bool:
    """True when the claim reports at least ``wanted`` in ``status.capacity.storage``."""
    have = quantity_bytes(((claim.get("status") or {}).get("capacity") or {}).get("storage"))
    need = quantity_bytes(wanted)
    return have is not None and need is not None and have >= need


def resize_pending(claim: Mapping[str, Any]) -> bool:
    """True when the claim waits for a pod to start again (:data:`RESIZE_PENDING`)."""
    conditions = (claim.get("status") or {}).get("conditions") or []
    return any(
        c.get("type") == RESIZE_PENDING and c.get("status") == "True"
        for c in conditions
        if isinstance(c, Mapping)
    )


def pod_ready(pod: Mapping[str, Any]) -> bool:
    """True when the pod's ``Ready`` condition is True and it is not being deleted."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _ordinal(pod: str) -> int:
    tail = pod.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def _uid(obj: Mapping[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("uid") or "")


def _reported(claim: Mapping[str, Any] | None) -> str:
    if claim is None:
        return "is gone"
    capacity = ((claim.get("status") or {}).get("capacity") or {}).get("storage")
    pending = f", {RESIZE_PENDING}" if resize_pending(claim) else ""
    return f"reports {capacity or 'no capacity'}{pending}"


def finish_resize(
    view: ClusterView,
    targets: Sequence[ClaimTarget],
    timeout: float = TIMEOUT,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    poll: float = 1.0,
) -> dict[str, list[str]]:
    """Steps 1-3 of the module doc for ``targets``; returns ``{"restarted": [pods]}`` in the
    order restarted and ``{"unmounted": [claims]}`` left pending without a pod. Raises
    :class:`ResizeError`."""
    deadline = clock() + timeout

    def wait(what: str, done: Callable[[], bool], state: Callable[[], str]) -> None:
        while not done():
            if clock() >= deadline:
                raise ResizeError(f"{what}: not within {timeout:g} s ({state()})")
            sleep(poll)

    def settled(target: ClaimTarget) -> bool:
        claim = view.claim(target.name)
        return claim is not None and (at_capacity(claim, target.storage) or resize_pending(claim))

    wait(
        "the volumes expanded by their resizer",
        lambda: all(settled(t) for t in targets),
        _claims_state(view, targets),
    )
    pending = [t for t in targets if not at_capacity(view.claim(t.name) or {}, t.storage)]
    pods = sorted({t.pod for t in pending}, key=lambda p: (-_ordinal(p), p))
    restarted: list[str] = []
    unmounted: list[str] = []  # no pod runs them now: they grow when one mounts them again
    for pod in pods:
        mounted = [t for t in targets if t.pod == pod]
        old = _uid(view.pod(pod))
        if not old:
            unmounted += [t.name for t in mounted if t in pending]
            continue
        view.delete_pod(pod, old)
        wait(
            f"pod {pod} started again and Ready",
            _started_again(view, pod, old),
            _pod_state(view, pod),
        )
        wait(
            f"claims of pod {pod} at their new capacity",
            _grown(view, mounted),
            _claims_state(view, mounted),
        )
        restarted.append(pod)
    awaited = [t for t in targets if t.name not in unmounted]
    wait("every claim at its new capacity", _grown(view, awaited), _claims_state(view, awaited))
    return {"restarted": restarted, "unmounted": unmounted}


def _claims_state(view: ClusterView, targets: Sequence[ClaimTarget]) -> Callable[[], str]:
    return lambda: "; ".join(f"claim {t.name} {_reported(view.claim(t.name))}" for t in targets)


def _grown(view: ClusterView, targets: Sequence[ClaimTarget]) -> Callable[[], bool]:
    return lambda: all(at_capacity(view.claim(t.name) or {}, t.storage) for t in targets)


def _started_again(view: ClusterView, name: str, old: str) -> Callable[[], bool]:
    def check() -> bool:
        found = view.pod(name)
        return found is not None and _uid(found) != old and pod_ready(found)

    return check


def _pod_state(view: ClusterView, name: str) -> Callable[[], str]:
    def state() -> str:
        pod = view.pod(name)
        if pod is None:
            return "no such pod yet"
        return "Ready" if pod_ready(pod) else "not Ready"

    return state


@dataclass(frozen=True)
class ApiView:
    """:class:`ClusterView` over an API server, in ``namespace``."""

    client: ApiClient
    namespace: str

    def claim(self, name: str) -> Mapping[str, Any] | None:
        """The PersistentVolumeClaim ``name``, read now."""
        return self.client.get(resource_path("v1", "PersistentVolumeClaim", self.namespace, name))

    def pod(self, name: str) -> Mapping[str, Any] | None:
        """The pod ``name``, read now."""
        return self.client.get(resource_path("v1", "Pod", self.namespace, name))

    def delete_pod(self, name: str, uid: str) -> None:
        """Delete the pod ``name`` while it is the one read (uid precondition)."""
        self.client.delete(resource_path("v1", "Pod", self.namespace, name), uid)


__all__ = [
    "RESIZE_PENDING",
    "TIMEOUT",
    "ApiView",
    "ClaimTarget",
    "ClusterView",
    "ResizeError",
    "at_capacity",
    "finish_resize",
    "pod_ready",
    "resize_pending",
]
