"""Equality of loaded YAML data, value types included."""

from __future__ import annotations

from typing import Any


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``1 == True == 1.0`` in Python); a NaN
    equals a NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and a != a:
        return bool(b != b)
    return bool(a == b)
