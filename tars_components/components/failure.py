"""How a component refuses its arguments: like a rule error, one line per problem, no traceback.

``pulumi preview`` prints an exception raised by a program with its Python traceback, except a
:class:`pulumi.RunError`: the Python language host reports that one with
``pulumi.log.error(str(error))`` and nothing else. So a component raises a
:class:`ComponentError`, a ``RunError`` (and a ``ValueError``, what the components raised
before, so callers that catch ``ValueError`` keep working) whose message is its problems, one
line each, ``<Kind> '<name>': <field>: <CODE>: <message>`` for schema violations, as the
validation resource reports rule errors (``<field>: <CODE>: <message>``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

import pulumi


class ComponentError(pulumi.RunError, ValueError):
    """A component's arguments are refused. The message is :attr:`problems`, one per line.
    Nothing of the component is registered when its arguments make no valid document or put
    it on another cluster than its framework (both are checked before the component itself
    is registered)."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems: tuple[str, ...] = tuple(problems)
        """One line per problem."""


def refuse(what: str, problems: Sequence[str]) -> NoReturn:
    """Raise a :class:`ComponentError` for the component ``what`` (e.g. ``TServer
    'shop-order'``), whose problems each start with ``what``."""
    raise ComponentError(
        [line if line.startswith(what) else f"{what}: {line}" for line in problems]
    )


class ArgumentProblems(ValueError):
    """Arguments that make no valid document (raised by the ``...Args`` classes, which do not
    know the component's name): one line per problem, ``field: CODE: message`` for schema
    violations as the rules print them."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems: tuple[str, ...] = tuple(problems)
        """One line per problem."""


@contextmanager
def refusing(what: str) -> Iterator[None]:
    """Turn :class:`ArgumentProblems` raised inside into :func:`refuse` of the component
    ``what``, each line prefixed with it."""
    problems: tuple[str, ...] = ()
    try:
        yield
    except ArgumentProblems as exc:
        problems = exc.problems
    if problems:
        refuse(what, problems)


__all__ = ["ArgumentProblems", "ComponentError", "refuse", "refusing"]
