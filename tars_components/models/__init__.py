"""Typed TarsK8S documents (pydantic v2), with camelCase aliases and the CRD defaults."""

from .base import TarsModel, is_deferred
from .document import API_VERSIONS, GROUP, V1BETA2, V1BETA3, Document, ObjectMeta, Source
from .kube import (
    ClaimTemplate,
    EnvFromSource,
    EnvVar,
    Mount,
    MountSource,
    NodeSelectorRequirement,
    Resources,
)

# Wave 2: the rest of a TarsK8S namespace.
from .taccount import (
    Authentication,
    Authorization,
    Role,
    SecretRef,
    TAccount,
    TAccountSpec,
    Token,
)
from .tconfig import MASTER, TConfig
from .tframework import (
    FRAMEWORK_CONFIG_NAME,
    ExecutorRef,
    ImageRef,
    RegistryRef,
    TFrameworkConfig,
)
from .timage import ImageRelease, ImageType, ServerType, TImage
from .tserver import (
    RESERVED_PORT,
    TARS_ACTIVE_GATE,
    AbilityAffinity,
    HostPort,
    ImagePullPolicy,
    K8sSpec,
    LauncherType,
    NormalSpec,
    PodManagementPolicy,
    Release,
    Servant,
    ServerPort,
    SubType,
    TarsSpec,
    TServer,
    TServerSpec,
    UpdateStrategy,
    UpdateStrategyType,
)
from .ttemplate import TTemplate, TTemplateSpec
from .ttree import TREE_NAME, Business, TreeApp, TTree

KINDS: dict[str, type[Document]] = {
    cls.KIND: cls
    for cls in (TServer, TTemplate, TFrameworkConfig, TConfig, TImage, TTree, TAccount)
}
CONTROLLER_KINDS = ("TEndpoint", "TExitedRecord")
"""Kinds only the TarsK8S controller writes: skipped with a warning when loaded."""
UNTYPED_TARS_KINDS = ("TFrameworkKey", "TPlugin")
"""TarsK8S kinds without a webhook or a model here (written by TarsWeb): passed through."""

__all__ = [
    "API_VERSIONS",
    "CONTROLLER_KINDS",
    "FRAMEWORK_CONFIG_NAME",
    "GROUP",
    "KINDS",
    "MASTER",
    "RESERVED_PORT",
    "TARS_ACTIVE_GATE",
    "TREE_NAME",
    "UNTYPED_TARS_KINDS",
    "V1BETA2",
    "V1BETA3",
    "AbilityAffinity",
    "Authentication",
    "Authorization",
    "Business",
    "ClaimTemplate",
    "Document",
    "EnvFromSource",
    "EnvVar",
    "ExecutorRef",
    "HostPort",
    "ImagePullPolicy",
    "ImageRef",
    "ImageRelease",
    "ImageType",
    "K8sSpec",
    "LauncherType",
    "Mount",
    "MountSource",
    "NodeSelectorRequirement",
    "NormalSpec",
    "ObjectMeta",
    "PodManagementPolicy",
    "RegistryRef",
    "Release",
    "Resources",
    "Role",
    "SecretRef",
    "Servant",
    "ServerPort",
    "ServerType",
    "Source",
    "SubType",
    "TAccount",
    "TAccountSpec",
    "TConfig",
    "TFrameworkConfig",
    "TImage",
    "TServer",
    "TServerSpec",
    "TTemplate",
    "TTemplateSpec",
    "TTree",
    "TarsModel",
    "TarsSpec",
    "Token",
    "TreeApp",
    "UpdateStrategy",
    "UpdateStrategyType",
    "is_deferred",
]
