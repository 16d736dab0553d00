"""Storage changes in the components (docs/concepts/storage.md): a TServer given its previous
version refuses a change that takes every pod down unless acknowledged, and grows its claims
in place (one ``PersistentVolumeClaimPatch`` per existing claim) while the StatefulSet or
TServer keeps its claim templates as they were.

The checks are the pure rules of :mod:`tars_components.rules.storage`; a StorageClass that the
stack does not declare expandable is looked up in the cluster (a read) and the patches wait on
its ``allowVolumeExpansion``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..expansion.quantity import canonical_quantity
from ..expansion.statefulset import ORPHAN_ANNOTATION
from ..jobs.resize import ClaimTarget
from ..models import TServerDocument
from ..rules.storage import (
    CLAIM_STORAGE,
    TV002,
    StorageChange,
    change_violations,
    storage_change,
    storage_class_label,
)
from ..settings.options import Options
from .claim_resize import ClaimResize
from .failure import ArgumentProblems


def checked_storage_change(
    previous: TServerDocument | None, current: TServerDocument, options: Options
) -> StorageChange | None:
    """The storage change from ``previous`` to ``current`` (None without a previous version
    or without a change); raises :class:`ArgumentProblems` with the TV errors (an
    unacknowledged outage, a shrink, a growth on a fixed or local StorageClass) and logs the
    warnings."""
    if previous is None:
        return None
    change = storage_change(previous, current, options)
    if change is None:
        return None
    found = change_violations(change, options)
    errors = [v.format() for v in found if v.is_error]
    if errors:
        raise ArgumentProblems(errors)
    for warning in found:
        pulumi.log.warn(warning.format())
    return change


def claim_ignore_changes(obj: Mapping[str, Any]) -> list[str]:
    """For a StatefulSet whose earlier version is known: the requested storage of each
    persistentVolumeClaimTemplate and the wanted-size annotation, which Pulumi keeps as they
    are in its state (a grown claim is grown by patches; the template keeps the size the
    StatefulSet was created with)."""
    if obj.get("kind") != "StatefulSet":
        return []
    templates = (obj.get("spec") or {}).get("volumeClaimTemplates") or []
    paths = [
        f"spec.volumeClaimTemplates[{i}].spec.resources.requests.storage"
        for i, template in enumerate(templates)
        if "selector" not in template.get("spec", {})  # local volumes never grow
    ]
    return [*paths, f'metadata.annotations["{CLAIM_STORAGE}"]'] if paths else []


def orphans_pods(obj: Mapping[str, Any]) -> bool:
    """True for a StatefulSet that pulumi-kubernetes deletes without its pods
    (``pulumi.com/deletionPropagationPolicy: orphan``, from the TServer annotation
    ``tars-components.io/recreate: orphan``): it is replaced delete-first, explicitly, since
    the new one takes over the pods by its selector."""
    meta = obj.get("metadata")
    if obj.get("kind") != "StatefulSet" or not isinstance(meta, Mapping):
        return False
    annotations = meta.get("annotations")
    return isinstance(annotations, Mapping) and annotations.get(ORPHAN_ANNOTATION) == "orphan"


def _expandable(document: TServerDocument, storage_class: str, read: list[Any]) -> str:
    """``"true"`` when the StorageClass read from the cluster allows expansion; else TV002. A
    read without a ``provisioner`` (which every StorageClass has) is no cluster's answer (a
    program under mocks): nothing to check, as the log says."""
    provisioner, allowed = read
    if allowed is True:
        return "true"
    if not provisioner:
        pulumi.log.warn(
            f"StorageClass {storage_class} read without its provisioner: whether it allows "
            "volume expansion is not checked"
        )
        return "true"
    raise ValueError(
        TV002.at(
            document,
            "spec.k8s.mounts",
            f"StorageClass {storage_class} does not allow volume expansion (allowVolumeExpansion "
            f"is {allowed!r} in the cluster): the claims cannot grow",
        ).format()
    )


def _check_of(document: TServerDocument, storage_class: str) -> Callable[[list[Any]], str]:
    return lambda read: _expandable(document, storage_class, read)


def _growth_server(change: StorageChange | None) -> TServerDocument:
    """The server of a change that has growths."""
    assert change is not None
    return change.current


def register_claim_patches(
    name: str,
    change: StorageChange | None,
    patches: Sequence[Mapping[str, Any]],
    options: Options,
    opts: pulumi.ResourceOptions,
) -> list[pulumi.CustomResource]:
    """One ``PersistentVolumeClaimPatch`` per patch object (``<name>-pvc-<claim>``: the claims
    that grow in ``change``, and those of new ordinals after a scale-out), each
    retained on delete (a later run without the growth drops it from the state and leaves the
    claim as it is). A StorageClass not declared expandable is read from the cluster
    (``<name>-storageclass-<class>``), and the patches of its claims wait on its
    ``allowVolumeExpansion``: false fails the preview with TV002."""
    checks: dict[str, pulumi.Output[str]] = {}
    growths = change.growths if change is not None else ()
    for growth in growths:
        storage_class = growth.storage_class
        if storage_class is None:
            server = _growth_server(change)
            pulumi.log.warn(
                f"TServer {server.namespace}/{server.name}: claim "
                f"{growth.claim} is on {storage_class_label(None)}, which cannot be looked up; "
                "the patches fail if it does not allow volume expansion"
            )
            continue
        if storage_class in options.expandable_storage_classes or storage_class in checks:
            continue
        found = k8s.storage.v1.StorageClass.get(
            f"{name}-storageclass-{storage_class}",
            storage_class,
            opts=pulumi.ResourceOptions(parent=opts.parent, provider=opts.provider),
        )
        checks[storage_class] = pulumi.Output.all(
            found.provisioner, found.allow_volume_expansion
        ).apply(_check_of(_growth_server(change), storage_class))
    by_claim = {claim: growth.storage_class for growth in growths for claim in growth.claim_names}
    registered: list[pulumi.CustomResource] = []
    patch_class: Any = k8s.core.v1.PersistentVolumeClaimPatch  # plain dicts as inputs
    for patch in patches:
        meta = dict(patch["metadata"])
        check = checks.get(by_claim.get(meta["name"]) or "")
        if check is not None:
            meta["annotations"] = {k: check for k in meta["annotations"]}
        registered.append(
            patch_class(
                f"{name}-pvc-{meta['name']}",
                metadata=meta,
                spec=patch["spec"],
                opts=pulumi.ResourceOptions.merge(
                    opts, pulumi.ResourceOptions(retain_on_delete=True)
                ),
            )
        )
    targets = [
        ClaimTarget(claim, str(canonical_quantity(growth.new)), f"{growth.statefulset}-{i}")
        for growth in growths
        for i, claim in enumerate(growth.claim_names)
    ]
    if targets and options.live_context is not None and not options.skip_await:
        ClaimResize(
            f"{name}-claims",
            growths[0].namespace,
            options.live_context,
            targets,
            pulumi.ResourceOptions(parent=opts.parent, depends_on=registered),
        )
    return registered


__all__ = [
    "checked_storage_change",
    "claim_ignore_changes",
    "orphans_pods",
    "register_claim_patches",
]
