"""Package attributes imported on first use (PEP 562 module ``__getattr__``): a command of the
CLI pays only for the modules it uses, while type checkers see
the real names through each package's ``TYPE_CHECKING`` imports."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_attributes(
    package: str, names: Mapping[str, str | tuple[str, str]], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``names`` maps a public name to the module that
    defines it (relative, ``.fields``) or to ``(module, attribute)`` when it is defined under
    another name. The value is imported once and kept in ``namespace`` (the package's
    globals), so later lookups do not come here again."""

    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = (target, name) if isinstance(target, str) else target
        value = getattr(import_module(module, package), attribute)
        namespace[name] = value
        return value

    return __getattr__


__all__ = ["lazy_attributes"]
