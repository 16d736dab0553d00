"""``tars-components``: render and validate TarsK8S stacks offline (design §6).

Exit codes: 0 success; 1 a rule error (nothing written); 2 a usage error or input that cannot
be read (one line per problem, never a traceback); 3 ``diff --exit-code`` found changes; 70 an
internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from .batch import suspended_gc
from .errors import LoadError, LoadProblem, UsageError, Violation, has_errors, sorted_violations

if TYPE_CHECKING:
    from .config import StackSettings
    from .stack import Stack
    from .yamlio import Limits

# Start-up time (``framework`` is measured against ``helm template``, issue #12): every
# module beyond ``errors`` is imported inside the function that uses it, so a command pays for
# its own imports only, and they run in ``main`` with the cyclic garbage collector paused.

EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug, kept apart from diff --exit-code's 3
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


class _Parser(argparse.ArgumentParser):
    """argparse that states a usage error in one line (plus where to find help), exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_output_arguments(cmd: argparse.ArgumentParser) -> None:
    """The output options of design §4, shared by every command that builds a stack
    (``render``, ``validate``, ``diff``) so that what ``validate`` passes, ``render`` writes."""
    from .options import DEFAULT_LOCAL_VOLUME_STORAGE_CLASS, Mode

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
        "--tconfig-configmaps",
        dest="tconfig_config_maps",
        action="store_true",
        default=None,
        help="expand mode: render each TServer's activated TConfigs as a ConfigMap "
        "(as tars:tconfigConfigMaps does)",
    )
    cmd.add_argument(
        "--crd-api-version",
        choices=["k8s.tars.io/v1beta3", "k8s.tars.io/v1beta2"],
        help="apiVersion of the custom resources in crd mode (default: k8s.tars.io/v1beta3)",
    )
    cmd.add_argument(
        "--existing-framework-config",
        dest="existing_framework_config",
        action="store_true",
        default=None,
        help="crd mode: the namespace already has its tars-framework TFrameworkConfig (as "
        "tars:frameworkConfig: existing does); it is counted for TS020, never written",
    )
    cmd.add_argument(
        "--approvers",
        metavar="A,B",
        help="who may approve TDeploy requests (as tars:approvers does; TD006)",
    )


def add_limit_arguments(cmd: argparse.ArgumentParser) -> None:
    """The input limits (``Limits``), shared by every command that loads a stack: a file or
    stack beyond them is refused with exit 2 before it is parsed."""
    from .yamlio import LIMIT_NAMES, MAX_DEPTH_CEILING, Limits, format_size

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


def add_project_arguments(cmd: argparse.ArgumentParser) -> None:
    """``--project-dir``, ``--namespace`` and the input limits, shared by every command that
    loads stacks (the stack itself is named differently by ``diff``)."""
    cmd.add_argument(
        "--project-dir",
        default=".",
        metavar="DIR",
        help="directory of Pulumi.yaml and Pulumi.ENV.yaml (default: .)",
    )
    cmd.add_argument("--namespace", metavar="NS", help="stack namespace (default: default)")
    add_limit_arguments(cmd)


def _parser() -> argparse.ArgumentParser:
    from .rules import RULES

    parser = _Parser(
        prog="tars-components",
        description="Render, validate, diff and import TarsK8S stacks (TServer, TTemplate, "
        "TFrameworkConfig, TConfig, TImage, TTree, TAccount and plain Kubernetes objects); "
        "render the TarsK8S controller and framework install.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add_stack_arguments(cmd: argparse.ArgumentParser) -> None:
        where = cmd.add_mutually_exclusive_group(required=True)
        where.add_argument("stack_dir", nargs="?", metavar="STACK_DIR", help="stack directory")
        where.add_argument(
            "--stack", metavar="ENV", help="read tars:* settings from Pulumi.ENV.yaml"
        )
        add_project_arguments(cmd)

    render = commands.add_parser(
        "render",
        help="write the stack's Kubernetes objects as YAML files",
        description="Write one YAML file per object in the renderYamlToDirectory layout.",
    )
    add_stack_arguments(render)
    render.add_argument("--out", required=True, metavar="DIR", help="output directory")
    render.add_argument(
        "--account-salt-key-file",
        metavar="FILE",
        help=f"file holding the secret key that salts TAccount password hashes (or set "
        f"{SALT_KEY_ENV}); without one, the salt of the previous render in --out is kept, "
        "or a random one is drawn",
    )
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
        help="previous version of the stack: the change rules apply (TS001, TS002, TT003, TT005, "
        "TC001, TC003, TC004, TC007-TC009, TR006, TR007, TD001, TD002) and known documents are "
        "updates",
    )
    _platform_parsers(commands)
    _diff_parser(commands)
    _add_import_parser(commands)
    _add_schema_parser(commands)
    convert = commands.add_parser(
        "convert",
        help="write helm-lib values files and old documents as k8s.tars.io/v1beta3",
        description="Write the documents the helm-lib v1.4.1 chart renders from each values "
        "file (TServer, TImage, TConfigs) as k8s.tars.io/v1beta3, one file per server; "
        "upgrade files of v1beta1/v1beta2 documents to v1beta3 (same file name), naming what "
        "could not be carried over.",
    )
    convert.add_argument(
        "inputs", nargs="+", metavar="FILE", help="helm-lib values file or TarsK8S documents"
    )
    convert.add_argument("--out", required=True, metavar="DIR", help="output directory")
    return parser


def _add_schema_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    cmd = commands.add_parser(
        "schema",
        help="write JSON Schemas of the stack documents for editors",
        description="Write one JSON Schema per kind and version, and stack.json for whole "
        "stack files, for yaml-language-server (VS Code, Neovim, JetBrains).",
    )
    cmd.add_argument("--out", required=True, metavar="DIR", help="output directory")


def _schema(args: argparse.Namespace, out: TextIO) -> int:
    from .schema import write_schemas

    for name in write_schemas(args.out):
        print(Path(args.out) / name, file=out)
    return EXIT_OK


def _add_import_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .importer import PULUMI_IMPORT_FILE

    cmd = commands.add_parser(
        "import",
        help="turn a live namespace export into a stack directory",
        description="Write a clean stack directory from `kubectl get tservers,ttemplates,"
        "tconfigs,timages,ttrees,taccounts,tframeworkconfigs -n NS -o yaml` (a file or a "
        "directory): one file per kind or per app, server-written fields removed, TAccount "
        "credentials as references to Pulumi config secrets.",
    )
    cmd.add_argument("export", metavar="EXPORT", help="export file or directory")
    cmd.add_argument("--out", required=True, metavar="STACK_DIR", help="new stack directory")
    cmd.add_argument("--namespace", metavar="NS", help="namespace of objects without one")
    cmd.add_argument(
        "--pulumi",
        action="store_true",
        help=f"also write {PULUMI_IMPORT_FILE} for `pulumi import --file` (adopt, not recreate)",
    )


def _import(args: argparse.Namespace, out: TextIO) -> int:
    from .importer import IMPORT_MODE, import_export

    result = import_export(args.export, args.out, args.namespace, args.pulumi)
    _print_violations(result.violations, out)
    if not result.ok:
        errors = sum(1 for v in result.violations if v.is_error)
        print(f"import refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    for relative in result.files:
        print(Path(args.out) / relative, file=out)
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


def _settings(args: argparse.Namespace) -> StackSettings:
    """Settings from ``--stack`` (Pulumi.ENV.yaml) or the stack directory, flags on top."""
    from .config import StackSettings, limit_value, read_stack_config
    from .options import Mode, check_option_values, check_options
    from .yamlio import LIMIT_NAMES

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
        "tconfig_config_maps": getattr(args, "tconfig_config_maps", None),
        "existing_framework_config": getattr(args, "existing_framework_config", None),
        "approvers": _approvers(getattr(args, "approvers", None)),
    }
    given = {k: v for k, v in overrides.items() if v is not None}
    check_option_values({k: str(v) if k == "mode" else v for k, v in given.items()}, config=False)
    options = replace(options, **given)
    check_options(options)  # combinations (the values were checked above, named as flags)
    limits: dict[str, int] = {}
    for field in LIMIT_NAMES:
        value = limit_value(field, getattr(args, field, None), config=False)
        if value is not None:
            limits[field] = value
    return replace(settings, options=options, limits=replace(settings.limits, **limits))


def _approvers(text: str | None) -> tuple[str, ...] | None:
    from .options import parse_approvers

    return None if text is None else parse_approvers(text)


def _print_violations(violations: Sequence[Violation], out: TextIO) -> None:
    for v in sorted_violations(violations):
        print(v.format(), file=out)


SALT_KEY_ENV = "TARS_ACCOUNT_SALT_KEY"
"""Environment variable holding the TAccount salt key (``--account-salt-key-file`` wins)."""


def salt_key(path: str | None, environ: Mapping[str, str]) -> bytes | None:
    """The TAccount salt key: the content of ``path`` (one trailing newline dropped), else
    ``$TARS_ACCOUNT_SALT_KEY``, else None. Raises :class:`UsageError` for an unreadable file or
    an empty key, warns (stderr) about a short one; never shows the key."""
    from .secrets import check_key

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


def _render(args: argparse.Namespace, out: TextIO) -> int:
    from .render import render_stack

    settings = _settings(args)
    options = settings.options
    key = salt_key(args.account_salt_key_file, os.environ)
    result = render_stack(settings.stack_dir, args.out, options, settings.limits, key)
    _print_violations(result.build.violations, out)
    if not result.build.ok:
        errors = sum(1 for v in result.build.violations if v.is_error)
        print(f"render refused: {errors} error(s), nothing written", file=out)
        return EXIT_VIOLATIONS
    for relative in result.files:
        print(Path(args.out) / relative, file=out)
    for note in result.stack.notes:
        print(f"note: {note}", file=out)
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
    from .loader import load_stack
    from .pipeline import check
    from .rules import validate_change, without_create_only

    settings = _settings(args)
    namespace = settings.options.namespace
    stack = load_stack(settings.stack_dir, namespace, settings.limits)
    violations = list(check(stack, settings.options))
    if args.previous:
        previous = load_stack(args.previous, namespace, settings.limits)
        violations.extend(validate_change(previous, stack))
        violations = without_create_only(violations, previous)
    _print_violations(violations, out)
    for note in stack.notes:
        print(f"note: {note}", file=sys.stderr)
    errors = sum(1 for v in violations if v.is_error)
    print(
        # a document that failed its schema is still one of the stack's documents
        f"{settings.stack_dir}: {len(stack.documents) + len(stack.rejected)} documents, "
        f"{len(stack.objects)} plain objects, {errors} error(s), "
        f"{len(violations) - errors} warning(s)",
        file=sys.stderr,
    )
    return EXIT_VIOLATIONS if has_errors(violations) else EXIT_OK


# --- controller / framework: install TarsK8S itself (issue 12) ----------------------------

_CA_WARNING = (
    "WARNING: {path} holds the webhook CA's PRIVATE KEY (ca.key): whoever reads it can sign "
    "certificates your API server trusts for the TarsK8S webhook. Keep the rendered directory "
    "out of version control and apply it only through a channel fit for Secrets."
)


def _platform_parsers(commands: Any) -> None:
    controller = commands.add_parser(
        "controller",
        help="write the TarsK8S controller install (the tarscontroller chart) as YAML files",
        description="Render the tarscontroller 1.4.1 chart's objects from its values file "
        "(partial files take the chart defaults), chart bugs fixed, with a CA of this "
        "installation: from --ca-cert/--ca-key, or freshly generated; either way it is written "
        "as the Secret tars-system/tars-webhook-ca, which holds the CA's private key.",
    )
    controller.add_argument("--values", required=True, metavar="VALUES.yaml", help="values file")
    controller.add_argument("--out", required=True, metavar="DIR", help="output directory")
    controller.add_argument("--ca-cert", metavar="PEM", help="existing webhook CA certificate")
    controller.add_argument(
        "--ca-key", metavar="PEM", help="its private key (RSA; PKCS#1 or PKCS#8, unencrypted)"
    )

    framework = commands.add_parser(
        "framework",
        help="write the TarsK8S framework install (the tarsframework chart) as YAML files",
        description="Render the tarsframework 1.4.1 chart's objects for one namespace from its "
        "values file (partial files take the chart defaults), chart bugs fixed; the framework "
        "TServers, TTemplates and TFrameworkConfig are validated like a stack's documents.",
    )
    framework.add_argument("--values", required=True, metavar="VALUES.yaml", help="values file")
    framework.add_argument(
        "--namespace",
        default="default",
        metavar="NS",
        help="framework namespace (default: default)",
    )
    framework.add_argument("--out", required=True, metavar="DIR", help="output directory")


def _print_files(out_dir: str, files: Sequence[str], out: TextIO) -> None:
    for relative in files:
        print(Path(out_dir) / relative, file=out)


def _controller(args: argparse.Namespace, out: TextIO) -> int:
    from .platform.job import render_controller

    result = render_controller(args.values, args.out, args.ca_cert, args.ca_key)
    _print_files(args.out, result.files, out)
    secret = next(Path(args.out) / f for f in result.files if "-secret-" in f)
    origin = "generated in this run" if result.generated_ca else "from --ca-cert/--ca-key"
    print(
        f"rendered the TarsK8S controller into {args.out}: {len(result.objects)} objects, "
        f"webhook CA {origin}",
        file=out,
    )
    print(_CA_WARNING.format(path=secret), file=sys.stderr)
    return EXIT_OK


def _framework(args: argparse.Namespace, out: TextIO) -> int:
    from .platform.job import render_framework

    if not _DNS_LABEL.fullmatch(args.namespace):
        raise UsageError(f"--namespace {args.namespace!r}: not a valid namespace name")
    result = render_framework(args.values, args.namespace, args.out)
    _print_violations(result.violations, out)
    if not result.ok:
        print("framework render refused: nothing written", file=out)
        return EXIT_VIOLATIONS
    _print_files(args.out, result.files, out)
    print(
        f"rendered the TarsK8S framework for namespace {args.namespace} into {args.out}: "
        f"{len(result.objects)} objects",
        file=out,
    )
    return EXIT_OK


# --- diff (issue #10) -----------------------------------------------------------------------

EXIT_CHANGES = 3
"""``diff --exit-code``: the stacks differ."""


def _diff_parser(commands: Any) -> None:
    from .diff import GITHUB_COMMENT_LIMIT

    cmd = commands.add_parser(
        "diff",
        help="show what changes between two versions of a stack (offline)",
        description="Compare what two stack directories render to: per object create, update, "
        "replace or delete, with field paths and old and new values. The new stack is checked "
        "like `validate --previous OLD_STACK` (exit 1 on a rule error, no change list). Both "
        "stacks are built with the same options: the flags, and with --stack ENV the tars:* "
        "settings of Pulumi.ENV.yaml (NEW_STACK then defaults to its tars:stackDir).",
        epilog="exit codes: 0 success (with or without changes; 3 with changes under "
        "--exit-code), 1 rule violations, 2 usage error or unreadable input",
    )
    cmd.add_argument("old_stack", metavar="OLD_STACK", help="previous stack directory")
    cmd.add_argument(
        "new_stack",
        metavar="NEW_STACK",
        nargs="?",
        help="new stack directory (default with --stack ENV: its tars:stackDir)",
    )
    cmd.add_argument(
        "--stack",
        metavar="ENV",
        help="build both stacks with the tars:* options of Pulumi.ENV.yaml",
    )
    add_project_arguments(cmd)
    add_output_arguments(cmd)
    cmd.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="text (default; coloured on a terminal), markdown (for a PR comment) or json",
    )
    cmd.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour the text format: auto (default: on a terminal, unless NO_COLOR is set)",
    )
    cmd.add_argument(
        "--max-chars",
        type=int,
        default=GITHUB_COMMENT_LIMIT,
        metavar="N",
        help=f"markdown: truncate to N characters (default {GITHUB_COMMENT_LIMIT}, GitHub's "
        "comment limit)",
    )
    cmd.add_argument(
        "--exit-code",
        action="store_true",
        help="exit 3 when the stacks differ (like git diff --exit-code)",
    )


def _load_both(old_dir: str, new_dir: str, namespace: str, limits: Limits) -> tuple[Stack, Stack]:
    """Both stacks, or one LoadError with the problems of both."""
    from .loader import load_stack

    stacks: list[Stack] = []
    problems: list[LoadProblem] = []
    for directory in (old_dir, new_dir):
        try:
            stacks.append(load_stack(directory, namespace, limits))
        except LoadError as exc:
            problems.extend(exc.problems)
    if problems:
        raise LoadError(problems)
    return stacks[0], stacks[1]


def _diff(args: argparse.Namespace, out: TextIO) -> int:
    from .diff import diff_stacks, to_json, to_markdown, to_text

    if args.new_stack is None and not args.stack:
        raise UsageError("diff needs NEW_STACK, or --stack ENV to take it from Pulumi.ENV.yaml")
    if args.max_chars < 1000:
        raise UsageError(f"--max-chars must be at least 1000, got {args.max_chars}")
    args.stack_dir = args.new_stack
    settings = _settings(args)
    new_dir = args.new_stack or settings.stack_dir
    previous, current = _load_both(
        args.old_stack, new_dir, settings.options.namespace, settings.limits
    )
    result = diff_stacks(previous, current, settings.options, settings.external_replicas)
    if result.diff is None:
        errors = sum(1 for v in result.violations if v.is_error)
        if args.format == "json":
            _print_violations(result.violations, sys.stderr)
            document = {"violations": [_violation_json(v) for v in result.violations]}
            out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        else:
            _print_violations(result.violations, out)
        print(
            f"diff refused: {new_dir}: {errors} error(s), "
            f"{len(result.violations) - errors} warning(s)",
            file=sys.stderr,
        )
        return EXIT_VIOLATIONS
    _print_violations(result.violations, sys.stderr)
    if result.previous_errors:
        print(
            f"{args.old_stack}: {len(result.previous_errors)} error(s) in the previous stack; "
            "its documents that failed to load are left out of the comparison",
            file=sys.stderr,
        )
    diff = result.diff
    if args.format == "json":
        out.write(to_json(diff))
    elif args.format == "markdown":
        out.write(to_markdown(diff, args.max_chars))
    else:
        out.write(to_text(diff, colour=_colour(args.color, out)))
    return EXIT_CHANGES if args.exit_code and diff.changes else EXIT_OK


def _colour(choice: str, out: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def _violation_json(v: Violation) -> dict[str, Any]:
    return {
        "code": v.code,
        "severity": str(v.severity),
        "kind": v.kind,
        "namespace": v.namespace,
        "name": v.name,
        "field": v.field,
        "message": v.message,
        "file": v.file,
        "line": v.line,
        "text": v.format(),
    }


# One function per command: (parsed arguments, stdout) -> exit code.
COMMANDS: dict[str, Callable[[argparse.Namespace, TextIO], int]] = {
    "render": _render,
    "validate": _validate,
    "controller": _controller,
    "framework": _framework,
    "diff": _diff,
    "import": _import,
    "schema": _schema,
    "convert": lambda args, out: _lazy("convert", "command")(args, out),
}


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace, TextIO], int]:
    """A command function of another module, imported when the command runs."""
    import importlib

    found: Callable[[argparse.Namespace, TextIO], int] = getattr(
        importlib.import_module(f".{module}", __package__), name
    )
    return found


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
        return EXIT_INTERNAL


if __name__ == "__main__":
    console()
