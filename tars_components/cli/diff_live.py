"""``tars-components diff --live EXPORT``: the stack's build against a live export (drift and
field-manager conflicts, docs/cli/diff.md#against-a-live-export)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from ..kernel.errors import UsageError

if TYPE_CHECKING:
    from ..settings.options import Options
from .common import (
    EXIT_CHANGES,
    EXIT_OK,
    print_violations,
    refusal_summary,
    settings,
    use_colour,
)


def own_managers(args: argparse.Namespace) -> list[str]:
    """The field managers of this stack: ``--field-manager`` (repeatable), else with
    ``--stack ENV`` the components' ``tars-components-ENV``."""
    if args.field_manager:
        return list(args.field_manager)
    return [f"tars-components-{args.stack}"] if args.stack else []


def read_from(context: str, options: Options) -> list[dict[str, Any]]:
    """The stack namespace's objects as the cluster of kubeconfig ``context`` holds them
    (``-``: the current context); :class:`UsageError` (exit 2) when it cannot be read."""
    from ..jobs.live import read_live
    from ..kubeapi import LiveReadError

    try:
        state = read_live(options, [options.namespace], None if context == "-" else context)
    except LiveReadError as exc:
        raise UsageError(f"--live-from {context}: {exc}") from None
    return [dict(o) for o in state.objects]


def run_live(args: argparse.Namespace, out: TextIO) -> int:
    """Build the stack (STACK or ``--stack ENV``), read the export, print drift and conflicts
    in ``--format``: 0 (3 when anything differs under ``--exit-code``), 1 when the stack has
    a rule error, 2 for an unreadable export or stack."""
    from ..diff.live import live_diff, parse_export
    from ..diff.live_printers import live_json, live_markdown, live_text
    from ..expansion.ownership import ObjectKey, server_ownerships
    from ..jobs.config import effective_ownership
    from ..jobs.importer import read_export
    from ..jobs.multicluster import live_target
    from ..loading.load import load_stack
    from ..models.ownership import FieldOwnership
    from ..pipeline import Build
    from ..settings.options import Mode
    from .beside import Beside

    if args.new_stack is not None:
        raise UsageError("diff --live takes one stack directory (or --stack ENV), not two")
    if args.old_stack is None and not args.stack:
        raise UsageError("diff --live needs a stack directory, or --stack ENV")
    args.stack_dir = args.old_stack
    found = settings(args)
    stack_dir = args.old_stack or found.stack_dir
    options = replace(found.options, field_ownership=effective_ownership(found))
    texts = read_export(args.live, found.limits) if args.live is not None else None

    what = "diff --live" if args.live is not None else "diff --live-from"

    def build_stack() -> tuple[Build, dict[ObjectKey, FieldOwnership]]:
        stack = load_stack(stack_dir, options.namespace, found.limits, options.release)
        # one cluster's render (its overrides applied) when the stack has an inventory
        target = live_target(stack, options, found.clusters, args.cluster, what)
        return target.build, server_ownerships(target.stack, options)

    # The stack is built beside the export's parse or the cluster's read (a second CPU); an
    # unreadable export or cluster is still reported first, before anything the stack has.
    with Beside(build_stack) as building:
        if texts is not None:
            live: list[dict[str, Any]] = parse_export(texts, found.limits, options.namespace)
        else:
            live = read_from(args.live_from, options)
        built, ownerships = building.result()
    if not built.ok:
        print_violations(built.violations, out if args.format != "json" else sys.stderr)
        return refusal_summary(stack_dir, built.violations)
    print_violations(built.violations, sys.stderr)
    result = live_diff(
        built.objects,
        live,
        ownerships,
        own_managers(args),
        crd_mode=options.mode == Mode.CRD,
    )
    if args.format == "json":
        out.write(live_json(result))
    elif args.format == "markdown":
        out.write(live_markdown(result, args.max_chars))
    else:
        out.write(live_text(result, colour=use_colour(args.color, out)))
    return EXIT_CHANGES if args.exit_code and result.differs else EXIT_OK
