"""Two versions of a stack → their diff (the pure stage after expand, docs/api/pipeline.md).

The new stack is checked as ``validate --previous`` checks it (its rules, and the change rules
against the previous version: TS001, TS002, TT003, TT005); an error blocks and no change list is
built. Both stacks are then built with the same options and their objects compared
(:mod:`.objects`). In crd mode the custom resources are compared, and each changed TServer also
carries ``effects``: the changes of its Service/StatefulSet/DaemonSet between the two stacks
expanded in expand mode, i.e. what the TarsK8S controller will change. A changed
TFrameworkConfig carries the effects on the servers of its namespace whose TServer did not
change (its tarsnode image and pull secret reach every pod).

A server whose claim templates only grow keeps them as they were (its StatefulSet or TServer
is not replaced; an annotation records the wanted sizes), and each of its existing claims is
an ``update`` of ``spec.resources.requests.storage`` (docs/concepts/storage.md).

With ``external_replicas`` (``tars:externalReplicas``: an HPA, ``kubectl scale`` or TarsWeb owns
the replica count, and the Pulumi components ignore later changes to it), a changed replica
count of an existing StatefulSet or TServer is not a change: Pulumi would not apply it. The
same holds for every field of a server that is ``initial`` or ``external``
(``options.field_ownership``, its annotation; docs/concepts/ownership.md): ``external`` fields
are not in either build, and changes to ``initial`` ones are left out for existing objects.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from ..expansion.ownership import ObjectKey, ignored_paths, server_ownerships
from ..expansion.quantity import canonical_quantity
from ..expansion.storage import hold_claims
from ..kernel.errors import Violation, has_errors
from ..loading.document_set import DocumentSet
from ..loading.tdeploy import request_lines, request_of
from ..models.kind_facts import REPLICAS_PATHS
from ..models.ownership import FieldOwnership
from ..pipeline import all_violations, expand, output_objects
from ..rules.storage import StorageChange, storage_changes
from ..settings.options import Mode, Options, Workload
from ..stages.rollouts import plan_lines, release_changes, step_lines
from .model import Action, Change, Diff, FieldChange
from .objects import api_group, diff_objects
from .redact import redact_pair

_TARS_GROUP = "k8s.tars.io"
CLAIM_STORAGE_PATH = "spec.resources.requests.storage"


@dataclass(frozen=True)
class StackDiff:
    """The outcome of :func:`diff_stacks`.

    * ``violations``: the new stack's violations and the change rules' (errors and warnings).
    * ``diff``: the changes; None when an error in ``violations`` blocks.
    * ``previous_errors``: errors of the previous stack (found while loading it); its documents
      that loaded are still compared, so they are only worth a warning.
    """

    violations: list[Violation] = field(default_factory=list)
    diff: Diff | None = None
    previous_errors: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no violation blocks the diff."""
        return self.diff is not None


def diff_stacks(
    previous: DocumentSet,
    current: DocumentSet,
    options: Options = Options(),
    external_replicas: bool = False,
) -> StackDiff:
    """Check ``current`` (its rules and the change rules against ``previous``) and, when no
    error blocks, the changes from ``previous`` to ``current``, both built with ``options``
    (``external_replicas``: see the module docstring)."""
    violations = all_violations(current, options, previous)  # as validate --previous
    previous_errors = [v for v in previous.violations if v.is_error]
    if has_errors(violations):
        return StackDiff(violations=violations, previous_errors=previous_errors)
    crd = options.mode == Mode.CRD
    storage = storage_changes(previous, current, options)
    current_objects = hold_claims(output_objects(current, options), storage, options.mode)
    changes = diff_objects(*redact_pair(output_objects(previous, options), current_objects))
    if crd:
        changes = _with_effects(changes, previous, current, options, external_replicas, storage)
    changes = _with_claim_growths(changes, storage)
    if external_replicas:
        changes = _without_replicas(changes)
    changes = without_owned(changes, server_ownerships(current, options))
    return StackDiff(
        violations=violations,
        diff=Diff(
            changes=tuple(changes),
            crd_mode=crd,
            plan=tuple(plan_lines(current)),
            steps=tuple(step_lines(current)),
            release_changes=tuple(release_changes(previous, current)),
            requests=tuple(
                request_lines(
                    current.requests,
                    previous.requests,
                    {(s.namespace, s.name) for s in current.servers if not request_of(s.source)},
                )
            ),
        ),
        previous_errors=previous_errors,
    )


def _without_replicas(changes: list[Change]) -> list[Change]:
    """The changes without replica counts of existing objects (``external_replicas``)."""
    kept: list[Change] = []
    for change in changes:
        path = REPLICAS_PATHS.get(change.kind)
        if path is not None and change.action in (Action.UPDATE, Action.REPLACE):
            fields = tuple(f for f in change.fields if f.path != path)
            if not fields:
                continue
            change = replace(change, fields=fields)
        kept.append(change)
    return kept


def without_owned(
    changes: list[Change], ownerships: dict[ObjectKey, FieldOwnership]
) -> list[Change]:
    """The changes without the fields of existing objects that Pulumi ignores
    (``initial`` and ``external`` ones, docs/concepts/ownership.md); an update left with no
    field is no change."""
    if not ownerships:
        return changes
    kept: list[Change] = []
    for change in changes:
        ownership = ownerships.get((change.namespace, change.name))
        ignored = ignored_paths(change.kind, ownership) if ownership else []
        if ignored and change.action in (Action.UPDATE, Action.REPLACE):
            fields = tuple(f for f in change.fields if not any(_under(f.path, p) for p in ignored))
            if not fields:
                continue
            change = replace(change, fields=fields)
        kept.append(change)
    return kept


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def _with_effects(
    changes: list[Change],
    previous: DocumentSet,
    current: DocumentSet,
    options: Options,
    external_replicas: bool,
    storage: list[StorageChange],
) -> list[Change]:
    """Each crd-mode change with its expanded ``effects`` (see the module docstring); a
    server whose claims grow in place keeps its claim templates there too."""
    # what the controller writes: the StatefulSet engine whatever --workload says (TP015)
    expand_options = replace(options, mode=Mode.EXPAND, workload=Workload.STATEFULSET)
    held = hold_claims(expand(current, expand_options), storage, Mode.EXPAND, annotate=False)
    expanded = diff_objects(expand(previous, expand_options), held)
    if external_replicas:
        expanded = _without_replicas(expanded)
    by_server: dict[tuple[str, str], list[Change]] = defaultdict(list)
    for effect in expanded:
        by_server[(effect.namespace, effect.name)].append(effect)
    changed_servers = {
        (c.namespace, c.name) for c in changes if c.kind == "TServer" and _is_tars(c)
    }
    out: list[Change] = []
    for change in changes:
        effects: list[Change] = []
        if _is_tars(change) and change.kind == "TServer":
            effects = by_server.get((change.namespace, change.name), [])
        elif _is_tars(change) and change.kind == "TFrameworkConfig":
            effects = [
                e
                for (namespace, name), found in by_server.items()
                if namespace == change.namespace and (namespace, name) not in changed_servers
                for e in found
            ]
        out.append(replace(change, effects=tuple(effects)))
    return out


def _with_claim_growths(changes: list[Change], storage: list[StorageChange]) -> list[Change]:
    """``changes`` and one ``update`` of ``spec.resources.requests.storage`` per claim that
    grows in place (docs/concepts/storage.md), in identity order."""
    growths = [
        Change(
            action=Action.UPDATE,
            api_version="v1",
            kind="PersistentVolumeClaim",
            namespace=growth.namespace,
            name=name,
            fields=(
                FieldChange(
                    CLAIM_STORAGE_PATH,
                    canonical_quantity(growth.old),
                    canonical_quantity(growth.new),
                ),
            ),
        )
        for change in storage
        if change.grows_in_place
        for growth in change.growths
        for name in growth.claim_names
    ]
    if not growths:
        return changes
    return sorted(
        [*changes, *growths], key=lambda c: (c.namespace, c.name, c.kind, api_group(c.api_version))
    )


def _is_tars(change: Change) -> bool:
    return change.api_version.split("/", 1)[0] == _TARS_GROUP
