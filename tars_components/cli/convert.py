"""``tars-components convert``: helm-lib values files and old documents as v1beta3."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

from ..kernel.errors import UsageError
from .common import EXIT_OK, EXIT_VIOLATIONS, print_files

if TYPE_CHECKING:
    from ..settings.options import ReleaseTag
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
    cmd.add_argument(
        "--tag",
        metavar="TAG",
        help="write the release into each helm-lib values file as exec-helm.sh VALUES TAG "
        "does: repo.id DATE-TAG, repo.image IMAGE:TAG",
    )
    cmd.add_argument(
        "--tag-date",
        metavar="YYYYmmddHHMMSS",
        help="the DATE of --tag's repo.id (default: $SOURCE_DATE_EPOCH in UTC when set, else "
        "now in local time, as exec-helm.sh's date +%%Y%%m%%d%%H%%M%%S)",
    )


def release_of(args: argparse.Namespace, environ: Mapping[str, str]) -> ReleaseTag | None:
    """The release of ``--tag``/``--tag-date`` (None without ``--tag``): the date given, else
    ``SOURCE_DATE_EPOCH`` (the reproducible-builds convention, UTC), else the clock."""
    from datetime import datetime, timezone

    from ..settings.options import RELEASE_DATE_FORMAT, ReleaseTag

    if args.tag is None:
        if args.tag_date is not None:
            raise UsageError("--tag-date needs --tag")
        return None
    date = args.tag_date
    if date is None and environ.get("SOURCE_DATE_EPOCH"):
        try:
            epoch = int(environ["SOURCE_DATE_EPOCH"])
            date = datetime.fromtimestamp(epoch, timezone.utc).strftime(RELEASE_DATE_FORMAT)
        except (ValueError, OverflowError, OSError):
            raise UsageError(
                f"SOURCE_DATE_EPOCH {environ['SOURCE_DATE_EPOCH']!r}: not a Unix time"
            ) from None
    if date is None:
        date = datetime.now().strftime(RELEASE_DATE_FORMAT)
    try:
        return ReleaseTag(args.tag, date)
    except ValueError as exc:
        raise UsageError(f"--tag {args.tag} --tag-date {date}: {exc}") from None


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Convert the inputs into ``--out``: 0 written, 1 a rule error (nothing written);
    unreadable input raises :class:`~tars_components.kernel.errors.LoadError` (exit 2)."""
    from ..jobs.convert import convert_files

    result = convert_files(args.inputs, args.out, release=release_of(args, os.environ))
    for v in result.violations:
        print(v.format(), file=out)
    if any(v.is_error for v in result.violations):
        print("convert refused: the documents have errors, nothing written", file=out)
        return EXIT_VIOLATIONS
    for note in result.notes:
        print(note, file=out)
    print_files(args.out, result.files, out)
    return EXIT_OK
