"""``tars-components import``: turn a live namespace export into a stack directory.

(``import_`` because ``import`` is a keyword.)"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from .common import EXIT_OK, EXIT_VIOLATIONS, error_count, print_files, print_violations

if TYPE_CHECKING:
    from .common import Subparsers


def add_parser(commands: Subparsers) -> None:
    """Add ``import`` and its arguments."""
    from ..jobs.importer import PULUMI_IMPORT_FILE

    cmd = commands.add_parser(
        "import",
        help="turn a live namespace export into a stack directory",
        description="Write a clean stack directory from `kubectl get tservers,ttemplates,"
        "tconfigs,timages,ttrees,taccounts,tframeworkconfigs -n NS -o yaml` (a file or a "
        "directory): one file per kind or per app, server-written fields removed, TAccount "
        "credentials as references to Pulumi config secrets.",
        examples=[
            (
                "adopt a namespace that kubectl created (export it first with kubectl get ... "
                "-o yaml)",
                "tars-components import export.yaml --out stacks/dev --namespace tars-dev --pulumi",
            ),
        ],
    )
    cmd.add_argument("export", metavar="EXPORT", help="export file or directory")
    cmd.add_argument("--out", required=True, metavar="STACK_DIR", help="new stack directory")
    cmd.add_argument("--namespace", metavar="NS", help="namespace of objects without one")
    cmd.add_argument(
        "--pulumi",
        action="store_true",
        help=f"also write {PULUMI_IMPORT_FILE} for `pulumi import --file` (adopt, not recreate)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Import the export into ``--out``: 0 written, 1 a rule error (nothing written)."""
    from ..jobs.importer import IMPORT_MODE, import_export

    result = import_export(args.export, args.out, args.namespace, args.pulumi)
    print_violations(result.violations, out)
    if not result.ok:
        errors = error_count(result.violations)
        print(f"import refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    print_files(args.out, result.files, out)
    for note in result.notes:
        print(f"note: {note}", file=out)
    kinds = ", ".join(f"{n} {kind}" for kind, n in result.kinds.items())
    namespace = f" --namespace {args.namespace}" if args.namespace else ""
    print(
        f"imported {sum(result.kinds.values())} TarsK8S objects ({kinds or 'none'}) and "
        f"{result.plain_objects} plain objects from {args.export} into {args.out}; "
        f"check it with: tars-components validate {args.out} --mode {IMPORT_MODE.value}"
        f"{namespace}",
        file=out,
    )
    return EXIT_OK
