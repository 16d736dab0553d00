"""The Kubernetes-shaped parts of ``spec.k8s``, as the TServer CRD declares them.

They mirror the core/v1 types but only with the fields the CRD keeps (everything else would be
pruned by the API server, so it is rejected here as an unknown field) and with the CRD's
defaults, which differ from Kubernetes' own in places (``optional: true``, ``defaultMode: 420``).
"""

from enum import Enum
from typing import Annotated, Any

from pydantic import Field, model_validator

from .base import (
    P_ALNUM_DASH,
    P_CONFIG_KEY,
    P_DNS1123SUB,
    P_ENV_NAME,
    P_ENV_PREFIX,
    P_LABEL_VALUE,
    P_QUALNAME,
    P_UID,
    IntOrQuantity,
    PlacedStr,
    Quantity,
    TarsModel,
    pattern,
)

Lax = Field(strict=False)

ObjectName = Annotated[str, pattern(P_DNS1123SUB, 253)]
"""The name of a ConfigMap or Secret (the CRD's DNS-1123 subdomain pattern)."""
LabelValue = Annotated[str, pattern(P_LABEL_VALUE, 63)]
"""A label value (or a claim template's annotation value, which the CRD constrains alike)."""
FileMode = Annotated[int, Field(ge=0, le=0o777)]
"""A file mode of a secret or configMap volume: 0 to 0777 (511)."""


class ExactlyOneOf(TarsModel):
    """A union written as an object with exactly one of its fields set (a CRD ``oneOf``)."""

    @model_validator(mode="after")
    def _exactly_one(self) -> "ExactlyOneOf":
        present = [name for name in type(self).model_fields if getattr(self, name) is not None]
        if len(present) != 1:
            choices = ", ".join(f.alias or n for n, f in type(self).model_fields.items())
            raise ValueError(f"exactly one of {choices} must be set")
        return self


# --- env / envFrom ------------------------------------------------------------------------


class ObjectFieldSelector(TarsModel):
    """``fieldRef``: a field of the pod, e.g. ``metadata.name``."""

    api_version: str | None = None
    field_path: str


class ResourceFieldSelector(TarsModel):
    """``resourceFieldRef``: a resource of a container. Defaults to divisor ``"1"``."""

    container_name: str | None = None
    resource: str
    divisor: IntOrQuantity = "1"


class KeySelector(TarsModel):
    """``configMapKeyRef`` / ``secretKeyRef``. ``optional`` defaults to true (CRD default).

    ``key`` follows Kubernetes' ConfigMap/Secret key rule (``db.password`` is legal), not the
    v1.4.1 CRD's stricter ``^([0-9A-Za-z][-0-9A-Za-z]*)?[0-9A-Za-z]$``.
    """

    name: ObjectName
    key: Annotated[str, pattern(P_CONFIG_KEY, 63)]
    optional: bool = True


class EnvVarSource(ExactlyOneOf):
    """``valueFrom``: exactly one source."""

    field_ref: ObjectFieldSelector | None = None
    resource_field_ref: ResourceFieldSelector | None = None
    config_map_key_ref: KeySelector | None = None
    secret_key_ref: KeySelector | None = None


class EnvVar(TarsModel):
    """One environment variable of the main container: ``value`` or ``valueFrom``."""

    name: Annotated[str, pattern(P_ENV_NAME)]
    """The variable's name. Required."""
    value: PlacedStr = None
    """Its value (a secret Input stays secret). Give this or ``valueFrom``."""
    value_from: EnvVarSource | None = None
    """A Kubernetes ``EnvVarSource`` (``fieldRef``, ``secretKeyRef``, …) as in YAML."""

    @model_validator(mode="after")
    def _value_or_value_from(self) -> "EnvVar":
        if (self.value is None) == (self.value_from is None):
            raise ValueError("exactly one of value, valueFrom must be set")
        return self


class EnvFromRef(TarsModel):
    """``configMapRef`` / ``secretRef`` of envFrom. ``optional`` defaults to true."""

    name: ObjectName
    optional: bool = True


class EnvFromSource(TarsModel):
    """One envFrom entry: exactly one of configMapRef / secretRef, with an optional prefix."""

    prefix: Annotated[str | None, pattern(P_ENV_PREFIX, 63)] = None
    config_map_ref: EnvFromRef | None = None
    secret_ref: EnvFromRef | None = None

    @model_validator(mode="after")
    def _one_ref(self) -> "EnvFromSource":
        if (self.config_map_ref is None) == (self.secret_ref is None):
            raise ValueError("exactly one of configMapRef, secretRef must be set")
        return self


# --- resources ----------------------------------------------------------------------------


class ResourceList(TarsModel):
    """``cpu`` and ``memory`` quantities (the only resource names the CRD declares)."""

    cpu: Quantity = None
    memory: Quantity = None


class Resources(TarsModel):
    """``spec.k8s.resources``: requests and limits of the main container."""

    requests: ResourceList | None = None
    limits: ResourceList | None = None


# --- node selector ------------------------------------------------------------------------


class SelectorOperator(str, Enum):
    """Operators of a node selector requirement."""

    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"
    GT = "Gt"
    LT = "Lt"


class NodeSelectorRequirement(TarsModel):
    """One match expression of ``spec.k8s.nodeSelector`` (a list, not a map)."""

    key: Annotated[str, pattern(P_QUALNAME, 63)]
    operator: Annotated[SelectorOperator, Lax]
    values: list[LabelValue] | None = None


# --- mounts -------------------------------------------------------------------------------


class HostPathType(str, Enum):
    """``hostPath.type``."""

    UNSET = ""
    DIRECTORY_OR_CREATE = "DirectoryOrCreate"
    DIRECTORY = "Directory"
    FILE_OR_CREATE = "FileOrCreate"
    FILE = "File"
    SOCKET = "Socket"
    CHAR_DEVICE = "CharDevice"
    BLOCK_DEVICE = "BlockDevice"


class HostPathSource(TarsModel):
    """``hostPath``: a directory or file of the node."""

    path: str
    type: Annotated[HostPathType, Lax]


class StorageMedium(str, Enum):
    """``emptyDir.medium``."""

    DEFAULT = ""
    MEMORY = "Memory"


class EmptyDirSource(TarsModel):
    """``emptyDir``: scratch space that lives as long as the pod."""

    medium: Annotated[StorageMedium | None, Lax] = None
    size_limit: IntOrQuantity = None


class KeyToPath(TarsModel):
    """One projected key of a secret or configMap volume. ``mode`` defaults to 0644."""

    key: Annotated[str, pattern(P_CONFIG_KEY)]
    path: str
    mode: FileMode = 0o644


class SecretSource(TarsModel):
    """``secret`` volume. Defaults to ``defaultMode: 0644`` and ``optional: true`` (CRD)."""

    secret_name: str
    items: list[KeyToPath] | None = None
    default_mode: FileMode = 0o644
    optional: bool = True


class ConfigMapSource(TarsModel):
    """``configMap`` volume. Defaults to ``defaultMode: 0644`` and ``optional: true`` (CRD)."""

    name: str
    items: list[KeyToPath] | None = None
    default_mode: FileMode = 0o644
    optional: bool = True


class PersistentVolumeClaimSource(TarsModel):
    """``persistentVolumeClaim``: an existing claim. ``readOnly`` defaults to false."""

    claim_name: str
    read_only: bool = False


class AccessMode(str, Enum):
    """PVC access modes."""

    READ_WRITE_ONCE = "ReadWriteOnce"
    READ_ONLY_MANY = "ReadOnlyMany"
    READ_WRITE_MANY = "ReadWriteMany"


class VolumeMode(str, Enum):
    """PVC volume modes."""

    BLOCK = "Block"
    FILESYSTEM = "Filesystem"


class StorageRequest(TarsModel):
    """``requests.storage`` of a claim (required)."""

    storage: IntOrQuantity


class StorageLimit(TarsModel):
    """``limits.storage`` of a claim (required when ``limits`` is given)."""

    storage: IntOrQuantity


class ClaimResources(TarsModel):
    """Claim size: ``requests.storage`` (required) and optional ``limits.storage``."""

    requests: StorageRequest
    limits: StorageLimit | None = None


class LabelOperator(str, Enum):
    """Operators of a label selector requirement."""

    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"


class LabelSelectorRequirement(TarsModel):
    """One ``matchExpressions`` entry of a label selector."""

    key: Annotated[str, pattern(P_QUALNAME, 63)]
    operator: Annotated[LabelOperator, Lax]
    values: list[LabelValue] | None = None


class LabelSelector(TarsModel):
    """A Kubernetes label selector."""

    match_labels: dict[str, LabelValue] | None = None
    match_expressions: list[LabelSelectorRequirement] | None = None


class ClaimTemplateMeta(TarsModel):
    """Metadata of a persistentVolumeClaimTemplate: only labels and annotations are kept.

    ``name`` and ``namespace`` are accepted (the seed's example has them) and ignored: the mount
    name names the claim.
    """

    name: str | None = None
    namespace: str | None = None
    labels: dict[str, LabelValue] | None = None
    annotations: dict[str, LabelValue] | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_null_creation_timestamp(cls, data: Any) -> Any:
        """``creationTimestamp: null``, what a Go client serializes for an unset time."""
        if (
            isinstance(data, dict)
            and "creationTimestamp" in data
            and data["creationTimestamp"] is None
        ):
            return {k: v for k, v in data.items() if k != "creationTimestamp"}
        return data


class ClaimSpec(TarsModel):
    """Spec of a persistentVolumeClaimTemplate (the fields the CRD declares)."""

    access_modes: Annotated[list[Annotated[AccessMode, Lax]], Field(min_length=1)]
    resources: ClaimResources
    volume_name: str | None = None
    storage_class_name: str | None = None
    volume_mode: Annotated[VolumeMode | None, Lax] = None
    selector: LabelSelector | None = None


class ClaimTemplate(TarsModel):
    """``persistentVolumeClaimTemplate``: becomes a StatefulSet volumeClaimTemplate.

    ``kind``, ``apiVersion`` and an empty ``status``, which a Go client writes for a
    PersistentVolumeClaim value, are accepted and ignored: the CRD does not declare them, so
    the API server prunes them and v1.4.1 admits the server."""

    metadata: ClaimTemplateMeta | None = None
    spec: ClaimSpec

    @model_validator(mode="before")
    @classmethod
    def _drop_go_client_fields(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        pruned = {
            key
            for key in ("kind", "apiVersion", "status")
            if key in data and (isinstance(data[key], str) if key != "status" else data[key] == {})
        }
        return {k: v for k, v in data.items() if k not in pruned} if pruned else data


class TLocalVolumeSource(TarsModel):
    """``tLocalVolume``: a TarsK8S local volume on the node.

    Defaults: uid "0", gid "0", mode "755".
    """

    uid: Annotated[str, pattern(P_UID)] = "0"
    gid: Annotated[str, pattern(P_UID)] = "0"
    mode: str = "755"


class MountSource(ExactlyOneOf):
    """Where a mount's data comes from: exactly one source."""

    host_path: HostPathSource | None = None
    empty_dir: EmptyDirSource | None = None
    secret: SecretSource | None = None
    config_map: ConfigMapSource | None = None
    persistent_volume_claim: PersistentVolumeClaimSource | None = None
    persistent_volume_claim_template: ClaimTemplate | None = None
    t_local_volume: TLocalVolumeSource | None = Field(default=None, alias="tLocalVolume")

    @property
    def is_claim_template(self) -> bool:
        """True for sources that become volumeClaimTemplates (PVCT and TLocalVolume)."""
        return self.persistent_volume_claim_template is not None or self.t_local_volume is not None


class MountPropagation(str, Enum):
    """``mountPropagation`` of a volume mount."""

    NONE = "None"
    HOST_TO_CONTAINER = "HostToContainer"
    BIDIRECTIONAL = "Bidirectional"


class Mount(TarsModel):
    """One entry of ``spec.k8s.mounts``: a volume and where the main container mounts it."""

    name: Annotated[str, pattern(P_ALNUM_DASH, 63)]
    source: MountSource
    mount_path: str
    read_only: bool = False
    sub_path: str | None = None
    sub_path_expr: str | None = None
    mount_propagation: Annotated[MountPropagation | None, Lax] = None
