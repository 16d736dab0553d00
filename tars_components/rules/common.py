"""Small helpers shared by the rule modules."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

from ..kernel.errors import Violation
from ..kernel.registry import Rule
from ..loading.document_set import DocumentSet, Rejected
from ..models import Document
from ..secrets.redaction import quote

T = TypeVar("T")


def unreadable_annotations(
    stack: DocumentSet, annotation: str, parse: Callable[[str], object], code: Rule
) -> Iterator[Violation]:
    """``code`` for each TServer whose ``annotation`` ``parse`` refuses (ValueError): the
    value, quoted as the redaction rules allow, then why."""
    path = ("metadata", "annotations", annotation)
    for server in stack.servers:
        raw = server.annotations.get(annotation)
        if raw is None:
            continue
        try:
            parse(raw)
        except ValueError as exc:
            yield code.at(server, path, f"{quote(raw, path)}: {exc}")


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


Key = tuple[str, str, str]
"""A document's ``(kind, namespace, name)``."""


def key_of(doc: Document | Rejected) -> Key:
    """``(kind, namespace, name)`` of a document (or of one the schema rejected)."""
    return doc.kind, doc.namespace, doc.name


def by_key(docs: Iterable[Document]) -> dict[Key, Document]:
    """The first document of each key, in load order."""
    found: dict[Key, Document] = {}
    for doc in docs:
        found.setdefault(key_of(doc), doc)
    return found


def keys_present(stack: DocumentSet) -> set[Key]:
    """The keys of a stack's documents, those the schema rejected included (a document that
    failed its schema is still there: reported at its field, not removed)."""
    return {*map(key_of, stack.documents), *map(key_of, stack.rejected)}
