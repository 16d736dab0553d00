"""The TServer custom resource (docs/concepts/mapping.md), v1beta2 and v1beta3 in one model.

Version-specific fields (``spec.k8s.readinessGate`` in v1beta2; ``readinessGates``,
``command`` and ``args`` in v1beta3) are both declared here; the loader rejects the ones that
the document's apiVersion does not have.
"""

from enum import Enum
from typing import Annotated, Any, ClassVar

from pydantic import Field, model_validator

from .base import (
    P_ALNUM_DASH,
    P_APP,
    P_DATE_TIME,
    P_DNS1123SUB,
    P_PORTNAME,
    P_QUALNAME,
    P_SECRET,
    P_SERVANT,
    PlacedImage,
    PlacedImageOrEmpty,
    PlacedReleaseId,
    TarsModel,
    new_list,
    pattern,
)
from .document import Document
from .kube import (
    EnvFromSource,
    EnvVar,
    Lax,
    Mount,
    NodeSelectorRequirement,
    Resources,
)

Port = Annotated[int, Field(ge=1, le=65535)]


def _enum_default(member: Enum) -> Any:
    """A field default given as an enum member and stored, like parsed input, as its value."""
    return Field(default=member, validate_default=True)


RESERVED_PORT = 19385


class SubType(str, Enum):
    """``spec.subType``: ``tars`` servers run under tarsnode, ``normal`` ones do not."""

    TARS = "tars"
    NORMAL = "normal"


class AbilityAffinity(str, Enum):
    """``spec.k8s.abilityAffinity``: how a server is tied to nodes labelled for its app/server."""

    APP_REQUIRED = "AppRequired"
    SERVER_REQUIRED = "ServerRequired"
    APP_OR_SERVER_PREFERRED = "AppOrServerPreferred"
    NONE = "None"


class PodManagementPolicy(str, Enum):
    """``spec.k8s.podManagementPolicy`` of the StatefulSet."""

    ORDERED_READY = "OrderedReady"
    PARALLEL = "Parallel"


class UpdateStrategyType(str, Enum):
    """``spec.k8s.updateStrategy.type``."""

    ROLLING_UPDATE = "RollingUpdate"
    ON_DELETE = "OnDelete"


class ImagePullPolicy(str, Enum):
    """``spec.k8s.imagePullPolicy`` of the main container."""

    ALWAYS = "Always"
    NEVER = "Never"
    IF_NOT_PRESENT = "IfNotPresent"


class LauncherType(str, Enum):
    """``spec.k8s.launcherType``: tarsnode as pid 1 (background) or the server (foreground)."""

    FOREGROUND = "foreground"
    BACKGROUND = "background"


class Servant(TarsModel):
    """A Tars servant (``App.Server.<name>``). Defaults: thread 3, connection and capacity
    10000, timeout 60000 ms, isTars and isTcp true."""

    name: Annotated[str, pattern(P_SERVANT)]
    """The servant's name (letters and digits), e.g. ``OrderObj``. Required."""
    port: Port
    """The servant's port (1..65535), unique among the server's ports (TS004). Required."""
    thread: Annotated[int, Field(ge=1, le=99)] = 3
    """Worker threads. Defaults to 3."""
    connection: Annotated[int, Field(ge=1, le=3_000_000)] = 10000
    """Maximum connections. Defaults to 10000."""
    capacity: Annotated[int, Field(ge=1, le=3_000_000)] = 10000
    """Queue capacity. Defaults to 10000."""
    timeout: Annotated[int, Field(ge=-1, le=6_000_000)] = 60000
    """Queue timeout in milliseconds. Defaults to 60000."""
    is_tars: bool = True
    """Whether the servant speaks the Tars protocol. Defaults to true."""
    is_tcp: bool = True
    """TCP (true) or UDP (false). Defaults to true."""


class ServerPort(TarsModel):
    """A plain port of ``spec.tars.ports`` or ``spec.normal.ports``. Defaults to TCP."""

    name: Annotated[str, pattern(P_PORTNAME, 15)]
    """The port's name (letters and digits). Required."""
    port: Port
    """The port number (1..65535). Required."""
    is_tcp: bool = True
    """TCP (true) or UDP (false). Defaults to true."""


class TarsSpec(TarsModel):
    """``spec.tars``: what a Tars server needs: template, profile, servants. Defaults:
    asyncThread 3, no servants."""

    template: Annotated[str, pattern(P_DNS1123SUB, 253)]
    """The TTemplate the server's config is built from (TS010 when unknown). Required."""
    profile: str | None = None
    """Extra template text merged over the template. Defaults to none."""
    async_thread: Annotated[int, Field(ge=0, le=50)] = 3
    """Asynchronous threads. Defaults to 3."""
    servants: list[Servant] = Field(default_factory=new_list)
    """The servants. Defaults to none."""
    ports: list[ServerPort] | None = None
    """Plain ports besides the servants. Defaults to none."""


class NormalSpec(TarsModel):
    """``spec.normal``: the ports of a server that does not run under tarsnode."""

    ports: list[ServerPort] = Field(default_factory=new_list)
    """The server's ports. Defaults to none."""


class HostPort(TarsModel):
    """``spec.k8s.hostPorts[]``: expose a servant or port (by name) on the node."""

    name_ref: Annotated[str, pattern(P_ALNUM_DASH, 63)]
    """The name of the servant or port it exposes. Required."""
    port: Port
    """The node's port. Required."""


class RollingUpdate(TarsModel):
    """``updateStrategy.rollingUpdate``. Defaults to partition 0. The CRD sets no bound: a
    negative partition is admitted (it updates every pod, like 0)."""

    partition: int = 0


class UpdateStrategy(TarsModel):
    """``spec.k8s.updateStrategy``. Defaults to RollingUpdate with partition 0."""

    type: Annotated[UpdateStrategyType, Lax] = _enum_default(UpdateStrategyType.ROLLING_UPDATE)
    rolling_update: RollingUpdate | None = Field(default_factory=RollingUpdate)


class K8sSpec(TarsModel):
    """``spec.k8s``: how the server runs on Kubernetes (every field has the CRD default)."""

    service_account: Annotated[str | None, pattern(P_ALNUM_DASH, 63)] = None
    """The pods' service account. Defaults to the namespace's default."""
    env: list[EnvVar] | None = None
    """Environment variables. Defaults to none."""
    env_from: list[EnvFromSource] | None = None
    """Kubernetes ``EnvFromSource`` entries as in YAML. Defaults to none."""
    host_ipc: bool = Field(default=False, alias="hostIPC")
    """Share the node's IPC namespace. Defaults to false."""
    host_network: bool = False
    """Use the node's network. Defaults to false."""
    host_ports: list[HostPort] | None = None
    """Ports bound on the node. Defaults to none."""
    mounts: list[Mount] | None = None
    """Volume mounts (``name``, ``source``, ``mountPath``, …) as in the TServer YAML.
    Defaults to none."""
    daemon_set: bool = False
    """Run as a DaemonSet (one pod per node). A plain value: it decides which Kubernetes
    objects the server has. Defaults to false."""
    node_selector: list[NodeSelectorRequirement] = Field(default_factory=new_list)
    """Node selector requirements (``key``, ``operator``, ``values``). Defaults to none."""
    ability_affinity: Annotated[AbilityAffinity, Lax] = _enum_default(
        AbilityAffinity.APP_OR_SERVER_PREFERRED
    )
    """``AppRequired``, ``ServerRequired``, ``AppOrServerPreferred`` or ``None``.

    Defaults to ``AppOrServerPreferred``."""
    not_stacked: bool = False
    """At most one pod of the server per node. Defaults to false."""
    pod_management_policy: Annotated[PodManagementPolicy, Lax] = _enum_default(
        PodManagementPolicy.PARALLEL
    )
    """``OrderedReady`` or ``Parallel``. Defaults to ``Parallel``."""
    replicas: Annotated[int, Field(ge=0, le=99)] = 0
    """Pods of the StatefulSet. Defaults to 0 (CRD default)."""
    readiness_gate: Annotated[str | None, pattern(P_QUALNAME, 63)] = None
    """v1beta2's one pod readiness gate besides ``tars.io/active`` (v1beta3:
    ``readinessGates``). Defaults to none."""
    readiness_gates: list[Annotated[str, pattern(P_QUALNAME, 63)]] | None = None
    """Pod readiness gates besides ``tars.io/active``. Defaults to none."""
    command: list[str] | None = None
    """The container's command. Defaults to the image's."""
    args: list[str] | None = None
    """The container's arguments. Defaults to the image's."""
    resources: Resources = Field(default_factory=Resources)
    """Kubernetes ``ResourceRequirements`` (``requests``, ``limits``). Defaults to none."""
    update_strategy: UpdateStrategy = Field(default_factory=UpdateStrategy)
    """The StatefulSet's or DaemonSet's update strategy as in YAML. Defaults to rolling."""
    image_pull_policy: Annotated[ImagePullPolicy, Lax] = _enum_default(ImagePullPolicy.ALWAYS)
    """``Always``, ``IfNotPresent`` or ``Never``. Defaults to ``Always``."""
    launcher_type: Annotated[LauncherType, Lax] = _enum_default(LauncherType.BACKGROUND)
    """``foreground`` or ``background``. Defaults to ``background``."""

    @property
    def has_host_binding(self) -> bool:
        """hostIPC, hostNetwork or hostPorts: pods must stay on their node (``delay-bind``)."""
        return self.host_ipc or self.host_network or bool(self.host_ports)


class Release(TarsModel):
    """``spec.release``: the published version. Absent means "not released yet" (0 replicas).

    ``id``, ``image`` and ``nodeImage`` may be ``pulumi.Input`` values.
    """

    id: PlacedReleaseId
    """The release id. Required."""
    image: PlacedImage
    """The server image (a tag or a digest). Required."""
    secret: Annotated[str | None, pattern(P_SECRET, 253)] = None
    """The image pull secret's name. Defaults to none."""
    time: Annotated[str | None, pattern(P_DATE_TIME)] = None
    """When the release was made (RFC 3339). Defaults to none."""
    node_image: PlacedImageOrEmpty = None
    """The tarsnode image; defaults to the framework's ``nodeImage`` (TS020 without both)."""
    node_secret: Annotated[str | None, pattern(P_SECRET, 253)] = None
    """The tarsnode image pull secret's name. Defaults to none."""


class TServerSpec(TarsModel):
    """``spec`` of a TServer: identity, exactly one of tars/normal, k8s, and the release."""

    app: Annotated[str, pattern(P_APP, 63)]
    server: Annotated[str, pattern(P_APP, 63)]
    sub_type: Annotated[SubType, Lax]
    important: Annotated[int, Field(ge=1, le=20)] = 3
    tars: TarsSpec | None = None
    normal: NormalSpec | None = None
    k8s: K8sSpec = Field(alias="k8s")
    release: Release | None = None

    @model_validator(mode="after")
    def _one_section(self) -> "TServerSpec":
        if (self.tars is None) == (self.normal is None):
            raise ValueError("exactly one of tars, normal must be set")
        return self


class TServerDocument(Document):
    """A Tars service (``kind: TServer``): expands into a headless Service and a StatefulSet or
    DaemonSet. ``metadata.name`` is ``lower(app)-lower(server)``."""

    KIND: ClassVar[str] = "TServer"

    spec: TServerSpec

    @property
    def name(self) -> str:
        """``metadata.name``, or ``lower(app)-lower(server)`` when the document has none."""
        return self.metadata.name or self.object_name

    @property
    def object_name(self) -> str:
        """``lower(app)-lower(server)``: the name of every object the server expands into."""
        return f"{self.spec.app.lower()}-{self.spec.server.lower()}"

    @property
    def is_tars(self) -> bool:
        """True when ``spec.subType`` is ``tars`` (tarsnode init container, work dir)."""
        return self.spec.sub_type == SubType.TARS
