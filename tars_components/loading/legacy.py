"""Old TarsK8S documents: ``k8s.tars.io/v1beta1`` files, and upgrading documents
to ``k8s.tars.io/v1beta3``.

TarsK8S served v1beta1 up to 1.3.12 (``params.sh``: ``v1beta1 v1beta2 v1beta3``); 1.4.0 stopped
serving it (``v1beta2 v1beta3``). A stack file holding v1beta1 documents is therefore
unreadable input, reported once per file (:func:`old_version_problem`) with what to change,
not once per document. :func:`upgrade` is the mapping ``convert`` applies to v1beta1 and
v1beta2 documents: what v1beta2 dropped (``spec.release.source``) and the v1beta1 conversion
annotations are named, never silently lost.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

from ..kernel.errors import LoadProblem
from ..kernel.paths import FileIndex, Segment
from ..models import V1BETA2, V1BETA3
from ..models.conversion import convert
from ..models.vocabulary import OLD_CONVERSION_ANNOTATIONS
from .exports import list_items

V1BETA1 = "k8s.tars.io/v1beta1"
UPGRADABLE = frozenset(
    {"TServer", "TTemplate", "TFrameworkConfig", "TConfig", "TImage", "TTree", "TAccount"}
)
"""Kinds a stack holds (controller-written kinds such as TEndpoint have no place in one)."""


def _items(documents: Sequence[Any]) -> Iterator[tuple[int, tuple[Segment, ...], Any]]:
    for position, document in enumerate(documents):
        if document is None:
            continue
        for raw, prefix in list_items(document):
            yield position, prefix, raw


def old_version_problem(
    file: str, documents: Sequence[Any], index: FileIndex
) -> LoadProblem | None:
    """One problem for a file holding ``k8s.tars.io/v1beta1`` documents (None otherwise), at
    the first one's line: which documents, and what to change."""
    found: list[tuple[int, tuple[Segment, ...], dict[str, Any]]] = [
        (position, prefix, raw)
        for position, prefix, raw in _items(documents)
        if isinstance(raw, dict) and raw.get("apiVersion") == V1BETA1
    ]
    if not found:
        return None
    position, prefix, _ = found[0]
    names = [f"{_kind(raw)} {_name(raw)}" for _, _, raw in found]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    dropped = sorted({field for _, _, raw in found for field in upgrade(raw)[1]})
    drop = f"; drop {', '.join(dropped)}" if dropped else ""
    return LoadProblem(
        file,
        index.line(position, list(prefix)),
        f"{V1BETA1} is no longer served by TarsK8S >= 1.4.0 ({len(found)} document(s): "
        f"{shown}): change apiVersion to {V1BETA3}{drop} "
        f"(`tars-components convert {file} --out DIR` does it)",
    )


def _kind(raw: dict[str, Any]) -> str:
    kind = raw.get("kind")
    return kind if isinstance(kind, str) and kind else "(no kind)"


def _name(raw: dict[str, Any]) -> str:
    meta = raw.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else "(no name)"


def upgrade(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A v1beta1 or v1beta2 document as v1beta3, and the fields that could not be carried
    over (dotted paths; empty when nothing was lost). Other documents come back unchanged."""
    api_version, kind = raw.get("apiVersion"), raw.get("kind")
    if api_version not in (V1BETA1, V1BETA2) or not isinstance(kind, str) or kind not in UPGRADABLE:
        return raw, []
    doc = copy.deepcopy(raw)
    dropped: list[str] = []
    meta = doc.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict) and api_version == V1BETA1:
        for key in OLD_CONVERSION_ANNOTATIONS:
            if key in annotations:
                del annotations[key]
                dropped.append(f'metadata.annotations["{key}"]')
        if not annotations and isinstance(meta, dict):
            del meta["annotations"]
    spec = doc.get("spec")
    if kind == "TServer" and isinstance(spec, dict):
        release = spec.get("release")
        if isinstance(release, dict) and "source" in release:
            del release["source"]  # v1beta2 has no release.source
            dropped.append("spec.release.source")
        if isinstance(spec.get("k8s"), dict):
            doc["apiVersion"] = V1BETA2
            return convert(doc, V1BETA3), dropped
    if kind == "TFrameworkConfig" and api_version == V1BETA2:
        return convert(doc, V1BETA3), dropped
    doc["apiVersion"] = V1BETA3  # the other kinds have one schema in every version
    return doc, dropped


__all__ = ["V1BETA1", "old_version_problem", "upgrade"]
