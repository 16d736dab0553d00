"""``tars:index:TFramework``: one TarsK8S framework, i.e. one namespace, its ``tars-framework``
config and the options its servers are built with."""

from __future__ import annotations

from typing import Any

import pulumi

from ..expansion import crd_document
from ..models import Document, TFrameworkConfig
from ..models import TTemplate as TTemplateDocument
from ..options import Mode, Options
from ..provider import TarsValidation, stub_template
from ..stack import Stack
from .args import TFrameworkArgs, _in_namespace
from .kube import child_name, kubernetes_resource, object_id
from .validation import retain_on_delete, validation_resource


class TFramework(pulumi.ComponentResource):
    """A TarsK8S framework: the namespace that its TTemplates and TServers belong to.

    It holds what the servers of the namespace share: the ``tars-framework`` config (default
    tarsnode image), the output options, and the documents the rules look at across objects
    (templates and their parents, server names). TTemplates and TServers declared with it
    become its children unless their ``opts`` name another parent, so a Kubernetes provider
    given here reaches every object.

    The config, when given, gets its own validation resource. In crd mode it is applied as a
    ``TFrameworkConfig`` custom resource; in expand mode it produces no object (it only feeds
    defaults and rules).

    Outputs: ``namespace``, ``mode``, ``objects`` (``apiVersion/kind:namespace/name``) and
    ``manifests`` (the objects as applied).
    """

    namespace: pulumi.Output[str]
    """The framework's namespace."""
    mode: pulumi.Output[str]
    """``expand`` or ``crd``."""
    objects: pulumi.Output[list[str]]
    """The framework's own objects (the TFrameworkConfig in crd mode)."""
    manifests: pulumi.Output[list[dict[str, Any]]]
    """The framework's own objects, as applied."""

    def __init__(
        self, name: str, args: TFrameworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("tars:index:TFramework", name, None, opts)
        self.options: Options = args.resolved_options()
        """The output options, with the framework's namespace and ``skip_await``."""
        namespace = self.options.namespace
        self._documents: list[Document] = [_in_namespace(d, namespace) for d in args.documents]
        self._declared: set[tuple[str, str]] = set()
        config = args.config or Stack(namespace, tuple(self._documents)).framework(namespace)
        self.config: TFrameworkConfig | None = (
            self.register(_in_namespace(config, namespace)) if config else None
        )
        """The ``tars-framework`` config of the namespace: ``TFrameworkArgs.config``, else the
        one among ``TFrameworkArgs.documents``, if any."""
        self.skip_await: bool = self.options.skip_await
        """Default of ``TServerArgs.skip_await``: ``TFrameworkArgs.skip_await``, else
        ``options.skip_await``."""
        self.external_replicas = args.external_replicas
        """Default of ``TServerArgs.external_replicas``."""
        self.retain_on_delete = retain_on_delete(opts)
        """``retain_on_delete`` of the framework's options: the default of its components'
        objects (Pulumi itself does not pass it from parent to child)."""
        self._external_templates = dict(args.templates)
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The framework's own Kubernetes resources by kind."""
        self.validation: TarsValidation | None = None
        """The validation resource of the config (None without a config)."""

        manifests: list[dict[str, Any]] = []
        if self.config is not None:
            validation = validation_resource(f"{name}-validation", self.config, self, self, opts)
            self.validation = validation
            if self.options.mode == Mode.CRD:
                document = crd_document(self.config, None, self.options)
                manifests.append(document)
                self.resources[document["kind"]] = kubernetes_resource(
                    child_name(name, document),
                    document,
                    pulumi.ResourceOptions(
                        parent=self,
                        depends_on=[validation],
                        retain_on_delete=self.retain_on_delete,
                    ),
                )

        self.namespace = pulumi.Output.from_input(namespace)
        self.mode = pulumi.Output.from_input(self.options.mode.value)
        self.objects = pulumi.Output.from_input([object_id(m) for m in manifests])
        self.manifests = pulumi.Output.from_input(manifests)
        self.register_outputs(
            {
                "namespace": self.namespace,
                "mode": self.mode,
                "objects": self.objects,
                "manifests": self.manifests,
            }
        )

    @property
    def node_image(self) -> str | None:
        """The default tarsnode image (``nodeImage.image`` of the config), if any."""
        return self.config.node_image.image if self.config else None

    def register(self, document: Any) -> Any:
        """Make a document of this namespace known to the rules (TServer and TTemplate
        components call it) and return it.

        The first component with the kind and name of a document of
        ``TFrameworkArgs.documents`` takes that document's place, so the load order is kept; any
        other document is added at the end, where a second server of the same name meets TS017.
        """
        for position, known in enumerate(self._documents):
            key = (known.kind, known.name)
            if key == (document.kind, document.name) and key not in self._declared:
                self._documents[position] = document
                break
        else:
            self._documents.append(document)
        self._declared.add((document.kind, document.name))
        return document

    def context(self) -> Stack:
        """What the rules see of the namespace: the config, the templates of
        ``TFrameworkArgs.templates`` (by name and parent) and every known document."""
        names = {d.name for d in self._documents if isinstance(d, TTemplateDocument)}
        stubs = [
            TTemplateDocument.model_validate(stub_template(name, parent, self.options.namespace))
            for name, parent in self._external_templates.items()
            if name not in names
        ]
        return Stack(namespace=self.options.namespace, documents=(*stubs, *self._documents))

    def template_parents(self) -> dict[str, str]:
        """Every known template as ``{name: parent}``."""
        return {t.name: t.spec.parent for t in self.context().templates}

    def parent_chain(self, template: str) -> list[str]:
        """``template``, its parent, … up to a root (a template that is its own parent) or the
        first unknown or repeated name: the order in which tarsregistry merges configs."""
        parents = self.template_parents()
        chain = [template]
        parent = parents.get(template)
        while parent is not None and parent not in chain:
            chain.append(parent)
            parent = parents.get(parent)
        return chain


__all__ = ["TFramework"]
