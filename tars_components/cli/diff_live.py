"""``tars-components diff --live EXPORT``: the stack's build against a live export (drift and
field-manager conflicts, docs/cli/diff.md#against-a-live-export)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from ..kernel.errors import UsageError

if TYPE_CHECKING:
    from ..diff.live import LiveDiff
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


def run_live_clusters(args: argparse.Namespace, out: TextIO) -> int:
    """``diff --stack ENV --live-from-clusters``: every cluster of the inventory read (its
    management cluster Secret's credentials, else the kubeconfig context of its name) and
    compared with its own render; each cluster's drift and conflicts in ``--format``, in the
    sections a diff of a stack with clusters prints (text ``=== cluster NAME ===``, markdown
    ``#### Cluster `NAME```, JSON ``{"clusters": {NAME: {changes, summary, conflicts}}}``).
    Exit codes as ``--live-from``; a cluster that cannot be read is exit 2 and nothing is
    printed."""
    from ..diff.live import live_diff
    from ..diff.live_printers import live_markdown, live_text
    from ..expansion.ownership import server_ownerships
    from ..jobs.config import effective_ownership
    from ..jobs.fleet import cluster_connection
    from ..jobs.live import read_live_with
    from ..jobs.multicluster import live_target
    from ..kubeapi import LiveReadError
    from ..loading.load import load_stack
    from ..pipeline import targets
    from ..settings.options import Mode

    if args.new_stack is not None or args.old_stack is not None or not args.stack:
        raise UsageError("diff --live-from-clusters takes --stack ENV only")
    if args.cluster:
        raise UsageError("--live-from-clusters reads every cluster: use --live-from --cluster")
    args.stack_dir = None
    found = settings(args)
    options = replace(found.options, field_ownership=effective_ownership(found))
    stack = load_stack(found.stack_dir, options.namespace, found.limits, options.release)
    inventory = targets(stack, found.clusters).inventory
    if inventory is None:
        raise UsageError("--live-from-clusters: the stack has no cluster inventory")
    names = inventory.names
    results: dict[str, LiveDiff] = {}
    for name in names:
        target = live_target(stack, options, found.clusters, name, "diff --live-from-clusters")
        if not target.build.ok:
            print_violations(target.build.violations, out if args.format != "json" else sys.stderr)
            return refusal_summary(found.stack_dir, target.build.violations)
        try:
            conn = cluster_connection(found.cluster_credentials.get(name), name)
            live = read_live_with(conn, options, [options.namespace])
        except LiveReadError as exc:
            raise UsageError(f"--live-from-clusters: cluster {name}: {exc}") from None
        results[name] = live_diff(
            target.build.objects,
            [dict(o) for o in live.objects],
            server_ownerships(target.stack, options),
            own_managers(args),
            crd_mode=options.mode == Mode.CRD,
        )
    differs = any(r.differs for r in results.values())
    if args.format == "json":
        document = {"clusters": {n: r.to_json() for n, r in results.items()}}
        out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    share = max(1000, args.max_chars // len(results))
    for name, result in results.items():  # as a diff of a stack with clusters prints them
        if args.format == "markdown":
            out.write(f"#### Cluster `{name}`\n\n" + live_markdown(result, share) + "\n")
        elif args.format == "text":
            out.write(f"=== cluster {name} ===\n")
            out.write(live_text(result, colour=use_colour(args.color, out)))
    return EXIT_CHANGES if args.exit_code and differs else EXIT_OK
