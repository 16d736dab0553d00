"""``tars-components validate``: check a stack against the TarsK8S admission rules."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from ..kernel.errors import Violation, sorted_violations
from .common import (
    EXIT_OK,
    EXIT_VIOLATIONS,
    add_cluster_argument,
    add_output_arguments,
    add_stack_arguments,
    error_count,
    github_annotation,
    print_violations,
    settings,
    violation_json,
)

if TYPE_CHECKING:
    from ..jobs.config import StackSettings
    from ..pipeline import Validation
    from .common import Subparsers


FORMATS = ("text", "json", "github")
"""``validate --format``: one line per violation, a JSON document, or GitHub Actions
annotations (``::error file=…,line=…::…``) for a pull request's diff."""


class RulesAction(argparse.Action):
    """``--rules``: print every rule code of the registry (code, severity, summary) and exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "list every rule code (code, severity, summary) and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from ..rules import RULES

        width = max(len(r.code) for r in RULES.values())
        table = "".join(
            f"{r.code:<{width}} {r.severity!s:<7} {r.summary}"
            + (" (a change rule: with --previous)" if r.change else "")
            + "\n"
            for r in RULES.values()
        )
        parser._print_message(table, sys.stdout)
        parser.exit(EXIT_OK)


def add_parser(commands: Subparsers) -> None:
    """Add ``validate`` and its arguments."""
    cmd = commands.add_parser(
        "validate",
        help="check the stack against the TarsK8S admission rules",
        description="Print one line per violation: FILE:LINE: CODE severity Kind ns/name "
        "field: message (--format json or github for machines). Exit 1 when any error is "
        "found. Every rule: validate --rules, and docs/rules/index.md.",
        examples=[
            ("check the dev stack's documents", "tars-components validate --stack dev"),
            (
                "check a change against the stack it replaces (the change rules)",
                "tars-components validate stacks/dev --previous ../main/stacks/dev",
            ),
            (
                "annotate a pull request's diff (in a GitHub Actions step)",
                "tars-components validate --stack dev --format github",
            ),
        ],
    )
    add_stack_arguments(cmd)
    add_output_arguments(cmd)
    cmd.add_argument(
        "--previous",
        metavar="OLD_STACK_DIR",
        help="previous version of the stack: the change rules apply and known documents are "
        "updates",
    )
    add_cluster_argument(cmd)
    cmd.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), json (one document on stdout) or github (workflow annotations)",
    )
    cmd.add_argument("--rules", action=RulesAction)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the violations (stdout, in ``--format``) and a summary (stderr): 1 when any is an
    error."""
    from ..pipeline import validate
    from ..stages.rollouts import summary_lines

    found = settings(args)
    result = validate(
        found.stack_dir,
        found.options,
        found.limits,
        args.previous or None,
        found.clusters,
        args.cluster or None,
        policy=found.unavailable_clusters,
    )
    if result.run.targets.per_cluster:
        return report_clusters(found, result, args, out)
    stack, violations = result.stack, result.violations
    # a document that failed its schema is still one of the stack's documents
    documents = len(stack.documents) + len(stack.rejected)
    print_report(found.stack_dir, violations, args.format, out, documents=documents)
    for note in stack.notes:
        print(f"note: {note}", file=sys.stderr)
    if result.ok:
        for line in summary_lines(stack):  # which ordinals run which release (Rollouts)
            print(line, file=sys.stderr)
    errors = error_count(violations)
    print(
        f"{found.stack_dir}: {documents} documents, {len(stack.objects)} plain objects, "
        f"{errors} error(s), {len(violations) - errors} warning(s)",
        file=sys.stderr,
    )
    return EXIT_OK if result.ok else EXIT_VIOLATIONS


def print_report(
    stack_dir: object,
    violations: Sequence[Violation],
    fmt: str,
    out: TextIO,
    **counts: int,
) -> None:
    """The violations in ``fmt``: lines (text), GitHub annotations (github) or one JSON
    document ``{"stack", "ok", "errors", "warnings", "violations", ...counts}`` (json)."""
    ordered = sorted_violations(violations)
    if fmt == "json":
        errors = error_count(ordered)
        document = {
            "stack": str(stack_dir),
            "ok": errors == 0,
            "errors": errors,
            "warnings": len(ordered) - errors,
            **counts,
            "violations": [violation_json(v) for v in ordered],
        }
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    elif fmt == "github":
        for v in ordered:
            print(github_annotation(v), file=out)
    else:
        print_violations(ordered, out)


def report_clusters(
    found: StackSettings, result: Validation, args: argparse.Namespace, out: TextIO
) -> int:
    """The violations of a stack with clusters (each naming its cluster), then one summary
    line per cluster (stderr)."""
    print_report(found.stack_dir, result.violations, args.format, out)
    for note in result.stack.notes:
        print(f"note: {note}", file=sys.stderr)
    checked = result.run
    inventory_errors = error_count(checked.violations)
    if inventory_errors or not checked.clusters:
        print(
            f"{found.stack_dir}: cluster inventory: {inventory_errors} error(s), "
            f"{len(checked.violations) - inventory_errors} warning(s)",
            file=sys.stderr,
        )
    for cluster, violations in checked.clusters:
        errors = error_count(violations)
        print(
            f"{found.stack_dir}: cluster {cluster.name}: {errors} error(s), "
            f"{len(violations) - errors} warning(s)",
            file=sys.stderr,
        )
    return EXIT_OK if result.ok else EXIT_VIOLATIONS
