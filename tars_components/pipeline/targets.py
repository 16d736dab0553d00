"""One run for every target: a stack checked, and built, for the one cluster it names or for
each cluster of its inventory (docs/concepts/clusters.md). One cluster is the degenerate case
(:data:`ONE_CLUSTER`: the stack as it is); with an inventory each cluster gets its documents
from :func:`tars_components.stages.for_cluster` and goes through the same
:func:`~.stack.all_violations` and :func:`~.stack.build`, every violation naming its cluster.

:func:`run` is what every job calls (``validate``, ``render``, the Pulumi program, the
components through it); :func:`validate` adds the reading of the stack directories, within
the input limits. Everything else here is pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernel.errors import (
    LoadError,
    LoadProblem,
    UsageError,
    Violation,
    has_errors,
    sorted_violations,
)
from ..loading.clusters import has_cluster_documents
from ..loading.document_set import DocumentSet
from ..loading.load import load_stack
from ..models.cluster import Cluster, Inventory
from ..models.live import LiveState
from ..rules.clusters import cluster_violations, stack_inventory
from ..rules.ownership import autoscaled_violations
from ..settings.options import Options, ReleaseTag
from ..stages import for_cluster, previous_from_live, with_running, workload_kind
from .stack import Build, all_violations, build

if TYPE_CHECKING:
    from ..kernel.limits import Limits
    from ..secrets.hashing import AccountHashing


@dataclass(frozen=True)
class Targets:
    """The clusters a run works on: none for a stack without an inventory (one cluster, the
    stack as it is), else the chosen clusters of ``inventory``, with the inventory's own
    violations (TM codes; no cluster is chosen when one is an error)."""

    inventory: Inventory | None = None
    clusters: tuple[Cluster, ...] = ()
    violations: tuple[Violation, ...] = ()
    configured: tuple[Cluster, ...] = ()
    """The clusters of the stack's config (``tars:clusters``), for the previous version's
    inventory."""

    @property
    def per_cluster(self) -> bool:
        """True when the stack has an inventory: the results are per cluster."""
        return self.inventory is not None

    def choose(self, only: str | None) -> Targets:
        """These targets, or only the cluster named ``only`` (None: all).
        :class:`UsageError` when there is no inventory or it has no such cluster; no
        cluster is chosen while the inventory has an error."""
        if only is None:
            return self
        if self.inventory is None:
            raise UsageError(
                f"--cluster {only}: the stack has no cluster inventory (Stellaris Cluster "
                "documents or tars:clusters)"
            )
        if has_errors(self.violations):
            return self
        found = self.inventory.cluster(only)
        if found is None:
            names = ", ".join(self.inventory.names) or "none: the stack has no cluster inventory"
            raise UsageError(f"--cluster {only}: no such cluster ({names})")
        return replace(self, clusters=(found,))


ONE_CLUSTER = Targets()
"""The targets of a stack without an inventory."""


def targets(
    stack: DocumentSet,
    configured: Sequence[Cluster] = (),
    only: str | None = None,
    policy: str = "skip",
) -> Targets:
    """The targets of ``stack``: its inventory (``configured``, the ``tars:clusters`` of its
    config, and its Stellaris Cluster and ClusterOverride documents) and every cluster of it,
    or the one ``only`` names (:meth:`Targets.choose`); ``policy``
    (``tars:unavailableClusters``) makes TM011 an error or a warning: a warning by default,
    since only the checks that gate a deployment (``validate``, the program) refuse an
    unavailable cluster."""
    if not (configured or has_cluster_documents(stack)):
        return ONE_CLUSTER.choose(only)
    inventory, found = stack_inventory(stack, configured, policy)
    chosen = () if has_errors(found) else inventory.clusters
    to = Targets(inventory, tuple(chosen), tuple(sorted_violations(found)), tuple(configured))
    return to.choose(only)


@dataclass(frozen=True)
class TargetResult:
    """One target's result: its cluster (None: the stack's one cluster), its documents (the
    cluster's overrides applied) and its build (every violation naming the cluster; no
    objects when an error blocks or the run only checks)."""

    cluster: Cluster | None
    stack: DocumentSet
    build: Build

    @property
    def name(self) -> str:
        """The cluster's name (``""`` for the stack's one cluster)."""
        return self.cluster.name if self.cluster is not None else ""


@dataclass(frozen=True)
class Run:
    """What :func:`run` found: the targets and one result per target."""

    targets: Targets
    results: list[TargetResult] = field(default_factory=list)

    @property
    def inventory(self) -> Inventory:
        """The stack's inventory (empty for one cluster)."""
        inventory = self.targets.inventory
        return inventory if inventory is not None else Inventory()

    @property
    def violations(self) -> list[Violation]:
        """The inventory's own violations."""
        return list(self.targets.violations)

    @property
    def all_violations(self) -> list[Violation]:
        """The inventory's violations and every target's, in report order."""
        return sorted_violations(
            [*self.targets.violations, *(v for r in self.results for v in r.build.violations)]
        )

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.all_violations)

    @property
    def clusters(self) -> list[tuple[Cluster, list[Violation]]]:
        """Each cluster of the inventory the run worked on, with its violations."""
        return [(r.cluster, r.build.violations) for r in self.results if r.cluster is not None]


def run(
    stack: DocumentSet,
    to: Targets = ONE_CLUSTER,
    options: Options = Options(),
    *,
    previous: DocumentSet | None = None,
    objects: bool = True,
    hashing: AccountHashing | Mapping[str, AccountHashing] | None = None,
) -> Run:
    """``stack`` for each target of ``to``: its documents, its violations (and, given
    ``previous``, the version it replaces, the change rules against that cluster's previous
    documents: :func:`target_stacks`) and, with ``objects``, its objects
    (:func:`~.stack.build`). ``hashing`` salts the TAccount passwords: one for the stack's
    one cluster, or one per cluster name."""
    results = []
    for cluster, own, old in target_stacks(stack, to, previous):
        if cluster is None:
            salts = hashing if not isinstance(hashing, Mapping) else None
            results.append(_result(None, own, old, options, objects, salts))
            continue
        salts = hashing.get(cluster.name) if isinstance(hashing, Mapping) else hashing
        result = _result(cluster, own, old, options, objects, salts)
        tagged = list(cluster_violations(result.build.violations, cluster.name))
        results.append(replace(result, build=replace(result.build, violations=tagged)))
    return Run(to, results)


def target_stacks(
    stack: DocumentSet, to: Targets, previous: DocumentSet | None = None
) -> Iterator[tuple[Cluster | None, DocumentSet, DocumentSet | None]]:
    """Each target of ``to`` with its documents and, given ``previous``, its previous ones:
    the stack itself for one cluster; for each cluster of an inventory, the cluster's
    documents (:func:`~tars_components.stages.for_cluster`) and those the previous version
    gave it (by the previous version's own inventory: none for a cluster new to it, the
    previous stack itself when it had no inventory)."""
    if to.inventory is None:
        yield None, stack, previous
        return
    before = stack_inventory(previous, to.configured)[0] if previous is not None else None
    for cluster in to.clusters:
        old = None
        if previous is not None and before is not None:
            old_cluster = before.cluster(cluster.name)
            old = (
                for_cluster(previous, before, old_cluster)
                if old_cluster is not None or not before
                else DocumentSet(namespace=previous.namespace)
            )
        yield cluster, for_cluster(stack, to.inventory, cluster), old


def shared_build(
    stack: DocumentSet,
    to: Targets,
    options: Options = Options(),
    hashing: AccountHashing | None = None,
) -> Build:
    """What every cluster of ``to``'s inventory gets alike, built: the stack with only the
    overrides for every cluster (the Karmada hand-over's objects, written once)."""
    inventory = to.inventory if to.inventory is not None else Inventory()
    return build(for_cluster(stack, inventory, None), options, hashing)


def _result(
    cluster: Cluster | None,
    stack: DocumentSet,
    previous: DocumentSet | None,
    options: Options,
    objects: bool,
    hashing: AccountHashing | None,
) -> TargetResult:
    if objects:
        return TargetResult(cluster, stack, build(stack, options, hashing, previous))
    return TargetResult(cluster, stack, Build([], all_violations(stack, options, previous)))


@dataclass(frozen=True)
class Validation:
    """What :func:`validate` found: the stack, its previous version (when given), every
    violation, sorted, and the run behind them (per cluster with an inventory)."""

    stack: DocumentSet
    previous: DocumentSet | None
    violations: list[Violation]
    run: Run = field(default_factory=lambda: Run(ONE_CLUSTER))

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.violations)

    @property
    def errors(self) -> list[Violation]:
        """The violations that block."""
        return [v for v in self.violations if v.is_error]

    @property
    def warnings(self) -> list[Violation]:
        """The violations that do not block."""
        return [v for v in self.violations if not v.is_error]


def load_stacks(
    directories: Sequence[str | Path],
    namespace: str,
    limits: Limits | None = None,
    release: ReleaseTag | None = None,
) -> list[DocumentSet]:
    """Each stack directory loaded, in order; or one :class:`LoadError` with the problems of
    all of them, each once (a directory may be given twice), so that one run names every
    unreadable file. ``release``: written into the helm-lib values files of every directory
    (:func:`~tars_components.loading.load.load_texts`)."""
    stacks: list[DocumentSet] = []
    problems: dict[LoadProblem, None] = {}
    for directory in directories:
        try:
            stacks.append(load_stack(directory, namespace, limits, release))
        except LoadError as exc:
            problems.update(dict.fromkeys(exc.problems))
    if problems:
        raise LoadError(list(problems))
    return stacks


def validate(
    stack_dir: str | Path,
    options: Options = Options(),
    limits: Limits | None = None,
    previous_dir: str | Path | None = None,
    configured: Sequence[Cluster] = (),
    only: str | None = None,
    live: LiveState | None = None,
    objects: bool = False,
    policy: str = "fail",
) -> Validation:
    """The ``validate`` job (and the Pulumi program's check): load ``stack_dir`` (and
    ``previous_dir``, the version it replaces) in ``options.namespace``, then :func:`run`
    for its targets (``configured``: the ``tars:clusters`` of its config; ``only``: one
    cluster's name; ``policy``: ``tars:unavailableClusters``), with their objects only when
    ``objects`` asks. ``live``: the stack's
    one cluster as read at preview (docs/concepts/live.md): the replicas that run
    (:func:`~tars_components.stages.with_running`) in the stack, TO003, and without
    ``previous_dir`` the previous version as the cluster runs it
    (:func:`~tars_components.stages.previous_from_live`). Raises
    :class:`LoadError` for unreadable input or input beyond ``limits`` (the problems of both
    directories), :class:`UsageError` for ``only`` naming no cluster."""
    directories = [stack_dir] if previous_dir is None else [stack_dir, previous_dir]
    stacks = load_stacks(directories, options.namespace, limits, options.release)
    stack = stacks[0]
    previous = stacks[1] if previous_dir is not None else None
    to = targets(stack, configured, only, policy)
    found: list[Violation] = []
    if live is not None and to.inventory is None:
        kind = workload_kind(options)
        stack = with_running(stack, live, options.field_ownership, kind)
        found = list(autoscaled_violations(stack, live, options, kind))
        if previous is None:  # the storage rules against what runs
            previous = previous_from_live(stack, live, kind)
    checked = run(stack, to, options, previous=previous, objects=objects)
    if found:
        checked = replace(checked, results=[_with(checked.results[0], found)])
    return Validation(stack, previous, checked.all_violations, checked)


def _with(result: TargetResult, found: list[Violation]) -> TargetResult:
    """``result`` with the violations ``found`` against the live cluster, and no objects
    when one of them is an error."""
    violations = sorted_violations([*result.build.violations, *found])
    objects = [] if has_errors(violations) else result.build.objects
    return replace(result, build=Build(objects, violations))


__all__ = [
    "ONE_CLUSTER",
    "Run",
    "TargetResult",
    "Targets",
    "Validation",
    "load_stacks",
    "run",
    "shared_build",
    "target_stacks",
    "targets",
    "validate",
]
