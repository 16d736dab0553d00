"""Helpers shared by the per-kind webhooks."""

from __future__ import annotations

from typing import Any

from ..models import (
    Document,
)


def with_labels(doc: Document, labels: dict[str, str], **update: Any) -> Any:
    meta = doc.metadata.model_copy(update={"labels": labels or None})
    mutated = doc.model_copy(update={"metadata": meta, **update})
    mutated.with_source(doc.source)
    return mutated


def when_known(fn: Any, *values: Any) -> Any:
    """``fn(*values)``, or, when a value is deferred (has ``apply``, like ``pulumi.Output``),
    the deferred result of calling it once every value is known."""
    deferred = [
        i for i, v in enumerate(values) if not isinstance(v, (str, bytes)) and hasattr(v, "apply")
    ]
    if deferred:
        i = deferred[0]
        before, after = values[:i], values[i + 1 :]
        return values[i].apply(lambda known: when_known(fn, *before, known, *after))
    return fn(*values)
