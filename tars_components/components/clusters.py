"""One Kubernetes provider per cluster for a stack with clusters (docs/pulumi/clusters.md).

:func:`clusters_from_stack` declares, for each cluster of the inventory, a Kubernetes provider
(``cluster-<name>``) and the components of that cluster's documents (the overrides applied,
:func:`tars_components.pipeline.target_stacks`), every logical name prefixed
``<cluster>/``; the clusters of wave n+1 depend on every component of wave n, or on the
:class:`~tars_components.components.wave_gate.WaveGate` that follows it (``tars:waves``, crd
mode); a cluster that cannot take the change may be left as it is (:class:`Skipped`).

The provider's kubeconfig is built by :func:`cluster_kubeconfig` from the cluster's
credentials (a Pulumi secret): one cluster, context and user, all named after the cluster, so
renaming contexts in a kubeconfig or rotating a token or certificate changes nothing that makes
pulumi-kubernetes replace the provider (and with it every resource). A kubeconfig whose API
server is not the inventory's is refused at preview, unless the cluster is listed in
``allow_server_change`` (``tars:allowApiServerChange``).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from ..jobs.waves import Watched, WaveSettings, watched
from ..loading.document_set import DocumentSet
from ..models.cluster import Cluster, Inventory
from ..models.kind_facts import object_of_id
from ..pipeline import Targets, target_stacks
from ..settings.options import Mode, Options
from .from_stack import StackComponents, components_from_stack
from .wave_gate import WaveGate

Bootstrap = Callable[[str, k8s.Provider, pulumi.ResourceOptions], list[pulumi.Resource]]
"""What a cluster gets before its components (see :func:`clusters_from_stack`)."""


class CredentialsError(ValueError):
    """Credentials that cannot be used for a cluster; the message never quotes them."""


def cluster_kubeconfig(
    cluster: Cluster, credentials: str, allow_server_change: bool = False
) -> str:
    """The kubeconfig (YAML) of ``cluster``'s provider from its credentials: a kubeconfig
    (its current context's cluster and user) or a bearer token (with the inventory's API
    server). Raises :class:`CredentialsError` when the kubeconfig cannot be read, has no usable
    current context, or names another API server than the inventory's (unless
    ``allow_server_change``)."""
    where = f"cluster {cluster.name} (credentials tars:{cluster.credentials_key})"
    if cluster.credentials_type == "token":
        if not cluster.api_server:
            raise CredentialsError(f"{where}: a token needs the cluster's API server")
        token = credentials.strip()
        if not token or "\n" in token:
            raise CredentialsError(f"{where}: the token must be one non-empty line")
        return _kubeconfig(cluster.name, {"server": cluster.api_server}, {"token": token}, None)
    try:
        config = yaml.safe_load(credentials)
    except yaml.YAMLError:
        raise CredentialsError(f"{where}: the kubeconfig is not valid YAML") from None
    if not isinstance(config, dict):
        raise CredentialsError(f"{where}: the kubeconfig is not a mapping")
    current = config.get("current-context")
    context = _named(config.get("contexts"), current)
    if context is None or not isinstance(context.get("context"), dict):
        raise CredentialsError(f"{where}: the kubeconfig has no current context")
    entry = context["context"]
    server_entry = _named(config.get("clusters"), entry.get("cluster"))
    user_entry = _named(config.get("users"), entry.get("user"))
    if server_entry is None or not isinstance(server_entry.get("cluster"), dict):
        raise CredentialsError(f"{where}: the current context's cluster is missing")
    if user_entry is None or not isinstance(user_entry.get("user"), dict):
        raise CredentialsError(f"{where}: the current context's user is missing")
    server = server_entry["cluster"].get("server")
    if cluster.api_server and server != cluster.api_server and not allow_server_change:
        raise CredentialsError(
            f"{where}: the kubeconfig's API server {server} is not the inventory's "
            f"{cluster.api_server}: the Kubernetes provider would be replaced, and every "
            f"resource of the cluster with it; list {cluster.name} in "
            "tars:allowApiServerChange to accept"
        )
    namespace = entry.get("namespace")
    return _kubeconfig(
        cluster.name,
        server_entry["cluster"],
        user_entry["user"],
        namespace if isinstance(namespace, str) else None,
    )


def _named(entries: Any, name: Any) -> dict[str, Any] | None:
    if not isinstance(entries, list):
        return None
    for item in entries:
        if isinstance(item, dict) and item.get("name") == name:
            return item
    return None


def _kubeconfig(
    name: str, cluster: Mapping[str, Any], user: Mapping[str, Any], namespace: str | None
) -> str:
    context: dict[str, Any] = {"cluster": name, "user": name}
    if namespace:
        context["namespace"] = namespace
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": dict(cluster)}],
        "users": [{"name": name, "user": dict(user)}],
        "contexts": [{"name": name, "context": context}],
        "current-context": name,
    }
    return yaml.safe_dump(document, sort_keys=True)


@dataclass
class ClusterComponents:
    """One cluster's provider and components; a skipped or held cluster has neither until
    its last update's objects are read (``skipped``: why; ``held``: its wave waits for its
    approval; ``left``: its objects as declared)."""

    cluster: Cluster
    provider: k8s.Provider | None
    components: StackComponents | None
    skipped: str | None = None
    left: pulumi.Output[list[str]] | None = None
    held: bool = False

    def objects(self) -> pulumi.Output[list[str]]:
        """Every object of the cluster (``apiVersion/kind:namespace/name``)."""
        if self.components is not None:
            return self.components.objects()
        return self.left if self.left is not None else pulumi.Output.from_input([])


def cluster_provider(
    cluster: Cluster,
    credentials: pulumi.Input[str] | None,
    render_dir: str | None = None,
    allow_server_change: bool = False,
    opts: pulumi.ResourceOptions | None = None,
    skip_unreachable: bool = True,
) -> k8s.Provider:
    """The Kubernetes provider of ``cluster`` (``cluster-<name>``): writing manifests to
    ``<render_dir>/<name>`` when ``render_dir`` is set, else talking to the cluster with the
    kubeconfig of :func:`cluster_kubeconfig` (a secret), or without credentials the context
    named after the cluster of the ambient kubeconfig. ``skip_unreachable``
    (``skipUpdateUnreachable``; ``tars:unavailableClusters: skip``): a cluster that stops
    answering during the update has its resources left as they are and the other clusters
    are updated; without it, its resources fail and the waves after it are not applied."""
    if render_dir:
        return k8s.Provider(
            f"cluster-{cluster.name}",
            render_yaml_to_directory=f"{render_dir.rstrip('/')}/{cluster.name}",
            opts=opts,
        )
    if credentials is None:
        return k8s.Provider(
            f"cluster-{cluster.name}",
            context=cluster.name,
            skip_update_unreachable=skip_unreachable,
            opts=opts,
        )
    kubeconfig = pulumi.Output.secret(credentials).apply(
        lambda text: cluster_kubeconfig(cluster, text, allow_server_change)
    )
    return k8s.Provider(
        f"cluster-{cluster.name}",
        kubeconfig=kubeconfig,
        skip_update_unreachable=skip_unreachable,
        opts=opts,
    )


@dataclass(frozen=True)
class Skipped:
    """A cluster left as it is (``tars:unavailableClusters: skip``, or ``held``: its wave is
    beyond ``tars:waves`` ``approvedWaves``): why, and the objects this change renders for it
    (``apiVersion/kind:namespace/name``), compared with its objects as the last update left
    them (:func:`own_objects`)."""

    reason: str
    rendered: tuple[str, ...]
    held: bool = False


def _ignore_everything(
    args: pulumi.ResourceTransformArgs,
) -> pulumi.ResourceTransformResult:
    """Every resource of a skipped cluster keeps the inputs of its last update."""
    return pulumi.ResourceTransformResult(
        args.props,
        pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(ignore_changes=["*"])),
    )


def own_objects() -> pulumi.Output[Mapping[str, Any]]:
    """The ``objects`` output of this stack's last update (cluster name to its objects), read
    through a StackReference to the stack itself; empty before the first update."""
    me = f"{pulumi.get_organization()}/{pulumi.get_project()}/{pulumi.get_stack()}"
    found = pulumi.StackReference(f"tars-self-{pulumi.get_stack()}", stack_name=me)
    return found.get_output("objects").apply(lambda v: v if isinstance(v, Mapping) else {})


def clusters_from_stack(
    stack: DocumentSet,
    inventory: Inventory,
    credentials: Mapping[str, pulumi.Input[str]] | None = None,
    options: Options | None = None,
    opts: pulumi.ResourceOptions | None = None,
    previous: DocumentSet | None = None,
    external_replicas: bool = False,
    render_dir: str | None = None,
    allow_server_change: Collection[str] = (),
    secrets: Mapping[str, pulumi.Input[str]] | None = None,
    salt_key: pulumi.Input[str] | None = None,
    configured: Sequence[Cluster] | None = None,
    skipped: Mapping[str, Skipped] | None = None,
    skip_unreachable: bool = True,
    waves: WaveSettings | None = None,
    bootstrap: Bootstrap | None = None,
) -> dict[str, ClusterComponents]:
    """Declare every cluster's provider and components (see the module docstring), by
    cluster name in inventory order. ``credentials`` maps a cluster's ``credentials_key`` to
    its secret value (:func:`cluster_credentials` reads them from the Pulumi config).
    ``previous``: the stack as last deployed; each cluster's previous documents are those
    its inventory gave that cluster (``configured``: the ``tars:clusters`` of the config, by
    default the inventory's clusters; :func:`tars_components.pipeline.target_stacks`).

    A cluster of ``skipped`` is left as the last update left it (docs/pulumi/clusters.md,
    "Unavailable clusters"): once this stack's last ``objects`` output is read, its objects
    are declared again with every change ignored, nothing if it never had any, and the
    program stops if this change would create or delete an object there; the waves after
    it do not wait for it. ``skip_unreachable``: see :func:`cluster_provider`.

    ``waves`` (``tars:waves``): after a wave that needs it, a :class:`WaveGate` waits for its
    servers to be Ready (``timeoutSeconds``; the workloads then skip pulumi-kubernetes' own
    awaits, which would fail the update at the first cluster not Ready), tolerates
    ``maxFailures`` clusters that are not, and pauses; the next wave depends on the gate
    (:func:`gated_waves` says after which waves).

    ``bootstrap`` declares what a cluster gets before its components (the TarsK8S controller,
    the framework: ``tars:installController``, ``tars:installFramework``), given the cluster's
    name, its provider and its placement (a skipped cluster's ignores every change); its
    components wait for the resources it returns."""
    to = Targets(inventory, inventory.clusters, configured=tuple(configured or inventory.clusters))
    documents = {c.name: (own, old) for c, own, old in target_stacks(stack, to, previous) if c}
    found: dict[str, ClusterComponents] = {}
    before: list[pulumi.Resource] = []
    last: pulumi.Output[Mapping[str, Any]] | None = None
    settings = waves or WaveSettings()
    all_waves = inventory.waves()
    gates = gated_waves(len(all_waves), settings, options) if not render_dir else set()
    if settings.gated and options is not None and not render_dir:
        options = replace(options, skip_await=True)  # the gates wait (timeoutSeconds)
    for index, wave in enumerate(all_waves):
        this_wave: list[pulumi.Resource] = []
        declared: list[tuple[Cluster, StackComponents]] = []
        for cluster in wave:
            own, old = documents[cluster.name]
            key = cluster.credentials_key

            def declare(
                placed: pulumi.ResourceOptions,
                provider_opts: pulumi.ResourceOptions | None = None,
                documents: DocumentSet | None = None,
                cluster: Cluster = cluster,
                own: DocumentSet = own,
                old: DocumentSet | None = old,
                key: str | None = key,
            ) -> tuple[k8s.Provider, StackComponents]:
                provider = cluster_provider(
                    cluster,
                    (credentials or {}).get(key) if key else None,
                    render_dir,
                    cluster.name in allow_server_change,
                    provider_opts,
                    skip_unreachable,
                )
                waits = bootstrap(cluster.name, provider, placed) if bootstrap else []
                built = components_from_stack(
                    documents or own,
                    options=options,
                    opts=pulumi.ResourceOptions.merge(
                        opts,
                        pulumi.ResourceOptions.merge(
                            placed, pulumi.ResourceOptions(provider=provider, depends_on=waits)
                        ),
                    ),
                    previous=old,
                    external_replicas=external_replicas,
                    prefix=f"{cluster.name}/",
                    secrets=secrets,
                    salt_key=salt_key,
                )
                return provider, built

            skip = (skipped or {}).get(cluster.name)
            if skip is not None:
                last = last if last is not None else own_objects()
                found[cluster.name] = _left_as_it_is(
                    cluster, skip, last, declare, own, options or Options(namespace=own.namespace)
                )
                continue
            provider, built = declare(pulumi.ResourceOptions(depends_on=list(before)))
            found[cluster.name] = ClusterComponents(cluster, provider, built)
            this_wave.extend(built.all())
            this_wave.extend(built.plain.values())
            declared.append((cluster, built))
        if index in gates and declared:
            this_wave = [
                _gate(index, declared, credentials or {}, allow_server_change, settings, this_wave)
            ]
        before = this_wave
    return found


def gated_waves(count: int, settings: WaveSettings, options: Options | None) -> set[int]:
    """The waves (by index, of ``count``) a :class:`WaveGate` follows: with ``tars:waves``
    (failures tolerated, a pause) every wave, the last too, since the gates then do the waiting
    (the workloads skip pulumi-kubernetes' awaits); in crd mode every wave but the last (a
    TServer is applied at once; its status says when its pods are Ready)."""
    crd = options is not None and options.mode == Mode.CRD and not options.skip_await
    if settings.gated:
        return set(range(count))
    if crd:
        return set(range(count - 1))
    return set()


def _gate(
    index: int,
    declared: Sequence[tuple[Cluster, StackComponents]],
    credentials: Mapping[str, pulumi.Input[str]],
    allow_server_change: Collection[str],
    settings: WaveSettings,
    after: Sequence[pulumi.Resource],
) -> WaveGate:
    """The gate after wave ``index``: its clusters' servers (from their components' objects),
    their kubeconfigs (a secret) and a digest of their manifests."""
    watched_objects = pulumi.Output.all(**{c.name: built.objects() for c, built in declared}).apply(
        lambda by: {name: [w.to_dict() for w in watched_ids(ids)] for name, ids in by.items()}
    )
    revision = pulumi.Output.all(*(built.manifests() for _, built in declared)).apply(
        lambda manifests: hashlib.sha256(
            json.dumps(manifests, sort_keys=True, default=str).encode()
        ).hexdigest()
    )
    kubeconfigs: dict[str, pulumi.Input[str]] = {}
    for cluster, _ in declared:
        key = cluster.credentials_key
        given = credentials.get(key) if key else None
        kubeconfigs[cluster.name] = (
            pulumi.Output.secret(given).apply(
                functools.partial(_provider_kubeconfig, cluster, allow_server_change)
            )
            if given is not None
            else ""
        )
    return WaveGate(
        f"wave-{index}",
        index,
        watched_objects,
        pulumi.Output.all(**kubeconfigs),
        revision,
        settings.allowed(len(declared)),
        settings.pause_seconds,
        settings.timeout_seconds,
        pulumi.ResourceOptions(depends_on=list(after)),
    )


def _provider_kubeconfig(cluster: Cluster, allowed: Collection[str], text: str) -> str:
    return cluster_kubeconfig(cluster, text, cluster.name in allowed)


def watched_ids(ids: Iterable[str]) -> list[Watched]:
    """The watched objects (:func:`tars_components.jobs.waves.watched`) among object ids
    (``apiVersion/kind:namespace/name``)."""
    return watched(object_of_id(item) for item in ids)


def _left_as_it_is(
    cluster: Cluster,
    skip: Skipped,
    last: pulumi.Output[Mapping[str, Any]],
    declare: Callable[
        [pulumi.ResourceOptions, pulumi.ResourceOptions | None, DocumentSet | None],
        tuple[k8s.Provider, StackComponents],
    ],
    own: DocumentSet,
    options: Options,
) -> ClusterComponents:
    """A skipped or held cluster: once the last update's objects are known, its objects
    declared again with every change ignored (its provider's too: missing or rotated
    credentials keep the last ones), nothing when it has none. A skipped cluster stops the
    program when this change creates or deletes an object there
    (:func:`tars_components.jobs.fleet.skip_problems`); a held one leaves out the documents
    new to it, which wait for the approval of its wave
    (:func:`tars_components.jobs.waves.hold_plan`)."""
    from ..jobs.fleet import skip_problems
    from ..jobs.waves import hold_plan

    what = "held" if skip.held else "skipped"

    def after(objects: Mapping[str, Any]) -> Any:
        deployed = objects.get(cluster.name)
        had = [str(o) for o in deployed] if isinstance(deployed, list) else []
        documents = None
        if skip.held:
            plan = hold_plan(cluster.name, skip.reason, own, options, skip.rendered, had)
            problems = list(plan.problems)
            documents = plan.stack
            if plan.waiting and had:
                pulumi.log.warn(
                    f"cluster {cluster.name} is held ({skip.reason}): "
                    f"{', '.join(plan.waiting)} wait(s) for its approval"
                )
        else:
            problems = skip_problems(cluster.name, skip.reason, skip.rendered, had)
        if problems:
            for problem in problems:
                pulumi.log.error(problem)
            raise pulumi.RunError(f"cluster {cluster.name} cannot be {what}: nothing is applied")
        if not had:
            until = "its wave is approved" if skip.held else "it is available"
            pulumi.log.warn(
                f"cluster {cluster.name} is {what} ({skip.reason}): the stack never applied it, "
                f"so it is left out until {until}"
            )
            return []
        ignored = pulumi.ResourceOptions(ignore_changes=["*"])
        placed = pulumi.ResourceOptions(transforms=[_ignore_everything])
        _, built = declare(placed, ignored, documents)
        return built.objects()

    return ClusterComponents(cluster, None, None, skip.reason, last.apply(after), skip.held)


def cluster_credentials(
    inventory: Inventory, config: pulumi.Config
) -> dict[str, pulumi.Output[str]]:
    """The credentials of every cluster that names a key, read with
    ``config.require_secret`` (``tars:<key>``): the Secret a Stellaris Cluster references lives
    in the management cluster, so the stack holds its content as a Pulumi secret."""
    return {
        c.credentials_key: config.require_secret(c.credentials_key)
        for c in inventory.clusters
        if c.credentials_key
    }
