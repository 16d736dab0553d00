"""``tars-components diff``: what changes between two versions of a stack (offline)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from ..kernel.errors import UsageError, Violation
from .common import (
    EXIT_CHANGES,
    EXIT_OK,
    add_cluster_argument,
    add_output_arguments,
    add_project_arguments,
    command_targets,
    print_violations,
    refusal_summary,
    settings,
    use_colour,
    violation_json,
)

if TYPE_CHECKING:
    from ..jobs.config import StackSettings
    from ..loading.document_set import DocumentSet
    from .common import Subparsers


def add_parser(commands: Subparsers) -> None:
    """Add ``diff`` and its arguments."""
    from ..diff import GITHUB_COMMENT_LIMIT

    cmd = commands.add_parser(
        "diff",
        help="show what changes between two versions of a stack (offline)",
        description="Compare what two stack directories render to: per object create, update, "
        "replace or delete, with field paths and old and new values. The new stack is checked "
        "like `validate --previous OLD_STACK` (exit 1 on a rule error, no change list). Both "
        "stacks are built with the same options: the flags, and with --stack ENV the tars:* "
        "settings of Pulumi.ENV.yaml (NEW_STACK then defaults to its tars:stackDir).",
        epilog="with --live EXPORT, the one stack (STACK or --stack ENV) is built and compared "
        "with the export instead (with a cluster inventory: --cluster NAME's render). exit "
        "codes: 0 success (with or without changes; 3 with changes under --exit-code), 1 rule "
        "violations, 2 usage error or unreadable input",
        examples=[
            (
                "what a branch changes in the dev stack",
                "tars-components diff ../main/stacks/dev stacks/dev",
            ),
            (
                "a pull request comment",
                "tars-components diff --stack dev ../main/stacks/dev --format markdown",
            ),
            (
                "drift against the cluster (an export of kubectl get ... -o yaml "
                "--show-managed-fields)",
                "tars-components diff --stack dev --live live.yaml",
            ),
            (
                "drift and conflicts read from the cluster itself",
                "tars-components diff --stack dev --live-from dev-cluster",
            ),
            (
                "drift of one cluster of an inventory, against its own render",
                "tars-components diff --stack prod --live live-bj.yaml --cluster bj",
            ),
        ],
    )
    cmd.add_argument(
        "old_stack",
        metavar="OLD_STACK",
        nargs="?",
        help="previous stack directory (with --live: the stack directory to build)",
    )
    cmd.add_argument(
        "new_stack",
        metavar="NEW_STACK",
        nargs="?",
        help="new stack directory (default with --stack ENV: its tars:stackDir)",
    )
    cmd.add_argument(
        "--live",
        metavar="EXPORT",
        help="compare the stack's build with a live export (kubectl get ... -o yaml "
        "--show-managed-fields: a file, a kind: List or a directory): the drift, and the "
        "fields another field manager owns with another value (conflicts)",
    )
    cmd.add_argument(
        "--live-from",
        metavar="CONTEXT",
        help="like --live, reading the stack namespace's objects from the cluster of this "
        "kubeconfig context ('-': the current context; $KUBECONFIG or ~/.kube/config) instead "
        "of an export",
    )
    cmd.add_argument(
        "--live-from-clusters",
        action="store_true",
        help="with --stack ENV and a cluster inventory: like --live-from, for every cluster, "
        "each read with its management cluster Secret's credentials or else the kubeconfig "
        "context named after it",
    )
    cmd.add_argument(
        "--field-manager",
        metavar="NAME",
        action="append",
        default=None,
        help="with --live: a field manager of this stack (repeatable; default with --stack "
        "ENV: tars-components-ENV; pulumi-kubernetes-* is always this stack's)",
    )
    cmd.add_argument(
        "--stack",
        metavar="ENV",
        help="build both stacks with the tars:* options of Pulumi.ENV.yaml",
    )
    add_project_arguments(cmd)
    add_output_arguments(cmd)
    add_cluster_argument(cmd)
    cmd.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="text (default; coloured on a terminal), markdown (for a PR comment) or json",
    )
    cmd.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour the text format: auto (default: on a terminal, unless NO_COLOR is set)",
    )
    cmd.add_argument(
        "--max-chars",
        type=int,
        default=GITHUB_COMMENT_LIMIT,
        metavar="N",
        help=f"markdown: truncate to N characters (default {GITHUB_COMMENT_LIMIT}, GitHub's "
        "comment limit)",
    )
    cmd.add_argument(
        "--exit-code",
        action="store_true",
        help="exit 3 when the stacks differ (like git diff --exit-code)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the changes in ``--format``: 0 (3 with changes under ``--exit-code``), 1 when the
    new stack has a rule error (its violations instead of the changes)."""
    from ..diff import to_json, to_markdown, to_text
    from ..diff.stacks import diff_stacks
    from ..pipeline import load_stacks

    if args.max_chars < 1000:
        raise UsageError(f"--max-chars must be at least 1000, got {args.max_chars}")
    given = [args.live is not None, args.live_from is not None, args.live_from_clusters]
    if sum(given) > 1:
        raise UsageError(
            "diff takes one of --live EXPORT, --live-from CONTEXT and --live-from-clusters"
        )
    if args.live_from_clusters:
        from .diff_live import run_live_clusters

        return run_live_clusters(args, out)
    if args.live is not None or args.live_from is not None:
        from .diff_live import run_live

        return run_live(args, out)
    if args.field_manager:
        raise UsageError("--field-manager needs --live or --live-from")
    if args.old_stack is None:
        raise UsageError("diff needs OLD_STACK (or --live EXPORT)")
    if args.new_stack is None and not args.stack:
        raise UsageError("diff needs NEW_STACK, or --stack ENV to take it from Pulumi.ENV.yaml")
    args.stack_dir = args.new_stack
    found = settings(args)
    new_dir = args.new_stack or found.stack_dir
    previous, current = load_stacks(
        [args.old_stack, new_dir], found.options.namespace, found.limits, found.options.release
    )
    if command_targets(current, found, args).per_cluster:
        return diff_per_cluster(found, previous, current, args, new_dir, out)
    result = diff_stacks(previous, current, found.options, found.external_replicas)
    if result.diff is None:
        return _refuse(result.violations, new_dir, args.format, out)
    print_violations(result.violations, sys.stderr)
    if result.previous_errors:
        print(
            f"{args.old_stack}: {len(result.previous_errors)} error(s) in the previous stack; "
            "its documents that failed to load are left out of the comparison",
            file=sys.stderr,
        )
    changes = result.diff
    if args.format == "json":
        out.write(to_json(changes))
    elif args.format == "markdown":
        out.write(to_markdown(changes, args.max_chars))
    else:
        out.write(to_text(changes, colour=use_colour(args.color, out)))
    return EXIT_CHANGES if args.exit_code and changes.changes else EXIT_OK


def diff_per_cluster(
    found: StackSettings,
    previous: DocumentSet,
    current: DocumentSet,
    args: argparse.Namespace,
    new_dir: str,
    out: TextIO,
) -> int:
    """``diff`` per cluster: each cluster's changes under its own heading (text, markdown), or
    ``{"clusters": {NAME: <diff>}}`` (json); a rule error in any cluster's result refuses the
    whole diff, each violation naming its cluster."""
    from ..diff import to_json, to_markdown, to_text
    from ..jobs.multicluster import diff_clusters

    result = diff_clusters(
        previous, current, found.options, found.external_replicas, found.clusters, args.cluster
    )
    violations = result.all_violations
    if not result.ok:
        return _refuse(violations, new_dir, args.format, out)
    print_violations(violations, sys.stderr)
    changed = False
    if args.format == "json":
        clusters = {name: json.loads(to_json(d.diff)) for name, d in result.diffs if d.diff}
        out.write(json.dumps({"clusters": clusters}, indent=2, ensure_ascii=False) + "\n")
    share = max(1000, args.max_chars // max(1, len(result.diffs)))
    for name, one in result.diffs:
        assert one.diff is not None  # result.ok
        changed = changed or bool(one.diff.changes)
        if args.format == "markdown":
            out.write(f"#### Cluster `{name}`\n\n" + to_markdown(one.diff, share) + "\n")
        elif args.format == "text":
            out.write(f"=== cluster {name} ===\n")
            out.write(to_text(one.diff, colour=use_colour(args.color, out)))
    return EXIT_CHANGES if args.exit_code and changed else EXIT_OK


def _refuse(violations: Sequence[Violation], stack_dir: object, fmt: str, out: TextIO) -> int:
    """A diff refused on rule errors: the violations (json: a ``violations`` document on
    stdout, the lines on stderr), then :func:`refusal_summary`."""
    if fmt == "json":
        print_violations(violations, sys.stderr)
        document = {"violations": [violation_json(v) for v in violations]}
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        print_violations(violations, out)
    return refusal_summary(stack_dir, violations)
