"""``tars-components controller``: write the TarsK8S controller install as YAML files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .common import EXIT_OK, print_files

if TYPE_CHECKING:
    from .common import Subparsers

_CA_WARNING = (
    "WARNING: {path} holds the webhook CA's PRIVATE KEY (ca.key): whoever reads it can sign "
    "certificates your API server trusts for the TarsK8S webhook. Keep the rendered directory "
    "out of version control and apply it only through a channel fit for Secrets."
)


def add_parser(commands: Subparsers) -> None:
    """Add ``controller`` and its arguments."""
    cmd = commands.add_parser(
        "controller",
        help="write the TarsK8S controller install (the tarscontroller chart) as YAML files",
        description="Render the tarscontroller 1.4.1 chart's objects from its values file "
        "(partial files take the chart defaults), chart bugs fixed, with a CA of this "
        "installation: from --ca-cert/--ca-key, or freshly generated; either way it is written "
        "as the Secret tars-system/tars-webhook-ca, which holds the CA's private key.",
        examples=[
            (
                "render the controller install with a new webhook CA",
                "tars-components controller --values controller-values.yaml --out out/controller",
            ),
            (
                "keep the CA of an installed controller",
                "tars-components controller --values values.yaml --out out/controller "
                "--ca-cert ca.crt --ca-key ca.key",
            ),
        ],
    )
    cmd.add_argument("--values", required=True, metavar="VALUES.yaml", help="values file")
    cmd.add_argument("--out", required=True, metavar="DIR", help="output directory")
    cmd.add_argument("--ca-cert", metavar="PEM", help="existing webhook CA certificate")
    cmd.add_argument(
        "--ca-key", metavar="PEM", help="its private key (RSA; PKCS#1 or PKCS#8, unencrypted)"
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Render the controller into ``--out`` and warn (stderr) that it holds the CA's key."""
    from ..platform.job import render_controller

    result = render_controller(args.values, args.out, args.ca_cert, args.ca_key)
    print_files(args.out, result.files, out)
    secret = next(Path(args.out) / f for f in result.files if "-secret-" in f)
    origin = "generated in this run" if result.generated_ca else "from --ca-cert/--ca-key"
    print(
        f"rendered the TarsK8S controller into {args.out}: {len(result.objects)} objects, "
        f"webhook CA {origin}",
        file=out,
    )
    print(_CA_WARNING.format(path=secret), file=sys.stderr)
    return EXIT_OK
