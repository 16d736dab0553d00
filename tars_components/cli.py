"""``tars-components``: render and validate TarsK8S stacks offline (design §6).

Exit codes: 0 success; 1 a rule error (nothing written); 2 a usage error or input that cannot
be read (one line per problem, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from .config import StackSettings, limit_value, read_stack_config
from .errors import LoadError, UsageError, Violation, has_errors, sorted_violations
from .loader import load_stack
from .options import DEFAULT_LOCAL_VOLUME_STORAGE_CLASS, Mode, check_option_values
from .pipeline import check
from .render import render_stack
from .rules import RULES, validate_change
from .yamlio import LIMIT_NAMES, MAX_DEPTH_CEILING, Limits, format_size

EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse that states a usage error in one line (plus where to find help), exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_output_arguments(cmd: argparse.ArgumentParser) -> None:
    """The output options of design §4, shared by every command that builds a stack
    (``render``, ``validate``, ``diff``) so that what ``validate`` passes, ``render`` writes."""
    cmd.add_argument("--mode", choices=[m.value for m in Mode], help="expand (default) or crd")
    cmd.add_argument(
        "--local-volume-storage-class",
        metavar="SC",
        help="storage class of tLocalVolume claims "
        f"(default: {DEFAULT_LOCAL_VOLUME_STORAGE_CLASS})",
    )
    cmd.add_argument(
        "--no-delay-bind",
        dest="delay_bind",
        action="store_false",
        default=None,
        help="do not add the delay-bind claim template for hostIPC/hostNetwork/hostPorts",
    )
    cmd.add_argument(
        "--no-tars-readiness-gate",
        dest="tars_readiness_gate",
        action="store_false",
        default=None,
        help="leave out the tars.io/active readiness gate (no TarsK8S tarsregistry)",
    )
    cmd.add_argument(
        "--skip-await",
        dest="skip_await",
        action="store_true",
        default=None,
        help='annotate workloads pulumi.com/skipAwait: "true" (as tars:skipAwait does)',
    )
    cmd.add_argument(
        "--crd-api-version",
        choices=["k8s.tars.io/v1beta3", "k8s.tars.io/v1beta2"],
        help="apiVersion of the custom resources in crd mode (default: k8s.tars.io/v1beta3)",
    )


def add_limit_arguments(cmd: argparse.ArgumentParser) -> None:
    """The input limits (``Limits``), shared by every command that loads a stack: a file or
    stack beyond them is refused with exit 2 before it is parsed."""
    defaults = Limits()
    group = cmd.add_argument_group("input limits (hostile or runaway YAML is refused, exit 2)")
    group.add_argument(
        LIMIT_NAMES["max_file_bytes"][0],
        dest="max_file_bytes",
        metavar="SIZE",
        help=f"largest stack file, e.g. 16Mi (default: {format_size(defaults.max_file_bytes)})",
    )
    group.add_argument(
        LIMIT_NAMES["max_stack_bytes"][0],
        dest="max_stack_bytes",
        metavar="SIZE",
        help=f"largest total of a stack's files (default: {format_size(defaults.max_stack_bytes)})",
    )
    group.add_argument(
        LIMIT_NAMES["max_depth"][0],
        dest="max_depth",
        metavar="N",
        help=f"deepest nesting of mappings and lists (default: {defaults.max_depth}, "
        f"at most {MAX_DEPTH_CEILING})",
    )
    group.add_argument(
        LIMIT_NAMES["max_alias_expansion"][0],
        dest="max_alias_expansion",
        metavar="N",
        help="how many times its own size a file may grow when its YAML aliases are expanded "
        f"(default: {defaults.max_alias_expansion})",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tars-components",
        description="Render and validate TarsK8S stacks (TServer, TTemplate, TFrameworkConfig).",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add_stack_arguments(cmd: argparse.ArgumentParser) -> None:
        where = cmd.add_mutually_exclusive_group(required=True)
        where.add_argument("stack_dir", nargs="?", metavar="STACK_DIR", help="stack directory")
        where.add_argument(
            "--stack", metavar="ENV", help="read tars:* settings from Pulumi.ENV.yaml"
        )
        cmd.add_argument(
            "--project-dir",
            default=".",
            metavar="DIR",
            help="directory of Pulumi.yaml and Pulumi.ENV.yaml (default: .)",
        )
        cmd.add_argument("--namespace", metavar="NS", help="stack namespace (default: default)")
        add_limit_arguments(cmd)

    render = commands.add_parser(
        "render",
        help="write the stack's Kubernetes objects as YAML files",
        description="Write one YAML file per object in the renderYamlToDirectory layout.",
    )
    add_stack_arguments(render)
    render.add_argument("--out", required=True, metavar="DIR", help="output directory")
    add_output_arguments(render)

    check = commands.add_parser(
        "validate",
        help="check the stack against the TarsK8S admission rules",
        description="Print one line per violation: FILE:LINE: CODE severity Kind ns/name "
        "field: message. Exit 1 when any error is found.",
        epilog="rule codes:\n"
        + "\n".join(f"  {r.code} {r.severity:<7} {r.summary}" for r in RULES.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_stack_arguments(check)
    add_output_arguments(check)
    check.add_argument(
        "--previous",
        metavar="OLD_STACK_DIR",
        help="previous version of the stack, for the change rules (TS001, TS002, TT003, TT005)",
    )
    return parser


def _settings(args: argparse.Namespace) -> StackSettings:
    """Settings from ``--stack`` (Pulumi.ENV.yaml) or the stack directory, flags on top."""
    if args.stack:
        settings = read_stack_config(args.stack, args.project_dir)
    else:
        settings = StackSettings(stack_dir=args.stack_dir)
    options = settings.options
    overrides = {
        "namespace": args.namespace,
        "mode": Mode(args.mode) if getattr(args, "mode", None) else None,
        "local_volume_storage_class": getattr(args, "local_volume_storage_class", None),
        "delay_bind": getattr(args, "delay_bind", None),
        "tars_readiness_gate": getattr(args, "tars_readiness_gate", None),
        "crd_api_version": getattr(args, "crd_api_version", None),
        "skip_await": getattr(args, "skip_await", None),
    }
    given = {k: v for k, v in overrides.items() if v is not None}
    check_option_values({k: str(v) if k == "mode" else v for k, v in given.items()}, config=False)
    options = replace(options, **given)
    limits: dict[str, int] = {}
    for field in LIMIT_NAMES:
        value = limit_value(field, getattr(args, field, None), config=False)
        if value is not None:
            limits[field] = value
    return replace(settings, options=options, limits=replace(settings.limits, **limits))


def _print_violations(violations: Sequence[Violation], out: TextIO) -> None:
    for v in sorted_violations(violations):
        print(v.format(), file=out)


def _render(args: argparse.Namespace, out: TextIO) -> int:
    settings = _settings(args)
    options = settings.options
    result = render_stack(settings.stack_dir, args.out, options, settings.limits)
    _print_violations(result.build.violations, out)
    if not result.build.ok:
        errors = sum(1 for v in result.build.violations if v.is_error)
        print(f"render refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    for relative in result.files:
        print(Path(args.out) / relative, file=out)
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.build.kinds().items()))
    print(
        f"rendered {len(result.stack.servers)} servers from {settings.stack_dir} into "
        f"{args.out} (namespace {options.namespace}, mode {options.mode}): "
        f"{len(result.build.objects)} objects ({kinds or 'none'}), "
        f"{len(result.build.warnings)} warning(s)",
        file=out,
    )
    return EXIT_OK


def _validate(args: argparse.Namespace, out: TextIO) -> int:
    settings = _settings(args)
    namespace = settings.options.namespace
    stack = load_stack(settings.stack_dir, namespace, settings.limits)
    violations = list(check(stack, settings.options))
    if args.previous:
        previous = load_stack(args.previous, namespace, settings.limits)
        violations.extend(validate_change(previous, stack))
    _print_violations(violations, out)
    errors = sum(1 for v in violations if v.is_error)
    print(
        f"{settings.stack_dir}: {len(stack.documents)} documents, {errors} error(s), "
        f"{len(violations) - errors} warning(s)",
        file=sys.stderr,
    )
    return EXIT_VIOLATIONS if has_errors(violations) else EXIT_OK


# One function per command: (parsed arguments, stdout) -> exit code.
COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "render": _render,
    "validate": _validate,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tars-components`` console script."""
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args, sys.stdout)
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
        return 3


if __name__ == "__main__":
    sys.exit(main())
