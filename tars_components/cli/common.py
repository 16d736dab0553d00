"""What the commands share: exit codes, the one-line usage errors, the argument groups
(stack, project, input limits, output options), the settings they add up to, and the printing
of violations and written files.

Only ``argparse`` and :mod:`tars_components.kernel.errors` are imported here at the top: every other
module is imported by the function that needs it, so that a command pays for its own imports
only (start-up time, see ``tests/ci/test_startup.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from ..kernel.errors import UsageError, Violation, sorted_violations

if TYPE_CHECKING:
    from typing import TypeAlias

    from ..jobs.config import StackSettings
    from ..loading.document_set import DocumentSet
    from ..pipeline import Targets

    Subparsers: TypeAlias = "argparse._SubParsersAction[Parser]"
    """What each command module's ``add_parser`` adds its parser to."""

EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE = 0, 1, 2
EXIT_CHANGES = 3
"""``diff --exit-code``: the stacks differ."""
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug, kept apart from diff --exit-code's 3


class Parser(argparse.ArgumentParser):
    """argparse that states a usage error in one line (plus where to find help), exit 2, and
    ends a command's help with its ``examples`` (``(what it does, command line)`` pairs),
    as kubectl's help does."""

    def __init__(self, *args: Any, examples: Sequence[tuple[str, str]] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.examples = tuple(examples)

    def error(self, message: str) -> NoReturn:
        """Exit 2 with ``PROG: error: MESSAGE (see PROG --help)``."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def format_help(self) -> str:
        """argparse's help, then the examples, each a comment line and a command line."""
        text = super().format_help()
        if not self.examples:
            return text
        lines = ["examples:"]
        for what, line in self.examples:
            lines += [f"  # {what}", f"  {line}", ""]
        return text.rstrip("\n") + "\n\n" + "\n".join(lines[:-1]) + "\n"


def package_version() -> str:
    """The package's version (``tars-components --version``): the declared
    :data:`tars_components.__version__`, which the distribution and the component schema
    carry too."""
    from ..kernel.version import __version__

    return __version__


class VersionAction(argparse.Action):
    """``--version``: print ``tars-components VERSION`` and exit 0 (the version is looked up
    only when asked: start-up time)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "print the version and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        parser._print_message(f"tars-components {package_version()}\n", sys.stdout)
        parser.exit(EXIT_OK)


def add_output_arguments(cmd: argparse.ArgumentParser) -> None:
    """The output options, shared by every command that builds a stack (``render``,
    ``validate``, ``diff``) so that what ``validate`` passes, ``render`` writes."""
    from ..settings.options import DEFAULT_LOCAL_VOLUME_STORAGE_CLASS, Mode

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
        "--await-tservers",
        dest="await_tservers",
        action="store_true",
        default=None,
        help="crd mode: TServers wait for the status the TarsK8S controller writes "
        "(pulumi.com/waitFor; as tars:awaitTServers does)",
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
    cmd.add_argument(
        "--workload",
        choices=["statefulset", "kruise", "tapp"],
        help="expand mode: the engine of StatefulSet servers: statefulset (default), kruise "
        "(OpenKruise Advanced StatefulSet) or tapp (tkestack TApp); as tars:workload does",
    )
    cmd.add_argument(
        "--expandable-storage-classes",
        metavar="SC,SC",
        help="StorageClasses that allow volume expansion, for claims that grow (as "
        "tars:expandableStorageClasses does; TV003)",
    )
    cmd.add_argument(
        "--fixed-storage-classes",
        metavar="SC,SC",
        help="StorageClasses that do not allow volume expansion: a claim growing on one is an "
        "error (as tars:fixedStorageClasses does; TV002)",
    )
    cmd.add_argument(
        "--release-tag",
        metavar="TAG",
        help="the release of the stack's helm-lib values files, as exec-helm.sh VALUES TAG "
        "writes it: repo.id DATE-TAG, repo.image IMAGE:TAG (as tars:releaseTag does; needs "
        "--release-date)",
    )
    cmd.add_argument(
        "--release-date",
        metavar="YYYYmmddHHMMSS",
        help="the date of --release-tag's repo.id (as tars:releaseDate does)",
    )


def add_limit_arguments(cmd: argparse.ArgumentParser) -> None:
    """The input limits (``Limits``), shared by every command that loads a stack: a file or
    stack beyond them is refused with exit 2 before it is parsed."""
    from ..kernel.limits import LIMIT_NAMES, MAX_DEPTH_CEILING, Limits, format_size

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
    cmd.add_argument(
        "--field-ownership",
        metavar="FIELD=OWNER,...",
        help="TServer fields another manager owns: release=external,replicas=initial "
        "(managed, initial or external; on top of tars:fieldOwnership)",
    )
    add_limit_arguments(cmd)


def add_stack_arguments(cmd: argparse.ArgumentParser) -> None:
    """``STACK_DIR`` or ``--stack ENV`` (one of them), then the project arguments: the stack
    of ``render`` and ``validate``."""
    where = cmd.add_mutually_exclusive_group(required=True)
    where.add_argument("stack_dir", nargs="?", metavar="STACK_DIR", help="stack directory")
    where.add_argument("--stack", metavar="ENV", help="read tars:* settings from Pulumi.ENV.yaml")
    add_project_arguments(cmd)


def settings(args: argparse.Namespace) -> StackSettings:
    """Settings from ``--stack`` (Pulumi.ENV.yaml) or the stack directory, flags on top."""
    from ..jobs.config import StackSettings, limit_value, read_stack_config
    from ..kernel.limits import LIMIT_NAMES
    from ..settings.options import Mode, Workload, check_option_values, check_options, parse_release

    if args.stack:
        found = read_stack_config(args.stack, args.project_dir)
        if found.management is not None:
            found = _management_inventory(found)
    else:
        found = StackSettings(stack_dir=args.stack_dir)
    overrides = {
        "namespace": args.namespace,
        "mode": Mode(args.mode) if getattr(args, "mode", None) else None,
        "local_volume_storage_class": getattr(args, "local_volume_storage_class", None),
        "delay_bind": getattr(args, "delay_bind", None),
        "tars_readiness_gate": getattr(args, "tars_readiness_gate", None),
        "crd_api_version": getattr(args, "crd_api_version", None),
        "skip_await": getattr(args, "skip_await", None),
        "await_tservers": getattr(args, "await_tservers", None),
        "tconfig_config_maps": getattr(args, "tconfig_config_maps", None),
        "existing_framework_config": getattr(args, "existing_framework_config", None),
        "approvers": _approvers(getattr(args, "approvers", None)),
        "field_ownership": _field_ownership(found, getattr(args, "field_ownership", None)),
        "workload": Workload(args.workload) if getattr(args, "workload", None) else None,
        "expandable_storage_classes": _classes(getattr(args, "expandable_storage_classes", None)),
        "fixed_storage_classes": _classes(getattr(args, "fixed_storage_classes", None)),
    }
    tag, date = getattr(args, "release_tag", None), getattr(args, "release_date", None)
    if tag is not None or date is not None:
        current = found.options.release
        overrides["release"] = parse_release(
            tag if tag is not None else current and current.tag,
            date if date is not None else current and current.date,
            config=False,
        )
    given = {k: v for k, v in overrides.items() if v is not None}
    check_option_values(
        {k: str(v) if k in ("mode", "workload") else v for k, v in given.items()}, config=False
    )
    options = replace(found.options, **given)
    check_options(options)  # combinations (the values were checked above, named as flags)
    limits: dict[str, int] = {}
    for field in LIMIT_NAMES:
        value = limit_value(field, getattr(args, field, None), config=False)
        if value is not None:
            limits[field] = value
    return replace(found, options=options, limits=replace(found.limits, **limits))


def _management_inventory(found: StackSettings) -> StackSettings:
    """``tars:managementCluster``: the clusters its Stellaris Cluster objects give, read with
    its kubeconfig context (a kubeconfig kept as a Pulumi secret is the program's to read).
    :class:`UsageError` when it cannot be read or its Clusters are wrong."""
    from ..jobs.fleet import read_management
    from ..kubeapi import LiveReadError

    management = found.management
    assert management is not None
    if management.context is None:
        raise UsageError(
            f"tars:managementCluster: the kubeconfig tars:{management.kubeconfig_key} is a "
            "Pulumi secret, read by pulumi preview only; give the management cluster as a "
            "context (tars:managementCluster: {context: NAME}) to use tars-components"
        )
    try:
        read = read_management(management)
    except LiveReadError as exc:
        raise UsageError(f"the management cluster cannot be read: {exc}") from None
    if read.violations:
        raise UsageError("\n".join(v.format() for v in read.violations))
    return replace(found, clusters=read.clusters, cluster_credentials=dict(read.secrets))


def add_cluster_argument(cmd: argparse.ArgumentParser) -> None:
    """``--cluster NAME``: one cluster of the stack's inventory (docs/concepts/clusters.md)."""
    cmd.add_argument(
        "--cluster",
        metavar="NAME",
        help="with a cluster inventory (Stellaris Cluster documents or tars:clusters): only "
        "this cluster",
    )


def command_targets(stack: DocumentSet, found: StackSettings, args: argparse.Namespace) -> Targets:
    """The targets of a command (:func:`tars_components.pipeline.targets`): the stack's one
    cluster, or the clusters of its inventory (Stellaris Cluster documents, ClusterOverride
    documents or ``tars:clusters``), all or ``--cluster``'s; :class:`UsageError` for
    ``--cluster`` or ``--target karmada`` without an inventory."""
    from ..pipeline import targets

    only = getattr(args, "cluster", None) or None
    karmada = getattr(args, "target", "clusters") == "karmada"
    to = targets(stack, found.clusters)
    if not karmada or not to.per_cluster:
        to = to.choose(only)  # with Karmada, every cluster: --cluster is refused then
    if not to.per_cluster and karmada:
        raise UsageError(
            "--target karmada: the stack has no cluster inventory (Stellaris Cluster documents "
            "or tars:clusters)"
        )
    return to


def _field_ownership(found: StackSettings, text: str | None) -> Any:
    """``--field-ownership`` on top of the stack's setting (None when not given)."""
    from ..models.ownership import FieldOwnership

    if text is None:
        return None
    try:
        return found.options.field_ownership.merged(FieldOwnership.parse(text))
    except ValueError as exc:
        raise UsageError(f"--field-ownership {text!r}: {exc}") from None


def _approvers(text: str | None) -> tuple[str, ...] | None:
    from ..settings.options import parse_approvers

    return None if text is None else parse_approvers(text)


def _classes(text: str | None) -> tuple[str, ...] | None:
    from ..settings.options import parse_storage_classes

    return None if text is None else parse_storage_classes(text)


def print_violations(violations: Sequence[Violation], out: TextIO) -> None:
    """One line per violation, in the stable order (file, line, code)."""
    for v in sorted_violations(violations):
        print(v.format(), file=out)


def violation_json(v: Violation) -> dict[str, Any]:
    """One violation as the ``json`` formats of ``validate`` and ``diff`` give it."""
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
        **({"cluster": v.cluster} if v.cluster is not None else {}),
    }


def github_annotation(v: Violation) -> str:
    """One violation as a GitHub Actions workflow command (``::error file=F,line=L,title=T::M``):
    an annotation on the file's line in a pull request's diff. Values are escaped as the
    runner unescapes them (``%``, ``\\r``, ``\\n``, and ``:``/``,`` inside properties)."""
    from ..kernel.text import printable

    def data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(text: str) -> str:
        return data(text).replace(":", "%3A").replace(",", "%2C")

    props = []
    if v.file is not None:
        props.append(f"file={prop(printable(v.file))}")
        props.append(f"line={v.line or 1}")
    props.append(f"title={prop(printable(f'{v.code} {v.kind} {v.namespace}/{v.name}'))}")
    message = f"{v.field}: {v.message}" + (f" (cluster {v.cluster})" if v.cluster else "")
    level = "error" if v.is_error else "warning"
    return f"::{level} {','.join(props)}::{data(printable(message))}"


def print_files(out_dir: str, files: Iterable[str], out: TextIO) -> None:
    """The path of each file written under ``out_dir`` (``files`` are relative to it)."""
    for relative in files:
        print(Path(out_dir) / relative, file=out)


def error_count(violations: Sequence[Violation]) -> int:
    """How many of ``violations`` are errors."""
    return sum(1 for v in violations if v.is_error)


def use_colour(choice: str, out: TextIO) -> bool:
    """Whether to colour ``out`` for ``--color`` ``choice``: ``always``, ``never``, or ``auto``
    (a terminal, and no ``NO_COLOR`` in the environment)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty())


def refusal_summary(stack_dir: object, violations: Sequence[Violation]) -> int:
    """Print ``diff refused: DIR: N error(s), M warning(s)`` (stderr); the exit status."""
    errors = error_count(violations)
    print(
        f"diff refused: {stack_dir}: {errors} error(s), {len(violations) - errors} warning(s)",
        file=sys.stderr,
    )
    return EXIT_VIOLATIONS
