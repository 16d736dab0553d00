"""The argument types of the multi-language components (docs/pulumi/multi-language.md).

Plain ``pulumi.Input`` types, TypedDicts and enums only, so that Pulumi's analyzer infers the
package schema from them: the attribute docstrings become the schema's descriptions. Nested
document sections keep the camelCase field names of the TarsK8S YAML (``asyncThread``,
``nodeImage``), so a section reaches the pure core as the document field it is.

This module must not use ``from __future__ import annotations``: the analyzer reads the
annotations as types, not as text.
"""

from typing import Any, Optional, TypedDict

import pulumi

from ..models import ImageType, Role, SubType
from ..settings.options import Mode


class Servant(TypedDict):
    """One servant (Tars object) of a Tars server: ``spec.tars.servants[]``."""

    name: pulumi.Input[str]
    """The servant's name (letters and digits), e.g. ``OrderObj``. Required."""
    port: pulumi.Input[int]
    """The servant's port (1..65535), unique among the server's ports (TS004). Required."""
    thread: Optional[pulumi.Input[int]]
    """Worker threads. Defaults to 3."""
    connection: Optional[pulumi.Input[int]]
    """Maximum connections. Defaults to 10000."""
    capacity: Optional[pulumi.Input[int]]
    """Queue capacity. Defaults to 10000."""
    timeout: Optional[pulumi.Input[int]]
    """Queue timeout in milliseconds. Defaults to 60000."""
    isTars: Optional[pulumi.Input[bool]]
    """Whether the servant speaks the Tars protocol. Defaults to true."""
    isTcp: Optional[pulumi.Input[bool]]
    """TCP (true) or UDP (false). Defaults to true."""


class ServerPort(TypedDict):
    """A plain port of a server: ``spec.tars.ports[]`` or ``spec.normal.ports[]``."""

    name: pulumi.Input[str]
    """The port's name (letters and digits). Required."""
    port: pulumi.Input[int]
    """The port number (1..65535). Required."""
    isTcp: Optional[pulumi.Input[bool]]
    """TCP (true) or UDP (false). Defaults to true."""


class TarsSpec(TypedDict):
    """``spec.tars`` of a Tars server: its template, profile, servants and ports."""

    template: pulumi.Input[str]
    """The TTemplate the server's config is built from (TS010 when unknown). Required."""
    profile: Optional[pulumi.Input[str]]
    """Extra template text merged over the template. Defaults to none."""
    asyncThread: Optional[pulumi.Input[int]]
    """Asynchronous threads. Defaults to 3."""
    servants: Optional[list[Servant]]
    """The servants. Defaults to none."""
    ports: Optional[list[ServerPort]]
    """Plain ports besides the servants. Defaults to none."""


class NormalSpec(TypedDict):
    """``spec.normal`` of a normal (non-Tars) server."""

    ports: Optional[list[ServerPort]]
    """The server's ports. Defaults to none."""


class EnvVar(TypedDict):
    """An environment variable of the server's container: ``spec.k8s.env[]``."""

    name: pulumi.Input[str]
    """The variable's name. Required."""
    value: Optional[pulumi.Input[str]]
    """Its value (a secret Input stays secret). Give this or ``valueFrom``."""
    valueFrom: Optional[pulumi.Input[dict[str, Any]]]
    """A Kubernetes ``EnvVarSource`` (``fieldRef``, ``secretKeyRef``, …) as in YAML."""


class HostPort(TypedDict):
    """A port bound on the node: ``spec.k8s.hostPorts[]``."""

    nameRef: pulumi.Input[str]
    """The name of the servant or port it exposes. Required."""
    port: pulumi.Input[int]
    """The node's port. Required."""


class K8sSpec(TypedDict):
    """``spec.k8s``: how the server runs on Kubernetes (the fields of the TServer CRD)."""

    replicas: Optional[pulumi.Input[int]]
    """Pods of the StatefulSet. Defaults to 0 (CRD default)."""
    daemonSet: Optional[bool]
    """Run as a DaemonSet (one pod per node). A plain value: it decides which Kubernetes
    objects the server has. Defaults to false."""
    serviceAccount: Optional[pulumi.Input[str]]
    """The pods' service account. Defaults to the namespace's default."""
    env: Optional[list[EnvVar]]
    """Environment variables. Defaults to none."""
    envFrom: Optional[list[pulumi.Input[dict[str, Any]]]]
    """Kubernetes ``EnvFromSource`` entries as in YAML. Defaults to none."""
    hostIPC: Optional[pulumi.Input[bool]]
    """Share the node's IPC namespace. Defaults to false."""
    hostNetwork: Optional[pulumi.Input[bool]]
    """Use the node's network. Defaults to false."""
    hostPorts: Optional[list[HostPort]]
    """Ports bound on the node. Defaults to none."""
    mounts: Optional[list[pulumi.Input[dict[str, Any]]]]
    """Volume mounts (``name``, ``source``, ``mountPath``, …) as in the TServer YAML.
    Defaults to none."""
    nodeSelector: Optional[list[pulumi.Input[dict[str, Any]]]]
    """Node selector requirements (``key``, ``operator``, ``values``). Defaults to none."""
    abilityAffinity: Optional[pulumi.Input[str]]
    """``AppRequired``, ``ServerRequired``, ``AppOrServerPreferred`` or ``None``."""
    notStacked: Optional[pulumi.Input[bool]]
    """At most one pod of the server per node. Defaults to false."""
    podManagementPolicy: Optional[pulumi.Input[str]]
    """``OrderedReady`` or ``Parallel``. Defaults to ``Parallel``."""
    readinessGates: Optional[list[pulumi.Input[str]]]
    """Pod readiness gates besides ``tars.io/active``. Defaults to none."""
    command: Optional[list[pulumi.Input[str]]]
    """The container's command. Defaults to the image's."""
    args: Optional[list[pulumi.Input[str]]]
    """The container's arguments. Defaults to the image's."""
    resources: Optional[pulumi.Input[dict[str, Any]]]
    """Kubernetes ``ResourceRequirements`` (``requests``, ``limits``). Defaults to none."""
    updateStrategy: Optional[pulumi.Input[dict[str, Any]]]
    """The StatefulSet's or DaemonSet's update strategy as in YAML. Defaults to rolling."""
    imagePullPolicy: Optional[pulumi.Input[str]]
    """``Always``, ``IfNotPresent`` or ``Never``. Defaults to ``Always``."""
    launcherType: Optional[pulumi.Input[str]]
    """``foreground`` or ``background``. Defaults to ``background``."""


class Release(TypedDict):
    """``spec.release``: the image the server runs."""

    id: pulumi.Input[str]
    """The release id. Required."""
    image: pulumi.Input[str]
    """The server image (a tag or a digest). Required."""
    secret: Optional[pulumi.Input[str]]
    """The image pull secret's name. Defaults to none."""
    time: Optional[pulumi.Input[str]]
    """When the release was made (RFC 3339). Defaults to none."""
    nodeImage: Optional[pulumi.Input[str]]
    """The tarsnode image; defaults to the framework's ``nodeImage`` (TS020 without both)."""
    nodeSecret: Optional[pulumi.Input[str]]
    """The tarsnode image pull secret's name. Defaults to none."""


class ImageRef(TypedDict):
    """An image and its pull secret."""

    image: str
    """The image. Required."""
    secret: Optional[str]
    """The image pull secret's name. Defaults to none."""


class RegistryRef(TypedDict):
    """A registry and its push secret."""

    registry: str
    """The registry (``reg.example.com/shop``). Required."""
    secret: Optional[str]
    """The secret's name. Defaults to none."""


class ImageBuild(TypedDict):
    """How TarsK8S builds server images: ``imageBuild``."""

    executor: ImageRef
    """The image builder (kaniko) image. Required."""
    maxBuildTime: Optional[int]
    """Seconds a build may take. Defaults to the CRD's."""
    idFormat: Optional[str]
    """The format of build ids. Defaults to the CRD's."""


class RecordLimit(TypedDict):
    """How much history the framework keeps: ``recordLimit`` (each 10 to 100)."""

    texitedPod: Optional[int]
    """Exited pods recorded per server. Defaults to 48."""
    tconfigHistory: Optional[int]
    """Versions kept per config file. Defaults to 48."""
    timageRelease: Optional[int]
    """Releases kept per TImage. Defaults to 48."""


class UpChainEndpoint(TypedDict):
    """An endpoint outside the cluster that a Tars service calls: ``upChain.<name>[]``."""

    host: str
    """The host. Required."""
    port: int
    """The port (1 to 65535). Required."""
    timeout: Optional[int]
    """Milliseconds. Defaults to 6000."""
    isTcp: Optional[bool]
    """TCP (true) or UDP. Defaults to true."""


class FrameworkConfig(TypedDict):
    """The namespace's ``tars-framework`` TFrameworkConfig, as its fields (v1beta3)."""

    nodeImage: ImageRef
    """The default tarsnode image of Tars servers. Required."""
    imageBuild: ImageBuild
    """How server images are built. Required."""
    imageUpload: RegistryRef
    """Where built images are pushed. Required."""
    recordLimit: Optional[RecordLimit]
    """How much history the framework keeps. Defaults to 48 of each."""
    upChain: Optional[dict[str, list[UpChainEndpoint]]]
    """Endpoints outside the cluster, by name. Defaults to none."""
    expand: Optional[dict[str, pulumi.Input[str]]]
    """Free-form settings of the framework for TarsWeb (``expand`` of the CRD:
    ``nativeDBConfig``, ``nativeFrameworkConfig``); a secret value stays a secret in the
    state (the cluster keeps it in this object, where TarsWeb reads it). Defaults to none."""


class ImageRelease(TypedDict):
    """One release of a TImage: ``releases[]``."""

    id: str
    """The release id. Required."""
    image: str
    """The image. Required."""
    secret: Optional[str]
    """The image pull secret's name. Defaults to none."""
    createPerson: Optional[str]
    """Who made the release. Defaults to none."""
    createTime: Optional[str]
    """When (RFC 3339). Defaults to none."""
    mark: Optional[str]
    """A note. Defaults to none."""


class Business(TypedDict):
    """One business of the TTree: ``businesses[]``."""

    name: str
    """The business's name. Required."""
    show: str
    """Its display name. Required."""
    weight: Optional[int]
    """Display order. Defaults to 0."""
    mark: Optional[str]
    """A note. Defaults to none."""


class TreeApp(TypedDict):
    """One app of the TTree: ``apps[]``."""

    name: str
    """The app's name. Required."""
    businessRef: str
    """The business it belongs to (empty for none). Required."""
    mark: Optional[str]
    """A note. Defaults to none."""


class Authorization(TypedDict):
    """One authorization of a TAccount: ``authorization[]``."""

    role: Role
    """The role granted. Required."""
    flag: str
    """What it applies to (``*``, an app, ``app.server``). Required."""


class TFrameworkArgs(TypedDict):
    """Arguments of the multi-language ``TFramework``."""

    namespace: str
    """The framework's namespace: the other components name the framework by it (or by the
    framework's resource name) in their ``framework`` argument. Required."""
    config: Optional[FrameworkConfig]
    """The namespace's ``tars-framework`` config (default node image). Defaults to none."""
    mode: Optional[Mode]
    """``expand`` (Kubernetes workloads) or ``crd`` (TarsK8S custom resources). Defaults to
    ``expand``."""
    templates: Optional[dict[str, str]]
    """Templates the namespace has besides the TTemplate components, ``{name: parent}``.
    Defaults to none."""
    skip_await: Optional[bool]
    """Do not wait for the workloads' pods to become ready. Defaults to false."""
    external_replicas: Optional[bool]
    """Replicas belong to another field manager (an HPA): changes to them are ignored.
    Defaults to false."""
    existing_config: Optional[bool]
    """crd mode: the cluster has its ``tars-framework`` config already. Defaults to false."""


class TServerArgs(TypedDict):
    """Arguments of the multi-language ``TServer``."""

    framework: str
    """The TFramework (of this package, in the same program) the server belongs to: its
    resource name, or its ``namespace`` when no other framework has it. Required."""
    app: pulumi.Input[str]
    """``spec.app`` (letters and digits). Required."""
    server: pulumi.Input[str]
    """``spec.server`` (letters and digits). Required."""
    sub_type: Optional[SubType]
    """``spec.subType``. Defaults to ``tars`` when ``tars`` is given, else ``normal``."""
    important: Optional[pulumi.Input[int]]
    """``spec.important`` (1..20). Defaults to 3."""
    tars: Optional[TarsSpec]
    """``spec.tars`` of a Tars server. Defaults to none."""
    normal: Optional[NormalSpec]
    """``spec.normal`` of a normal server. Defaults to none."""
    k8s: Optional[K8sSpec]
    """``spec.k8s``. Defaults to the CRD defaults."""
    release: Optional[Release]
    """``spec.release``. Defaults to none (not released: no pods)."""
    labels: Optional[dict[str, pulumi.Input[str]]]
    """``metadata.labels``. Defaults to none."""
    annotations: Optional[dict[str, pulumi.Input[str]]]
    """``metadata.annotations``. Defaults to none."""
    skip_await: Optional[bool]
    """Override of the framework's ``skipAwait``. Defaults to the framework's."""
    external_replicas: Optional[bool]
    """Override of the framework's ``externalReplicas``. Defaults to the framework's."""


class TTemplateArgs(TypedDict):
    """Arguments of the multi-language ``TTemplate``."""

    framework: str
    """The TFramework the template belongs to: its resource name, or its ``namespace`` when no
    other framework has it. Required."""
    template_name: str
    """``metadata.name`` of the template. Required."""
    content: str
    """``spec.content``: the template text. Required."""
    parent: str
    """``spec.parent``: the parent template (its own name for a root). Required."""
    labels: Optional[dict[str, str]]
    """``metadata.labels``. Defaults to none."""
    annotations: Optional[dict[str, str]]
    """``metadata.annotations``. Defaults to none."""


class TConfigArgs(TypedDict):
    """Arguments of the multi-language ``TConfig``."""

    framework: str
    """The TFramework the config belongs to: its resource name, or its ``namespace`` when no
    other framework has it. Required."""
    app: str
    """``app``. Required."""
    config_name: str
    """``configName``: the file's name. Required."""
    config_content: Optional[str]
    """``configContent``. Defaults to empty."""
    server: Optional[str]
    """``server``; empty for an app-level config. Defaults to empty."""
    name: Optional[str]
    """``metadata.name``. Defaults to a name derived from app, server and file."""
    pod_seq: Optional[str]
    """``podSeq``: ``m`` (master) or a pod's ordinal. Defaults to ``m``."""
    activated: Optional[bool]
    """``activated``. Defaults to true."""
    version: Optional[str]
    """``version``. Defaults to one derived from the content."""
    update_reason: Optional[str]
    """``updateReason``. Defaults to none."""
    labels: Optional[dict[str, str]]
    """``metadata.labels``. Defaults to none."""
    annotations: Optional[dict[str, str]]
    """``metadata.annotations``. Defaults to none."""


class TImageArgs(TypedDict):
    """Arguments of the multi-language ``TImage``."""

    framework: str
    """The TFramework the image belongs to: its resource name, or its ``namespace`` when no
    other framework has it. Required."""
    name: str
    """``metadata.name``. Required."""
    image_type: ImageType
    """``imageType``. Required."""
    supported_type: Optional[list[str]]
    """``supportedType``. Defaults to none."""
    releases: Optional[list[ImageRelease]]
    """``releases``. Defaults to none."""
    default: Optional[str]
    """``default``: the id of the default release. Defaults to none."""
    mark: Optional[str]
    """``mark``. Defaults to none."""
    labels: Optional[dict[str, str]]
    """``metadata.labels``. Defaults to none."""
    annotations: Optional[dict[str, str]]
    """``metadata.annotations``. Defaults to none."""
    own_releases: Optional[bool]
    """Pulumi owns ``releases`` (else it leaves releases added by TarsWeb alone). Defaults to
    false."""


class TTreeArgs(TypedDict):
    """Arguments of the multi-language ``TTree``."""

    framework: str
    """The TFramework the tree belongs to: its resource name, or its ``namespace`` when no
    other framework has it. Required."""
    businesses: Optional[list[Business]]
    """``businesses``. Defaults to none."""
    apps: Optional[list[TreeApp]]
    """``apps``. Defaults to none."""
    labels: Optional[dict[str, str]]
    """``metadata.labels``. Defaults to none."""
    annotations: Optional[dict[str, str]]
    """``metadata.annotations``. Defaults to none."""


class TAccountArgs(TypedDict):
    """Arguments of the multi-language ``TAccount``."""

    framework: str
    """The TFramework the account belongs to: its resource name, or its ``namespace`` when no
    other framework has it. Required."""
    username: str
    """``spec.username``. Required."""
    password: Optional[pulumi.Input[str]]
    """The password in clear (hashed as the webhook does; keep it a secret). Give this or
    ``bcryptPassword``."""
    bcrypt_password: Optional[pulumi.Input[str]]
    """The password's bcrypt hash. Give this or ``password``."""
    activated: Optional[bool]
    """``spec.authentication.activated``. Defaults to true."""
    authorization: Optional[list[Authorization]]
    """``spec.authorization``. Defaults to none."""
    extra: Optional[list[str]]
    """``spec.extra``. Defaults to none."""
    labels: Optional[dict[str, str]]
    """``metadata.labels``. Defaults to none."""
    annotations: Optional[dict[str, str]]
    """``metadata.annotations``. Defaults to none."""
    salt_key: Optional[pulumi.Input[str]]
    """A secret key from which the account's salt is derived (stable across runs). Defaults
    to a random salt kept in the state."""


class TarsControllerArgs(TypedDict):
    """Arguments of the multi-language ``TarsController``: the controller install."""

    values: dict[str, Any]
    """The ``tarscontroller`` chart's values, as in its values file (``controller.registry``,
    ``controller.tag``, …); chart defaults apply. Required."""
    ca_cert_pem: Optional[pulumi.Input[str]]
    """An existing webhook CA certificate (PEM). With ``caKeyPem``. Without both, a new CA is
    made with pulumi-tls, which the plugin does not install: from another language, give
    both."""
    ca_key_pem: Optional[pulumi.Input[str]]
    """The CA's key (PKCS#1 RSA PEM; keep it a secret). With ``caCertPem``."""
    existing_namespace: Optional[bool]
    """``tars-system`` exists already: its label is patched instead. Defaults to false."""


class TarsFrameworkInstallArgs(TypedDict):
    """Arguments of the multi-language ``TarsFrameworkInstall``: one framework install."""

    values: dict[str, Any]
    """The ``tarsframework`` chart's values, as in its values file; chart defaults apply.
    Required."""
    namespace: str
    """The framework namespace. Required."""
    controller: Optional[str]
    """The resource name of the ``TarsController`` (of this package, in the same program) to
    wait for and whose cluster to use. Defaults to none."""
    nodes: Optional[list[str]]
    """Nodes labelled ``tars.io/node.<namespace>``. Defaults to none."""
    local_volume_nodes: Optional[list[str]]
    """Nodes also labelled ``tars.io/SupportLocalVolume``. Defaults to none."""
    create_namespace: Optional[bool]
    """Create the namespace. Defaults to true."""


__all__ = [
    "Authorization",
    "Business",
    "EnvVar",
    "FrameworkConfig",
    "HostPort",
    "ImageBuild",
    "ImageRef",
    "ImageRelease",
    "K8sSpec",
    "NormalSpec",
    "RegistryRef",
    "Release",
    "Servant",
    "ServerPort",
    "TAccountArgs",
    "TConfigArgs",
    "TFrameworkArgs",
    "TImageArgs",
    "TServerArgs",
    "TTemplateArgs",
    "TTreeArgs",
    "TarsControllerArgs",
    "TarsFrameworkInstallArgs",
    "TarsSpec",
    "TreeApp",
]
