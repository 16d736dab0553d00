"""``tars:index:TFramework``: one TarsK8S framework, i.e. one namespace, its ``tars-framework``
config and the options its servers are built with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

from ..expansion import crd_document
from ..models import FRAMEWORK_CONFIG_NAME, Document, TFrameworkConfig
from ..options import Mode, Options
from ..provider import TarsValidation
from .args import TFrameworkArgs, split_args
from .args.common import in_namespace
from .failure import ArgumentProblems, refusing
from .kube import child_name, kubernetes_resource, object_id
from .outputs import deferred_leaves, known, lift
from .placement import kubernetes_provider
from .scope import FrameworkScope
from .shapes import TFrameworkConfigArgsDict
from .validation import retain_on_delete, validation_resource


class TFramework(pulumi.ComponentResource):
    """A TarsK8S framework: the namespace that its TTemplates and TServers belong to.

    It holds what the servers of the namespace share (:attr:`scope`): the ``tars-framework``
    config (default tarsnode image), the output options, and the facts the rules look at across
    documents (templates and their parents, server names). Its components become its children
    unless their ``opts`` name another parent; either way the Kubernetes provider given here
    (or inherited by the framework) is the one of every object of its components, unless a
    component's own ``opts`` name one.

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

    @overload
    def __init__(
        self, resource_name: str, args: TFrameworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        namespace: str | None = None,
        config: TFrameworkConfig | TFrameworkConfigArgsDict | None = None,
        options: Options = ...,
        templates: Mapping[str, str] = ...,
        documents: Sequence[Document] = (),
        skip_await: bool | None = None,
        existing_config: bool | None = None,
        external_replicas: bool = False,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TFramework(name, TFrameworkArgs(...), opts)`` or ``TFramework(name, opts,
        namespace=..., config=..., ...)`` with the fields of :class:`TFrameworkArgs`."""
        framework_args, opts = split_args(TFrameworkArgs, "TFramework", args, kwargs)
        with refusing(f"TFramework {resource_name!r}"):
            self._declare(resource_name, framework_args, opts)

    def _declare(
        self, name: str, args: TFrameworkArgs, opts: pulumi.ResourceOptions | None
    ) -> None:
        options = args.resolved_options()
        namespace = options.namespace
        documents = [in_namespace(d, namespace) for d in args.documents]
        given = args.config_document(namespace)
        existing = (
            options.existing_framework_config
            if args.existing_config is None
            else args.existing_config
        )
        if existing and options.mode != Mode.CRD:
            raise ArgumentProblems(
                [
                    "existing_config: needs crd mode: expand mode builds pods and needs the "
                    "node image (give it as config, which expand mode never applies)"
                ]
            )
        super().__init__("tars:index:TFramework", name, None, opts)
        provider = kubernetes_provider(self)
        self.options: Options = options
        """The output options, with the framework's namespace and ``skip_await``."""
        self.scope = FrameworkScope(
            self.options,
            self,
            documents=documents,
            templates=args.templates,
            external_replicas=args.external_replicas,
            retain_on_delete=retain_on_delete(opts),
        )
        """What the framework's components share: options, config, the namespace's facts."""
        config = given or self.scope.config
        self.existing_config: pulumi.CustomResource | None = None
        """The lookup of the cluster's own ``tars-framework`` (``existing_config``), else
        None."""
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The framework's own Kubernetes resources by kind."""
        self.validation: TarsValidation | None = None
        """The validation resource of the config (None without a config)."""

        manifests: list[dict[str, Any]] = []
        if existing:
            self.existing_config = CustomResource.get(
                f"{name}-{FRAMEWORK_CONFIG_NAME}",
                id=f"{namespace}/{FRAMEWORK_CONFIG_NAME}",
                api_version=self.options.crd_api_version,
                kind=TFrameworkConfig.KIND,
                opts=pulumi.ResourceOptions(parent=self, provider=provider),
            )
            if config is None:
                self.scope.facts.node_image = {}  # exists; its node image is the cluster's
            else:
                self.scope.set_config(config)
        elif config is not None:
            position = self.scope.register(config)
            self.scope.set_config(config)
            raw = config.to_dict()
            leaves = deferred_leaves(raw)
            self.validation = validation_resource(
                f"{name}-validation", config, position, raw, leaves, self.scope, self, opts
            )
            if self.options.mode == Mode.CRD:
                document = crd_document(config, None, self.options)
                manifests.append(document)
                self.resources[document["kind"]] = kubernetes_resource(
                    child_name(name, document),
                    document,
                    pulumi.ResourceOptions(
                        parent=self,
                        provider=provider,
                        depends_on=[self.validation],
                        retain_on_delete=self.scope.retain_on_delete,
                    ),
                )

        self.namespace = known(namespace)
        self.mode = known(self.options.mode.value)
        self.objects = known([object_id(m) for m in manifests])
        self.manifests = lift(manifests)
        self.register_outputs(
            {"namespace": self.namespace, "mode": self.mode, "objects": self.objects}
        )

    @property
    def config(self) -> TFrameworkConfig | None:
        """The ``tars-framework`` config of the namespace: ``TFrameworkArgs.config``, else the
        one among ``TFrameworkArgs.documents``, if any."""
        return self.scope.config

    @property
    def skip_await(self) -> bool:
        """Default of ``TServerArgs.skip_await``: ``TFrameworkArgs.skip_await``, else
        ``options.skip_await``."""
        return self.scope.skip_await

    @property
    def external_replicas(self) -> bool:
        """Default of ``TServerArgs.external_replicas``."""
        return self.scope.external_replicas

    @property
    def retain_on_delete(self) -> bool | None:
        """``retain_on_delete`` of the framework's options: the default of its components'
        objects (Pulumi itself does not pass it from parent to child)."""
        return self.scope.retain_on_delete

    @property
    def node_image(self) -> str | None:
        """The default tarsnode image (``nodeImage.image`` of the config), if any."""
        config = self.scope.config
        return config.node_image.image if config else None

    def template_parents(self) -> dict[str, str]:
        """Every known template as ``{name: parent}``."""
        return dict(self.scope.facts.parents)

    def parent_chain(self, template: str) -> list[str]:
        """``template``, its parent, … up to a root (a template that is its own parent) or the
        first unknown or repeated name: the order in which tarsregistry merges configs."""
        return self.scope.parent_chain(template)


__all__ = ["TFramework"]
