"""How a component refuses its arguments: the way the project's program reports a rule error.

``pulumi preview`` prints an exception raised by a program with its Python traceback, except a
:class:`pulumi.RunError`, which ends the program with its message only. So a component logs each
problem with ``pulumi.log.error`` (one line each, like ``FIELD: CODE: message`` of the rules)
and raises a :class:`ComponentError`, a ``RunError`` that is also a ``ValueError`` (what the
components raised before, so callers that catch ``ValueError`` keep working).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

import pulumi


class ComponentError(pulumi.RunError, ValueError):
    """A component's arguments are refused; nothing of the component is registered.

    The message is one summary line; :attr:`problems` are the lines logged before it."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems: tuple[str, ...] = tuple(problems)
        """One line per problem (``field: CODE: message`` for schema errors)."""


def refuse(what: str, problems: Sequence[str]) -> NoReturn:
    """Log every problem with ``pulumi.log.error`` and raise a :class:`ComponentError` whose
    message names the component (``what``, e.g. ``TServer 'shop-order'``)."""
    for line in problems:
        pulumi.log.error(line)
    count = f"{len(problems)} errors" if len(problems) != 1 else "1 error"
    raise ComponentError(f"{what}: {count} (above): nothing of it is registered", problems)


__all__ = ["ComponentError", "refuse"]
