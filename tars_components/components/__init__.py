"""Pulumi components: ``TFramework``, ``TTemplate``, ``TServer``, ``TConfig``, ``TImage``,
``TTree`` and ``TAccount`` (type tokens ``tars:index:TFramework`` etc.), a thin layer over
the pure core.

A component turns the expansion (or, in crd mode, the mutated documents) into
``pulumi_kubernetes`` resources and adds one validation resource per document; it never
re-implements a mapping rule. :func:`components_from_stack` declares a whole loaded stack
directory; :class:`PlatformStack` reads another stack of the project's program (its
framework's namespace and templates, for a program of one's own); :mod:`.testing` runs a
program under Pulumi's mocks and records what it registers.

One module per component, named after its kind (:mod:`.framework`, :mod:`.template`,
:mod:`.server`, :mod:`.tconfig`, :mod:`.timage`, :mod:`.ttree`, :mod:`.taccount`), its
arguments dataclass in the module of the same name under :mod:`.args`.
"""

from .args import (
    TAccountArgs,
    TConfigArgs,
    TFrameworkArgs,
    TImageArgs,
    TServerArgs,
    TTemplateArgs,
    TTreeArgs,
)
from .autoscaler import TServerAutoscaler
from .failure import ComponentError
from .framework import TFramework
from .from_stack import StackComponents, components_from_stack, config_secrets
from .plain import KubernetesObject
from .platform_stack import PlatformStack
from .release import TServerRelease
from .server import TServer
from .shapes import (
    AuthorizationArgsDict,
    BusinessArgsDict,
    ImageReleaseArgsDict,
    K8sSpecArgsDict,
    NormalSpecArgsDict,
    ReleaseArgsDict,
    ServantArgsDict,
    TarsSpecArgsDict,
    TFrameworkConfigArgsDict,
    TFrameworkConfigV1beta2ArgsDict,
    TreeAppArgsDict,
)
from .taccount import TAccount
from .tconfig import TConfig
from .template import TTemplate
from .timage import TImage
from .ttree import TTree

__all__ = [
    "AuthorizationArgsDict",
    "BusinessArgsDict",
    "ComponentError",
    "ImageReleaseArgsDict",
    "K8sSpecArgsDict",
    "KubernetesObject",
    "NormalSpecArgsDict",
    "PlatformStack",
    "ReleaseArgsDict",
    "ServantArgsDict",
    "StackComponents",
    "TAccount",
    "TAccountArgs",
    "TConfig",
    "TConfigArgs",
    "TFramework",
    "TFrameworkArgs",
    "TFrameworkConfigArgsDict",
    "TFrameworkConfigV1beta2ArgsDict",
    "TImage",
    "TImageArgs",
    "TServer",
    "TServerArgs",
    "TServerAutoscaler",
    "TServerRelease",
    "TTemplate",
    "TTemplateArgs",
    "TTree",
    "TTreeArgs",
    "TarsSpecArgsDict",
    "TreeAppArgsDict",
    "components_from_stack",
    "config_secrets",
]
