"""The ``tars`` Pulumi program: one stack per environment (``Pulumi.<env>.yaml``).

It reads the ``tars:*`` config exactly as ``tars-components render --stack <env>`` does, loads
the stack directory, stops before declaring anything when a rule fails (every violation is
printed), and declares one TFramework per namespace with its TTemplates and TServers.

Config keys (all optional): ``tars:stackDir`` (default ``stacks/<stack>``), ``tars:namespace``,
``tars:mode``, ``tars:localVolumeStorageClass``, ``tars:delayBind``, ``tars:tarsReadinessGate``,
``tars:crdApiVersion``, ``tars:renderDir`` (write manifests instead of applying them),
``tars:kubeContext``, ``tars:skipAwait``, ``tars:externalReplicas``, the input limits
``tars:maxFileSize``, ``tars:maxStackSize``, ``tars:maxDepth``, ``tars:maxAliasExpansion``;
and, read here only since they change no object: ``tars:previousStackDir`` (the stack as
last deployed: change rules such as TS001, and a warning before a StatefulSet with volume
claim templates is replaced),
``tars:protect`` and ``tars:retainOnDelete`` (resource options of every object); the Pulumi
config secrets ``tars:<KEY>`` that TAccounts reference as ``{configSecret: KEY}``, and
``tars:accountSaltKey``, the secret key that salts TAccount password hashes (without it, each
account's random salt is kept in the state).
"""

from __future__ import annotations

import gc
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from tars_components.components import components_from_stack, config_secrets
from tars_components.config import StackSettings, settings_from_config
from tars_components.errors import LoadError, UsageError, Violation, has_errors
from tars_components.loader import load_stack
from tars_components.pipeline import check as check_stack
from tars_components.rules import validate_change, without_create_only
from tars_components.stack import Stack
from tars_components.yamlio import Limits

PROJECT_DIR = Path(__file__).resolve().parent


def fail(message: str, lines: list[str]) -> None:
    """Report every line as an error and stop the program before anything is declared."""
    for line in lines:
        pulumi.log.error(line)
    raise pulumi.RunError(message)


def load(directory: str, namespace: str, limits: Limits | None = None) -> Stack:
    """The stack directory (relative to the project), or stop with one error per problem."""
    try:
        return load_stack(PROJECT_DIR / directory, namespace, limits)
    except LoadError as exc:
        fail(f"cannot load {directory}", [p.format() for p in exc.problems])
        raise  # unreachable: fail() raises


def check(settings: StackSettings, stack: Stack, previous: Stack | None) -> None:
    """Print every violation; stop when any is an error, so nothing is applied."""
    violations: list[Violation] = check_stack(stack, settings.options)
    if previous is not None:  # as validate --previous: known documents are updates
        violations = without_create_only([*violations, *validate_change(previous, stack)], previous)
    for warning in (v for v in violations if not v.is_error):
        pulumi.log.warn(warning.format())
    if has_errors(violations):
        errors = [v.format() for v in violations if v.is_error]
        fail(f"{len(errors)} rule error(s) in {settings.stack_dir}: nothing is applied", errors)


def install_framework(
    config: pulumi.Config, settings: StackSettings, provider: k8s.Provider
) -> None:
    """``tars:installFramework``: the TarsK8S framework of the stack namespace (issue 12)."""
    from tars_components.components.platform import install_framework_from_settings
    from tars_components.config import framework_install_from_config

    try:
        install = framework_install_from_config(config.get, settings.options.namespace)
        if install is not None:
            install_framework_from_settings(
                install, PROJECT_DIR, pulumi.ResourceOptions(provider=provider)
            )
    except UsageError as exc:
        fail("invalid tars:installFramework", str(exc).splitlines())


def main() -> None:
    """Read the config, check the stack and declare its components."""
    config = pulumi.Config("tars")
    try:
        settings = settings_from_config(config.get, pulumi.get_stack())
        protect = config.get_bool("protect")
        retain_on_delete = config.get_bool("retainOnDelete")
    except (UsageError, pulumi.ConfigTypeError) as exc:
        fail("invalid tars:* config", [str(exc)])
    stack = load(settings.stack_dir, settings.options.namespace, settings.limits)
    previous_dir = config.get("previousStackDir")
    previous = (
        load(previous_dir, settings.options.namespace, settings.limits) if previous_dir else None
    )
    check(settings, stack, previous)

    provider = k8s.Provider(
        "kubernetes",
        render_yaml_to_directory=settings.render_dir,
        context=None if settings.render_dir else settings.kube_context,
    )
    built = components_from_stack(
        stack,
        options=settings.options,
        opts=pulumi.ResourceOptions(
            provider=provider,
            protect=protect,
            retain_on_delete=retain_on_delete,
        ),
        previous=previous,
        external_replicas=settings.external_replicas,
        secrets=config_secrets(stack, config),
        salt_key=config.get_secret("accountSaltKey") if stack.accounts else None,
    )

    install_framework(config, settings, provider)  # tars:installFramework (issue 12)

    pulumi.export("mode", settings.options.mode.value)
    pulumi.export("namespaces", list(built.frameworks))
    pulumi.export("servers", {key: server.objects for key, server in built.servers.items()})
    pulumi.export(
        "templates", {key: template.parent_chain for key, template in built.templates.items()}
    )
    pulumi.export("objects", built.objects())
    if settings.render_dir:
        pulumi.export("renderDir", settings.render_dir)


def run_as_a_batch_job() -> None:
    """:func:`main` with Python's cyclic garbage collector off for the whole run.

    A Pulumi program's heap only grows until it exits: the SDK holds every declared resource,
    its Outputs and its pending registration until the end, so the collector's full
    collections (each a scan of that whole heap, about a second per pass at 1,000 servers)
    would find next to nothing to free; they were half of the program's time, and more of it
    the larger the stack. Reference counting still frees everything acyclic; the few cycles the
    SDK leaves behind (about 40 MB at 1,000 servers) go with the process, as they do for the
    CLI's commands (:func:`tars_components.batch.suspended_gc`). Once everything is declared,
    the heap is also frozen (``gc.freeze``), so that the interpreter's last collection at exit
    skips it. A program that imports the components and declares thousands of resources can do
    the same; ``benchmarks/program_scale.py`` prints the gain."""
    gc.disable()
    main()
    gc.freeze()


run_as_a_batch_job()
