"""``tars-components framework``: write the TarsK8S framework install of one namespace."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, TextIO

from ..kernel.errors import UsageError
from .common import EXIT_OK, EXIT_VIOLATIONS, print_files, print_violations

if TYPE_CHECKING:
    from .common import Subparsers

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def add_parser(commands: Subparsers) -> None:
    """Add ``framework`` and its arguments."""
    cmd = commands.add_parser(
        "framework",
        help="write the TarsK8S framework install (the tarsframework chart) as YAML files",
        description="Render the tarsframework 1.4.1 chart's objects for one namespace from its "
        "values file (partial files take the chart defaults), chart bugs fixed; the framework "
        "TServers, TTemplates and TFrameworkConfig are validated like a stack's documents.",
        examples=[
            (
                "render the framework of namespace tars-dev",
                "tars-components framework --values tarsframework-values.yaml --namespace tars-dev "
                "--out out/framework",
            ),
        ],
    )
    cmd.add_argument("--values", required=True, metavar="VALUES.yaml", help="values file")
    cmd.add_argument(
        "--namespace",
        default="default",
        metavar="NS",
        help="framework namespace (default: default)",
    )
    cmd.add_argument("--out", required=True, metavar="DIR", help="output directory")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Render the framework into ``--out``: 0 written, 1 a rule error (nothing written)."""
    from ..platform.job import render_framework

    if not _DNS_LABEL.fullmatch(args.namespace):
        raise UsageError(f"--namespace {args.namespace!r}: not a valid namespace name")
    result = render_framework(args.values, args.namespace, args.out)
    print_violations(result.violations, out)
    if not result.ok:
        print("framework render refused: nothing written", file=out)
        return EXIT_VIOLATIONS
    print_files(args.out, result.files, out)
    print(
        f"rendered the TarsK8S framework for namespace {args.namespace} into {args.out}: "
        f"{len(result.objects)} objects",
        file=out,
    )
    return EXIT_OK
