"""The catalogue of rule codes and their checks, read from the registry
(:mod:`tars_components.kernel.registry`).

Every rules module declares its codes next to its checks and registers each check with what
it needs (the stack alone, the options, the previous stack, both); :data:`RULES` is what they
declare, read after importing every module of this package, so a code cannot be missing from
the catalogue. The CLI's ``validate --help``, the rules page (docs/rules/index.md) and the
provider read it. :func:`run` is the one walk of the checks: :func:`validate` and
:func:`validate_change` here, and the pipeline (:mod:`tars_components.pipeline`) for the
checks that need the options.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from ..kernel.errors import Violation, sorted_violations
from ..kernel.registry import (
    STACK_ONLY,
    WITH_PREVIOUS,
    Need,
    Origin,
    Rule,
    registered,
    run_checks,
)
from ..loading.document_set import DocumentSet
from ..settings.options import Options


def _import_rules_modules() -> None:
    """Import every module of :mod:`tars_components.rules` (each registers its codes), and the
    loader's own rules (:mod:`tars_components.loading.schema_rules`)."""
    package = __name__.rsplit(".", 1)[0]
    import_module("..loading.schema_rules", package)
    for module in pkgutil.iter_modules(import_module(package).__path__):
        import_module(f"{package}.{module.name}")


_import_rules_modules()

RULES: dict[str, Rule] = registered()
"""Every rule code, in code order (the TarsK8S kinds first: TS, TT, TF, TC, TI, TR, TA, then
TX, TH, TD; by number within a kind)."""


def rules_table() -> str:
    """The Markdown table of :data:`RULES` (the docs' rules page is generated from the registry)."""
    lines = [
        "| Code | Severity | Kind | What it checks | Origin |",
        "|---|---|---|---|---|",
    ]
    for rule in RULES.values():
        summary = rule.summary.replace("|", "\\|")
        if rule.change:
            summary = f"{summary} (change: compares with the previous stack)"
        lines.append(f"| {rule.code} | {rule.severity} | {rule.kind} | {summary} | {rule.origin} |")
    return "\n".join(lines) + "\n"


def run(
    stack: DocumentSet,
    needs: frozenset[Need],
    options: Options | None = None,
    previous: DocumentSet | None = None,
) -> list[Violation]:
    """The violations of every registered check that needs exactly ``needs`` (unsorted: the
    caller sorts what it gathers once)."""
    return run_checks(stack, needs, options, previous)


def validate(stack: DocumentSet) -> list[Violation]:
    """All violations of a stack, in report order: the schema violations the loader found
    (TS021, TT006, TF001, TT001) and every check that looks at the stack alone.

    The result is the same whether or not the stack was mutated
    (:func:`tars_components.mutation.mutate`).
    """
    return sorted_violations([*stack.violations, *run(stack, STACK_ONLY)])


def validate_change(previous: DocumentSet, current: DocumentSet) -> list[Violation]:
    """The change rules, comparing two versions of a stack (TS001, TS002, TT003, TT005, the
    TConfig, TTree, TDeploy and Rollout ones), in report order. Neither stack needs to be
    mutated."""
    return sorted_violations(run(current, WITH_PREVIOUS, previous=previous))


__all__ = ["RULES", "Origin", "Rule", "rules_table", "run", "validate", "validate_change"]
