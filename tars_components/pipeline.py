"""The whole data flow in one call: mutate → validate → expand (or crd documents).

Used by the ``render`` command and the Pulumi program, so both produce the same objects.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .errors import Violation, has_errors, sorted_violations
from .expansion import conversion_violations, crd_documents, expand
from .models import FRAMEWORK_CONFIG_NAME, TFrameworkConfig
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
    """Every violation of a loaded stack for this output: the rules, and in crd mode what the
    target apiVersion requires that the documents' own version does not."""
    violations = validate(with_existing_framework(stack, options))
    if options.mode == Mode.CRD:
        violations = sorted_violations([*violations, *conversion_violations(stack, options)])
    return violations


def with_existing_framework(stack: Stack, options: Options) -> Stack:
    """The stack as the rules see it: in crd mode with ``existing_framework_config``, each
    namespace without a ``tars-framework`` gets a stand-in for the cluster's own (the rules
    only ask whether one exists, TS020); objects are always built from ``stack`` itself, so
    nothing of the stand-in is written or applied."""
    if not (options.mode == Mode.CRD and options.existing_framework_config):
        return stack
    namespaces = dict.fromkeys([options.namespace, *(d.namespace for d in stack.documents)])
    stand_ins = [
        TFrameworkConfig.model_validate(
            {
                "apiVersion": options.crd_api_version,
                "kind": TFrameworkConfig.KIND,
                "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
                "nodeImage": {"image": "existing"},
            }
        )
        for namespace in namespaces
        if stack.framework(namespace) is None
    ]
    return stack.with_documents([*stack.documents, *stand_ins]) if stand_ins else stack


def build(stack: Stack, options: Options = Options()) -> Build:
    """Validate a loaded stack and, when no rule error blocks, build its objects."""
    violations = check(stack, options)
    if has_errors(violations):
        return Build(objects=[], violations=violations)
    objects = (crd_documents if options.mode == Mode.CRD else expand)(stack, options)
    return Build(objects=objects, violations=violations)
