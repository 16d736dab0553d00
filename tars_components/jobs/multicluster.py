"""One environment on several clusters (docs/concepts/clusters.md): what is per cluster
beyond :func:`tars_components.pipeline.run` (which builds and checks every cluster of an
inventory, as it does a stack's one cluster): :func:`diff_clusters`, two versions compared
cluster by cluster (pure), and :func:`render_clusters`, which writes ``OUT/<cluster>/``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernel.errors import UsageError, Violation, has_errors, sorted_violations
from ..loading.document_set import DocumentSet
from ..models.cluster import Cluster
from ..pipeline import Build, Run, TargetResult, run, target_stacks, targets
from ..rules.clusters import cluster_violations, stack_inventory
from ..settings.options import Options

if TYPE_CHECKING:
    from ..diff.stacks import StackDiff
    from ..secrets.hashing import AccountHashing


def build_clusters(
    stack: DocumentSet,
    options: Options = Options(),
    configured: Sequence[Cluster] = (),
    only: str | None = None,
    hashing: Mapping[str, AccountHashing] | None = None,
) -> Run:
    """Deprecated: :func:`tars_components.pipeline.run` of
    :func:`tars_components.pipeline.targets` (the same result)."""
    _deprecated("build_clusters", "run(stack, targets(stack, configured, only), options)")
    return run(stack, targets(stack, configured, only), options, hashing=hashing)


def validate_clusters(
    stack: DocumentSet,
    options: Options = Options(),
    previous: DocumentSet | None = None,
    configured: Sequence[Cluster] = (),
    only: str | None = None,
) -> Run:
    """Deprecated: :func:`tars_components.pipeline.run` of
    :func:`tars_components.pipeline.targets` without objects (the same result)."""
    _deprecated(
        "validate_clusters",
        "run(stack, targets(stack, configured, only), options, previous=..., objects=False)",
    )
    to = targets(stack, configured, only)
    return run(stack, to, options, previous=previous, objects=False)


def _deprecated(name: str, instead: str) -> None:
    warnings.warn(
        f"tars_components.jobs.multicluster.{name} is deprecated: use "
        f"tars_components.pipeline's {instead}",
        DeprecationWarning,
        stacklevel=3,
    )


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

    to = targets(current, configured, only)
    if to.inventory is None or has_errors(to.violations):
        return ClustersDiff(list(to.violations), [])
    diffs: list[tuple[str, StackDiff]] = []
    for cluster, own, old in target_stacks(current, to, previous):
        assert cluster is not None and old is not None  # an inventory, a previous version
        result = diff_stacks(old, own, options, external_replicas)
        result = replace(
            result,
            violations=list(cluster_violations(result.violations, cluster.name)),
            previous_errors=list(cluster_violations(result.previous_errors, cluster.name)),
        )
        diffs.append((cluster.name, result))
    return ClustersDiff(list(to.violations), diffs)


def live_target(
    stack: DocumentSet,
    options: Options = Options(),
    configured: Sequence[Cluster] = (),
    only: str | None = None,
    what: str = "diff --live",
) -> TargetResult:
    """The one target a live comparison (``diff --live``, ``--live-from``) reads: a stack
    without an inventory as it is; with one, the cluster ``only`` names, built by
    :func:`~tars_components.pipeline.run` exactly as ``render --cluster`` builds it (its
    overrides applied, the inventory documents left out). The result's violations include
    the inventory's; no objects when one is an error. :class:`UsageError` when the stack has
    an inventory and ``only`` is None (one export is one cluster's), or ``only`` names no
    cluster of it (``what`` names the command)."""
    to = targets(stack, configured)
    if to.inventory is not None and only is None:
        names = ", ".join(to.inventory.names) or "none readable"
        raise UsageError(
            f"{what}: the stack has a cluster inventory ({names}): pass --cluster NAME to "
            "compare what runs on that cluster with its own render"
        )
    checked = run(stack, to.choose(only), options)
    violations = checked.all_violations
    if not checked.results:  # the inventory has an error: no cluster was chosen
        return TargetResult(None, stack, Build([], violations))
    [result] = checked.results
    objects = result.build.objects if not has_errors(violations) else []
    return replace(result, build=Build(objects, violations))


@dataclass(frozen=True)
class ClustersRender:
    """What :func:`render_clusters` did: the build per cluster and the files written, as
    paths relative to ``--out`` (``<cluster>/1-manifest/...``; none when an error blocked)."""

    stack: DocumentSet
    build: Run
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
    result = run(stack, targets(stack, configured, only), options, hashing=hashing)
    if not result.ok or not result.results:
        return ClustersRender(stack, result)
    trees = {r.name: render_files(r.build.objects) for r in result.results}
    if only is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        write_tree(Path(out_dir) / only, trees[only])
        return ClustersRender(stack, result, [f"{only}/{p}" for p in trees[only]])
    files = {f"{name}/{path}": text for name, tree in trees.items() for path, text in tree.items()}
    directories = [f"{name}/{d}" for name in trees for d in (CRD_DIR, MANIFEST_DIR)]
    write_tree(out_dir, files, directories=directories, check_dir=check_clusters_out_dir)
    return ClustersRender(stack, result, list(files))
