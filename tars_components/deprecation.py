"""Renamed public names that still work, with a warning, for one minor version."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any


def renamed_attributes(
    package: str,
    renamed: Mapping[str, str],
    namespace: dict[str, Any],
    fallback: Callable[[str], Any] | None = None,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that answers each old name of ``renamed``
    (``{old: new}``) with the object now called ``new`` and a ``DeprecationWarning``; other
    names go to ``fallback`` (a package's lazy ``__getattr__``) or raise ``AttributeError``.
    Install it under ``if not TYPE_CHECKING`` so type checkers report the old names."""

    def lookup(name: str) -> Any:
        if name in namespace:
            return namespace[name]
        if fallback is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return fallback(name)

    def __getattr__(name: str) -> Any:
        new = renamed.get(name)
        if new is None:
            return lookup(name)
        warnings.warn(
            f"{package}.{name} is deprecated and will be removed in the next minor version: "
            f"use {package}.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return lookup(new)

    return __getattr__


__all__ = ["renamed_attributes"]
