"""Rollout rules (docs/concepts/rollout.md): what a Rollout says about its TServer.

* TP002: ``spec.step`` is beyond ``spec.steps``;
* TP003: a percentage step over 100%;
* TP004: the steps go down (fewer instances on the new release after a later step);
* TP005: no TServer of the namespace is named like the Rollout;
* TP006: ``stable`` is the TServer's release (same id or image) while not aborting;
* TP007: the TServer updates OnDelete: no partition to drive;
* TP008: the TServer has no release to roll out;
* TP009: the TServer is a DaemonSet server: no partition to drive;
* TP010: two Rollouts for one TServer;
* TP011 (warning): a count step above the replicas is capped at the replicas;
* TP012 (warning): the TServer's own partition is replaced by the Rollout's;
* TP013: a stopped ordinal is not an instance of the TServer (at or above its replicas);
* TP014: stopped instances need expand mode, and a workload engine that stops any instance
  (``--workload kruise`` or ``tapp``) unless they are the highest ordinals (the StatefulSet
  engine runs fewer replicas);
* TP015 (warning): crd mode keeps the StatefulSet engine (the TarsK8S controller decides):
  ``--workload`` is not applied;
* TP017 (warning): ``maxUnavailable`` where it is not applied (crd mode: the TServer CRD's
  updateStrategy has only a partition) or needs a feature gate (the apps/v1 StatefulSet:
  ``MaxUnavailableStatefulSet``);
* TP016 (change, warning): a step goes back on the same release: the instances already
  updated stay updated (a partition never rolls back), so the plan's count does not hold;
  ``abort`` goes back;
* TP018 (warning): an abort in crd mode takes ``spec.release`` back, with force, from the
  manager the field ownership hands it to;
* TP019: the declared step is past an approval pause that ``spec.approved`` does not cover;
* TP020: a pause after no step;
* TP021 (warning): a timed pause that nothing awaits before it starts (crd mode, skipAwait);
* TP022: ``spec.order`` or ``spec.pinned`` without the TApp engine;
* TP023: their ordinals are not instances, are listed twice, or are pinned and stopped;
* TP024: a TServer's ``tars-components.io/tapp`` annotation does not parse.

TP001 (the Rollout's own schema) is reported by the loader (:mod:`.schema`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..models import TServerDocument, UpdateStrategyType
from ..models.ownership import Ownership, server_ownership
from ..models.rollout import Rollout, instances, updated_count
from ..models.tapp import ANNOTATION as TAPP_ANNOTATION
from ..models.tapp import parse_tapp_settings
from ..settings.options import Mode, Options, Workload
from .common import unreadable_annotations

TP002 = rule(
    "TP002", ERROR, "Rollout", "spec.step is an index of spec.steps", origin="tars-components"
)
TP003 = rule(
    "TP003", ERROR, "Rollout", "a percentage step is at most 100%", origin="tars-components"
)
TP004 = rule(
    "TP004",
    ERROR,
    "Rollout",
    "the steps never go down (instances on the new release, for the TServer's replicas)",
    origin="tars-components",
)
TP005 = rule(
    "TP005",
    ERROR,
    "Rollout",
    "a Rollout's metadata.name is a TServer of its namespace",
    origin="tars-components",
)
TP006 = rule(
    "TP006",
    ERROR,
    "Rollout",
    "spec.stable is not the TServer's release (id and image differ), unless aborting",
    origin="tars-components",
)
TP007 = rule(
    "TP007",
    ERROR,
    "Rollout",
    "the TServer's updateStrategy is RollingUpdate (OnDelete has no partition to drive)",
    origin="tars-components",
)
TP008 = rule(
    "TP008", ERROR, "Rollout", "the TServer has a release to roll out", origin="tars-components"
)
TP009 = rule(
    "TP009",
    ERROR,
    "Rollout",
    "the TServer is not a DaemonSet server (a DaemonSet has no partition)",
    origin="tars-components",
)
TP010 = rule("TP010", ERROR, "Rollout", "at most one Rollout per TServer", origin="tars-components")
TP011 = rule(
    "TP011",
    WARNING,
    "Rollout",
    "a count step above the TServer's replicas is capped at the replicas",
    origin="tars-components",
)
TP012 = rule(
    "TP012",
    WARNING,
    "Rollout",
    "the TServer's own updateStrategy partition is replaced by the Rollout's",
    origin="tars-components",
)


def target(stack: DocumentSet, rollout: Rollout) -> TServerDocument | None:
    """The TServer a Rollout drives (None when the stack has none of that name)."""
    return stack.server_index.get((rollout.namespace, rollout.name))


@check()
def check_rollouts(stack: DocumentSet) -> Iterator[Violation]:
    """TP002 to TP012 for every Rollout of a stack."""
    if not stack.rollouts:
        return
    servers = stack.server_index
    seen: set[tuple[str, str]] = set()
    for rollout in stack.rollouts:
        key = (rollout.namespace, rollout.name)
        if key in seen:
            yield TP010.at(
                rollout,
                "metadata.name",
                f"a second Rollout for TServer {rollout.name!r}: one Rollout drives a TServer",
            )
            continue
        seen.add(key)
        yield from _own_fields(rollout)
        server = servers.get(key)
        if server is None:
            if rollout.name not in stack.server_names(rollout.namespace):
                yield TP005.at(
                    rollout,
                    "metadata.name",
                    f"no TServer {rollout.name!r} in namespace {rollout.namespace!r}: a Rollout "
                    "is named like the TServer it drives",
                )
            continue
        yield from _against_server(rollout, server)


def _own_fields(rollout: Rollout) -> Iterator[Violation]:
    if rollout.step >= len(rollout.steps):
        yield TP002.at(
            rollout,
            "spec.step",
            f"step {rollout.step} is beyond the {len(rollout.steps)} step(s) of spec.steps "
            f"(0 to {len(rollout.steps) - 1})",
        )
    for position, value in enumerate(rollout.steps):
        if isinstance(value, str) and int(value.rstrip("%")) > 100:
            yield TP003.at(
                rollout, ("spec", "steps", position), f"{value} is over 100% of the replicas"
            )


def _against_server(rollout: Rollout, server: TServerDocument) -> Iterator[Violation]:
    k8s, release = server.spec.k8s, server.spec.release
    if k8s.daemon_set:
        yield TP009.at(
            rollout,
            "metadata.name",
            f"TServer {server.name!r} runs as a DaemonSet (spec.k8s.daemonSet: true), which has "
            "no partition: a Rollout needs a StatefulSet server",
        )
        return
    strategy = k8s.update_strategy
    if strategy.type == UpdateStrategyType.ON_DELETE:
        yield TP007.at(
            rollout,
            "metadata.name",
            f"TServer {server.name!r} updates OnDelete (spec.k8s.updateStrategy.type): pods "
            "change release only when deleted; use RollingUpdate for a Rollout",
        )
        return
    if release is None:
        yield TP008.at(
            rollout,
            "metadata.name",
            f"TServer {server.name!r} has no spec.release: nothing to roll out",
        )
        return
    if not rollout.abort and (
        (isinstance(release.id, str) and release.id == rollout.stable_id)
        or (isinstance(release.image, str) and release.image == rollout.stable_image)
    ):
        same = "id" if release.id == rollout.stable_id else "image"
        yield TP006.at(
            rollout,
            f"spec.stable.{same}",
            f"stable {same} {getattr(release, same)!r} is the TServer's release: the new "
            "release goes in the TServer's spec.release, the one running now in spec.stable",
        )
    replicas = k8s.replicas
    previous: tuple[int, int | str] | None = None
    for position, value in enumerate(rollout.steps):
        # as the step runs: a count above the replicas is capped (TP011), so [1, "50%"] at
        # 0 replicas (an HPA scaled to zero) is 0 then 0, not a step down
        count = instances(value, replicas)
        if previous is not None and count < previous[0]:
            yield TP004.at(
                rollout,
                ("spec", "steps", position),
                f"step {position} ({value}: {count} of {replicas} instance(s)) goes down from "
                f"step {position - 1} ({previous[1]}: {previous[0]})",
            )
        if isinstance(value, int) and value > replicas:
            yield TP011.at(
                rollout,
                ("spec", "steps", position),
                f"{value} instance(s) is above the TServer's {replicas} replica(s): taken as "
                f"{replicas}",
            )
        previous = (count, value)
    own = strategy.rolling_update.partition if strategy.rolling_update else 0
    if own:
        yield TP012.at(
            rollout,
            "metadata.name",
            f"TServer {server.name!r} sets spec.k8s.updateStrategy.rollingUpdate.partition "
            f"{own}: the Rollout sets the partition of its step instead",
        )


TP013 = rule(
    "TP013",
    ERROR,
    "Rollout",
    "each stopped ordinal is an instance of the TServer (below its replicas)",
    origin="tars-components",
)
TP014 = rule(
    "TP014",
    ERROR,
    "Rollout",
    "stopped instances need expand mode; the StatefulSet engine stops only the highest "
    "ordinals (--workload kruise or tapp stop any)",
    origin="tars-components",
)
TP015 = rule(
    "TP015",
    WARNING,
    "TServer",
    "crd mode keeps the StatefulSet engine: --workload (tars:workload) is not applied",
    origin="tars-components",
)


def check_stopped(
    stack: DocumentSet, engine_stops: bool, highest_stop: bool = False
) -> Iterator[Violation]:
    """TP013 and TP014 for the Rollouts with stopped instances; ``engine_stops``: the output
    has an engine that stops any instance (kruise or tapp in expand mode); ``highest_stop``:
    it stops the highest ordinals only, by running fewer replicas (an apps/v1 StatefulSet in
    expand mode)."""
    for rollout in stack.rollouts:
        if not rollout.stopped:
            continue
        server = target(stack, rollout)
        replicas = server.spec.k8s.replicas if server is not None else None
        highest = replicas is not None and rollout.stopped == tuple(
            range(replicas - len(rollout.stopped), replicas)
        )
        if not engine_stops and not (highest_stop and highest):
            yield TP014.at(
                rollout,
                "spec.stopped",
                f"stopped ordinals {list(rollout.stopped)}: "
                + (
                    "the StatefulSet engine stops only the highest ordinals (it runs fewer "
                    "replicas); use --workload kruise or tapp to stop others"
                    if highest_stop
                    else "crd mode cannot stop one instance (the TarsK8S controller writes an "
                    "apps/v1 StatefulSet); use expand mode"
                ),
            )
        if server is None or replicas is None:
            continue
        beyond = [o for o in rollout.stopped if o >= replicas]
        if beyond:
            yield TP013.at(
                rollout,
                "spec.stopped",
                f"ordinal(s) {beyond} are not instances of TServer {server.name!r} "
                f"({replicas} replica(s): ordinals 0 to {replicas - 1})",
            )


TP017 = rule(
    "TP017",
    WARNING,
    "Rollout",
    "maxUnavailable is applied (expand mode; the apps/v1 StatefulSet needs the "
    "MaxUnavailableStatefulSet feature gate)",
    origin="tars-components",
)


def check_max_unavailable(stack: DocumentSet, crd: bool, statefulset: bool) -> Iterator[Violation]:
    """TP017 for each Rollout with ``maxUnavailable`` that crd mode drops or that an apps/v1
    StatefulSet honours only behind a feature gate."""
    for rollout in stack.rollouts:
        if rollout.max_unavailable is None:
            continue
        if crd:
            why = (
                "crd mode: the TServer CRD's updateStrategy has only a partition, so it is "
                "not applied (the controller updates one instance at a time)"
            )
        elif statefulset:
            why = (
                "an apps/v1 StatefulSet honours it only where the MaxUnavailableStatefulSet "
                "feature gate is on (one instance at a time otherwise); --workload kruise or "
                "tapp apply it"
            )
        else:
            continue
        yield TP017.at(
            rollout, "spec.maxUnavailable", f"maxUnavailable {rollout.max_unavailable!r}: {why}"
        )


def engine_ignored(stack: DocumentSet, workload: str) -> Iterator[Violation]:
    """TP015 once, at the first StatefulSet TServer, when crd mode is asked for an engine."""
    first = next((s for s in stack.servers if not s.spec.k8s.daemon_set), None)
    if first is not None:
        yield TP015.at(
            first,
            "kind",
            f"crd mode keeps the StatefulSet engine (the TarsK8S controller writes the "
            f"workloads): --workload {workload} is not applied",
        )


TP016 = rule(
    "TP016",
    WARNING,
    "Rollout",
    "a step does not go back on the same release (updated instances stay updated: use abort)",
    origin="tars-components",
    change=True,
)


@check(Need.PREVIOUS)
def rollout_changes(previous: DocumentSet, current: DocumentSet) -> Iterator[Violation]:
    """TP016 for each Rollout whose step puts fewer instances on the same release than the
    previous version of the stack did."""
    if not current.rollouts or not previous.rollouts:
        return
    before = {(r.namespace, r.name): r for r in reversed(previous.rollouts)}
    for rollout in current.rollouts:
        old = before.get((rollout.namespace, rollout.name))
        if old is None or rollout.abort or old.abort:
            continue
        server, old_server = target(current, rollout), target(previous, old)
        if server is None or old_server is None or not drives(rollout, server):
            continue
        release, old_release = server.spec.release, old_server.spec.release
        if release is None or old_release is None or release.id != old_release.id:
            continue
        if not drives(old, old_server):
            continue
        now = updated_count(rollout, server.spec.k8s.replicas)
        was = updated_count(old, old_server.spec.k8s.replicas)
        if now < was:
            yield TP016.at(
                rollout,
                "spec.step",
                f"step {rollout.step} puts {now} instance(s) on {release.id}, step {old.step} "
                f"put {was}: a partition never rolls an updated instance back, so they stay "
                "on it and the plan's count does not hold; set abort: true to go back",
            )


def drives(rollout: Rollout, server: TServerDocument) -> bool:
    """Whether a Rollout can drive a TServer: a StatefulSet server updating RollingUpdate,
    with a release, and a step within the list (the errors above otherwise)."""
    k8s = server.spec.k8s
    return (
        not k8s.daemon_set
        and k8s.update_strategy.type != UpdateStrategyType.ON_DELETE
        and server.spec.release is not None
        and rollout.step < len(rollout.steps)
    )


@check(Need.OPTIONS)
def engine_violations(stack: DocumentSet, options: Options) -> list[Violation]:
    """What the workload engine says about the stack: TP013/TP014 (stopped instances need
    expand mode, and kruise or tapp unless they are the highest ordinals), TP015 (crd mode
    keeps the StatefulSet engine), TP017 (maxUnavailable not applied)."""
    crd = options.mode == Mode.CRD
    statefulset = options.workload == Workload.STATEFULSET
    found = list(check_stopped(stack, not crd and not statefulset, not crd and statefulset))
    found.extend(instance_violations(stack, not crd and options.workload == Workload.TAPP))
    if crd and options.workload != Workload.STATEFULSET:
        found.extend(engine_ignored(stack, str(options.workload)))
    found.extend(check_max_unavailable(stack, crd, options.workload == Workload.STATEFULSET))
    if crd or options.skip_await:
        for rollout in stack.rollouts:
            seconds = rollout.soak()
            if seconds is not None:
                found.append(
                    TP021.at(
                        rollout,
                        "spec.pauses",
                        f"the {seconds} s pause after step {rollout.step} starts when the "
                        + (
                            "TServer is applied: nothing awaits its pods in crd mode"
                            if crd
                            else "workload is applied: skipAwait waits for no pod"
                        ),
                    )
                )
    return found


TP019 = rule(
    "TP019",
    ERROR,
    "Rollout",
    "a step past an approval pause is approved (spec.approved)",
    origin="tars-components",
)
TP020 = rule(
    "TP020",
    ERROR,
    "Rollout",
    "a pause follows one of the steps (spec.pauses[].after within spec.steps)",
    origin="tars-components",
)
TP021 = rule(
    "TP021",
    WARNING,
    "Rollout",
    "a timed pause is held after the step's pods are Ready (expand mode; crd mode does not "
    "await the TServer's pods)",
    origin="tars-components",
)


@check()
def gate_violations(stack: DocumentSet) -> Iterator[Violation]:
    """TP020 for a pause after no step; TP019 for a declared step past an approval pause
    that ``spec.approved`` does not cover (the step waits: ``pulumi preview`` refuses it)."""
    for rollout in stack.rollouts:
        for index, (after, _) in enumerate(rollout.pauses):
            if after >= len(rollout.steps):
                yield TP020.at(
                    rollout,
                    ("spec", "pauses", index, "after"),
                    f"step {after} is beyond the {len(rollout.steps)} step(s) of spec.steps "
                    f"(0 to {len(rollout.steps) - 1})",
                )
        waiting = rollout.waiting_approval()
        if waiting is not None:
            yield TP019.at(
                rollout,
                "spec.step",
                f"step {rollout.step} is past the approval pause after step {waiting}, which "
                f"is not approved: set spec.approved: {waiting} (reviewed like any change) to "
                f"let step {waiting + 1} on, or stay at step {waiting}",
            )


TP022 = rule(
    "TP022",
    ERROR,
    "Rollout",
    "spec.order and spec.pinned need the TApp engine (expand mode, --workload tapp): a "
    "StatefulSet updates its highest ordinals first and runs one release per revision",
    origin="tars-components",
)
TP023 = rule(
    "TP023",
    ERROR,
    "Rollout",
    "the ordinals of spec.order and spec.pinned are instances of the TServer, each once, and "
    "a pinned instance is not stopped",
    origin="tars-components",
)


def instance_violations(stack: DocumentSet, tapp: bool) -> Iterator[Violation]:
    """TP022 for ``spec.order`` or ``spec.pinned`` without the TApp engine (``tapp``: expand
    mode with ``--workload tapp``); TP023 for their ordinals that are not instances, listed
    twice, or pinned and stopped."""
    for rollout in stack.rollouts:
        for field, used in (("spec.order", rollout.order), ("spec.pinned", rollout.pinned)):
            if used and not tapp:
                yield TP022.at(
                    rollout,
                    field,
                    f"{field} needs --workload tapp in expand mode (tars:workload): a "
                    "StatefulSet updates its highest ordinals first and runs one release per "
                    "revision",
                )
        server = target(stack, rollout)
        if server is None:
            continue
        replicas = server.spec.k8s.replicas
        pinned = [o for o, _, _ in rollout.pinned]
        for field, ordinals in (("spec.order", list(rollout.order)), ("spec.pinned", pinned)):
            beyond = sorted({o for o in ordinals if o >= replicas})
            twice = sorted({o for o in ordinals if ordinals.count(o) > 1})
            if beyond:
                yield TP023.at(
                    rollout,
                    field,
                    f"ordinal(s) {beyond} are not instances of TServer {server.name!r} "
                    f"({replicas} replica(s))",
                )
            if twice:
                yield TP023.at(rollout, field, f"ordinal(s) {twice} are listed more than once")
        both = sorted(set(pinned) & set(rollout.stopped))
        if both:
            yield TP023.at(rollout, "spec.pinned", f"ordinal(s) {both} are pinned and stopped")


TP024 = rule(
    "TP024",
    ERROR,
    "TServer",
    f"the {TAPP_ANNOTATION} annotation is key=value entries of TApp settings (forceDeletePod, "
    "neverMigrate, autoDeleteUnusedTemplate: true|false; defaultTemplate: stable|release)",
    origin="tars-components",
)


@check()
def tapp_annotation_violations(stack: DocumentSet) -> Iterator[Violation]:
    """TP024 for each TServer whose TApp settings annotation does not parse."""
    return unreadable_annotations(stack, TAPP_ANNOTATION, parse_tapp_settings, TP024)


TP018 = rule(
    "TP018",
    WARNING,
    "Rollout",
    "an abort in crd mode with spec.release owned by another manager takes the release back",
    origin="tars-components",
)


@check(Need.OPTIONS)
def abort_violations(stack: DocumentSet, options: Options) -> Iterator[Violation]:
    """TP018 for each aborting Rollout of a crd-mode TServer whose ``release`` another
    manager owns (``release=external`` or ``initial``): the stable release is applied with
    force, under this stack's field manager, over the owner's."""
    if options.mode != Mode.CRD:
        return
    for rollout in stack.rollouts:
        server = target(stack, rollout) if rollout.abort else None
        if server is None or server.spec.release is None:
            continue
        ownership = server_ownership(server.metadata.annotations, options.field_ownership)
        owned = ownership.of("release")
        if owned is not Ownership.MANAGED:
            yield TP018.at(
                rollout,
                "spec.abort",
                f"spec.release of TServer {server.name!r} is {owned} (another manager, such as "
                f"TarsWeb or a pipeline, owns it): the abort applies {rollout.stable_id} with "
                "force, taking the release from its external owner; set abort: false or remove "
                "the Rollout once the owner writes the stable release, to hand it back",
            )


__all__ = [
    "abort_violations",
    "check_max_unavailable",
    "check_rollouts",
    "check_stopped",
    "drives",
    "engine_ignored",
    "gate_violations",
    "instance_violations",
    "rollout_changes",
    "tapp_annotation_violations",
    "target",
]
