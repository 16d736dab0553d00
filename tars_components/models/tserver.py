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
    port: Port
    thread: Annotated[int, Field(ge=1, le=99)] = 3
    connection: Annotated[int, Field(ge=1, le=3_000_000)] = 10000
    capacity: Annotated[int, Field(ge=1, le=3_000_000)] = 10000
    timeout: Annotated[int, Field(ge=-1, le=6_000_000)] = 60000
    is_tars: bool = True
    is_tcp: bool = True


class ServerPort(TarsModel):
    """A plain port of ``spec.tars.ports`` or ``spec.normal.ports``. Defaults to TCP."""

    name: Annotated[str, pattern(P_PORTNAME, 15)]
    port: Port
    is_tcp: bool = True


class TarsSpec(TarsModel):
    """``spec.tars``: what a Tars server needs: template, profile, servants. Defaults:
    asyncThread 3, no servants."""

    template: Annotated[str, pattern(P_DNS1123SUB, 253)]
    profile: str | None = None
    async_thread: Annotated[int, Field(ge=0, le=50)] = 3
    servants: list[Servant] = Field(default_factory=new_list)
    ports: list[ServerPort] | None = None


class NormalSpec(TarsModel):
    """``spec.normal``: the ports of a server that does not run under tarsnode."""

    ports: list[ServerPort] = Field(default_factory=new_list)


class HostPort(TarsModel):
    """``spec.k8s.hostPorts[]``: expose a servant or port (by name) on the node."""

    name_ref: Annotated[str, pattern(P_ALNUM_DASH, 63)]
    port: Port


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
    env: list[EnvVar] | None = None
    env_from: list[EnvFromSource] | None = None
    host_ipc: bool = Field(default=False, alias="hostIPC")
    host_network: bool = False
    host_ports: list[HostPort] | None = None
    mounts: list[Mount] | None = None
    daemon_set: bool = False
    node_selector: list[NodeSelectorRequirement] = Field(default_factory=new_list)
    ability_affinity: Annotated[AbilityAffinity, Lax] = _enum_default(
        AbilityAffinity.APP_OR_SERVER_PREFERRED
    )
    not_stacked: bool = False
    pod_management_policy: Annotated[PodManagementPolicy, Lax] = _enum_default(
        PodManagementPolicy.PARALLEL
    )
    replicas: Annotated[int, Field(ge=0, le=99)] = 0
    readiness_gate: Annotated[str | None, pattern(P_QUALNAME, 63)] = None
    readiness_gates: list[Annotated[str, pattern(P_QUALNAME, 63)]] | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    resources: Resources = Field(default_factory=Resources)
    update_strategy: UpdateStrategy = Field(default_factory=UpdateStrategy)
    image_pull_policy: Annotated[ImagePullPolicy, Lax] = _enum_default(ImagePullPolicy.ALWAYS)
    launcher_type: Annotated[LauncherType, Lax] = _enum_default(LauncherType.BACKGROUND)

    @property
    def has_host_binding(self) -> bool:
        """hostIPC, hostNetwork or hostPorts: pods must stay on their node (``delay-bind``)."""
        return self.host_ipc or self.host_network or bool(self.host_ports)


class Release(TarsModel):
    """``spec.release``: the published version. Absent means "not released yet" (0 replicas).

    ``id``, ``image`` and ``nodeImage`` may be ``pulumi.Input`` values.
    """

    id: PlacedReleaseId
    image: PlacedImage
    secret: Annotated[str | None, pattern(P_SECRET, 253)] = None
    time: Annotated[str | None, pattern(P_DATE_TIME)] = None
    node_image: PlacedImageOrEmpty = None
    node_secret: Annotated[str | None, pattern(P_SECRET, 253)] = None


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
