"""``tars-components validate``: check a stack against the TarsK8S admission rules."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from .common import (
    EXIT_OK,
    EXIT_VIOLATIONS,
    add_output_arguments,
    add_stack_arguments,
    error_count,
    print_violations,
    settings,
)

if TYPE_CHECKING:
    from .common import Subparsers


def add_parser(commands: Subparsers) -> None:
    """Add ``validate`` and its arguments; its epilog lists every rule code of the registry."""
    from ..rules import RULES

    cmd = commands.add_parser(
        "validate",
        help="check the stack against the TarsK8S admission rules",
        description="Print one line per violation: FILE:LINE: CODE severity Kind ns/name "
        "field: message. Exit 1 when any error is found.",
        epilog="rule codes:\n"
        + "\n".join(f"  {r.code} {r.severity:<7} {r.summary}" for r in RULES.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_stack_arguments(cmd)
    add_output_arguments(cmd)
    cmd.add_argument(
        "--previous",
        metavar="OLD_STACK_DIR",
        help="previous version of the stack: the change rules apply (TS001, TS002, TT003, TT005, "
        "TC001, TC003, TC004, TC007-TC009, TR006, TR007, TD001, TD002, TP016) and known "
        "documents are updates",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the violations (stdout) and a summary (stderr): 1 when any is an error."""
    from ..expansion.rollout import plan_lines
    from ..pipeline import validate

    found = settings(args)
    result = validate(found.stack_dir, found.options, found.limits, args.previous or None)
    stack, violations = result.stack, result.violations
    print_violations(violations, out)
    for note in stack.notes:
        print(f"note: {note}", file=sys.stderr)
    errors = error_count(violations)
    if result.ok:
        for line in plan_lines(stack):  # which ordinals run which release (Rollouts)
            print(f"plan: {line}", file=sys.stderr)
    print(
        # a document that failed its schema is still one of the stack's documents
        f"{found.stack_dir}: {len(stack.documents) + len(stack.rejected)} documents, "
        f"{len(stack.objects)} plain objects, {errors} error(s), "
        f"{len(violations) - errors} warning(s)",
        file=sys.stderr,
    )
    return EXIT_OK if result.ok else EXIT_VIOLATIONS
