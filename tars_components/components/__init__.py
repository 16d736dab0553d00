"""Pulumi components: ``TFramework``, ``TTemplate`` and ``TServer`` (type tokens
``tars:index:TFramework`` etc.), a thin layer over the pure core.

A component turns the expansion (or, in crd mode, the mutated documents) into
``pulumi_kubernetes`` resources and adds one validation resource per document; it never
re-implements a mapping rule. :func:`components_from_stack` declares a whole loaded stack
directory; :mod:`.testing` runs a program under Pulumi's mocks and records what it registers.
"""

from .args import TFrameworkArgs, TServerArgs, TTemplateArgs
from .framework import TFramework
from .from_stack import StackComponents, components_from_stack
from .server import TServer
from .shapes import (
    K8sSpecArgsDict,
    NormalSpecArgsDict,
    ReleaseArgsDict,
    ServantArgsDict,
    TarsSpecArgsDict,
)
from .template import TTemplate

__all__ = [
    "K8sSpecArgsDict",
    "NormalSpecArgsDict",
    "ReleaseArgsDict",
    "ServantArgsDict",
    "StackComponents",
    "TFramework",
    "TFrameworkArgs",
    "TServer",
    "TServerArgs",
    "TTemplate",
    "TTemplateArgs",
    "TarsSpecArgsDict",
    "components_from_stack",
]
