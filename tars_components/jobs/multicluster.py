"""One environment on several clusters (docs/concepts/clusters.md): the fan-out before
mutation.

Given a loaded stack and its :class:`~tars_components.models.cluster.Inventory`,
:func:`~tars_components.stages.for_cluster` gives one cluster's documents (the overrides
applied, in precedence order: every cluster, then clusters matching labels, then the named
cluster); each flows through
the same :func:`~tars_components.pipeline.build` as a one-cluster stack, and every violation
of its result names the cluster. :func:`build_clusters`, :func:`validate_clusters` and
:func:`diff_clusters` are the jobs of ``render``, ``validate`` and ``diff``; they are pure
but for reading the stack directories. :func:`render_clusters` writes ``OUT/<cluster>/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernel.errors import UsageError, Violation, has_errors, sorted_violations
from ..loading.clusters import has_cluster_documents
from ..loading.document_set import DocumentSet
from ..models.cluster import Cluster, Inventory
from ..pipeline import Build, all_violations, build
from ..rules.clusters import cluster_violations, stack_inventory
from ..settings.options import Options
from ..stages import for_cluster

if TYPE_CHECKING:
    from ..diff.stacks import StackDiff
    from ..secrets.hashing import AccountHashing


@dataclass(frozen=True)
class ClusterBuild:
    """One cluster's result: its stack (overrides applied) and build; every violation of
    ``build`` names the cluster."""

    cluster: Cluster
    stack: DocumentSet
    build: Build


@dataclass(frozen=True)
class ClustersBuild:
    """What :func:`build_clusters` found: the inventory, its own violations (TM codes) and one
    :class:`ClusterBuild` per selected cluster (none when the inventory has errors)."""

    inventory: Inventory
    violations: list[Violation] = field(default_factory=list)
    results: list[ClusterBuild] = field(default_factory=list)

    @property
    def all_violations(self) -> list[Violation]:
        """The inventory's violations and every cluster's, in report order."""
        return sorted_violations(
            [*self.violations, *(v for r in self.results for v in r.build.violations)]
        )

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.all_violations)


def selected(inventory: Inventory, only: str | None) -> list[Cluster]:
    """The clusters a command works on: all, or the one ``--cluster`` names (UsageError for
    a name the inventory does not have)."""
    if only is None:
        return list(inventory.clusters)
    found = inventory.cluster(only)
    if found is None:
        names = ", ".join(inventory.names) or "none: the stack has no cluster inventory"
        raise UsageError(f"--cluster {only}: no such cluster ({names})")
    return [found]


def is_multicluster(stack: DocumentSet, configured: Sequence[Cluster]) -> bool:
    """True when the stack has an inventory (``tars:clusters``, Cluster documents) or
    ClusterOverride documents: the per-cluster commands apply."""
    return bool(configured) or has_cluster_documents(stack)


def build_clusters(
    stack: DocumentSet,
    options: Options = Options(),
    configured: Sequence[Cluster] = (),
    only: str | None = None,
    hashing: Mapping[str, AccountHashing] | None = None,
) -> ClustersBuild:
    """The inventory of ``stack`` and, when it has no error, each selected cluster's build
    (``hashing``: the TAccount salts per cluster name)."""
    inventory, found = stack_inventory(stack, configured)
    if has_errors(found):
        return ClustersBuild(inventory, sorted_violations(found))
    results = []
    for cluster in selected(inventory, only):
        own = for_cluster(stack, inventory, cluster)
        result = build(own, options, (hashing or {}).get(cluster.name))
        tagged = list(cluster_violations(result.violations, cluster.name))
        results.append(ClusterBuild(cluster, own, replace(result, violations=tagged)))
    return ClustersBuild(inventory, sorted_violations(found), results)


@dataclass(frozen=True)
class ClustersValidation:
    """What :func:`validate_clusters` found: per cluster, its stack and its violations (the
    inventory's own violations in ``violations`` beside them)."""

    stack: DocumentSet
    inventory: Inventory
    violations: list[Violation]
    clusters: list[tuple[Cluster, list[Violation]]]

    @property
    def all_violations(self) -> list[Violation]:
        """Every violation, in report order."""
        return sorted_violations([*self.violations, *(v for _, vs in self.clusters for v in vs)])

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.all_violations)


def validate_clusters(
    stack: DocumentSet,
    options: Options = Options(),
    previous: DocumentSet | None = None,
    configured: Sequence[Cluster] = (),
    only: str | None = None,
) -> ClustersValidation:
    """``validate`` of a stack with clusters: every selected cluster's result through the same
    rules (and, given the previous version, the change rules against that cluster's previous
    result)."""
    inventory, found = stack_inventory(stack, configured)
    checked: list[tuple[Cluster, list[Violation]]] = []
    if not has_errors(found):
        before = None
        if previous is not None:
            before, _ = stack_inventory(previous, configured)
        for cluster in selected(inventory, only):
            own = for_cluster(stack, inventory, cluster)
            old = None
            if previous is not None and before is not None:
                old_cluster = before.cluster(cluster.name)
                old = (
                    for_cluster(previous, before, old_cluster)
                    if old_cluster is not None
                    else DocumentSet(namespace=previous.namespace)
                )
            violations = all_violations(own, options, old)
            checked.append((cluster, list(cluster_violations(violations, cluster.name))))
    return ClustersValidation(stack, inventory, sorted_violations(found), checked)


@dataclass(frozen=True)
class ClustersDiff:
    """``diff`` per cluster: the inventory's violations and one
    :class:`~tars_components.diff.stacks.StackDiff` per cluster, in inventory order."""

    violations: list[Violation]
    diffs: list[tuple[str, StackDiff]]

    @property
    def ok(self) -> bool:
        """True when no violation blocks any cluster's diff."""
        return not has_errors(self.violations) and all(d.ok for _, d in self.diffs)

    @property
    def all_violations(self) -> list[Violation]:
        """The inventory's violations and every cluster's, in report order."""
        return sorted_violations(
            [*self.violations, *(v for _, d in self.diffs for v in d.violations)]
        )


def diff_clusters(
    previous: DocumentSet,
    current: DocumentSet,
    options: Options = Options(),
    external_replicas: bool = False,
    configured: Sequence[Cluster] = (),
    only: str | None = None,
) -> ClustersDiff:
    """Compare two versions of a stack cluster by cluster: the clusters of the new version's
    inventory (a cluster the previous version lacks is compared with an empty stack)."""
    from ..diff.stacks import diff_stacks

    inventory, found = stack_inventory(current, configured)
    if has_errors(found):
        return ClustersDiff(sorted_violations(found), [])
    before, _ = stack_inventory(previous, configured)
    diffs: list[tuple[str, StackDiff]] = []
    for cluster in selected(inventory, only):
        old_cluster = before.cluster(cluster.name)
        old = (
            for_cluster(previous, before, old_cluster)
            if old_cluster is not None or not before
            else DocumentSet(namespace=previous.namespace)
        )
        result = diff_stacks(
            old, for_cluster(current, inventory, cluster), options, external_replicas
        )
        result = replace(
            result,
            violations=list(cluster_violations(result.violations, cluster.name)),
            previous_errors=list(cluster_violations(result.previous_errors, cluster.name)),
        )
        diffs.append((cluster.name, result))
    return ClustersDiff(sorted_violations(found), diffs)


@dataclass(frozen=True)
class ClustersRender:
    """What :func:`render_clusters` did: the build per cluster and the files written, as
    paths relative to ``--out`` (``<cluster>/1-manifest/...``; none when an error blocked)."""

    stack: DocumentSet
    build: ClustersBuild
    files: list[str] = field(default_factory=list)


def check_clusters_out_dir(out_dir: str | Path, stack_dir: str | Path | None = None) -> None:
    """Refuse an ``--out`` that a per-cluster render would damage: a file or symbolic link, the
    stack directory or one containing it, or a directory holding anything but previous
    per-cluster renders (``<cluster>/0-crd/``, ``<cluster>/1-manifest/``). Raises
    :class:`UsageError`."""
    from .tree_writer import check_out_dir, check_out_target

    out = check_out_target(out_dir, stack_dir)
    if not out.is_dir():
        return
    for entry in sorted(out.iterdir()):
        if entry.is_symlink() or not entry.is_dir():
            raise UsageError(
                f"--out {out}: holds {entry.name}, not a previous per-cluster render "
                "(only <cluster>/0-crd/ and <cluster>/1-manifest/ are replaced)"
            )
        check_out_dir(entry)


def render_clusters(
    stack: DocumentSet,
    stack_dir: str | Path,
    out_dir: str | Path,
    options: Options,
    configured: Sequence[Cluster] = (),
    only: str | None = None,
    salt_key: bytes | None = None,
) -> ClustersRender:
    """``render`` of a stack with clusters: each selected cluster's objects under
    ``OUT/<cluster>/`` in the renderYamlToDirectory layout. Every cluster is built before
    anything is written; a rule error in any blocks all (nothing written). Without
    ``only`` the whole ``OUT`` is replaced atomically; with it, only ``OUT/<only>``."""
    import os

    from ..rules.layout import CRD_DIR, MANIFEST_DIR
    from ..settings.options import Mode
    from .account_salts import local_salt_key, previous_hashes
    from .render import render_files
    from .tree_writer import write_tree

    check_clusters_out_dir(out_dir, stack_dir)
    hashing: dict[str, AccountHashing] = {}
    if stack.accounts and options.mode == Mode.CRD:
        from ..secrets.hashing import AccountHashing

        inventory, _ = stack_inventory(stack, configured)
        local = None if salt_key is not None else local_salt_key()
        for cluster in inventory.clusters:
            hashing[cluster.name] = AccountHashing(
                key=salt_key,
                previous=previous_hashes(Path(out_dir) / cluster.name, stack),
                local_key=local,
                entropy=os.urandom,
            )
    result = build_clusters(stack, options, configured, only, hashing)
    if not result.ok or not result.results:
        return ClustersRender(stack, result)
    trees = {r.cluster.name: render_files(r.build.objects) for r in result.results}
    if only is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        write_tree(Path(out_dir) / only, trees[only])
        return ClustersRender(stack, result, [f"{only}/{p}" for p in trees[only]])
    files = {f"{name}/{path}": text for name, tree in trees.items() for path, text in tree.items()}
    directories = [f"{name}/{d}" for name in trees for d in (CRD_DIR, MANIFEST_DIR)]
    write_tree(out_dir, files, directories=directories, check_dir=check_clusters_out_dir)
    return ClustersRender(stack, result, list(files))
