"""Small helpers shared by the rule modules."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TypeVar

from ..errors import Severity, Violation
from ..models import Document
from ..paths import Segment
from ..stack import KubeObject, Rejected, violation
from .catalog import RULES

T = TypeVar("T")


def report(
    doc: Document | Rejected | KubeObject,
    code: str,
    path: str | Sequence[Segment],
    message: str,
    severity: Severity | None = None,
) -> Violation:
    """A violation of rule ``code`` at a field of ``doc``, with the catalogue's severity unless
    ``severity`` says otherwise (TS014 is a warning in one of its cases)."""
    return violation(doc, code, path, message, severity or RULES[code].severity)


def same_names(docs: Iterable[Document], code: str) -> Iterator[Violation]:
    """``code`` at ``metadata.name`` of every document whose kind, namespace and name an
    earlier one already has: applied to a cluster, the later one would replace it."""
    for later, first in repeats(docs, lambda d: (d.kind, d.namespace, d.name)):
        where = f" ({first.source.file})" if first.source else ""
        yield report(
            later,
            code,
            "metadata.name",
            f"{later.kind} {later.namespace}/{later.name} is already defined{where}",
        )


def repeats(items: Iterable[T], key: Callable[[T], Hashable]) -> Iterator[tuple[T, T]]:
    """``(later, first)`` for every item whose key an earlier item already had."""
    first: dict[Hashable, T] = {}
    for item in items:
        seen = first.setdefault(key(item), item)
        if seen is not item:
            yield item, seen
