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
``tars:liveChecks`` (default true: read the stack namespace from the cluster before checking,
docs/concepts/live.md; without ``tars:previousStackDir`` the sizes of the claims that run are
the previous version for the storage rules; at ``pulumi up`` the fields of ``kubectl apply``
pass to the stack's field manager first, as ``kubectl apply --server-side`` does),
``tars:protect`` and ``tars:retainOnDelete`` (resource options of every object); the Pulumi
config secrets ``tars:<KEY>`` that TAccounts reference as ``{configSecret: KEY}``, and
``tars:accountSaltKey``, the secret key that salts TAccount password hashes (without it, each
account's random salt is kept in the state).

With clusters (``tars:clusters``, or Stellaris Cluster documents in the stack; see
docs/pulumi/clusters.md) every cluster gets its own Kubernetes provider (credentials from the
secret ``tars:<credentials key>``; ``tars:renderDir`` writes ``<renderDir>/<cluster>/``) and its
own components, named ``<cluster>/...``; ``tars:allowApiServerChange`` lists the clusters whose
credentials may name another API server than the inventory's. ``tars:managementCluster`` reads
the inventory (and the credentials of its ``secretRef`` Secrets) from a Stellaris management
cluster; ``tars:unavailableClusters`` (``fail`` or ``skip``) decides what happens to a cluster
that cannot take the change (docs/pulumi/clusters.md, "Unavailable clusters"); ``tars:waves``
(``maxFailures``, ``pauseSeconds``, ``timeoutSeconds``) how the waves wait for each other, and
``approvedWaves`` how many of them take the change (docs/pulumi/clusters.md, "Waves").
``tars:installController`` and ``tars:installFramework`` install TarsK8S itself on each
cluster first (docs/pulumi/clusters.md, "Bootstrapping the fleet").
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pulumi
import pulumi_kubernetes as k8s

from tars_components.components import components_from_stack, config_secrets
from tars_components.components.kube import object_id
from tars_components.components.server import field_manager
from tars_components.jobs.config import (
    FrameworkInstallSettings,
    StackSettings,
    effective_ownership,
    settings_from_config,
)
from tars_components.jobs.fleet import ManagementRead
from tars_components.jobs.live import (
    HandoverPlan,
    conflict_message,
    forecast,
    handover_message,
    held_message,
    plan_handover,
    read_live,
    taken_message,
    write_handovers,
)
from tars_components.kernel.errors import LoadError, UsageError
from tars_components.kubeapi import LiveReadError
from tars_components.models.cluster import Inventory
from tars_components.models.live import LiveState
from tars_components.pipeline import Validation, validate
from tars_components.rules.clusters import TM011, unavailable_violations
from tars_components.settings.options import Mode, Options, with_storage_classes

if TYPE_CHECKING:
    from tars_components.platform.values import ControllerValues, FrameworkValues

PROJECT_DIR = Path(__file__).resolve().parent


def fail(message: str, lines: list[str]) -> NoReturn:
    """Report every line as an error and stop the program before anything is declared."""
    for line in lines:
        pulumi.log.error(line)
    raise pulumi.RunError(message)


def check(
    settings: StackSettings, previous_dir: str | None, live: LiveState | None = None
) -> Validation:
    """Load the stack directory (and ``previous_dir``, the stack as last deployed; both
    relative to the project) and check it as ``tars-components validate --previous`` does
    (the same :func:`tars_components.pipeline.validate`), against ``live``, the cluster as
    read now, when there is one; print every violation; stop when the input cannot be read or
    any violation is an error, so nothing is applied."""
    options = settings.options
    if live is not None:  # tars:externalReplicas hands the live count over too
        options = replace(options, field_ownership=effective_ownership(settings))
    try:
        result = validate(
            PROJECT_DIR / settings.stack_dir,
            options,
            settings.limits,
            PROJECT_DIR / previous_dir if previous_dir else None,
            settings.clusters,
            live=live,
            # a skipped or held cluster's objects are compared with the last update's
            objects=live is not None
            or settings.unavailable_clusters == "skip"
            or settings.waves.approved is not None,
            # an unavailable cluster is reported with the others the deployment finds
            # (deploy_clusters), under the stack's policy
            policy="skip",
        )
    except LoadError as exc:
        what = f"{settings.stack_dir} or {previous_dir}" if previous_dir else settings.stack_dir
        fail(f"cannot load {what}", [p.format() for p in exc.problems])
    for warning in result.warnings:
        if warning.code != TM011.code:
            pulumi.log.warn(warning.format())
    if not result.ok:
        errors = [v.format() for v in result.errors]
        fail(f"{len(errors)} rule error(s) in {settings.stack_dir}: nothing is applied", errors)
    return result


def read_inventory(
    config: pulumi.Config, settings: StackSettings
) -> tuple[StackSettings, ManagementRead]:
    """``tars:managementCluster``: the clusters are its Stellaris Cluster objects (what is wrong
    with them stops the program, as a Cluster document's mistakes do) and their credentials
    its ``secretRef`` Secrets (:func:`deploy_clusters`; a Pulumi config secret of the
    cluster's key wins). Stops when it cannot be read."""
    from tars_components.jobs.fleet import read_management

    management = settings.management
    assert management is not None
    key = management.kubeconfig_key
    try:
        found = read_management(management, config.get(key) if key else None)
    except LiveReadError as exc:
        fail("the management cluster cannot be read: nothing is applied", [str(exc)])
    if found.violations:
        errors = [v.format() for v in found.violations]
        fail(f"{len(errors)} error(s) in the management cluster's Clusters", errors)
    return replace(settings, clusters=found.clusters), found


def read_cluster(settings: StackSettings, live_checks: bool | None) -> LiveState | None:
    """The stack's namespace as the cluster holds it now (docs/concepts/live.md), read with
    the provider's kubeconfig and context; None with ``tars:liveChecks: false``
    (``live_checks``), when rendering to a directory, for an inventory of clusters, or (with
    a warning) when the cluster cannot be read."""
    if settings.render_dir or settings.clusters or live_checks is False:
        return None
    try:
        return read_live(settings.options, [settings.options.namespace], settings.kube_context)
    except LiveReadError as exc:
        pulumi.log.warn(f"live checks skipped (tars:liveChecks): {exc}")
        return None


def hand_over(checked: Validation, live: LiveState, settings: StackSettings) -> StackSettings:
    """The field managers of the live objects (docs/concepts/live.md, "Field managers handed
    over"): at ``pulumi up`` (never in a preview) the fields of ``kubectl apply`` and of
    pulumi-kubernetes' random managers pass to the stack's manager first; then the conflicts
    are forecast against the objects as they will be (:func:`forecast_conflicts`). Returns
    the settings with the servers applied under the stack's manager, the ``external`` fields
    it keeps and the context read (grown claims are awaited through it)."""
    objects = [o for r in checked.run.results for o in r.build.objects]
    manager = field_manager()
    # the stack's own settings: tars:externalReplicas alone keeps the objects as they were
    plan = plan_handover(objects, live, checked.stack, settings.options, manager)
    dry_run = pulumi.runtime.is_dry_run()
    for moved in plan.handovers:
        pulumi.log.info(handover_message(moved, manager, dry_run))
    for held in plan.held:
        pulumi.log.warn(held_message(held, manager))
    forecast_conflicts(objects, plan, checked, settings)  # refused: nothing written either
    if plan.handovers and not dry_run:
        try:
            write_handovers(plan, settings.kube_context)
        except LiveReadError as exc:
            fail("the field managers could not be handed over: nothing is applied", [str(exc)])
    managed = replace(
        settings.options,
        stack_manager_servers=plan.servers,
        held_fields=plan.held_keys(),
        live_context=settings.kube_context or "",
    )
    return replace(settings, options=managed)


def forecast_conflicts(
    objects: Sequence[Mapping[str, Any]],
    plan: HandoverPlan,
    checked: Validation,
    settings: StackSettings,
) -> None:
    """Stop the preview on a field another manager owns that the next ``up`` would be
    refused for (its conflict, both values and the fix); warn of each one it takes back
    with force."""
    live = plan.live
    options = replace(settings.options, field_ownership=effective_ownership(settings))
    own = [field_manager()]
    found = forecast(
        objects,
        live,
        checked.stack,
        options,
        own,
        settings.options.field_ownership,
        forced_servers=plan.servers,
    )
    for conflict in found.taken:
        pulumi.log.warn(taken_message(conflict, live.source))
    if found.conflicts:
        lines = [conflict_message(c, live.source) for c in found.conflicts]
        fail(f"{len(lines)} field(s) owned by another manager: nothing is applied", lines)


@dataclass(frozen=True)
class Bootstrap:
    """``tars:installController`` and ``tars:installFramework``, read and checked once
    (:func:`bootstrap`): what each cluster gets before the stack's own components."""

    controller: ControllerValues | None
    framework: FrameworkInstallSettings | None
    framework_values: FrameworkValues | None

    def install(
        self, cluster: str, provider: k8s.Provider, opts: pulumi.ResourceOptions
    ) -> list[pulumi.Resource]:
        """On ``cluster`` (``""`` without clusters; its resources named ``<cluster>/...``)
        through ``provider``: the TarsK8S controller (its webhook CA made by the program,
        :class:`WebhookCa`), then the framework of the stack namespace (its nodes from the
        per-cluster mapping if given); the resources the cluster's components wait for."""
        from tars_components.components.platform import (
            TarsController,
            TarsControllerArgs,
            install_framework_from_settings,
        )
        from tars_components.components.webhook_ca import WebhookCa

        prefix = f"{cluster}/" if cluster else ""
        placed = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=provider))
        controller = None
        if self.controller is not None:
            ca = WebhookCa(f"{prefix}tars-webhook-ca", opts)
            args = TarsControllerArgs(self.controller, ca.cert_pem, ca.key_pem)
            controller = TarsController(f"{prefix}tars-controller", args, placed)
        waits: list[pulumi.Resource] = list(controller.ready) if controller else []
        if self.framework is not None and self.framework_values is not None:
            settings = self.framework.for_cluster(cluster) if cluster else self.framework
            waits.append(
                install_framework_from_settings(
                    settings, self.framework_values, placed, prefix, controller
                )
            )
        return waits


def bootstrap(config: pulumi.Config, settings: StackSettings) -> Bootstrap | None:
    """The stack's :class:`Bootstrap`, its values files read; None when neither
    ``tars:installController`` nor ``tars:installFramework`` is on."""
    from tars_components.jobs.config import (
        controller_values_from_config,
        framework_install_from_config,
    )
    from tars_components.platform import values as chart
    from tars_components.platform.job import read_values

    try:
        controller_file = controller_values_from_config(config.get)
        framework = framework_install_from_config(config.get, settings.options.namespace)
        found = Bootstrap(
            read_values(PROJECT_DIR / controller_file, chart.ControllerValues)
            if controller_file
            else None,
            framework,
            read_values(PROJECT_DIR / framework.values_file, chart.FrameworkValues)
            if framework is not None
            else None,
        )
    except UsageError as exc:
        fail("invalid tars:installController or tars:installFramework", str(exc).splitlines())
    return found if found.controller is not None or found.framework is not None else None


def main() -> None:
    """Read the config, check the stack and declare its components."""
    config = pulumi.Config("tars")
    try:
        settings = settings_from_config(config.get, pulumi.get_stack())
        protect = config.get_bool("protect")
        retain_on_delete = config.get_bool("retainOnDelete")
        live_checks = config.get_bool("liveChecks")
    except (UsageError, pulumi.ConfigTypeError) as exc:
        fail("invalid tars:* config", [str(exc)])
    management = ManagementRead()
    if settings.management is not None:  # tars:managementCluster: the inventory is read there
        settings, management = read_inventory(config, settings)
    live = read_cluster(settings, live_checks)
    if live is not None:  # the StorageClasses the cluster has decide which claims may grow
        options = with_storage_classes(settings.options, live.storage_classes())
        settings = replace(settings, options=options)
    checked = check(settings, config.get("previousStackDir"), live)
    if live is not None:
        settings = hand_over(checked, live, settings)
    stack, previous = checked.stack, checked.previous
    if checked.run.targets.per_cluster:
        deploy_clusters(config, settings, checked, protect, retain_on_delete, management)
        return

    provider = k8s.Provider(
        "kubernetes",
        render_yaml_to_directory=settings.render_dir,
        context=None if settings.render_dir else settings.kube_context,
    )
    install = bootstrap(config, settings)  # tars:installController, tars:installFramework
    waits = install.install("", provider, pulumi.ResourceOptions()) if install else []
    built = components_from_stack(
        stack,
        options=settings.options,
        opts=pulumi.ResourceOptions(
            provider=provider,
            protect=protect,
            retain_on_delete=retain_on_delete,
            depends_on=waits,
        ),
        previous=previous,
        external_replicas=settings.external_replicas,
        secrets=config_secrets(stack, config),
        salt_key=config.get_secret("accountSaltKey") if stack.accounts else None,
    )

    pulumi.export("mode", settings.options.mode.value)
    pulumi.export("namespaces", list(built.frameworks))
    pulumi.export("servers", {key: server.objects for key, server in built.servers.items()})
    rollouts = {key: s.rollout for key, s in built.servers.items() if s.rollout is not None}
    if rollouts:  # each driven server's step, per release, and its live pods
        pulumi.export("rollouts", rollouts)
    pulumi.export(
        "templates", {key: template.parent_chain for key, template in built.templates.items()}
    )
    pulumi.export("objects", built.objects())
    if settings.render_dir:
        pulumi.export("renderDir", settings.render_dir)


def deploy_clusters(
    config: pulumi.Config,
    settings: StackSettings,
    checked: Validation,
    protect: bool | None,
    retain_on_delete: bool | None,
    management: ManagementRead,
) -> None:
    """The stack on each cluster of its inventory, every cluster's result checked already
    (:func:`check`, violations naming the cluster): one provider and one set of components
    per cluster, wave after wave. Before anything is declared, each cluster's credentials
    (the Pulumi secret of its key, else its management cluster Secret) and its API server are
    checked: a cluster that cannot take the change stops the program, or under
    ``tars:unavailableClusters: skip`` is left as it is (TM011)."""
    from tars_components.components.clusters import (
        Skipped,
        clusters_from_stack,
    )

    stack, previous, inventory = checked.stack, checked.previous, checked.run.inventory
    policy = settings.unavailable_clusters
    install = bootstrap(config, settings)  # tars:installController, tars:installFramework
    allowed = [n.strip() for n in (config.get("allowApiServerChange") or "").split(",")]
    texts, facts = (
        ({}, {})
        if settings.render_dir
        else cluster_facts(
            config,
            inventory,
            management,
            allowed,
            settings.options,
            install is not None and install.controller is not None,
        )
    )
    unavailable = unavailable_violations(inventory, policy, facts)
    if unavailable and policy == "fail":
        fail(
            f"{len(unavailable)} cluster(s) cannot take the change: nothing is applied",
            [v.format() for v in unavailable],
        )
    for violation in unavailable:
        pulumi.log.warn(violation.format())
    rendered = {
        r.name: tuple(sorted(object_id(o) for o in r.build.objects)) for r in checked.run.results
    }
    skipped = {
        c.name: Skipped(
            "; ".join(r for r in (c.unavailable, facts.get(c.name)) if r), rendered.get(c.name, ())
        )
        for c in inventory.clusters
        if not settings.render_dir and (c.unavailable or c.name in facts)
    }
    waves = settings.waves
    for index, wave in enumerate(inventory.waves()):  # tars:waves approvedWaves
        for cluster in wave:
            if waves.held(index) and not settings.render_dir and cluster.name not in skipped:
                why = f"wave {index} waits for approval (tars:waves approvedWaves {waves.approved})"
                skipped[cluster.name] = Skipped(why, rendered.get(cluster.name, ()), held=True)
    built = clusters_from_stack(
        stack,
        inventory,
        credentials={
            c.credentials_key: pulumi.Output.secret(texts[c.name])
            for c in inventory.clusters
            if c.credentials_key and c.name in texts
        },
        options=settings.options,
        opts=pulumi.ResourceOptions(protect=protect, retain_on_delete=retain_on_delete),
        previous=previous,
        external_replicas=settings.external_replicas,
        render_dir=settings.render_dir,
        allow_server_change=[n for n in allowed if n],
        secrets=config_secrets(stack, config),
        salt_key=config.get_secret("accountSaltKey") if stack.accounts else None,
        configured=settings.clusters,
        skipped=skipped,
        skip_unreachable=policy == "skip",
        waves=settings.waves,
        bootstrap=install.install if install else None,
    )
    pulumi.export("mode", settings.options.mode.value)
    pulumi.export("clusters", {name: c.cluster.api_server for name, c in built.items()})
    pulumi.export("waves", [[c.name for c in wave] for wave in inventory.waves()])
    pulumi.export(
        "skipped", {name: c.skipped for name, c in built.items() if c.skipped and not c.held}
    )
    pulumi.export("held", {name: c.skipped for name, c in built.items() if c.held})
    pulumi.export(  # each cluster's servers' pods as their workloads report them once applied
        "progress",
        {
            name: {key: s.pods for key, s in c.components.servers.items() if s.pods is not None}
            if c.components is not None
            else {"held" if c.held else "skipped": c.skipped}
            for name, c in built.items()
        },
    )
    pulumi.export("objects", {name: c.objects() for name, c in built.items()})
    if settings.render_dir:
        pulumi.export("renderDir", settings.render_dir)


def cluster_facts(
    config: pulumi.Config,
    inventory: Inventory,
    management: ManagementRead,
    allowed: Sequence[str],
    options: Options,
    installs_controller: bool = False,
) -> tuple[dict[str, str], dict[str, str]]:
    """Each cluster's credentials (cluster name to text: the Pulumi secret ``tars:<key>``,
    else what its management cluster Secret holds) and why a cluster cannot take the change
    (no credentials, an API server that does not answer them). Credentials that cannot be
    used (a kubeconfig for another API server, no current context) and, in crd mode, a
    cluster without the TarsK8S CRDs (unless this stack installs the controller,
    ``installs_controller``) stop the program: a mistake in the stack's config or the
    cluster's install, not its state."""
    from tars_components.components.clusters import CredentialsError, cluster_kubeconfig
    from tars_components.jobs.fleet import probe, serves

    crd = options.mode == Mode.CRD and not installs_controller
    texts: dict[str, str] = {}
    facts: dict[str, str] = {}
    refused: list[str] = []
    for cluster in inventory.clusters:
        key = cluster.credentials_key
        text = (config.get(key) if key else None) or management.secrets.get(cluster.name)
        if text is None and key is None:  # the ambient kubeconfig's context of its name
            unanswered = probe(None, cluster.name)
            if unanswered:
                facts[cluster.name] = unanswered
            elif crd and not serves(None, cluster.name, options.crd_api_version):
                refused.append(no_crds(cluster.name, options.crd_api_version))
            continue
        if text is None:
            why = f"no credentials: tars:{key} is not set" if key else "no credentials"
            more = management.missing.get(cluster.name)
            facts[cluster.name] = f"{why} and {more}" if more else why
            continue
        try:
            kubeconfig = cluster_kubeconfig(cluster, text, cluster.name in allowed)
        except CredentialsError as exc:
            refused.append(str(exc))
            continue
        texts[cluster.name] = text
        unanswered = probe(kubeconfig, cluster.name)
        if unanswered:
            facts[cluster.name] = unanswered
        elif crd and not serves(kubeconfig, cluster.name, options.crd_api_version):
            refused.append(no_crds(cluster.name, options.crd_api_version))
    if refused:
        fail(f"{len(refused)} cluster(s) refused: nothing is applied", refused)
    return texts, facts


def no_crds(cluster: str, api_version: str) -> str:
    """Why a cluster without the TarsK8S CRDs cannot take a crd-mode stack."""
    return (
        f"cluster {cluster} does not serve {api_version}: the TarsK8S CRDs are not installed "
        "there; install the TarsK8S controller on it first (docs/install-tarsk8s.md), or let "
        "this stack install it (tars:installController: true)"
    )


def run_as_a_batch_job() -> None:
    """:func:`main` with Python's cyclic garbage collector off for the whole run.

    A Pulumi program's heap only grows until it exits: the SDK holds every declared resource,
    its Outputs and its pending registration until the end, so the collector's full
    collections (each a scan of that whole heap, about a second per pass at 1,000 servers)
    would find next to nothing to free; they were half of the program's time, and more of it
    the larger the stack. Reference counting still frees everything acyclic; the few cycles the
    SDK leaves behind (about 40 MB at 1,000 servers) go with the process, as they do for the
    CLI's commands (:func:`tars_components.kernel.batch.suspended_gc`). Once everything is declared,
    the heap is also frozen (``gc.freeze``), so that the interpreter's last collection at exit
    skips it. A program that imports the components and declares thousands of resources can do
    the same; ``benchmarks/program_scale.py`` prints the gain."""
    gc.disable()
    main()
    gc.freeze()


run_as_a_batch_job()
