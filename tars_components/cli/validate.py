"""``tars-components validate``: check a stack against the TarsK8S admission rules."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from .common import (
    EXIT_OK,
    EXIT_VIOLATIONS,
    add_cluster_argument,
    add_output_arguments,
    add_stack_arguments,
    error_count,
    print_violations,
    settings,
    wants_clusters,
)

if TYPE_CHECKING:
    from ..config import StackSettings
    from ..document_set import DocumentSet
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
        help="previous version of the stack: the change rules apply ("
        + ", ".join(r.code for r in RULES.values() if r.change)
        + ") and known documents are updates",
    )
    add_cluster_argument(cmd)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the violations (stdout) and a summary (stderr): 1 when any is an error."""
    from ..expansion.rollout import plan_lines
    from ..pipeline import validate

    found = settings(args)
    result = validate(found.stack_dir, found.options, found.limits, args.previous or None)
    if wants_clusters(result.stack, found, args):
        return run_clusters(found, result.stack, result.previous, args, out)
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


def run_clusters(
    found: StackSettings,
    stack: DocumentSet,
    previous: DocumentSet | None,
    args: argparse.Namespace,
    out: TextIO,
) -> int:
    """Validate each cluster's result: the violations (each naming its cluster), then one
    summary line per cluster (stderr)."""
    from ..multicluster import validate_clusters

    result = validate_clusters(stack, found.options, previous, found.clusters, args.cluster)
    print_violations(result.all_violations, out)
    for note in stack.notes:
        print(f"note: {note}", file=sys.stderr)
    inventory_errors = error_count(result.violations)
    if inventory_errors or not result.clusters:
        print(
            f"{found.stack_dir}: cluster inventory: {inventory_errors} error(s), "
            f"{len(result.violations) - inventory_errors} warning(s)",
            file=sys.stderr,
        )
    for cluster, violations in result.clusters:
        errors = error_count(violations)
        print(
            f"{found.stack_dir}: cluster {cluster.name}: {errors} error(s), "
            f"{len(violations) - errors} warning(s)",
            file=sys.stderr,
        )
    return EXIT_OK if result.ok else EXIT_VIOLATIONS
