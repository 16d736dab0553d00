"""``tars:index:TTemplate``: a Tars config template of a framework."""

from __future__ import annotations

from typing import Any

import pulumi

from ..expansion import crd_document
from ..options import Mode
from .args import TTemplateArgs
from .framework import TFramework
from .kube import child_name, kubernetes_resource, object_id
from .validation import retain_on_delete, validation_resource, with_framework_parent


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

    def __init__(
        self, name: str, args: TTemplateArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        framework: TFramework = args.framework
        super().__init__("tars:index:TTemplate", name, None, with_framework_parent(opts, framework))
        self.document = framework.register(args.to_document(framework.options.namespace))
        """The TTemplate document as given (before mutation)."""
        self.validation = validation_resource(
            f"{name}-validation", self.document, framework, self, opts
        )
        """The validation resource every object of this template depends on."""
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The template's Kubernetes resources by kind (the TTemplate in crd mode)."""

        retain = retain_on_delete(opts, framework.retain_on_delete)
        manifests: list[dict[str, Any]] = []
        if framework.options.mode == Mode.CRD:
            document = crd_document(self.document, None, framework.options)
            manifests.append(document)
            self.resources[document["kind"]] = kubernetes_resource(
                child_name(name, document),
                document,
                pulumi.ResourceOptions(
                    parent=self, depends_on=[self.validation], retain_on_delete=retain
                ),
            )

        self.template_name = pulumi.Output.from_input(self.document.name)
        self.parent_template = pulumi.Output.from_input(self.document.spec.parent)
        self.parent_chain = pulumi.Output.from_input(framework.parent_chain(self.document.name))
        self.objects = pulumi.Output.from_input([object_id(m) for m in manifests])
        self.manifests = pulumi.Output.from_input(manifests)
        self.register_outputs(
            {
                "templateName": self.template_name,
                "parentTemplate": self.parent_template,
                "parentChain": self.parent_chain,
                "objects": self.objects,
                "manifests": self.manifests,
            }
        )


__all__ = ["TTemplate"]
