"""Section shapes as TypedDicts (``...ArgsDict``, as pulumi-kubernetes generates
them), camelCase keys as in YAML. Generated from the pydantic models by
``tools/gen_argsdicts.py``; do not edit.

Type checkers refuse a misspelled key, a missing required key (``Required``: a servant
without ``port``) and a value outside an enum (``Literal``: ``abilityAffinity: "Sometimes"``).
In the TServer sections every leaf is a ``pulumi.Input`` (an enum: one of its values or an
``Output[str]``), and so is every nested shape, but ``k8s.daemonSet``, which decides which
resources exist. At run time the models check plain values; a placed Output (release image,
env value, quantity) is placed as it is, any other Output makes the TServer expand its
document once the values are known; the validation resource checks every value once it is
known. The shapes of the other kinds (``TFrameworkConfigArgsDict`` and, for a v1beta2
document, ``TFrameworkConfigV1beta2ArgsDict``, TImage releases, the TTree, TAccount
authorizations) take plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypedDict

import pulumi
from typing_extensions import Required

SubTypeValue = Literal[
    "tars",
    "normal",
]
"""The values of :class:`~tars_components.models.SubType`."""


ImageTypeValue = Literal[
    "base",
    "server",
    "node",
]
"""The values of :class:`~tars_components.models.ImageType`."""


AbilityAffinityValue = Literal[
    "AppRequired",
    "ServerRequired",
    "AppOrServerPreferred",
    "None",
]
"""The values of :class:`~tars_components.models.AbilityAffinity`."""


PodManagementPolicyValue = Literal[
    "OrderedReady",
    "Parallel",
]
"""The values of :class:`~tars_components.models.PodManagementPolicy`."""


ImagePullPolicyValue = Literal[
    "Always",
    "Never",
    "IfNotPresent",
]
"""The values of :class:`~tars_components.models.ImagePullPolicy`."""


LauncherTypeValue = Literal[
    "foreground",
    "background",
]
"""The values of :class:`~tars_components.models.LauncherType`."""


MountPropagationValue = Literal[
    "None",
    "HostToContainer",
    "Bidirectional",
]
"""The values of :class:`~tars_components.models.MountPropagation`."""


SelectorOperatorValue = Literal[
    "In",
    "NotIn",
    "Exists",
    "DoesNotExist",
    "Gt",
    "Lt",
]
"""The values of :class:`~tars_components.models.SelectorOperator`."""


UpdateStrategyTypeValue = Literal[
    "RollingUpdate",
    "OnDelete",
]
"""The values of :class:`~tars_components.models.UpdateStrategyType`."""


HostPathTypeValue = Literal[
    "",
    "DirectoryOrCreate",
    "Directory",
    "FileOrCreate",
    "File",
    "Socket",
    "CharDevice",
    "BlockDevice",
]
"""The values of :class:`~tars_components.models.HostPathType`."""


StorageMediumValue = Literal[
    "",
    "Memory",
]
"""The values of :class:`~tars_components.models.StorageMedium`."""


AccessModeValue = Literal[
    "ReadWriteOnce",
    "ReadOnlyMany",
    "ReadWriteMany",
]
"""The values of :class:`~tars_components.models.AccessMode`."""


VolumeModeValue = Literal[
    "Block",
    "Filesystem",
]
"""The values of :class:`~tars_components.models.VolumeMode`."""


LabelOperatorValue = Literal[
    "In",
    "NotIn",
    "Exists",
    "DoesNotExist",
]
"""The values of :class:`~tars_components.models.LabelOperator`."""


RoleValue = Literal[
    "admin",
    "operator",
    "developer",
]
"""The values of :class:`~tars_components.models.Role`."""


class TarsSpecArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TarsSpec` as a mapping."""

    template: Required[pulumi.Input[str]]
    profile: pulumi.Input[str]
    asyncThread: pulumi.Input[int]
    servants: Sequence[pulumi.Input[ServantArgsDict]]
    ports: Sequence[pulumi.Input[ServerPortArgsDict]]


class NormalSpecArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.NormalSpec` as a mapping."""

    ports: Sequence[pulumi.Input[ServerPortArgsDict]]


class K8sSpecArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.K8sSpec` as a mapping."""

    serviceAccount: pulumi.Input[str]
    env: Sequence[pulumi.Input[EnvVarArgsDict]]
    envFrom: Sequence[pulumi.Input[EnvFromSourceArgsDict]]
    hostIPC: pulumi.Input[bool]
    hostNetwork: pulumi.Input[bool]
    hostPorts: Sequence[pulumi.Input[HostPortArgsDict]]
    mounts: Sequence[pulumi.Input[MountArgsDict]]
    daemonSet: bool
    nodeSelector: Sequence[pulumi.Input[NodeSelectorRequirementArgsDict]]
    abilityAffinity: AbilityAffinityValue | pulumi.Output[str]
    notStacked: pulumi.Input[bool]
    podManagementPolicy: PodManagementPolicyValue | pulumi.Output[str]
    replicas: pulumi.Input[int]
    readinessGate: pulumi.Input[str]
    readinessGates: Sequence[pulumi.Input[str]]
    command: Sequence[pulumi.Input[str]]
    args: Sequence[pulumi.Input[str]]
    resources: pulumi.Input[ResourcesArgsDict]
    updateStrategy: pulumi.Input[UpdateStrategyArgsDict]
    imagePullPolicy: ImagePullPolicyValue | pulumi.Output[str]
    launcherType: LauncherTypeValue | pulumi.Output[str]


class ReleaseArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Release` as a mapping."""

    id: Required[pulumi.Input[str]]
    image: Required[pulumi.Input[str]]
    secret: pulumi.Input[str]
    time: pulumi.Input[str]
    nodeImage: pulumi.Input[str]
    nodeSecret: pulumi.Input[str]


class ServantArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Servant` as a mapping."""

    name: Required[pulumi.Input[str]]
    port: Required[pulumi.Input[int]]
    thread: pulumi.Input[int]
    connection: pulumi.Input[int]
    capacity: pulumi.Input[int]
    timeout: pulumi.Input[int]
    isTars: pulumi.Input[bool]
    isTcp: pulumi.Input[bool]


class ServerPortArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ServerPort` as a mapping."""

    name: Required[pulumi.Input[str]]
    port: Required[pulumi.Input[int]]
    isTcp: pulumi.Input[bool]


class EnvVarArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvVar` as a mapping."""

    name: Required[pulumi.Input[str]]
    value: pulumi.Input[str]
    valueFrom: pulumi.Input[EnvVarSourceArgsDict]


class EnvFromSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvFromSource` as a mapping."""

    prefix: pulumi.Input[str]
    configMapRef: pulumi.Input[EnvFromRefArgsDict]
    secretRef: pulumi.Input[EnvFromRefArgsDict]


class HostPortArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.HostPort` as a mapping."""

    nameRef: Required[pulumi.Input[str]]
    port: Required[pulumi.Input[int]]


class MountArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Mount` as a mapping."""

    name: Required[pulumi.Input[str]]
    source: Required[pulumi.Input[MountSourceArgsDict]]
    mountPath: Required[pulumi.Input[str]]
    readOnly: pulumi.Input[bool]
    subPath: pulumi.Input[str]
    subPathExpr: pulumi.Input[str]
    mountPropagation: MountPropagationValue | pulumi.Output[str]


class NodeSelectorRequirementArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.NodeSelectorRequirement` as a mapping."""

    key: Required[pulumi.Input[str]]
    operator: Required[SelectorOperatorValue | pulumi.Output[str]]
    values: Sequence[pulumi.Input[str]]


class ResourcesArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Resources` as a mapping."""

    requests: pulumi.Input[ResourceListArgsDict]
    limits: pulumi.Input[ResourceListArgsDict]


class UpdateStrategyArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.UpdateStrategy` as a mapping."""

    type: UpdateStrategyTypeValue | pulumi.Output[str]
    rollingUpdate: pulumi.Input[RollingUpdateArgsDict]


class EnvVarSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvVarSource` as a mapping."""

    fieldRef: pulumi.Input[ObjectFieldSelectorArgsDict]
    resourceFieldRef: pulumi.Input[ResourceFieldSelectorArgsDict]
    configMapKeyRef: pulumi.Input[KeySelectorArgsDict]
    secretKeyRef: pulumi.Input[KeySelectorArgsDict]


class EnvFromRefArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvFromRef` as a mapping."""

    name: Required[pulumi.Input[str]]
    optional: pulumi.Input[bool]


class MountSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.MountSource` as a mapping."""

    hostPath: pulumi.Input[HostPathSourceArgsDict]
    emptyDir: pulumi.Input[EmptyDirSourceArgsDict]
    secret: pulumi.Input[SecretSourceArgsDict]
    configMap: pulumi.Input[ConfigMapSourceArgsDict]
    persistentVolumeClaim: pulumi.Input[PersistentVolumeClaimSourceArgsDict]
    persistentVolumeClaimTemplate: pulumi.Input[ClaimTemplateArgsDict]
    tLocalVolume: pulumi.Input[TLocalVolumeSourceArgsDict]


class ResourceListArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ResourceList` as a mapping."""

    cpu: pulumi.Input[str]
    memory: pulumi.Input[str]


class RollingUpdateArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.RollingUpdate` as a mapping."""

    partition: pulumi.Input[int]


class ObjectFieldSelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ObjectFieldSelector` as a mapping."""

    apiVersion: pulumi.Input[str]
    fieldPath: Required[pulumi.Input[str]]


class ResourceFieldSelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ResourceFieldSelector` as a mapping."""

    containerName: pulumi.Input[str]
    resource: Required[pulumi.Input[str]]
    divisor: pulumi.Input[str]


class KeySelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.KeySelector` as a mapping."""

    name: Required[pulumi.Input[str]]
    key: Required[pulumi.Input[str]]
    optional: pulumi.Input[bool]


class HostPathSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.HostPathSource` as a mapping."""

    path: Required[pulumi.Input[str]]
    type: Required[HostPathTypeValue | pulumi.Output[str]]


class EmptyDirSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EmptyDirSource` as a mapping."""

    medium: StorageMediumValue | pulumi.Output[str]
    sizeLimit: pulumi.Input[str]


class SecretSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.SecretSource` as a mapping."""

    secretName: Required[pulumi.Input[str]]
    items: Sequence[pulumi.Input[KeyToPathArgsDict]]
    defaultMode: pulumi.Input[int]
    optional: pulumi.Input[bool]


class ConfigMapSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ConfigMapSource` as a mapping."""

    name: Required[pulumi.Input[str]]
    items: Sequence[pulumi.Input[KeyToPathArgsDict]]
    defaultMode: pulumi.Input[int]
    optional: pulumi.Input[bool]


class PersistentVolumeClaimSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.PersistentVolumeClaimSource` as a mapping."""

    claimName: Required[pulumi.Input[str]]
    readOnly: pulumi.Input[bool]


class ClaimTemplateArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimTemplate` as a mapping."""

    metadata: pulumi.Input[ClaimTemplateMetaArgsDict]
    spec: Required[pulumi.Input[ClaimSpecArgsDict]]


class TLocalVolumeSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TLocalVolumeSource` as a mapping."""

    uid: pulumi.Input[str]
    gid: pulumi.Input[str]
    mode: pulumi.Input[str]


class KeyToPathArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.KeyToPath` as a mapping."""

    key: Required[pulumi.Input[str]]
    path: Required[pulumi.Input[str]]
    mode: pulumi.Input[int]


class ClaimTemplateMetaArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimTemplateMeta` as a mapping."""

    name: pulumi.Input[str]
    namespace: pulumi.Input[str]
    labels: Mapping[str, pulumi.Input[str]]
    annotations: Mapping[str, pulumi.Input[str]]


class ClaimSpecArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimSpec` as a mapping."""

    accessModes: Required[Sequence[AccessModeValue | pulumi.Output[str]]]
    resources: Required[pulumi.Input[ClaimResourcesArgsDict]]
    volumeName: pulumi.Input[str]
    storageClassName: pulumi.Input[str]
    volumeMode: VolumeModeValue | pulumi.Output[str]
    selector: pulumi.Input[LabelSelectorArgsDict]


class ClaimResourcesArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimResources` as a mapping."""

    requests: Required[pulumi.Input[StorageRequestArgsDict]]
    limits: pulumi.Input[StorageLimitArgsDict]


class LabelSelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.LabelSelector` as a mapping."""

    matchLabels: Mapping[str, pulumi.Input[str]]
    matchExpressions: Sequence[pulumi.Input[LabelSelectorRequirementArgsDict]]


class StorageRequestArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.StorageRequest` as a mapping."""

    storage: Required[pulumi.Input[str]]


class StorageLimitArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.StorageLimit` as a mapping."""

    storage: Required[pulumi.Input[str]]


class LabelSelectorRequirementArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.LabelSelectorRequirement` as a mapping."""

    key: Required[pulumi.Input[str]]
    operator: Required[LabelOperatorValue | pulumi.Output[str]]
    values: Sequence[pulumi.Input[str]]


class TFrameworkConfigArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TFrameworkConfigDocument` as
    the fields of a ``k8s.tars.io/v1beta3`` document."""

    imageBuild: Required[ImageBuildV1beta3ArgsDict]
    imageUpload: Required[RegistryRefArgsDict]
    recordLimit: RecordLimitArgsDict
    nodeImage: Required[ImageRefArgsDict]
    upChain: Mapping[str, Sequence[UpChainEndpointArgsDict]]
    expand: Mapping[str, pulumi.Input[str]]


class ImageBuildV1beta3ArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ImageBuild` as
    ``imageBuild`` of a ``k8s.tars.io/v1beta3`` document."""

    maxBuildTime: int
    idFormat: str
    executor: Required[ExecutorRefArgsDict]


class TFrameworkConfigV1beta2ArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TFrameworkConfigDocument` as
    the fields of a ``k8s.tars.io/v1beta2`` document."""

    imageBuild: ImageBuildV1beta2ArgsDict
    imageRegistry: Required[RegistryRefArgsDict]
    recordLimit: RecordLimitArgsDict
    nodeImage: Required[ImageRefArgsDict]
    upChain: Mapping[str, Sequence[UpChainEndpointArgsDict]]
    expand: Mapping[str, pulumi.Input[str]]


class ImageBuildV1beta2ArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ImageBuild` as
    ``imageBuild`` of a ``k8s.tars.io/v1beta2`` document."""

    maxBuildTime: int
    idFormat: str


class ImageReleaseArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ImageRelease` as a mapping."""

    id: Required[str]
    image: Required[str]
    secret: str
    createPerson: str
    createTime: str
    mark: str


class BusinessArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Business` as a mapping."""

    name: Required[str]
    show: Required[str]
    weight: int
    createTime: str
    createPerson: str
    mark: str


class TreeAppArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TreeApp` as a mapping."""

    name: Required[str]
    businessRef: Required[str]
    createTime: str
    createPerson: str
    mark: str


class AuthorizationArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Authorization` as a mapping."""

    role: Required[RoleValue]
    flag: Required[str]
    updateTime: str


class ExecutorRefArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ExecutorRef` as a mapping."""

    image: Required[str]
    secret: str


class RegistryRefArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.RegistryRef` as a mapping."""

    registry: Required[str]
    secret: str


class RecordLimitArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.RecordLimit` as a mapping."""

    texitedPod: int
    tconfigHistory: int
    timageRelease: int


class ImageRefArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ImageRef` as a mapping."""

    image: Required[str]
    secret: str


class UpChainEndpointArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.UpChainEndpoint` as a mapping."""

    host: Required[str]
    port: Required[int]
    timeout: int
    isTcp: bool


__all__ = [
    "AbilityAffinityValue",
    "AccessModeValue",
    "AuthorizationArgsDict",
    "BusinessArgsDict",
    "ClaimResourcesArgsDict",
    "ClaimSpecArgsDict",
    "ClaimTemplateArgsDict",
    "ClaimTemplateMetaArgsDict",
    "ConfigMapSourceArgsDict",
    "EmptyDirSourceArgsDict",
    "EnvFromRefArgsDict",
    "EnvFromSourceArgsDict",
    "EnvVarArgsDict",
    "EnvVarSourceArgsDict",
    "ExecutorRefArgsDict",
    "HostPathSourceArgsDict",
    "HostPathTypeValue",
    "HostPortArgsDict",
    "ImageBuildV1beta2ArgsDict",
    "ImageBuildV1beta3ArgsDict",
    "ImagePullPolicyValue",
    "ImageRefArgsDict",
    "ImageReleaseArgsDict",
    "ImageTypeValue",
    "K8sSpecArgsDict",
    "KeySelectorArgsDict",
    "KeyToPathArgsDict",
    "LabelOperatorValue",
    "LabelSelectorArgsDict",
    "LabelSelectorRequirementArgsDict",
    "LauncherTypeValue",
    "MountArgsDict",
    "MountPropagationValue",
    "MountSourceArgsDict",
    "NodeSelectorRequirementArgsDict",
    "NormalSpecArgsDict",
    "ObjectFieldSelectorArgsDict",
    "PersistentVolumeClaimSourceArgsDict",
    "PodManagementPolicyValue",
    "RecordLimitArgsDict",
    "RegistryRefArgsDict",
    "ReleaseArgsDict",
    "ResourceFieldSelectorArgsDict",
    "ResourceListArgsDict",
    "ResourcesArgsDict",
    "RoleValue",
    "RollingUpdateArgsDict",
    "SecretSourceArgsDict",
    "SelectorOperatorValue",
    "ServantArgsDict",
    "ServerPortArgsDict",
    "StorageLimitArgsDict",
    "StorageMediumValue",
    "StorageRequestArgsDict",
    "SubTypeValue",
    "TFrameworkConfigArgsDict",
    "TFrameworkConfigV1beta2ArgsDict",
    "TLocalVolumeSourceArgsDict",
    "TarsSpecArgsDict",
    "TreeAppArgsDict",
    "UpChainEndpointArgsDict",
    "UpdateStrategyArgsDict",
    "UpdateStrategyTypeValue",
    "VolumeModeValue",
]
