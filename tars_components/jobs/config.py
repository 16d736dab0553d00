"""Stack settings from Pulumi config: the ``tars:*`` keys, read the same way by the CLI
(``render --stack ENV`` reads ``Pulumi.ENV.yaml``) and by the Pulumi program (``pulumi.Config``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..fileio.files import UnreadableFile, read_text
from ..kernel.errors import UsageError
from ..kernel.limits import LIMIT_NAMES, MAX_DEPTH_CEILING, Limits, parse_size
from ..kernel.yaml_reader import YamlLimitError, describe_yaml_error, load_documents
from ..loading.clusters import clusters_from_config, management_from_config, unavailable_policy
from ..models import API_VERSIONS, V1BETA3
from ..models.cluster import Cluster, ManagementCluster
from ..models.ownership import FieldOwnership, Ownership
from ..settings.options import (
    DEFAULT_LOCAL_VOLUME_STORAGE_CLASS,
    Mode,
    Options,
    Workload,
    check_options,
    parse_approvers,
    parse_release,
    parse_storage_classes,
)
from .waves import WaveSettings, wave_settings

NAMESPACE_KEY = "tars"


@dataclass(frozen=True)
class StackSettings:
    """Everything a stack's ``tars:*`` config says.

    * ``stack_dir``: the directory of TarsK8S documents (``tars:stackDir``), relative to the
      project directory. Defaults to ``stacks/<env>``.
    * ``options``: the output options (``tars:namespace``, ``tars:mode``,
      ``tars:localVolumeStorageClass``, ``tars:delayBind``, ``tars:tarsReadinessGate``,
      ``tars:crdApiVersion``, ``tars:skipAwait``, ``tars:awaitTServers``,
      ``tars:tconfigConfigMaps``).
    * ``render_dir``: ``tars:renderDir``; when set, ``pulumi up`` writes manifests through the
      Kubernetes provider's ``renderYamlToDirectory`` instead of talking to a cluster.
    * ``kube_context``: ``tars:kubeContext``, the kubeconfig context of the Kubernetes provider.
    * ``external_replicas``: ``tars:externalReplicas``; leave ``spec.replicas`` to an HPA or
      ``kubectl scale`` (``ignore_changes``). An alias of ``tars:fieldOwnership``
      ``replicas=initial`` (set on create, then left alone): :func:`effective_ownership`.
    * ``limits``: bounds on the stack's files (``tars:maxFileSize``, ``tars:maxStackSize``,
      ``tars:maxDepth``, ``tars:maxAliasExpansion``; see :class:`~.limits.Limits`).

    ``tars:frameworkConfig`` (``stack``, the default, or ``existing``) sets
    ``options.existing_framework_config``: crd mode on a cluster that already has its
    ``tars-framework`` TFrameworkConfig.
    """

    stack_dir: str
    options: Options = field(default_factory=Options)
    render_dir: str | None = None
    kube_context: str | None = None
    external_replicas: bool = False
    limits: Limits = field(default_factory=Limits)
    clusters: tuple[Cluster, ...] = ()
    """``tars:clusters``: the clusters of the environment (docs/concepts/clusters.md); empty
    for one cluster."""
    management: ManagementCluster | None = None
    """``tars:managementCluster``: the cluster whose Stellaris Cluster objects are the
    inventory (docs/concepts/clusters.md)."""
    unavailable_clusters: str = "fail"
    """``tars:unavailableClusters``: ``fail`` or ``skip`` a cluster that cannot take the
    change."""
    cluster_credentials: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The clusters' credentials as the management cluster's Secrets give them (cluster name
    to text), once read (``tars-components … --stack`` with a management cluster context)."""
    waves: WaveSettings = field(default_factory=WaveSettings)
    """``tars:waves``: failures tolerated per wave, the pause between waves, their timeout."""


def config_flag(lookup: Callable[[str], Any], key: str, default: bool = False) -> bool:
    """The boolean ``tars:<key>`` (``default`` when unset). Raises :class:`UsageError` for a
    value that is not a boolean."""
    value = lookup(key)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise UsageError(f"tars:{key} must be true or false, got {value!r}")


def settings_from_config(
    get: Callable[[str], Any] | Mapping[str, Any], env: str = "dev"
) -> StackSettings:
    """Settings from ``tars:*`` config values.

    ``get`` maps a key without the ``tars:`` prefix (``namespace``, ``stackDir``, …) to its
    value or None; a mapping of such keys works too. Values may be strings (as ``pulumi config
    set`` stores them) or YAML scalars.
    """
    lookup: Callable[[str], Any] = get.get if isinstance(get, Mapping) else get

    def text(key: str, default: str | None = None) -> str | None:
        value = lookup(key)
        return default if value is None or value == "" else str(value)

    def flag(key: str, default: bool) -> bool:
        return config_flag(lookup, key, default)

    mode_text = text("mode", Mode.EXPAND.value)
    try:
        mode = Mode(mode_text)
    except ValueError:
        raise UsageError(f"tars:mode must be expand or crd, got {mode_text!r}") from None
    framework_config = text("frameworkConfig", "stack")
    if framework_config not in ("stack", "existing"):
        raise UsageError(
            f"tars:frameworkConfig must be stack or existing, got {framework_config!r}"
        )
    crd_api_version = text("crdApiVersion", V1BETA3) or V1BETA3
    if crd_api_version not in API_VERSIONS:
        raise UsageError(
            f"tars:crdApiVersion must be one of {', '.join(API_VERSIONS)}, got {crd_api_version!r}"
        )
    options = Options(
        namespace=text("namespace", "default") or "default",
        mode=mode,
        local_volume_storage_class=text(
            "localVolumeStorageClass", DEFAULT_LOCAL_VOLUME_STORAGE_CLASS
        )
        or DEFAULT_LOCAL_VOLUME_STORAGE_CLASS,
        delay_bind=flag("delayBind", True),
        tars_readiness_gate=flag("tarsReadinessGate", True),
        crd_api_version=crd_api_version,
        skip_await=flag("skipAwait", False),
        await_tservers=flag("awaitTServers", False),
        tconfig_config_maps=flag("tconfigConfigMaps", False),
        existing_framework_config=framework_config == "existing",
        approvers=parse_approvers(text("approvers") or ""),
        field_ownership=field_ownership_setting(lookup("fieldOwnership")),
        workload=_workload(text("workload", "statefulset") or "statefulset"),
        expandable_storage_classes=parse_storage_classes(text("expandableStorageClasses") or ""),
        fixed_storage_classes=parse_storage_classes(text("fixedStorageClasses") or ""),
        release=parse_release(text("releaseTag"), text("releaseDate"), config=True),
    )
    check_options(options, config=True)
    limits = {
        field: limit_value(field, lookup(LIMIT_NAMES[field][1].split(":", 1)[1]), config=True)
        for field in LIMIT_NAMES
    }
    clusters = clusters_from_config(lookup("clusters"))
    management = management_from_config(lookup("managementCluster"))
    if clusters and management is not None:
        raise UsageError(
            "tars:clusters and tars:managementCluster both give the clusters: keep one"
        )
    return StackSettings(
        stack_dir=text("stackDir", f"stacks/{env}") or f"stacks/{env}",
        options=options,
        render_dir=text("renderDir"),
        kube_context=text("kubeContext"),
        external_replicas=flag("externalReplicas", False),
        limits=Limits(**{k: v for k, v in limits.items() if v is not None}),
        clusters=clusters,
        management=management,
        unavailable_clusters=unavailable_policy(lookup("unavailableClusters")),
        waves=wave_settings(lookup("waves")),
    )


def field_ownership_setting(value: Any) -> FieldOwnership:
    """``tars:fieldOwnership``: a mapping, its JSON text or ``field=ownership,...``
    (docs/concepts/ownership.md). Raises :class:`UsageError` naming the key."""
    try:
        return FieldOwnership.parse(value if value != "" else None)
    except ValueError as exc:
        raise UsageError(f"tars:fieldOwnership: {exc}") from None


def effective_ownership(settings: StackSettings) -> FieldOwnership:
    """The stack's field ownership with ``tars:externalReplicas`` read as its alias
    ``replicas=initial`` (unless replicas are named)."""
    found = settings.options.field_ownership
    if settings.external_replicas:
        found = found.with_default("k8s.replicas", Ownership.INITIAL)
    return found


def _workload(value: str) -> Workload:
    """``tars:workload``: statefulset, kruise or tapp."""
    try:
        return Workload(value)
    except ValueError:
        raise UsageError(
            f"tars:workload must be one of {', '.join(Workload)}, got {value!r}"
        ) from None


def limit_value(field: str, value: Any, config: bool) -> int | None:
    """One :class:`~.limits.Limits` field from a flag or config value (None when unset).

    Sizes take units (``16Mi``); depth and expansion are positive integers, the depth at most
    :data:`~.limits.MAX_DEPTH_CEILING`. Raises :class:`UsageError` naming the flag or key.
    """
    if value is None or value == "":
        return None
    flag, key = LIMIT_NAMES[field]
    name = key if config else flag
    try:
        if field in ("max_file_bytes", "max_stack_bytes"):
            return parse_size(value)
        if isinstance(value, bool) or not str(value).strip().isdigit() or int(value) < 1:
            raise ValueError("expected a positive integer")
        number = int(value)
    except ValueError as exc:
        raise UsageError(f"{name} {value!r}: {exc}") from None
    if field == "max_depth" and number > MAX_DEPTH_CEILING:
        raise UsageError(f"{name} {value!r}: at most {MAX_DEPTH_CEILING}")
    return number


def read_stack_config(env: str, project_dir: str | Path = ".") -> StackSettings:
    """Settings of stack ``env`` from ``Pulumi.<env>.yaml`` in the project directory.

    ``stack_dir`` and ``render_dir`` come back relative to the current directory (joined with
    ``project_dir``), so the CLI can be run from anywhere.
    """
    base = Path(project_dir)
    path = base / f"Pulumi.{env}.yaml"
    limits = Limits()  # the config file itself is read within the default limits
    try:
        text = read_text(path, limits.max_file_bytes)
        documents = load_documents(text, limits)
    except UnreadableFile as exc:
        raise UsageError(f"{exc.path}:0: cannot read stack config: {exc.message}") from None
    except yaml.YAMLError as exc:
        line, message = describe_yaml_error(exc)
        raise UsageError(f"{path}:{line}: invalid YAML: {message}") from None
    except YamlLimitError as exc:
        raise UsageError(f"{path}:{exc.line or 1}: {exc.message}") from None
    data = (documents[0] if documents else None) or {}
    config = data.get("config") or {} if isinstance(data, dict) else {}
    if not isinstance(config, dict):
        raise UsageError(f"{path}: 'config' must be a mapping")
    values = {
        key.split(":", 1)[1]: _plain(value)
        for key, value in config.items()
        if isinstance(key, str) and key.startswith(f"{NAMESPACE_KEY}:")
    }

    def setting(key: str) -> Any:
        # Secret values (TAccount credentials, tars:accountSaltKey) are for the Pulumi program,
        # which can decrypt them; only a setting given as a secret is refused.
        value = values.get(key)
        if value is _SECURE:
            raise UsageError(f"{path}: tars:{key}: a secret config value cannot be a setting")
        return value

    try:
        settings = settings_from_config(setting, env)
    except UsageError as exc:
        if not str(exc).startswith("tars:clusters"):
            raise
        line = next((n for n, t in enumerate(text.splitlines(), 1) if "tars:clusters" in t), 0)
        raise UsageError(f"{path}:{line}: {exc}") from None
    render_dir = str(base / settings.render_dir) if settings.render_dir else None
    return replace(settings, stack_dir=str(base / settings.stack_dir), render_dir=render_dir)


_SECURE = object()
"""Stands for a secret (``{secure: ...}``) config value, which only Pulumi can decrypt."""


def _plain(value: Any) -> Any:
    """Pulumi config values may be ``{value: ...}`` or ``{secure: ...}`` mappings; any other
    mapping is a structured value (``tars:fieldOwnership: {release: external}``)."""
    if isinstance(value, dict):
        if "secure" in value:
            return _SECURE
        return value.get("value") if "value" in value or not value else value
    return value


# --- tars:installController: the TarsK8S controller on each cluster of the stack ----------

DEFAULT_CONTROLLER_VALUES = "platform/controller.values.yaml"


def controller_values_from_config(get: Callable[[str], Any] | Mapping[str, Any]) -> str | None:
    """``tars:installController``: the ``tarscontroller`` chart's values file to install the
    TarsK8S controller from (``tars:controllerValues``, relative to the project directory;
    defaults to ``platform/controller.values.yaml``), or None when it is off (the default).
    Raises :class:`UsageError` for a value that is not a boolean."""
    lookup: Callable[[str], Any] = get.get if isinstance(get, Mapping) else get
    if not config_flag(lookup, "installController"):
        return None
    return str(lookup("controllerValues") or DEFAULT_CONTROLLER_VALUES)


# --- tars:installFramework: the TarsK8S framework install of the stack namespace --

DEFAULT_FRAMEWORK_VALUES = "platform/framework.values.yaml"


@dataclass(frozen=True)
class FrameworkInstallSettings:
    """``tars:installFramework`` and its companions: install the TarsK8S framework (the
    ``tarsframework`` chart's objects) in the stack namespace.

    * ``values_file``: ``tars:frameworkValues``, the chart's values file relative to the
      project directory. Defaults to ``platform/framework.values.yaml``.
    * ``namespace``: the stack namespace (``tars:namespace``).
    * ``nodes`` / ``local_volume_nodes``: ``tars:frameworkNodes`` and
      ``tars:frameworkLocalVolumeNodes``, comma-separated node names labelled
      ``tars.io/node.<namespace>`` (and ``tars.io/SupportLocalVolume``).
    * ``cluster_nodes`` / ``cluster_local_volume_nodes``: the same per cluster of an inventory,
      when those keys are mappings (``{sh: "node-1,node-2", bj: "node-7"}``): each cluster's
      nodes have names of their own (:meth:`for_cluster`).
    """

    values_file: str
    namespace: str
    nodes: tuple[str, ...] = ()
    local_volume_nodes: tuple[str, ...] = ()
    cluster_nodes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cluster_local_volume_nodes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def for_cluster(self, name: str) -> FrameworkInstallSettings:
        """The install on cluster ``name``: its own nodes when the keys name them per cluster
        (none labelled on a cluster the mapping leaves out), else the same node names."""
        if not self.cluster_nodes and not self.cluster_local_volume_nodes:
            return self
        return replace(
            self,
            nodes=self.cluster_nodes.get(name, ()),
            local_volume_nodes=self.cluster_local_volume_nodes.get(name, ()),
            cluster_nodes={},
            cluster_local_volume_nodes={},
        )


def framework_install_from_config(
    get: Callable[[str], Any] | Mapping[str, Any], namespace: str
) -> FrameworkInstallSettings | None:
    """The framework install the config asks for, or None when ``tars:installFramework`` is
    off (the default). Raises :class:`UsageError` for a value that is not a boolean."""
    lookup: Callable[[str], Any] = get.get if isinstance(get, Mapping) else get
    if not config_flag(lookup, "installFramework"):
        return None

    def split(raw: Any) -> tuple[str, ...]:
        return tuple(n.strip() for n in str(raw or "").split(",") if n.strip())

    def names(key: str) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
        raw = lookup(key)
        if isinstance(raw, str) and raw.lstrip().startswith("{"):
            try:
                raw = json.loads(raw)  # a mapping in Pulumi config comes as its JSON text
            except ValueError:
                raise UsageError(f"tars:{key}: not a valid mapping of cluster to nodes") from None
        if isinstance(raw, Mapping):
            return (), {str(cluster): split(nodes) for cluster, nodes in raw.items()}
        return split(raw), {}

    nodes, cluster_nodes = names("frameworkNodes")
    local, cluster_local = names("frameworkLocalVolumeNodes")
    return FrameworkInstallSettings(
        values_file=str(lookup("frameworkValues") or DEFAULT_FRAMEWORK_VALUES),
        namespace=namespace,
        nodes=nodes,
        local_volume_nodes=local,
        cluster_nodes=cluster_nodes,
        cluster_local_volume_nodes=cluster_local,
    )
