"""The override stage: one cluster's documents of a stack (docs/concepts/clusters.md).

:func:`cluster_stack` applies a cluster's ClusterOverrides to a loaded stack, in precedence
order (every cluster, then clusters matching labels, then the named cluster); it is the first
stage of :func:`tars_components.stages.prepare`, before the rollouts and mutation, and only
:mod:`tars_components.stages` calls it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..kernel.errors import Violation
from ..loading.clusters import without_cluster_documents
from ..loading.document_set import DocumentSet, KubeObject, Rejected
from ..loading.documents import build_document, identity_of
from ..models import Document, TConfigDocument, TServerDocument
from ..models.cluster import Cluster, Inventory, Override
from ..rules.clusters import clamped_replicas


def cluster_stack(stack: DocumentSet, inventory: Inventory, cluster: Cluster | None) -> DocumentSet:
    """The documents of ``stack`` as ``cluster`` gets them: the Cluster and ClusterOverride
    documents left out, documents an override excludes left out, the TServer fields and the
    TConfig, ConfigMap and Secret content of the overrides set (later overrides win).
    ``cluster`` None: the overrides for every cluster only (what Karmada gets once). A
    TServer or TConfig an override makes invalid is reported like a loaded one (its schema
    code), in the returned stack's ``violations``."""
    base = without_cluster_documents(stack)
    overrides = (
        [o for o in inventory.overrides if o.level == 0]
        if cluster is None
        else inventory.for_cluster(cluster)
    )
    if not overrides:
        return base
    documents: list[Document] = []
    rejected: list[Rejected] = list(base.rejected)
    found: list[Violation] = []
    for doc in base.documents:
        chosen = [o for o in overrides if o.selects(doc.kind, doc.name)]
        if _excluded(chosen):
            continue
        changes = [o for o in chosen if o.fields]
        if not changes or not isinstance(doc, (TServerDocument, TConfigDocument)):
            documents.append(doc)
            continue
        body = doc.to_dict()
        for override in changes:
            if isinstance(doc, TConfigDocument):
                body["configContent"] = override.fields["configContent"]
                continue
            apply_fields(body, override)
            clamped = clamped_replicas(override, doc)
            if clamped is not None:
                found.append(clamped)
        built, problems = build_document(body, doc.source, base.namespace)
        found.extend(problems)
        if built is None:
            rejected.append(identity_of(body, base.namespace, doc.source))
        else:
            documents.append(built)
    objects = []
    for obj in base.objects:
        chosen = [x for x in overrides if x.selects(obj.kind, obj.name)]
        if not _excluded(chosen):
            objects.append(_with_content(obj, [x for x in chosen if x.fields]))
    return replace(
        base,
        documents=tuple(documents),
        objects=tuple(objects),
        rejected=tuple(rejected),
        violations=(*base.violations, *found),
    )


def _excluded(overrides: Sequence[Override]) -> bool:
    """The last override (highest precedence) that says ``exclude`` decides."""
    verdict = False
    for o in overrides:
        if o.exclude is not None:
            verdict = o.exclude
    return verdict


def apply_fields(body: dict[str, Any], override: Override) -> None:
    """Set an override's TServer fields on a TServer ``body`` (as written): ``replicas`` and
    ``nodeSelector`` replace ``spec.k8s``'s, ``env`` replaces or adds variables by name,
    ``resources`` merges into ``spec.k8s.resources`` (requests and limits by resource),
    ``release`` merges into ``spec.release`` (id, image, ...)."""
    spec = body.setdefault("spec", {})
    k8s = spec.setdefault("k8s", {})
    fields = override.fields
    if "replicas" in fields:
        k8s["replicas"] = fields["replicas"]
    if "nodeSelector" in fields:
        k8s["nodeSelector"] = copy.deepcopy(list(fields["nodeSelector"]))
    if "env" in fields:
        env = [dict(e) for e in k8s.get("env") or []]
        for var in fields["env"]:
            index = next((i for i, e in enumerate(env) if e.get("name") == var["name"]), None)
            if index is None:
                env.append(copy.deepcopy(dict(var)))
            else:
                env[index] = copy.deepcopy(dict(var))
        k8s["env"] = env
    if "resources" in fields:
        k8s["resources"] = _merged(k8s.get("resources") or {}, fields["resources"])
    if "release" in fields:
        spec["release"] = _merged(spec.get("release") or {}, fields["release"])


def _with_content(obj: KubeObject, overrides: Sequence[Override]) -> KubeObject:
    """A ConfigMap or Secret with the ``data`` and ``stringData`` of ``overrides`` merged in,
    key by key (a null value removes the key); any other object as it is. The values are
    set as written: a Secret's stay its data, masked wherever a Secret's are."""
    if not overrides or obj.api_version != "v1" or obj.kind not in ("ConfigMap", "Secret"):
        return obj
    body = dict(obj.body)
    for override in overrides:
        for section in ("data", "stringData"):
            given = override.fields.get(section)
            if not isinstance(given, Mapping):
                continue
            merged = dict(body.get(section) or {})
            for key, value in given.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            body[section] = merged
    return replace(obj, body=body)


def _merged(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(copy.deepcopy(dict(old)))
    for key, value in new.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


__all__ = ["apply_fields", "cluster_stack"]
