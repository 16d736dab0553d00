"""Typed TarsK8S documents (pydantic v2), with camelCase aliases and the CRD defaults."""

from typing import TYPE_CHECKING

from ..kernel.deprecation import renamed_attributes
from .base import TarsModel, is_deferred

# Wave 2: the rest of a TarsK8S namespace.
from .credential import SecretRef
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
from .taccount import (
    Authentication,
    Authorization,
    Role,
    TAccountDocument,
    TAccountSpec,
    Token,
)
from .tconfig import MASTER, TConfigDocument
from .tframework import (
    FRAMEWORK_CONFIG_NAME,
    ExecutorRef,
    ImageRef,
    RegistryRef,
    TFrameworkConfigDocument,
)
from .timage import ImageRelease, ImageType, ServerType, TImageDocument
from .tserver import (
    RESERVED_PORT,
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
    TServerDocument,
    TServerSpec,
    UpdateStrategy,
    UpdateStrategyType,
)
from .ttemplate import TTemplateDocument, TTemplateSpec
from .ttree import TREE_NAME, Business, TreeApp, TTreeDocument
from .vocabulary import TARS_ACTIVE_GATE

KINDS: dict[str, type[Document]] = {
    cls.KIND: cls
    for cls in (
        TServerDocument,
        TTemplateDocument,
        TFrameworkConfigDocument,
        TConfigDocument,
        TImageDocument,
        TTreeDocument,
        TAccountDocument,
    )
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
    "TAccountDocument",
    "TAccountSpec",
    "TConfigDocument",
    "TFrameworkConfigDocument",
    "TImageDocument",
    "TServerDocument",
    "TServerSpec",
    "TTemplateDocument",
    "TTemplateSpec",
    "TTreeDocument",
    "TarsModel",
    "TarsSpec",
    "Token",
    "TreeApp",
    "UpdateStrategy",
    "UpdateStrategyType",
    "is_deferred",
]

_RENAMED = {
    "TAccount": "TAccountDocument",
    "TConfig": "TConfigDocument",
    "TFrameworkConfig": "TFrameworkConfigDocument",
    "TImage": "TImageDocument",
    "TServer": "TServerDocument",
    "TTemplate": "TTemplateDocument",
    "TTree": "TTreeDocument",
}
"""Old names of the document classes (before 0.2): deprecated, removed in the next minor version."""

if not TYPE_CHECKING:
    __getattr__ = renamed_attributes(__name__, _RENAMED, globals())
