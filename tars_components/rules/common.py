"""Small helpers shared by the rule modules."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

from ..errors import Violation
from ..models import Document
from .registry import Rule

T = TypeVar("T")


def same_names(docs: Iterable[Document], code: Rule) -> Iterator[Violation]:
    """``code`` at ``metadata.name`` of every document whose kind, namespace and name an
    earlier one already has: applied to a cluster, the later one would replace it."""
    for later, first in repeats(docs, lambda d: (d.kind, d.namespace, d.name)):
        where = f" ({first.source.file})" if first.source else ""
        yield code.at(
            later,
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
