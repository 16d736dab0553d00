"""Plain data with ``pulumi.Input`` leaves, as Outputs, at O(size) cost: only the leaves that
are Outputs (or awaitables) are lifted; a value with none becomes one known Output without a
per-leaf Output (``Output.from_input`` over a whole manifest creates one per leaf and is what
made the program superlinear).

Also the program side of secrets: the engine strips secret markers before the dynamic
provider's ``check`` and ``create``, so the paths of secret leaves are computed here
(:func:`secret_fields`) and sent with the document.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import pulumi

from ..kernel.paths import Segment, format_path

T = TypeVar("T")
Leaf = tuple[tuple[Segment, ...], Any]


def deferred_leaves(value: Any) -> list[Leaf]:
    """``(path, value)`` of every ``pulumi.Output`` or awaitable inside mappings and lists."""
    found: list[Leaf] = []
    stack: list[tuple[tuple[Segment, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend(((*path, str(k)), v) for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
        elif isinstance(node, pulumi.Output) or inspect.isawaitable(node):
            found.append((path, node))
    found.sort(key=lambda leaf: format_path(leaf[0]))
    return found


def lift_values(value: Any, leaves: Sequence[Leaf], resolved: Sequence[Any]) -> Any:
    """A copy of ``value`` with the leaves' resolved values put in (``lift`` without the
    Output: for an ``apply`` over the leaves)."""
    return _replace(value, leaves, resolved)


def _replace(value: Any, leaves: Sequence[Leaf], resolved: Sequence[Any]) -> Any:
    """A copy of ``value`` with the leaves' values put in (only the spine is copied)."""
    if not leaves:
        return value
    out = _spine(value)
    for (path, _), item in zip(leaves, resolved, strict=True):
        node = out
        for seg in path[:-1]:
            node = node[seg]
        node[path[-1]] = item
    return out


def _spine(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _spine(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_spine(v) for v in value]
    return value


def known(value: T) -> pulumi.Output[T]:
    """A known, non-secret Output of plain data, without an Output per leaf (and without an
    ``apply``: its futures are resolved from the start)."""
    loop = asyncio.get_event_loop()
    resolved: list[asyncio.Future[Any]] = []
    for result in (value, True, False):
        future = loop.create_future()
        future.set_result(result)
        resolved.append(future)
    return pulumi.Output(set(), resolved[0], resolved[1], resolved[2])


def lift(value: T, leaves: Sequence[Leaf] | None = None) -> pulumi.Output[T]:
    """``value`` as an Output: unknown while a leaf is, secret when a leaf is, depending on the
    leaves' resources; a value without deferred leaves costs one Output."""
    leaves = deferred_leaves(value) if leaves is None else leaves
    if not leaves:
        return known(value)
    return pulumi.Output.all(*(leaf for _, leaf in leaves)).apply(
        lambda resolved: _replace(value, leaves, resolved)
    )


def secret_fields(leaves: Sequence[Leaf]) -> pulumi.Output[list[str]] | list[str]:
    """Paths (``spec.release.image``) of the leaves that are secret Outputs: a plain empty list
    without deferred leaves, else an Output that is itself not secret."""
    outputs = [(path, leaf) for path, leaf in leaves if isinstance(leaf, pulumi.Output)]
    if not outputs:
        return []

    async def secret_paths() -> list[str]:
        # ``is_secret()`` is awaitable from the floor (3.121, a method returning an awaitable)
        # to today's SDK (a coroutine).
        return [format_path(path) for path, leaf in outputs if await leaf.is_secret()]

    return pulumi.Output.from_input(secret_paths())


def whole_numbers(value: Any) -> Any:
    """``value`` with whole-number floats as ints: every number crosses the engine as a double,
    and no TarsK8S field is a float, so integers stay integers in every output."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


def with_secrecy_of(value: pulumi.Output[T], leaves: Sequence[Leaf]) -> pulumi.Output[T]:
    """``value`` (integers as ints) unsecreted, then secret exactly when one of ``leaves`` is
    (and depending on them): the outputs derived from a document are as secret as its inputs,
    no more."""
    return as_secret_as(pulumi.Output.unsecret(value).apply(whole_numbers), leaves)


def as_secret_as(value: pulumi.Output[T], leaves: Sequence[Leaf]) -> pulumi.Output[T]:
    """``value`` (computed from unsecreted leaves) secret exactly when one of ``leaves`` is,
    and depending on them: the part of an expansion that a secret input reaches is secret, the
    rest is not. The value itself is passed on untouched (``Output.all`` over it would lift
    every leaf of a manifest into an Output of its own)."""
    outputs = [leaf for _, leaf in leaves if isinstance(leaf, pulumi.Output)]
    if not outputs:
        return value
    marker = pulumi.Output.all(*outputs).apply(lambda _: None)
    return marker.apply(lambda _: value)


def touching(leaves: Sequence[Leaf], *fields: tuple[Segment, ...]) -> list[Leaf]:
    """The leaves at, above or below one of ``fields`` (paths)."""
    return [
        (path, leaf)
        for path, leaf in leaves
        if any(path[: len(f)] == f or f[: len(path)] == path for f in fields)
    ]


__all__ = [
    "as_secret_as",
    "deferred_leaves",
    "known",
    "lift",
    "lift_values",
    "secret_fields",
    "touching",
    "whole_numbers",
    "with_secrecy_of",
]
