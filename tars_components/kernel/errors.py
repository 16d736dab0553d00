"""Errors as data: rule violations and load problems.

A :class:`Violation` is what every rule returns; a :class:`LoadError` is raised only for input
that cannot be read as TarsK8S documents at all (YAML syntax, non-mapping documents, unknown
apiVersion or kind, unreadable files). Both are printed at the edge (CLI, dynamic provider).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from .text import printable


class Severity(str, Enum):
    """How much a violation matters: errors block, warnings are only reported."""

    ERROR = "error"
    WARNING = "warning"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Violation:
    """One broken rule, pointing at the object and the field at fault.

    ``field`` is a dotted path with list indexes (``spec.tars.servants[1].port``); ``file`` and
    ``line`` are set when the document was loaded from a file.
    """

    code: str
    severity: Severity
    kind: str
    namespace: str
    name: str
    field: str
    message: str
    file: str | None = None
    line: int | None = None
    cluster: str | None = None
    """The cluster whose result broke the rule, in a stack of several clusters
    (docs/concepts/clusters.md); None otherwise."""

    @property
    def is_error(self) -> bool:
        """True when the violation blocks rendering and deployment."""
        return self.severity is Severity.ERROR

    def format(self) -> str:
        """``FILE:LINE: CODE severity Kind namespace/name field: message``, then
        `` (cluster NAME)`` for a violation of one cluster's result
        (docs/rules/index.md#how-to-read-a-violation)."""
        body = (
            f"{self.code} {self.severity} {self.kind} {self.namespace}/{self.name} "
            f"{self.field}: {self.message}"
        )
        if self.cluster is not None:
            body = f"{body} (cluster {self.cluster})"
        if self.file is None:
            return printable(body)  # a name or key of the stack may hold control characters
        return printable(f"{self.file}:{self.line or 0}: {body}")

    def sort_key(self) -> tuple[str, int, str, str, str, str, str, str, str, str]:
        """Report order, total on every field: file, line, code, object, field, message,
        cluster."""
        return (
            self.file or "",
            self.line or 0,
            self.code,
            self.kind,
            self.namespace,
            self.name,
            self.field,
            self.severity.value,
            self.message,
            self.cluster or "",
        )

    def __str__(self) -> str:
        return self.format()


def sorted_violations(violations: Iterable[Violation]) -> list[Violation]:
    """Violations in report order, duplicates removed."""
    return sorted(set(violations), key=Violation.sort_key)


def has_errors(violations: Iterable[Violation]) -> bool:
    """True when any violation is an error (warnings never block)."""
    return any(v.is_error for v in violations)


@dataclass(frozen=True)
class LoadProblem:
    """One reason a file could not be read as TarsK8S documents."""

    file: str
    line: int
    message: str

    def format(self) -> str:
        """``FILE:LINE: message``."""
        return printable(f"{self.file}:{self.line}: {self.message}")

    def __str__(self) -> str:
        return self.format()


class LoadError(Exception):
    """Input that cannot be read at all; carries every problem found, one per line."""

    def __init__(self, problems: Sequence[LoadProblem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(p.format() for p in self.problems))


class UsageError(Exception):
    """A command-line or configuration mistake (exit 2)."""
