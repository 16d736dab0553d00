"""``tars-components convert``: helm-lib values files and old documents as v1beta3."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from .common import EXIT_OK, EXIT_VIOLATIONS, print_files

if TYPE_CHECKING:
    from .common import Subparsers


def add_parser(commands: Subparsers) -> None:
    """Add ``convert`` and its arguments."""
    cmd = commands.add_parser(
        "convert",
        help="write helm-lib values files and old documents as k8s.tars.io/v1beta3",
        description="Write the documents the helm-lib v1.4.1 chart renders from each values "
        "file (TServer, TImage, TConfigs) as k8s.tars.io/v1beta3, one file per server; "
        "upgrade files of v1beta1/v1beta2 documents to v1beta3 (same file name), naming what "
        "could not be carried over.",
        examples=[
            (
                "helm-lib values files as TServer documents",
                "tars-components convert values/*.yaml --out stacks/dev",
            ),
            (
                "upgrade v1beta2 documents to v1beta3",
                "tars-components convert old/tserver.yaml --out stacks/dev",
            ),
        ],
    )
    cmd.add_argument(
        "inputs", nargs="+", metavar="FILE", help="helm-lib values file or TarsK8S documents"
    )
    cmd.add_argument("--out", required=True, metavar="DIR", help="output directory")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Convert the inputs into ``--out``: 0 written, 1 a rule error (nothing written);
    unreadable input raises :class:`~tars_components.errors.LoadError` (exit 2)."""
    from ..convert import convert_files

    result = convert_files(args.inputs, args.out)
    for v in result.violations:
        print(v.format(), file=out)
    if any(v.is_error for v in result.violations):
        print("convert refused: the documents have errors, nothing written", file=out)
        return EXIT_VIOLATIONS
    for note in result.notes:
        print(note, file=out)
    print_files(args.out, result.files, out)
    return EXIT_OK
