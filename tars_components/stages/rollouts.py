"""The rollout stage: each TServer at its Rollout's step, and the plan that gives
(docs/concepts/rollout.md).

:func:`apply_rollouts` is a pure transformation of a stack: each TServer a valid Rollout
drives gets ``spec.k8s.updateStrategy`` RollingUpdate with the step's partition (``R - n_k``),
and on ``abort`` the ``stable`` release with partition 0; beside the stack it returns each
such server's :class:`~tars_components.models.rollout.RolloutStep`, which the workload
builders take as an argument. Both modes build from the result: the StatefulSet's
``updateStrategy`` in expand mode, the TServer's (which the controller copies) in crd mode.
Only :mod:`tars_components.stages` calls it. :func:`plans` says which ordinals run which
release; :func:`release_changes` what changes between two stacks, ordinal by ordinal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..kernel.errors import Violation
from ..loading.document_set import DocumentSet
from ..loading.rollout import Rollouts
from ..models import Document, TServerDocument
from ..models.document import ObjectMeta
from ..models.ownership import ANNOTATION as OWNERSHIP_ANNOTATION
from ..models.ownership import PATCH_FORCE_ANNOTATION, RELEASE_MANAGED, FieldOwnership
from ..models.rollout import (
    ROLLOUT_API_VERSION,
    Rollout,
    RolloutSpec,
    RolloutStep,
    ServerKey,
    partition,
    running_ordinals,
    updated_ordinals,
)
from ..models.tserver import RollingUpdate, UpdateStrategy, UpdateStrategyType
from ..rules.rollout import (
    check_rollouts,
    check_stopped,
    drives,
    gate_violations,
    instance_violations,
)


@dataclass(frozen=True)
class Plan:
    """Which release each ordinal of one TServer runs at its Rollout's declared step: of the
    ``running`` ordinals (the stopped ones left out), the lowest ``partition`` run
    ``stable_id``, the others ``new_id``."""

    namespace: str
    name: str
    running: tuple[int, ...]
    partition: int
    new_id: str
    stable_id: str
    abort: bool = False
    stopped: tuple[int, ...] = ()
    updates: tuple[int, ...] = ()
    """The ordinals on the new release, ascending (``updated_ordinals``)."""
    pinned: tuple[tuple[int, str], ...] = ()
    """``(ordinal, release id)`` of the instances kept on a release of their own."""

    @property
    def replicas(self) -> int:
        """Instances that run."""
        return len(self.running)

    @property
    def updated(self) -> int:
        """Instances on the new release."""
        return self.replicas - self.partition

    def release_of(self, ordinal: int) -> str:
        """The release id ordinal ``ordinal`` runs."""
        pinned = dict(self.pinned)
        if ordinal in pinned:
            return pinned[ordinal]
        return self.new_id if ordinal in self.updates else self.stable_id

    def line(self) -> str:
        """``shop-orderserver: 1/4 on v1.5.0 (ordinal 3), 3/4 on v1.4.0``; on abort
        ``shop-orderserver: 4/4 on v1.4.0 (aborted: every instance back on stable)``; stopped
        instances last (``, ordinal 0 stopped``)."""
        total = self.replicas
        if self.abort:
            line = (
                f"{self.name}: {total}/{total} on {self.stable_id} "
                "(aborted: every instance back on stable)"
            )
        else:
            updated = _ordinals(self.updates)
            parts = [f"{self.updated}/{total} on {self.new_id}{updated}"]
            if self.partition:
                parts.append(f"{self.partition}/{total} on {self.stable_id}")
            line = f"{self.name}: {', '.join(parts)}"
        for ordinal, release_id in self.pinned:
            line += f", ordinal {ordinal} on {release_id} (pinned)"
        if self.stopped:
            many = "s" if len(self.stopped) > 1 else ""
            line += f", ordinal{many} {_listed(self.stopped)} stopped"
        return line


def _listed(ordinals: tuple[int, ...]) -> str:
    """``2-3`` for a run of consecutive ordinals, else ``0, 2``."""
    if len(ordinals) > 1 and ordinals[-1] - ordinals[0] == len(ordinals) - 1:
        return f"{ordinals[0]}-{ordinals[-1]}"
    return ", ".join(str(o) for o in ordinals)


def _ordinals(updated: tuple[int, ...]) -> str:
    if not updated:
        return ""
    return f" (ordinal{'s' if len(updated) > 1 else ''} {_listed(updated)})"


def _release_id(value: object) -> str:
    return value if isinstance(value, str) else "the new release"


def _driven(stack: DocumentSet) -> dict[ServerKey, tuple[Rollout, TServerDocument]]:
    """Each TServer a Rollout drives (the first Rollout of a name; TP010 reports the others)."""
    if not stack.rollouts:
        return {}
    rollouts: dict[ServerKey, Rollout] = {}
    for rollout in stack.rollouts:
        rollouts.setdefault((rollout.namespace, rollout.name), rollout)
    found: dict[ServerKey, tuple[Rollout, TServerDocument]] = {}
    for server in stack.servers:
        key = (server.namespace, server.name)
        driver = rollouts.get(key)
        if driver is not None and key not in found and drives(driver, server):
            found[key] = (driver, server)
    return found


@cache
def _strategy(step: int) -> UpdateStrategy:
    """RollingUpdate with partition ``step``, built once per value from known-good values (no
    validation paid per server; the models are never changed in place)."""
    return UpdateStrategy.model_construct(
        type=UpdateStrategyType.ROLLING_UPDATE.value,
        rolling_update=RollingUpdate.model_construct(partition=step),
    )


def rolled_out(rollout: Rollout, server: TServerDocument) -> tuple[TServerDocument, RolloutStep]:
    """One TServer at its Rollout's declared step: partition ``R - n_k`` (0 and the stable
    release on abort), and that step. Shallow copies of the server, its spec and its ``k8s``
    (:meth:`~tars_components.models.base.TarsModel.replaced`): the rest is shared, its source
    (file and lines) too."""
    k8s = server.spec.k8s
    step = partition(rollout, k8s.replicas)
    spec_update: dict[str, object] = {"k8s": k8s.replaced(update_strategy=_strategy(step))}
    release = server.spec.release
    update: dict[str, object] = {}
    if rollout.abort and release is not None:
        spec_update["release"] = release.replaced(id=rollout.stable_id, image=rollout.stable_image)
        update["metadata"] = _taken_back(server)
    copied = server.replaced(spec=server.spec.replaced(**spec_update), **update)
    return copied, RolloutStep(rollout, step, k8s.replicas)


def _taken_back(server: TServerDocument) -> ObjectMeta:
    """An aborting server's metadata: its release ``managed`` whatever the stack's field
    ownership says (the server's annotation wins over the stack's setting), and applied with
    ``pulumi.com/patchForce``, so that the stable release is written even where TarsWeb or a
    pipeline owns ``spec.release`` (a release left out would leave every pod on the owner's
    release, and a managed one would conflict with the owner)."""
    annotations = dict(server.metadata.annotations or {})
    try:
        own = FieldOwnership.parse(annotations.get(OWNERSHIP_ANNOTATION))
    except ValueError:  # TO001 reports it; the abort still takes the release
        own = FieldOwnership()
    taken = own.merged(RELEASE_MANAGED)
    annotations[OWNERSHIP_ANNOTATION] = taken.text()
    annotations[PATCH_FORCE_ANNOTATION] = "true"
    return server.metadata.replaced(annotations=annotations)


def apply_rollouts(stack: DocumentSet) -> tuple[DocumentSet, dict[ServerKey, RolloutStep]]:
    """The stack with every driven TServer at its declared step (:func:`rolled_out`), and
    each such server's step by ``(namespace, name)``; the same stack and no step when it has
    no Rollout."""
    driven = _driven(stack)
    if not driven:
        return stack, {}
    by_document = {id(server): rollout for rollout, server in driven.values()}
    documents: list[Document] = []
    steps: dict[ServerKey, RolloutStep] = {}
    for doc in stack.documents:
        rollout = by_document.get(id(doc))
        if rollout is not None and isinstance(doc, TServerDocument):
            doc, steps[(doc.namespace, doc.name)] = rolled_out(rollout, doc)
        documents.append(doc)
    return stack.with_documents(documents), steps


def drivers(stack: DocumentSet) -> dict[ServerKey, Rollout]:
    """The Rollout that drives each TServer of ``stack``, by ``(namespace, name)``."""
    return {key: rollout for key, (rollout, _) in _driven(stack).items()}


def status_of(step: RolloutStep, server: TServerDocument) -> dict[str, Any]:
    """What a Rollout step declares for one TServer, as the component's ``rollout`` output
    and the summaries show it: the step (``step`` of ``steps``), the partition, each
    release's instances and ordinals, the stopped ones, and the gate the step holds at
    (``pause``: ``{"seconds": N}`` or ``{"approval": K}`` when the next step waits for one)."""
    rollout = step.rollout
    release = server.spec.release
    new_id = rollout.stable_id if rollout.abort else _release_id(release.id if release else None)
    updated = step.running if rollout.abort else step.updated
    on_release = frozenset(updated)
    stable = tuple(o for o in step.running if o not in on_release)
    pause: dict[str, int] | None = None
    if rollout.soak() is not None:
        pause = {"seconds": int(rollout.soak() or 0)}
    elif any(a == rollout.step and s is None for a, s in rollout.pauses):
        pause = {"approval": rollout.step}
    return {
        "step": rollout.step,
        "steps": len(rollout.steps),
        "aborted": rollout.abort,
        "partition": step.partition,
        "release": new_id,
        "stable": rollout.stable_id,
        "instances": {"release": len(updated), "stable": len(stable)},
        "ordinals": {"release": list(updated), "stable": list(stable)},
        "stopped": [o for o in rollout.stopped if o < step.replicas],
        "pause": pause,
    }


def rollout_for(
    server: TServerDocument, spec: RolloutSpec | Mapping[str, Any]
) -> tuple[Rollout | None, list[Violation]]:
    """The Rollout of ``spec`` (a Rollout document's ``spec``, as a model or a mapping) for
    one TServer, and its violations (TP001 to TP012 and TP013 as in a stack); None when an
    error blocks or it cannot drive the server. For ``TServer(..., rollout=...)``."""
    raw = spec.to_dict() if isinstance(spec, RolloutSpec) else dict(spec)
    document = {
        "apiVersion": ROLLOUT_API_VERSION,
        "kind": "Rollout",
        "metadata": {"name": server.name, "namespace": server.namespace},
        "spec": raw,
    }
    collector = Rollouts()
    found = collector.read(document, None, server.namespace)
    if not collector.rollouts:
        return None, found
    stack = DocumentSet(
        namespace=server.namespace,
        documents=(server,),
        rollouts=tuple(collector.rollouts),
    )
    found.extend(check_rollouts(stack))
    found.extend(check_stopped(stack, engine_stops=True))
    found.extend(gate_violations(stack))
    found.extend(instance_violations(stack, tapp=True))
    rollout = collector.rollouts[0]
    if any(v.is_error for v in found) or not drives(rollout, server):
        return None, found
    return rollout, found


def plan_of(rollout: Rollout, server: TServerDocument) -> Plan:
    """The plan of one TServer a Rollout drives (:func:`drives`)."""
    release = server.spec.release
    replicas = server.spec.k8s.replicas
    return Plan(
        namespace=server.namespace,
        name=server.name,
        running=running_ordinals(rollout, replicas),
        partition=partition(rollout, replicas),
        new_id=_release_id(release.id if release is not None else None),
        stable_id=rollout.stable_id,
        abort=rollout.abort,
        stopped=tuple(o for o in rollout.stopped if o < replicas),
        updates=updated_ordinals(rollout, replicas),
        pinned=tuple((o, release_id) for o, release_id, _ in rollout.pinned if o < replicas),
    )


def plans(stack: DocumentSet) -> list[Plan]:
    """The plan of every TServer a Rollout drives, in load order of the TServers."""
    return [plan_of(rollout, server) for rollout, server in _driven(stack).values()]


def plan_lines(stack: DocumentSet) -> list[str]:
    """One line per driven TServer (:meth:`Plan.line`)."""
    return [plan.line() for plan in plans(stack)]


def step_line(rollout: Rollout, name: str) -> str:
    """Where a Rollout stands for its TServer ``name``: the step of its steps and its value,
    and the gate it holds at (docs/concepts/rollout.md, "The plan")."""
    total = len(rollout.steps)
    if rollout.abort:
        return f"{name}: aborted at step {rollout.step} of {total}"
    value = json.dumps(rollout.current)
    line = f"{name}: step {rollout.step} of {total} ({value})"
    soak = rollout.soak()
    if soak is not None:
        return f"{line}; pulumi up holds {soak} s once its pods are Ready"
    waiting = rollout.waiting_approval()
    if waiting is not None:
        return f"{line}; refused until spec.approved >= {waiting} (TP019)"
    if any(after == rollout.step and seconds is None for after, seconds in rollout.pauses):
        return f"{line}; the next step waits for spec.approved >= {rollout.step}"
    if rollout.step == total - 1:
        return f"{line}; the last step"
    return line


def step_lines(stack: DocumentSet) -> list[str]:
    """One :func:`step_line` per driven TServer, in load order of the TServers."""
    return [step_line(rollout, server.name) for rollout, server in _driven(stack).values()]


def summary_lines(stack: DocumentSet) -> list[str]:
    """What ``render`` and ``validate`` print for the Rollouts of ``stack``: ``plan: <line>``
    per driven TServer, then ``step: <line>`` (:func:`step_line`)."""
    return [
        *(f"plan: {line}" for line in plan_lines(stack)),
        *(f"step: {line}" for line in step_lines(stack)),
    ]


def ordinal_releases(
    stack: DocumentSet, names: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], tuple[str, ...]]:
    """The release id each ordinal runs, for the StatefulSet TServers ``(namespace, name)``
    of ``names`` that have a release: by their Rollout's plan when one drives them, else every
    ordinal on ``spec.release``."""
    wanted = set(names)
    by_plan = {(p.namespace, p.name): p for p in plans(stack)}
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    for server in stack.servers:
        key = (server.namespace, server.name)
        release = server.spec.release
        if key not in wanted or key in found or release is None or server.spec.k8s.daemon_set:
            continue
        plan = by_plan.get(key)
        replicas = server.spec.k8s.replicas
        if plan is None:
            found[key] = (_release_id(release.id),) * replicas
        elif plan.abort:
            found[key] = (plan.stable_id,) * replicas
        else:
            found[key] = tuple(plan.release_of(ordinal) for ordinal in range(replicas))
    return found


def release_changes(previous: DocumentSet, current: DocumentSet) -> list[str]:
    """The ordinals that change release between two versions of a stack, for the TServers a
    Rollout names in either: ``shop-orderserver: ordinal 2 v1.4.0 -> v1.5.0``, one line per
    ordinal, by TServer in load order of ``current``, then by ordinal."""
    names = [(r.namespace, r.name) for r in (*previous.rollouts, *current.rollouts)]
    if not names:
        return []
    before = ordinal_releases(previous, names)
    after = ordinal_releases(current, names)
    lines: list[str] = []
    for (_, name), releases in after.items():
        old = before.get((_, name), ())
        for ordinal, now in enumerate(releases):
            if ordinal < len(old) and old[ordinal] != now:
                lines.append(f"{name}: ordinal {ordinal} {old[ordinal]} -> {now}")
    return lines


__all__ = [
    "Plan",
    "apply_rollouts",
    "drivers",
    "ordinal_releases",
    "plan_lines",
    "plan_of",
    "plans",
    "release_changes",
    "rolled_out",
    "rollout_for",
    "status_of",
    "step_line",
    "step_lines",
    "summary_lines",
]
