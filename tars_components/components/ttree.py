"""``tars:index:TTree``: the business tree (``tars-tree``) TarsWeb shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import pulumi

from ..models import TTree as TTreeDocument
from .args import TTreeArgs, split_args
from .document import DocumentComponent
from .failure import refusing
from .scope import HasScope
from .shapes import BusinessArgsDict, TreeAppArgsDict


class TTree(DocumentComponent):
    """The TTree (``tars-tree``): the business tree TarsWeb shows, validated by the rules
    TR* and, in crd mode, applied as a custom resource. Outputs: ``object_name``,
    ``namespace``, ``objects``, ``manifests``, ``mutated``."""

    @overload
    def __init__(
        self, resource_name: str, args: TTreeArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TTreeDocument | None = None,
        businesses: Sequence[BusinessArgsDict] | None = None,
        apps: Sequence[TreeAppArgsDict] | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TTree(name, TTreeArgs(...), opts)`` or ``TTree(name, opts, framework=...,
        businesses=[...], apps=[...])``."""
        tree_args, opts = split_args(TTreeArgs, "TTree", args, kwargs)
        with refusing(f"TTree {resource_name!r}"):
            scope = tree_args.framework.scope
            self.document: TTreeDocument = tree_args.to_document(scope.namespace)
            """The TTree document as given."""
            self._declare_document(
                "tars:index:TTree", resource_name, self.document, tree_args.framework, opts
            )


__all__ = ["TTree"]
