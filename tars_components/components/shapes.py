"""Section shapes as TypedDicts (``...ArgsDict``, as pulumi-kubernetes generates
them): camelCase keys as in YAML, every leaf a ``pulumi.Input``, and so is every nested shape
and list item. Generated from the pydantic models by ``tools/gen_argsdicts.py``; do not edit.
Type checkers then refuse a misspelled key. At run time the models check plain values; a
placed Output (release image, env value, quantity) is placed as it is, any other Output makes
the TServer expand its document once the values are known; the validation resource checks
every value once it is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

import pulumi


class TarsSpecArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TarsSpec` as a mapping."""

    template: pulumi.Input[str]
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
    daemonSet: pulumi.Input[bool]
    nodeSelector: Sequence[pulumi.Input[NodeSelectorRequirementArgsDict]]
    abilityAffinity: pulumi.Input[str]
    notStacked: pulumi.Input[bool]
    podManagementPolicy: pulumi.Input[str]
    replicas: pulumi.Input[int]
    readinessGate: pulumi.Input[str]
    readinessGates: Sequence[pulumi.Input[str]]
    command: Sequence[pulumi.Input[str]]
    args: Sequence[pulumi.Input[str]]
    resources: pulumi.Input[ResourcesArgsDict]
    updateStrategy: pulumi.Input[UpdateStrategyArgsDict]
    imagePullPolicy: pulumi.Input[str]
    launcherType: pulumi.Input[str]


class ReleaseArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Release` as a mapping."""

    id: pulumi.Input[str]
    image: pulumi.Input[str]
    secret: pulumi.Input[str]
    time: pulumi.Input[str]
    nodeImage: pulumi.Input[str]
    nodeSecret: pulumi.Input[str]


class ServantArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Servant` as a mapping."""

    name: pulumi.Input[str]
    port: pulumi.Input[int]
    thread: pulumi.Input[int]
    connection: pulumi.Input[int]
    capacity: pulumi.Input[int]
    timeout: pulumi.Input[int]
    isTars: pulumi.Input[bool]
    isTcp: pulumi.Input[bool]


class ServerPortArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ServerPort` as a mapping."""

    name: pulumi.Input[str]
    port: pulumi.Input[int]
    isTcp: pulumi.Input[bool]


class EnvVarArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvVar` as a mapping."""

    name: pulumi.Input[str]
    value: pulumi.Input[str]
    valueFrom: pulumi.Input[EnvVarSourceArgsDict]


class EnvFromSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvFromSource` as a mapping."""

    prefix: pulumi.Input[str]
    configMapRef: pulumi.Input[EnvFromRefArgsDict]
    secretRef: pulumi.Input[EnvFromRefArgsDict]


class HostPortArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.HostPort` as a mapping."""

    nameRef: pulumi.Input[str]
    port: pulumi.Input[int]


class MountArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Mount` as a mapping."""

    name: pulumi.Input[str]
    source: pulumi.Input[MountSourceArgsDict]
    mountPath: pulumi.Input[str]
    readOnly: pulumi.Input[bool]
    subPath: pulumi.Input[str]
    subPathExpr: pulumi.Input[str]
    mountPropagation: pulumi.Input[str]


class NodeSelectorRequirementArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.NodeSelectorRequirement` as a mapping."""

    key: pulumi.Input[str]
    operator: pulumi.Input[str]
    values: Sequence[pulumi.Input[str]]


class ResourcesArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.Resources` as a mapping."""

    requests: pulumi.Input[ResourceListArgsDict]
    limits: pulumi.Input[ResourceListArgsDict]


class UpdateStrategyArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.UpdateStrategy` as a mapping."""

    type: pulumi.Input[str]
    rollingUpdate: pulumi.Input[RollingUpdateArgsDict]


class EnvVarSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvVarSource` as a mapping."""

    fieldRef: pulumi.Input[ObjectFieldSelectorArgsDict]
    resourceFieldRef: pulumi.Input[ResourceFieldSelectorArgsDict]
    configMapKeyRef: pulumi.Input[KeySelectorArgsDict]
    secretKeyRef: pulumi.Input[KeySelectorArgsDict]


class EnvFromRefArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EnvFromRef` as a mapping."""

    name: pulumi.Input[str]
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
    fieldPath: pulumi.Input[str]


class ResourceFieldSelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ResourceFieldSelector` as a mapping."""

    containerName: pulumi.Input[str]
    resource: pulumi.Input[str]
    divisor: pulumi.Input[str]


class KeySelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.KeySelector` as a mapping."""

    name: pulumi.Input[str]
    key: pulumi.Input[str]
    optional: pulumi.Input[bool]


class HostPathSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.HostPathSource` as a mapping."""

    path: pulumi.Input[str]
    type: pulumi.Input[str]


class EmptyDirSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.EmptyDirSource` as a mapping."""

    medium: pulumi.Input[str]
    sizeLimit: pulumi.Input[str]


class SecretSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.SecretSource` as a mapping."""

    secretName: pulumi.Input[str]
    items: Sequence[pulumi.Input[KeyToPathArgsDict]]
    defaultMode: pulumi.Input[int]
    optional: pulumi.Input[bool]


class ConfigMapSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ConfigMapSource` as a mapping."""

    name: pulumi.Input[str]
    items: Sequence[pulumi.Input[KeyToPathArgsDict]]
    defaultMode: pulumi.Input[int]
    optional: pulumi.Input[bool]


class PersistentVolumeClaimSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.PersistentVolumeClaimSource` as a mapping."""

    claimName: pulumi.Input[str]
    readOnly: pulumi.Input[bool]


class ClaimTemplateArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimTemplate` as a mapping."""

    metadata: pulumi.Input[ClaimTemplateMetaArgsDict]
    spec: pulumi.Input[ClaimSpecArgsDict]


class TLocalVolumeSourceArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.TLocalVolumeSource` as a mapping."""

    uid: pulumi.Input[str]
    gid: pulumi.Input[str]
    mode: pulumi.Input[str]


class KeyToPathArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.KeyToPath` as a mapping."""

    key: pulumi.Input[str]
    path: pulumi.Input[str]
    mode: pulumi.Input[int]


class ClaimTemplateMetaArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimTemplateMeta` as a mapping."""

    name: pulumi.Input[str]
    namespace: pulumi.Input[str]
    labels: Mapping[str, pulumi.Input[str]]
    annotations: Mapping[str, pulumi.Input[str]]


class ClaimSpecArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimSpec` as a mapping."""

    accessModes: Sequence[pulumi.Input[str]]
    resources: pulumi.Input[ClaimResourcesArgsDict]
    volumeName: pulumi.Input[str]
    storageClassName: pulumi.Input[str]
    volumeMode: pulumi.Input[str]
    selector: pulumi.Input[LabelSelectorArgsDict]


class ClaimResourcesArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.ClaimResources` as a mapping."""

    requests: pulumi.Input[StorageRequestArgsDict]
    limits: pulumi.Input[StorageLimitArgsDict]


class LabelSelectorArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.LabelSelector` as a mapping."""

    matchLabels: Mapping[str, pulumi.Input[str]]
    matchExpressions: Sequence[pulumi.Input[LabelSelectorRequirementArgsDict]]


class StorageRequestArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.StorageRequest` as a mapping."""

    storage: pulumi.Input[str]


class StorageLimitArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.StorageLimit` as a mapping."""

    storage: pulumi.Input[str]


class LabelSelectorRequirementArgsDict(TypedDict, total=False):
    """:class:`~tars_components.models.LabelSelectorRequirement` as a mapping."""

    key: pulumi.Input[str]
    operator: pulumi.Input[str]
    values: Sequence[pulumi.Input[str]]


__all__ = [
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
    "HostPathSourceArgsDict",
    "HostPortArgsDict",
    "K8sSpecArgsDict",
    "KeySelectorArgsDict",
    "KeyToPathArgsDict",
    "LabelSelectorArgsDict",
    "LabelSelectorRequirementArgsDict",
    "MountArgsDict",
    "MountSourceArgsDict",
    "NodeSelectorRequirementArgsDict",
    "NormalSpecArgsDict",
    "ObjectFieldSelectorArgsDict",
    "PersistentVolumeClaimSourceArgsDict",
    "ReleaseArgsDict",
    "ResourceFieldSelectorArgsDict",
    "ResourceListArgsDict",
    "ResourcesArgsDict",
    "RollingUpdateArgsDict",
    "SecretSourceArgsDict",
    "ServantArgsDict",
    "ServerPortArgsDict",
    "StorageLimitArgsDict",
    "StorageRequestArgsDict",
    "TLocalVolumeSourceArgsDict",
    "TarsSpecArgsDict",
    "UpdateStrategyArgsDict",
]
