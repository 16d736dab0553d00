"""``tars-components render``: write a stack's Kubernetes objects as YAML files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..kernel.errors import UsageError, Violation
from .common import (
    EXIT_OK,
    EXIT_VIOLATIONS,
    add_cluster_argument,
    add_output_arguments,
    add_stack_arguments,
    command_targets,
    error_count,
    print_files,
    print_violations,
    settings,
)

if TYPE_CHECKING:
    from ..jobs.config import StackSettings
    from ..loading.document_set import DocumentSet
    from ..pipeline import Targets
    from ..secrets.hashing import AccountHashing
    from ..settings.options import Options
    from .common import Subparsers

SALT_KEY_ENV = "TARS_ACCOUNT_SALT_KEY"
"""Environment variable holding the TAccount salt key (``--account-salt-key-file`` wins)."""


def add_parser(commands: Subparsers) -> None:
    """Add ``render`` and its arguments."""
    from ..jobs.render import STREAM_FORMATS

    cmd = commands.add_parser(
        "render",
        help="write the stack's Kubernetes objects as YAML files",
        description="Write one YAML file per object in the renderYamlToDirectory layout "
        "(--out DIR), or every object to stdout (-o yaml|json, or --out -) for kubectl.",
        examples=[
            (
                "render the dev stack into out/dev",
                "tars-components render --stack dev --out out/dev",
            ),
            (
                "apply a stack with kubectl, without files",
                "tars-components render stacks/dev -o yaml | kubectl apply -f -",
            ),
            (
                "render one cluster of a stack with a cluster inventory",
                "tars-components render --stack prod --cluster sh -o json",
            ),
        ],
    )
    add_stack_arguments(cmd)
    where = cmd.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--out", metavar="DIR", help="output directory (- writes YAML to stdout, as -o yaml)"
    )
    where.add_argument(
        "-o",
        "--output",
        choices=STREAM_FORMATS,
        help="write every object to stdout instead: one YAML stream or one JSON v1 List "
        "(the summary goes to stderr)",
    )
    cmd.add_argument(
        "--account-salt-key-file",
        metavar="FILE",
        help=f"file holding the secret key that salts TAccount password hashes (or set "
        f"{SALT_KEY_ENV}); without one, the salt of the previous render in --out is kept, "
        "or a random one is drawn",
    )
    add_output_arguments(cmd)
    add_cluster_argument(cmd)
    cmd.add_argument(
        "--target",
        choices=["clusters", "karmada"],
        default="clusters",
        help="with a cluster inventory: clusters (default) writes OUT/<cluster>/ per cluster; "
        "karmada writes the objects once plus Karmada PropagationPolicies and OverridePolicies",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Render the stack into ``--out``: 0 written, 1 a rule error (nothing written)."""
    from ..jobs.render import render_stack
    from ..kernel.text import printable
    from ..loading.tdeploy import request_lines
    from ..stages.rollouts import summary_lines

    found = settings(args)
    options = found.options
    key = salt_key(args.account_salt_key_file, os.environ)
    stack = load_stack_of(found)
    to = command_targets(stack, found, args)
    stream = args.output or ("yaml" if args.out == "-" else None)
    if stream is not None:
        return run_stream(found, stack, to, args, key, stream, out)
    if to.per_cluster:
        return render_per_cluster(found, stack, args, key, out)
    result = render_stack(found.stack_dir, args.out, options, found.limits, key, stack)
    print_violations(result.build.violations, out)
    if not result.build.ok:
        errors = error_count(result.build.violations)
        print(f"render refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    print_files(args.out, result.files, out)
    for note in result.stack.notes:
        print(f"note: {note}", file=out)
    for line in summary_lines(result.stack):  # which ordinals run which release (Rollouts)
        print(line, file=out)
    for line in request_lines(result.stack.requests, None):  # TDeploy: pending, approved, …
        print(f"request: {printable(line)}", file=out)
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.build.kinds().items()))
    print(
        f"rendered {len(result.stack.servers)} servers from {found.stack_dir} into "
        f"{args.out} (namespace {options.namespace}, mode {options.mode}): "
        f"{len(result.build.objects)} objects ({kinds or 'none'}), "
        f"{len(result.build.warnings)} warning(s)",
        file=out,
    )
    return EXIT_OK


def run_stream(
    found: StackSettings,
    stack: DocumentSet,
    to: Targets,
    args: argparse.Namespace,
    key: bytes | None,
    fmt: str,
    out: TextIO,
) -> int:
    """``render -o yaml|json`` (``--out -``): every object of the stack (with a cluster
    inventory: of ``--cluster``'s cluster, or the Karmada hand-over) on stdout, nothing written;
    the violations, notes and summary on stderr. A rule error prints nothing on stdout."""
    from ..jobs.render import account_hashing, render_stream
    from ..kernel.text import printable
    from ..loading.tdeploy import request_lines
    from ..stages.rollouts import summary_lines

    hashing = account_hashing(stack, found.options, key, None)  # no previous render to read
    objects, violations, summary = _stream_build(found, stack, to, args, hashing)
    print_violations(violations, sys.stderr)
    errors = error_count(violations)
    if errors:
        print(f"render refused: {errors} error(s), nothing written", file=sys.stderr)
        return EXIT_VIOLATIONS
    out.write(render_stream(objects, fmt))
    for note in stack.notes:
        print(f"note: {note}", file=sys.stderr)
    for line in summary_lines(stack):  # which ordinals run which release (Rollouts)
        print(line, file=sys.stderr)
    for line in request_lines(stack.requests, None):  # TDeploy: pending, approved, …
        print(f"request: {printable(line)}", file=sys.stderr)
    print(f"rendered {summary} from {found.stack_dir} to stdout ({fmt})", file=sys.stderr)
    return EXIT_OK


def _karmada_crds(options: Options) -> list[dict[str, Any]]:
    """The TarsK8S CRDs a crd-mode Karmada hand-over writes for the Karmada API server and
    the members that do not have them (the chart's served and stored versions)."""
    from ..platform.controller_crds import crds
    from ..platform.values import Crds
    from ..settings.options import Mode

    return crds(Crds(), "") if options.mode == Mode.CRD else []


def _stream_build(
    found: StackSettings,
    stack: DocumentSet,
    to: Targets,
    args: argparse.Namespace,
    hashing: AccountHashing | None,
) -> tuple[list[dict[str, Any]], list[Violation], str]:
    """The objects of ``render -o``, the violations, and what they are (for the summary): the
    stack's one cluster, ``--cluster``'s, or the Karmada hand-over."""
    if args.target == "karmada" and to.per_cluster:
        from ..jobs.karmada import karmada_build

        if args.cluster:
            raise UsageError("--cluster and --target karmada: Karmada places every cluster")
        handed = karmada_build(
            stack, found.options, found.clusters, hashing, _karmada_crds(found.options)
        )
        return (
            [*handed.objects, *handed.policies],
            handed.violations,
            f"{len(handed.objects)} objects and {len(handed.policies)} Karmada policies",
        )
    if to.per_cluster and not args.cluster:
        raise UsageError(
            "-o/--out -: the stack has a cluster inventory; name one cluster (--cluster NAME) "
            "or hand it to Karmada (--target karmada)"
        )
    from ..pipeline import run

    built = run(stack, to, found.options, hashing=hashing)
    violations = built.all_violations
    if not built.ok or not built.results:
        return [], violations, ""
    [done] = built.results
    if done.cluster is None:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(done.build.kinds().items()))
        return done.build.objects, violations, f"{len(done.build.objects)} objects ({kinds})"
    return (
        done.build.objects,
        violations,
        f"{len(done.build.objects)} objects of cluster {done.name}",
    )


def load_stack_of(found: StackSettings) -> DocumentSet:
    """The stack directory of ``found``, loaded within its limits (garbage collection paused,
    as :func:`~tars_components.jobs.render.render_stack` does)."""
    from ..kernel.batch import suspended_gc
    from ..loading.load import load_stack

    with suspended_gc():
        return load_stack(
            found.stack_dir, found.options.namespace, found.limits, found.options.release
        )


def render_per_cluster(
    found: StackSettings,
    stack: DocumentSet,
    args: argparse.Namespace,
    key: bytes | None,
    out: TextIO,
) -> int:
    """Render a stack with clusters: ``OUT/<cluster>/`` per cluster, or the Karmada hand-over
    (``--target karmada``)."""
    from ..jobs.multicluster import render_clusters

    if args.target == "karmada":
        from ..jobs.karmada import render_karmada

        if args.cluster:
            raise UsageError("--cluster and --target karmada: Karmada places every cluster")
        handed = render_karmada(
            stack,
            found.stack_dir,
            args.out,
            found.options,
            found.clusters,
            key,
            _karmada_crds(found.options),
        )
        print_violations(handed.violations, out)
        if not handed.ok:
            errors = error_count(handed.violations)
            print(f"render refused: {errors} error(s), nothing written", file=out)
            return EXIT_VIOLATIONS
        print_files(args.out, handed.files, out)
        print(
            f"rendered {len(handed.objects)} objects and {len(handed.policies)} Karmada policies "
            f"for {len(handed.clusters)} clusters ({', '.join(handed.clusters)}) from "
            f"{found.stack_dir} into {args.out}",
            file=out,
        )
        return EXIT_OK
    result = render_clusters(
        stack, found.stack_dir, args.out, found.options, found.clusters, args.cluster, key
    )
    violations = result.build.all_violations
    print_violations(violations, out)
    if not result.build.ok:
        errors = error_count(violations)
        print(f"render refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    print_files(args.out, result.files, out)
    for done in result.build.results:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(done.build.kinds().items()))
        print(
            f"cluster {done.name}: rendered {len(done.stack.servers)} servers into "
            f"{Path(args.out) / done.name} (namespace {found.options.namespace}, mode "
            f"{found.options.mode}): {len(done.build.objects)} objects ({kinds or 'none'}), "
            f"{len(done.build.warnings)} warning(s)",
            file=out,
        )
    return EXIT_OK


def salt_key(path: str | None, environ: Mapping[str, str]) -> bytes | None:
    """The TAccount salt key: the content of ``path`` (one trailing newline dropped), else
    ``$TARS_ACCOUNT_SALT_KEY``, else None. Raises :class:`UsageError` for an unreadable file or
    an empty key, warns (stderr) about a short one; never shows the key."""
    from ..secrets.hashing import check_key

    if path is not None:
        name = f"--account-salt-key-file {path}"
        try:
            key = Path(path).read_bytes()
        except OSError as exc:
            raise UsageError(f"{name}: cannot read the salt key: {exc.strerror}") from None
        key = key[:-1] if key.endswith(b"\n") else key
        key = key[:-1] if key.endswith(b"\r") else key
    elif environ.get(SALT_KEY_ENV):
        name, key = SALT_KEY_ENV, os.fsencode(environ[SALT_KEY_ENV])
    else:
        return None
    try:
        warning = check_key(key, name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if warning:
        print(f"tars-components: warning: {warning}", file=sys.stderr)
    return key
