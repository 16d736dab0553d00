"""``tars-components``: render and validate TarsK8S stacks offline.

One module per command (:mod:`.render`, :mod:`.validate`, :mod:`.controller`,
:mod:`.framework`, :mod:`.diff`, :mod:`.import_`, :mod:`.schema`, :mod:`.convert`,
:mod:`.completion`), each with
``add_parser(commands)`` and ``run(args, out) -> int``; what they share is in :mod:`.common`.
The work itself is done by :mod:`tars_components.pipeline` (and the modules it names); the
commands parse, print and choose the exit code.

Exit codes: 0 success; 1 a rule error (nothing written); 2 a usage error or input that cannot
be read (one line per problem, never a traceback); 3 ``diff --exit-code`` found changes; 70 an
internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn, Protocol, TextIO

from ..kernel.batch import suspended_gc
from ..kernel.errors import LoadError, UsageError
from . import completion, controller, convert, diff, framework, import_, render, schema, validate
from .common import (
    EXIT_CHANGES,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATIONS,
    Parser,
    VersionAction,
    add_limit_arguments,
    add_output_arguments,
    add_project_arguments,
)
from .render import SALT_KEY_ENV, salt_key

if TYPE_CHECKING:
    from .common import Subparsers

# Start-up time (``framework`` is measured against ``helm template``): the command modules
# import only ``argparse`` and ``errors`` at the top; every other module is imported inside
# the function that uses it, so a command pays for its own imports only, and they run in
# ``main`` with the cyclic garbage collector paused.


class Command(Protocol):
    """What a command module provides."""

    def add_parser(self, commands: Subparsers) -> None:
        """Add the command's parser to ``commands``."""

    def run(self, args: argparse.Namespace, out: TextIO) -> int:
        """Run the command on its parsed arguments, print to ``out``, return the exit code."""


COMMANDS: dict[str, Command] = {
    "render": render,
    "validate": validate,
    "controller": controller,
    "framework": framework,
    "diff": diff,
    "import": import_,
    "schema": schema,
    "convert": convert,
    "completion": completion,
}
"""Every command by name, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``tars-components`` parser, with every command of :data:`COMMANDS`."""
    parser = Parser(
        prog="tars-components",
        description="Render, validate, diff and import TarsK8S stacks (TServer, TTemplate, "
        "TFrameworkConfig, TConfig, TImage, TTree, TAccount and plain Kubernetes objects); "
        "render the TarsK8S controller and framework install.",
    )
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tars-components`` console script."""
    # A command is a short batch job: its imports, pydantic's model building and the build
    # itself allocate many objects that the cyclic collector would traverse again and again,
    # freeing nothing.
    with suspended_gc():
        return _run(argv)


def console() -> NoReturn:
    """The ``tars-components`` console script (and ``python -m tars_components``): :func:`main`
    on the command line, then exit with its code."""
    code = main()
    # Everything the run built is still alive at exit; the interpreter's final collections
    # would traverse it all for nothing (about 15 ms of a ``framework`` run). Frozen objects
    # are skipped by the collector; memory goes back to the OS with the process.
    gc.freeze()
    sys.exit(code)


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command].run(args, sys.stdout)
    except LoadError as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"tars-components: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"tars-components: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug, not a user error: keep it short unless asked
        if os.environ.get("TARS_COMPONENTS_DEBUG"):
            raise
        print(
            f"tars-components: internal error: {type(exc).__name__}: {exc} "
            "(set TARS_COMPONENTS_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


__all__ = [
    "COMMANDS",
    "EXIT_CHANGES",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_VIOLATIONS",
    "SALT_KEY_ENV",
    "Command",
    "add_limit_arguments",
    "add_output_arguments",
    "add_project_arguments",
    "build_parser",
    "console",
    "main",
    "salt_key",
]
