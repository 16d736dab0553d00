"""The whole data flow in one call: mutate → validate → expand (or crd documents).

Used by the ``render`` command and the Pulumi program, so both produce the same objects.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .errors import Violation, has_errors, sorted_violations
from .expansion import (
    conversion_violations,
    crd_documents,
    expand,
    refused_statefulset_violations,
)
from .expansion.layout import layout_violations
from .options import Mode, Options
from .rules import validate
from .stack import Stack


@dataclass(frozen=True)
class Build:
    """What a stack builds into: the objects (empty when a rule error blocks) and every
    violation found (errors and warnings)."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.violations)

    @property
    def warnings(self) -> list[Violation]:
        """The violations that do not block."""
        return [v for v in self.violations if not v.is_error]

    def kinds(self) -> Counter[str]:
        """Number of objects per kind."""
        return Counter(str(obj["kind"]) for obj in self.objects)


def check(stack: Stack, options: Options = Options()) -> list[Violation]:
    """Every violation of a loaded stack for this output: the rules, output file names that
    collide (TS026, TT008, TF004), and in crd mode what the target apiVersion requires that
    the documents' own version does not (TF001) and what the controller would turn into a
    StatefulSet the API server refuses (TS025)."""
    found = [*validate(stack), *layout_violations(stack, options)]
    if options.mode == Mode.CRD:
        found.extend(conversion_violations(stack, options))
        found.extend(refused_statefulset_violations(stack))
    return sorted_violations(found)


def build(stack: Stack, options: Options = Options()) -> Build:
    """Validate a loaded stack and, when no rule error blocks, build its objects."""
    violations = check(stack, options)
    if has_errors(violations):
        return Build(objects=[], violations=violations)
    objects = (crd_documents if options.mode == Mode.CRD else expand)(stack, options)
    return Build(objects=objects, violations=violations)
