"""``tars-components schema``: write JSON Schemas of the stack documents for editors."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from .common import EXIT_OK, print_files

if TYPE_CHECKING:
    from .common import Subparsers


def add_parser(commands: Subparsers) -> None:
    """Add ``schema`` and its arguments."""
    cmd = commands.add_parser(
        "schema",
        help="write JSON Schemas of the stack documents for editors",
        description="Write one JSON Schema per kind and version, and stack.json for whole "
        "stack files, for yaml-language-server (VS Code, Neovim, JetBrains).",
        examples=[
            (
                "schemas for yaml-language-server (# yaml-language-server: $schema=...)",
                "tars-components schema --out .schemas",
            ),
        ],
    )
    cmd.add_argument("--out", required=True, metavar="DIR", help="output directory")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Write the schemas into ``--out`` and print their paths."""
    from ..crds.editor_schema import write_schemas

    print_files(args.out, write_schemas(args.out), out)
    return EXIT_OK
