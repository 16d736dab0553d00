"""``tars-components render``: write a stack's Kubernetes objects as YAML files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import UsageError
from .common import (
    EXIT_OK,
    EXIT_VIOLATIONS,
    add_output_arguments,
    add_stack_arguments,
    error_count,
    print_files,
    print_violations,
    settings,
)

if TYPE_CHECKING:
    from .common import Subparsers

SALT_KEY_ENV = "TARS_ACCOUNT_SALT_KEY"
"""Environment variable holding the TAccount salt key (``--account-salt-key-file`` wins)."""


def add_parser(commands: Subparsers) -> None:
    """Add ``render`` and its arguments."""
    cmd = commands.add_parser(
        "render",
        help="write the stack's Kubernetes objects as YAML files",
        description="Write one YAML file per object in the renderYamlToDirectory layout.",
    )
    add_stack_arguments(cmd)
    cmd.add_argument("--out", required=True, metavar="DIR", help="output directory")
    cmd.add_argument(
        "--account-salt-key-file",
        metavar="FILE",
        help=f"file holding the secret key that salts TAccount password hashes (or set "
        f"{SALT_KEY_ENV}); without one, the salt of the previous render in --out is kept, "
        "or a random one is drawn",
    )
    add_output_arguments(cmd)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Render the stack into ``--out``: 0 written, 1 a rule error (nothing written)."""
    from ..expansion.rollout import plan_lines
    from ..render import render_stack

    found = settings(args)
    options = found.options
    key = salt_key(args.account_salt_key_file, os.environ)
    result = render_stack(found.stack_dir, args.out, options, found.limits, key)
    print_violations(result.build.violations, out)
    if not result.build.ok:
        errors = error_count(result.build.violations)
        print(f"render refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    print_files(args.out, result.files, out)
    for note in result.stack.notes:
        print(f"note: {note}", file=out)
    for line in plan_lines(result.stack):  # which ordinals run which release (Rollouts)
        print(f"plan: {line}", file=out)
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.build.kinds().items()))
    print(
        f"rendered {len(result.stack.servers)} servers from {found.stack_dir} into "
        f"{args.out} (namespace {options.namespace}, mode {options.mode}): "
        f"{len(result.build.objects)} objects ({kinds or 'none'}), "
        f"{len(result.build.warnings)} warning(s)",
        file=out,
    )
    return EXIT_OK


def salt_key(path: str | None, environ: Mapping[str, str]) -> bytes | None:
    """The TAccount salt key: the content of ``path`` (one trailing newline dropped), else
    ``$TARS_ACCOUNT_SALT_KEY``, else None. Raises :class:`UsageError` for an unreadable file or
    an empty key, warns (stderr) about a short one; never shows the key."""
    from ..secrets import check_key

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
