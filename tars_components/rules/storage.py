"""Storage changes between two versions of a TServer: claim templates that grow in place, and
changes that delete the StatefulSet with its pods (TV001-TV007, docs/concepts/storage.md).

A StatefulSet's ``volumeClaimTemplates`` cannot be updated: pulumi-kubernetes replaces the
StatefulSet (expand mode) and the TarsK8S controller deletes and recreates it (crd mode), both
with the default cascade, so every pod of the server goes down at once. :func:`storage_change`
tells, for one server, which claims only grow (they are grown in place, claim by claim, and
the workload keeps its template) and what else changes (an outage, unless acknowledged on
the server). Pure functions of the two documents and the output options.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..kernel.errors import Violation, sorted_violations
from ..kernel.registry import ERROR, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..models import TServerDocument
from ..settings.options import Mode, Options
from .common import by_key, key_of

ACCEPT_OUTAGE = "tars-components.io/accept-outage"
"""TServer annotation: ``"true"`` acknowledges that this change deletes the server's
StatefulSet with all its pods (TV001)."""

RECREATE = "tars-components.io/recreate"
"""TServer annotation: ``"orphan"`` (expand mode) recreates the StatefulSet without deleting
its pods: the expanded StatefulSet carries ``pulumi.com/deletionPropagationPolicy: orphan``."""

RECREATE_ORPHAN = "orphan"

CLAIM_STORAGE = "tars-components.io/claim-storage"
"""Workload annotation recording the wanted size of grown claims (``data=10Gi,logs=2Gi``): the
claim template keeps the size the StatefulSet was created with."""

DELAY_BIND = "delay-bind"

_QUANTITY = re.compile(
    r"(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exponent>[eE][+-]?[0-9]+)|(?P<decimal>[numkMGTPE]?))"
)
_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def quantity_bytes(value: Any) -> Fraction | None:
    """A storage quantity (``10Gi``, ``1G``, ``5e9``, an int) in bytes; None when it is not
    one (a deferred value)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    match = _QUANTITY.fullmatch(str(value).strip())
    if match is None:
        return None
    amount = Fraction(match["number"])
    if match["binary"]:
        return amount * Fraction(1024 ** _BINARY.index(match["binary"]))
    exponent = int(match["exponent"][1:]) if match["exponent"] else _DECIMAL[match["decimal"]]
    return amount * Fraction(10**exponent) if exponent >= 0 else amount / 10**-exponent


@dataclass(frozen=True)
class Claim:
    """One claim template of a server: its name, its mount index (None for ``delay-bind``),
    whether it is a local volume (tLocalVolume, ``delay-bind``), its requested storage, its
    storage class, and everything else it holds (compared as a whole)."""

    name: str
    index: int | None
    local: bool
    storage: Any
    storage_class: str | None
    rest: Any


def claims_of(server: TServerDocument, options: Options) -> list[Claim]:
    """The claim templates of a StatefulSet server, in template order (the mapping of
    docs/concepts/mapping.md): persistentVolumeClaimTemplate and tLocalVolume mounts, then
    ``delay-bind`` for a pod with host bindings."""
    claims: list[Claim] = []
    for index, mount in enumerate(server.spec.k8s.mounts or []):
        template = mount.source.persistent_volume_claim_template
        if template is not None:
            body = template.to_dict()
            meta = {k: v for k, v in (body.get("metadata") or {}).items() if k in _KEPT_META}
            spec = body["spec"]
            requests = dict(spec["resources"]["requests"])
            storage = requests.pop("storage")
            rest = {
                "metadata": meta,
                "spec": {**spec, "resources": {**spec["resources"], "requests": requests}},
            }
            claims.append(
                Claim(mount.name, index, False, storage, template.spec.storage_class_name, rest)
            )
        elif mount.source.t_local_volume is not None:
            claims.append(_local(mount.name, index, options))
    if options.delay_bind and server.spec.k8s.has_host_binding:
        claims.append(_local(DELAY_BIND, None, options))
    return claims


_KEPT_META = ("labels", "annotations")


def _local(name: str, index: int | None, options: Options) -> Claim:
    storage_class = options.local_volume_storage_class
    return Claim(name, index, True, "1G", storage_class, ("local", storage_class))


@dataclass(frozen=True)
class ClaimGrowth:
    """A claim template whose requested storage grows from ``old`` to ``new``: its existing
    claims (``<claim>-<statefulset>-<ordinal>``, ordinals below ``replicas``, the running
    count) are grown in place."""

    namespace: str
    statefulset: str
    claim: str
    index: int
    old: Any
    new: Any
    storage_class: str | None
    replicas: int

    @property
    def claim_names(self) -> tuple[str, ...]:
        """The PersistentVolumeClaims the StatefulSet made from this template."""
        return tuple(f"{self.claim}-{self.statefulset}-{i}" for i in range(self.replicas))


@dataclass(frozen=True)
class StorageChange:
    """What changes in one server's claim templates (and, in expand mode, the other fields
    that replace its StatefulSet) between two versions.

    * ``growths``: claims whose requested storage only grows (empty when ``changed`` is not).
    * ``shrinks``: ``(claim, old, new)`` of claims asked to shrink.
    * ``changed``: what else changes, each a short phrase; non-empty means the StatefulSet is
      deleted and recreated.
    * ``removed_local``: removed tLocalVolume claims (the crd-mode controller deletes their
      PersistentVolumeClaims).
    """

    previous: TServerDocument
    current: TServerDocument
    growths: tuple[ClaimGrowth, ...] = ()
    shrinks: tuple[tuple[Claim, Any, Any], ...] = ()
    changed: tuple[str, ...] = ()
    removed_local: tuple[str, ...] = ()

    @property
    def pods(self) -> tuple[str, ...]:
        """The running pods (``<statefulset>-<ordinal>``, the previous replica count)."""
        name = self.previous.name
        return tuple(f"{name}-{i}" for i in range(self.previous.spec.k8s.replicas))

    @property
    def grows_in_place(self) -> bool:
        """True when claims grow and nothing else deletes the StatefulSet."""
        return bool(self.growths) and not self.changed and not self.shrinks


def storage_change(
    previous: TServerDocument, current: TServerDocument, options: Options
) -> StorageChange | None:
    """What changes in the claim templates of a server that stays a StatefulSet; None when
    nothing does (or either version is a DaemonSet)."""
    if previous.spec.k8s.daemon_set or current.spec.k8s.daemon_set:
        return None
    old, new = claims_of(previous, options), claims_of(current, options)
    old_by, new_by = {c.name: c for c in old}, {c.name: c for c in new}
    changed: list[str] = []
    growths: list[ClaimGrowth] = []
    shrinks: list[tuple[Claim, Any, Any]] = []
    changed.extend(f"claim {c.name} added" for c in new if c.name not in old_by)
    changed.extend(f"claim {c.name} removed" for c in old if c.name not in new_by)
    for claim in new:
        was = old_by.get(claim.name)
        if was is None:
            continue
        if was.rest != claim.rest or was.local != claim.local:
            changed.append(f"claim {claim.name} changed")
            continue
        before, after = quantity_bytes(was.storage), quantity_bytes(claim.storage)
        if before is None or after is None or before == after:
            if before is None and was.storage != claim.storage:
                changed.append(f"claim {claim.name} changed")
            continue
        if after < before:
            shrinks.append((claim, was.storage, claim.storage))
        else:
            assert claim.index is not None  # local claims have a fixed size
            growths.append(
                ClaimGrowth(
                    namespace=current.namespace,
                    statefulset=previous.name,
                    claim=claim.name,
                    index=claim.index,
                    old=was.storage,
                    new=claim.storage,
                    storage_class=claim.storage_class,
                    replicas=previous.spec.k8s.replicas,
                )
            )
    common = [c.name for c in old if c.name in new_by]
    if common != [c.name for c in new if c.name in old_by]:
        changed.append("claim templates reordered")
    if options.mode == Mode.EXPAND and (
        previous.spec.k8s.pod_management_policy != current.spec.k8s.pod_management_policy
    ):
        changed.append("spec.k8s.podManagementPolicy changed")
    removed_local = tuple(c.name for c in old if c.local and c.name not in new_by)
    if not (changed or growths or shrinks):
        return None
    return StorageChange(
        previous=previous,
        current=current,
        growths=tuple(growths) if not changed and not shrinks else (),
        shrinks=tuple(shrinks),
        changed=tuple(changed),
        removed_local=removed_local,
    )


def storage_changes(
    previous: DocumentSet, current: DocumentSet, options: Options
) -> list[StorageChange]:
    """:func:`storage_change` of every TServer both stacks have, in the current stack's
    order."""
    before = by_key(previous.documents)
    found: list[StorageChange] = []
    for server in current.servers:
        old = before.get(key_of(server))
        if isinstance(old, TServerDocument):
            change = storage_change(old, server, options)
            if change is not None:
                found.append(change)
    return found


@check(Need.PREVIOUS, Need.OPTIONS)
def storage_violations(
    previous: DocumentSet, current: DocumentSet, options: Options
) -> list[Violation]:
    """TV001-TV007 for every server whose claim templates change, sorted."""
    found: list[Violation] = []
    for change in storage_changes(previous, current, options):
        found.extend(change_violations(change, options))
    return sorted_violations(found)


def change_violations(change: StorageChange, options: Options) -> list[Violation]:
    """TV001-TV007 of one server's storage change, sorted."""
    return sorted_violations(
        [
            *_outage(change, options),
            *_growths(change, options),
            *_shrinks(change),
            *_removed_local(change, options),
        ]
    )


def recreates_orphaned(server: TServerDocument) -> bool:
    """True when the server asks for its StatefulSet to be recreated without deleting its pods
    (annotation ``tars-components.io/recreate: orphan``)."""
    return server.annotations.get(RECREATE) == RECREATE_ORPHAN


TV001 = rule(
    "TV001",
    ERROR,
    "TServer",
    "a change that deletes the server's StatefulSet with its pods (a claim template added, "
    "removed or changed other than by growing; expand mode: podManagementPolicy) is "
    "acknowledged on the server (then it is a warning)",
    origin="tars-components",
    change=True,
    also_warning=True,
)

TV007 = rule(
    "TV007",
    ERROR,
    "TServer",
    "a StatefulSet recreated with orphan propagation already carried the recreate annotation "
    "in the previous stack (expand mode)",
    origin="tars-components",
    change=True,
)


def _change_path(change: StorageChange) -> tuple[str | int, ...]:
    """The field at fault: the first changed claim's mount, else ``spec.k8s.mounts``."""
    names = {c.name: c.index for c in claims_of(change.current, Options())}
    for phrase in change.changed:
        parts = phrase.split()
        if parts[0] == "claim" and names.get(parts[1]) is not None:
            index = names[parts[1]]
            assert index is not None
            return ("spec", "k8s", "mounts", index)
        if parts[0] == "spec.k8s.podManagementPolicy":
            return ("spec", "k8s", "podManagementPolicy")
    return ("spec", "k8s", "mounts")


def _outage(change: StorageChange, options: Options) -> Iterator[Violation]:
    """TV001 and TV007."""
    if not change.changed or not change.pods:
        return
    server = change.current
    pods = change.pods
    what = ", ".join(change.changed)
    who = (
        "the TarsK8S controller deletes StatefulSet"
        if options.mode == Mode.CRD
        else "pulumi-kubernetes replaces StatefulSet"
    )
    head = (
        f"{what}: {who} {server.namespace}/{change.previous.name} with its {len(pods)} "
        f"pod(s) ({', '.join(pods)}), all down at once, then recreates it"
    )
    path = _change_path(change)
    if options.mode == Mode.EXPAND and recreates_orphaned(server):
        if not recreates_orphaned(change.previous):
            yield TV007.at(
                server,
                ("metadata", "annotations", RECREATE),
                f"{RECREATE}: {RECREATE_ORPHAN} must be on the live StatefulSet before it is "
                f"replaced: deploy the annotation alone first, then {what}",
            )
            return
        yield TV001.at(
            server,
            path,
            f"{what}: StatefulSet {server.namespace}/{change.previous.name} is recreated with "
            f"orphan propagation; its {len(pods)} pod(s) keep running and are adopted by the "
            f"new StatefulSet{_kept_claims(change, options)}",
            severity=WARNING,
        )
        return
    if server.annotations.get(ACCEPT_OUTAGE) == "true":
        yield TV001.at(server, path, f"{head} (acknowledged by {ACCEPT_OUTAGE})", severity=WARNING)
        return
    hint = f'acknowledge with the annotation {ACCEPT_OUTAGE}: "true"'
    if options.mode == Mode.EXPAND:
        hint += f', or keep the pods with {RECREATE}: "{RECREATE_ORPHAN}"'
    yield TV001.at(server, path, f"{head}; {hint}")


def _kept_claims(change: StorageChange, options: Options) -> str:
    """What an orphan recreate does not change: the existing claims of each template whose
    StorageClass changes keep the class they were made with (a claim's class is immutable);
    only claims of new ordinals get the new one."""
    old = {c.name: c for c in claims_of(change.previous, options)}
    moved = [
        (c.name, old[c.name].storage_class, c.storage_class)
        for c in claims_of(change.current, options)
        if c.name in old and not c.local and old[c.name].storage_class != c.storage_class
    ]
    if not moved:
        return ""
    parts = [
        f"claim {name}'s existing PersistentVolumeClaims keep {storage_class_label(was)} "
        f"(not {storage_class_label(now)}: a claim's StorageClass never changes; only new "
        "ordinals get it, move the data to change it)"
        for name, was, now in moved
    ]
    return "; " + "; ".join(parts)


TV002 = rule(
    "TV002",
    ERROR,
    "TServer",
    "a claim template grows only on a StorageClass that allows volume expansion",
    origin="tars-components",
    change=True,
)

TV003 = rule(
    "TV003",
    WARNING,
    "TServer",
    "a growing claim's StorageClass is declared expandable or not (offline commands cannot "
    "look it up)",
    origin="tars-components",
    change=True,
)

TV005 = rule(
    "TV005",
    ERROR,
    "TServer",
    "a claim on local volumes (the tLocalVolume storage class) never grows",
    origin="tars-components",
    change=True,
)


def _storage_path(index: int) -> tuple[str | int, ...]:
    template = ("spec", "k8s", "mounts", index, "source", "persistentVolumeClaimTemplate")
    return (*template, "spec", "resources", "requests", "storage")


def storage_class_label(storage_class: str | None) -> str:
    """A claim's StorageClass as messages name it (the cluster default when unset)."""
    return storage_class if storage_class else "(the cluster's default StorageClass)"


def _growths(change: StorageChange, options: Options) -> Iterator[Violation]:
    """TV002, TV003, TV005 for each growing claim."""
    for growth in change.growths:
        server = change.current
        path = _storage_path(growth.index)
        sc = storage_class_label(growth.storage_class)
        grows = f"claim {growth.claim} grows from {growth.old} to {growth.new}"
        if growth.storage_class == options.local_volume_storage_class:
            yield TV005.at(server, path, f"{grows} but {sc} holds local volumes, which cannot grow")
        elif growth.storage_class in options.fixed_storage_classes:
            yield TV002.at(
                server,
                path,
                f"{grows} but StorageClass {sc} does not allow volume expansion "
                "(allowVolumeExpansion is not true)",
            )
        elif growth.storage_class not in options.expandable_storage_classes:
            yield TV003.at(
                server,
                path,
                f"{grows}: StorageClass {sc} is not declared expandable (--expandable-storage-"
                "classes, tars:expandableStorageClasses); the components look it up at preview",
            )


TV004 = rule(
    "TV004",
    ERROR,
    "TServer",
    "a claim template's requested storage never shrinks",
    origin="tars-components",
    change=True,
)


def _shrinks(change: StorageChange) -> Iterator[Violation]:
    """TV004."""
    for claim, old, new in change.shrinks:
        assert claim.index is not None
        path = _storage_path(claim.index)
        yield TV004.at(
            change.current,
            path,
            f"claim {claim.name} shrinks from {old} to {new}: Kubernetes never shrinks a "
            "PersistentVolumeClaim",
        )


TV006 = rule(
    "TV006",
    WARNING,
    "TServer",
    "the PersistentVolumeClaims of a removed tLocalVolume are deleted (crd mode: the TarsK8S "
    "controller deletes them with the StatefulSet)",
    origin="controller",
    change=True,
)


def _removed_local(change: StorageChange, options: Options) -> Iterator[Violation]:
    """TV006 (crd mode)."""
    if options.mode != Mode.CRD or not change.removed_local:
        return
    name = change.previous.name
    replicas = change.previous.spec.k8s.replicas
    claims = [f"{c}-{name}-{i}" for c in change.removed_local for i in range(replicas)]
    yield TV006.at(
        change.current,
        ("spec", "k8s", "mounts"),
        f"tLocalVolume {', '.join(change.removed_local)} removed: the controller deletes "
        f"PersistentVolumeClaim(s) {', '.join(claims) or '(none yet)'} and their data",
    )


__all__ = [
    "ACCEPT_OUTAGE",
    "CLAIM_STORAGE",
    "RECREATE",
    "RECREATE_ORPHAN",
    "Claim",
    "ClaimGrowth",
    "StorageChange",
    "change_violations",
    "claims_of",
    "quantity_bytes",
    "recreates_orphaned",
    "storage_change",
    "storage_changes",
    "storage_class_label",
    "storage_violations",
]
