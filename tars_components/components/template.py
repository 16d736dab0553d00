"""``tars:index:TTemplate``: a Tars config template of a framework."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, overload

import pulumi

from ..expansion import crd_document
from ..models import TTemplate as TTemplateDocument
from ..options import Mode
from .args import TTemplateArgs, split_args
from .failure import refusing
from .kube import child_name, kubernetes_resource, object_id
from .outputs import deferred_leaves, known, lift
from .placement import place
from .scope import HasScope
from .validation import retain_on_delete, validation_resource


class TTemplate(pulumi.ComponentResource):
    """A TTemplate: validated by the admission rules (TT001, TT002, TT004, TT006) before
    anything is applied.

    In expand mode a template produces no Kubernetes object (it feeds the rules and the parent
    chain); in crd mode the mutated TTemplate is applied as a custom resource that depends on
    the validation.

    Outputs: ``template_name``, ``parent_template``, ``parent_chain`` (the template, its parent,
    … up to the root, as tarsregistry merges them), ``objects`` and ``manifests``.
    """

    template_name: pulumi.Output[str]
    """``metadata.name`` of the template."""
    parent_template: pulumi.Output[str]
    """``spec.parent``: the parent template's name (the template's own for a root)."""
    parent_chain: pulumi.Output[list[str]]
    """The template and its ancestors up to the root, among the templates the framework knows
    when this one is declared."""
    objects: pulumi.Output[list[str]]
    """The applied objects (``apiVersion/kind:namespace/name``); empty in expand mode."""
    manifests: pulumi.Output[list[dict[str, Any]]]
    """The applied objects; empty in expand mode."""

    @overload
    def __init__(
        self, resource_name: str, args: TTemplateArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TTemplateDocument | None = None,
        template_name: str | None = None,
        content: str | None = None,
        parent: str | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TTemplate(name, TTemplateArgs(...), opts)`` or ``TTemplate(name, opts,
        framework=..., template_name=..., ...)`` with the fields of :class:`TTemplateArgs`."""
        template_args, opts = split_args(TTemplateArgs, "TTemplate", args, kwargs)
        with refusing(f"TTemplate {resource_name!r}"):
            self._declare(resource_name, template_args, opts)

    def _declare(self, name: str, args: TTemplateArgs, opts: pulumi.ResourceOptions | None) -> None:
        scope = args.framework.scope
        declared = args.to_document(scope.namespace)
        opts, provider = place(opts, scope.resource, f"TTemplate {name!r}")
        super().__init__("tars:index:TTemplate", name, None, opts)
        self.document = declared
        """The TTemplate document as given (before mutation)."""
        position = scope.register(self.document)
        raw = self.document.to_dict()
        leaves = deferred_leaves(raw)
        self.validation = validation_resource(
            f"{name}-validation", self.document, position, raw, leaves, scope, self, opts
        )
        """The validation resource every object of this template depends on."""
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The template's Kubernetes resources by kind (the TTemplate in crd mode)."""

        retain = retain_on_delete(opts, scope.retain_on_delete)
        manifests: list[dict[str, Any]] = []
        if scope.options.mode == Mode.CRD:
            document = crd_document(self.document, None, scope.options)
            manifests.append(document)
            self.resources[document["kind"]] = kubernetes_resource(
                child_name(name, document),
                document,
                pulumi.ResourceOptions(
                    parent=self,
                    provider=provider,
                    depends_on=[self.validation],
                    retain_on_delete=retain,
                ),
            )

        self.template_name = known(self.document.name)
        self.parent_template = known(self.document.spec.parent)
        self.parent_chain = known(scope.parent_chain(self.document.name))
        self.objects = known([object_id(m) for m in manifests])
        self.manifests = lift(manifests)
        self.register_outputs(
            {
                "templateName": self.template_name,
                "parentTemplate": self.parent_template,
                "parentChain": self.parent_chain,
                "objects": self.objects,
            }
        )


__all__ = ["TTemplate"]
