"""A stack read against the live cluster (docs/concepts/live.md), before the rules: the
replicas that run, and the version that runs.

Where another manager owns a TServer's replica count (an HPA, TarsWeb, ``kubectl scale``:
``replicas`` ``initial`` or ``external``, or a HorizontalPodAutoscaler that targets it), the
count the stack declares is not the count that runs, and a Rollout's canary sizes,
partitions and wait conditions must use the live one, or a ``pulumi up`` waits for a count it
never reaches. :func:`with_running` puts the live count in the documents of those TServers a
Rollout drives; the field itself is still left out of the apply (``external``) or applied
only on create (``initial``), so the documents it changes are never applied with that count.

:func:`previous_from_live` is the previous version of the storage rules when no previous
stack directory is given: each TServer as it runs (its live count, its claims' live sizes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..loading.document_set import DocumentSet
from ..models import Document, TServerDocument
from ..models.live import LiveState, replicas_of
from ..models.ownership import FieldOwnership, Ownership, server_ownership
from ..rules.storage import CLAIM_STORAGE, quantity_bytes


def counted_elsewhere(
    server: TServerDocument, live: LiveState, ownership: FieldOwnership, kind: str
) -> bool:
    """Whether another manager owns ``server``'s replica count: a live HorizontalPodAutoscaler
    targets its ``kind`` object, or a field ownership setting hands the count over
    (``replicas`` ``initial`` or ``external``)."""
    if live.autoscaler_of(kind, server.namespace, server.name) is not None:
        return True
    owned = server_ownership(server.metadata.annotations, ownership).of("k8s.replicas")
    return owned is not Ownership.MANAGED


def with_running(
    stack: DocumentSet, live: LiveState, ownership: FieldOwnership, kind: str
) -> DocumentSet:
    """``stack`` with the live replica count (``kind``'s: ``StatefulSet``, ``TApp`` or
    ``TServer``) in each StatefulSet TServer a Rollout drives whose count another manager
    owns and that exists in the cluster; the stack itself when none changes. Only a
    Rollout's arithmetic needs the count that runs: the other servers keep the stack's
    (their count is not applied either way), so their documents do not change with every
    scale of an HPA."""
    driven = {(r.namespace, r.name) for r in stack.rollouts}
    if not driven:
        return stack
    documents: list[Document] = []
    changed = False
    for doc in stack.documents:
        if (
            isinstance(doc, TServerDocument)
            and (doc.namespace, doc.name) in driven
            and not doc.spec.k8s.daemon_set
        ):
            running = live.replicas(kind, (doc.namespace, doc.name))
            if (
                running is not None
                and running != doc.spec.k8s.replicas
                and counted_elsewhere(doc, live, ownership, kind)
            ):
                k8s = doc.spec.k8s.replaced(replicas=running)
                doc = doc.replaced(spec=doc.spec.replaced(k8s=k8s))
                changed = True
        documents.append(doc)
    return stack.with_documents(documents) if changed else stack


def _claim_sizes(obj: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """The requested storage of each claim template of a live workload (or, ``TServer``, of
    each claim-template mount), the wanted sizes of its ``tars-components.io/claim-storage``
    annotation on top (the template is held at the size it was created with)."""
    sizes: dict[str, Any] = {}
    spec = obj.get("spec") or {}
    if kind == "TServer":
        for mount in (spec.get("k8s") or {}).get("mounts") or []:
            template = (mount.get("source") or {}).get("persistentVolumeClaimTemplate")
            if isinstance(template, Mapping):
                sizes[str(mount.get("name"))] = _requested(template)
    else:
        for template in spec.get("volumeClaimTemplates") or []:
            sizes[str((template.get("metadata") or {}).get("name"))] = _requested(template)
    annotation = ((obj.get("metadata") or {}).get("annotations") or {}).get(CLAIM_STORAGE)
    for entry in str(annotation or "").split(","):
        name, sep, size = entry.partition("=")
        if sep and name.strip() in sizes:
            sizes[name.strip()] = size.strip()
    return {name: size for name, size in sizes.items() if size is not None}


def _requested(template: Mapping[str, Any]) -> Any:
    return (((template.get("spec") or {}).get("resources") or {}).get("requests") or {}).get(
        "storage"
    )


def claim_requests(live: LiveState) -> dict[tuple[str, str], Any]:
    """The largest storage the live PersistentVolumeClaims of each claim template request, as
    written, by ``(namespace, "<claim>-<statefulset>")`` (a claim is named
    ``<claim>-<statefulset>-<ordinal>``): one pass over the claims, however many servers."""
    found: dict[tuple[str, str], tuple[Any, Any]] = {}
    for pvc in live.of_kind("PersistentVolumeClaim"):
        meta = pvc.get("metadata") or {}
        base, _, ordinal = str(meta.get("name") or "").rpartition("-")
        if not base or not ordinal.isdigit():
            continue
        requests = ((pvc.get("spec") or {}).get("resources") or {}).get("requests") or {}
        size = quantity_bytes(requests.get("storage"))
        key = (str(meta.get("namespace") or ""), base)
        if size is not None and (key not in found or size > found[key][0]):
            found[key] = (size, requests["storage"])
    return {key: written for key, (_, written) in found.items()}


def _as_deployed(
    server: TServerDocument,
    obj: Mapping[str, Any],
    kind: str,
    requested: Mapping[tuple[str, str], Any],
) -> TServerDocument:
    """``server`` as the live ``obj`` says it was deployed: its running replica count, and
    each claim template at the size its live claims request (``requested``:
    :func:`claim_requests`; else the template's live size); a claim the cluster does not have
    yet left out."""
    sizes = _claim_sizes(obj, kind)
    for name in sizes:
        size = requested.get((server.namespace, f"{name}-{server.name}"))
        if size is not None:
            sizes[name] = size
    mounts = []
    for mount in server.spec.k8s.mounts or []:
        template = mount.source.persistent_volume_claim_template
        if template is None:
            mounts.append(mount)
        elif mount.name in sizes:
            requests = template.spec.resources.requests.replaced(storage=sizes[mount.name])
            resources = template.spec.resources.replaced(requests=requests)
            held = template.replaced(spec=template.spec.replaced(resources=resources))
            mounts.append(
                mount.replaced(source=mount.source.replaced(persistent_volume_claim_template=held))
            )
    replicas = replicas_of(obj)
    k8s = server.spec.k8s.replaced(
        mounts=mounts, replicas=server.spec.k8s.replicas if replicas is None else replicas
    )
    return server.replaced(spec=server.spec.replaced(k8s=k8s))


def previous_from_live(stack: DocumentSet, live: LiveState, kind: str) -> DocumentSet:
    """The stack as last deployed, as far as the cluster tells, for the storage rules and
    the claims that grow (docs/concepts/live.md#storage) when no previous stack directory is
    given: each StatefulSet TServer with a live ``kind`` object (its workload; ``TServer`` in
    crd mode) as it runs, its claim templates at their live sizes; servers not in the cluster
    yet are new. Every other field is the stack's, so no other change rule fires; and it
    holds TServers only: whether a TConfig version, a template or anything else is deployed
    is not read here (a TConfig taken as deployed would be previewed activated)."""
    documents: list[Document] = []
    requested = claim_requests(live)
    for server in stack.servers:
        obj = live.get(kind, server.namespace, server.name)
        if obj is not None and not server.spec.k8s.daemon_set:
            documents.append(_as_deployed(server, obj, kind, requested))
    return stack.with_documents(documents)


__all__ = ["claim_requests", "counted_elsewhere", "previous_from_live", "with_running"]
