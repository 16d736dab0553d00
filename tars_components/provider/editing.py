"""Walking and editing a raw document (a camelCase mapping, as it crossed gRPC) by field
path: set or delete the value at a path, the numbers and strings a document holds, the texts of
its leaves. Pure."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..kernel.paths import Segment
from .wire import PENDING, Path


def leaf_texts(value: Any) -> Iterator[str]:
    """``str`` of every scalar leaf of ``value`` but flags (nothing for None or an unknown
    value)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaf_texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from leaf_texts(item)
    elif value is not None and value is not PENDING and not isinstance(value, bool):
        # a secret flag leaks nothing by its text (and "True" is in too many messages); its
        # path is masked all the same
        yield str(value)


def unused_numbers(raw: Any, descending: bool) -> Iterator[int]:
    """Numbers from 1 to 65535 (the port range) that appear nowhere in ``raw``, from the top
    or from the bottom."""
    used: set[int] = set()
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, int) and not isinstance(node, bool):
            used.add(node)
    numbers = range(65535, 0, -1) if descending else range(1, 65536)
    return (number for number in numbers if number not in used)


def strings(raw: Any) -> Iterator[str]:
    """Every string (key or value) inside ``raw``."""
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                yield str(key)
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            yield node


def put(raw: Any, path: Path, value: Any) -> None:
    """Set ``raw[path] = value`` where the path still exists."""
    if not path:
        return
    node = raw
    for seg in path[:-1]:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(node, list):
        if isinstance(last, int) and last < len(node):
            node[last] = value
        return
    if isinstance(node, dict) and last in node:
        node[last] = value


def remove(raw: Any, path: Path) -> None:
    """Delete the mapping key at ``path`` where it exists (a list item stays)."""
    node = raw
    for seg in path[:-1]:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return
    if path and isinstance(node, dict):
        node.pop(path[-1], None)


def under(field_path: Sequence[Segment], prefix: Sequence[Segment]) -> bool:
    """True when ``field_path`` is ``prefix`` or below it."""
    return tuple(field_path[: len(prefix)]) == tuple(prefix)


__all__ = ["leaf_texts", "put", "remove", "strings", "under", "unused_numbers"]
