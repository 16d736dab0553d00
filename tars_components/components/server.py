"""``tars:index:TServer``: one Tars service and the Kubernetes objects it becomes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pulumi

from ..expansion import crd_document, expand_server
from ..options import Mode
from .args import TServerArgs, _in_namespace
from .framework import TFramework
from .kube import REPLICAS_PATHS, child_name, kubernetes_resource, object_id
from .stateful import replacement_warning
from .validation import retain_on_delete, validation_resource, with_framework_parent


class TServer(pulumi.ComponentResource):
    """A TServer: validated by the admission rules first, then applied.

    * expand mode (default): the headless Service and the StatefulSet or DaemonSet of
      :func:`tars_components.expansion.expand_server`, exactly what ``tars-components render``
      writes, each with its explicit ``metadata.name``;
    * crd mode: the mutated TServer as a ``k8s.tars.io`` custom resource, for clusters that run
      the TarsK8S controller.

    Every object depends on the server's validation resource. ``protect`` reaches the objects
    through the parent chain and ``retain_on_delete`` is handed to them; a provider comes from
    ``opts`` or from the framework (the default parent). Values of ``pulumi.Input`` fields (say
    ``release.image`` from another stack) are placed in the objects as they are: no ``apply``,
    no resource created late.

    Outputs: ``object_name`` (``lower(app)-lower(server)``), ``namespace``, ``objects``
    (``apiVersion/kind:namespace/name``), ``manifests`` (the objects as applied) and ``mutated``
    (the TServer as the mutating webhook admits it, from the validation resource).
    """

    object_name: pulumi.Output[str]
    """``lower(app)-lower(server)``: the name of every object of the server."""
    namespace: pulumi.Output[str]
    """The server's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects, ``apiVersion/kind:namespace/name``."""
    manifests: pulumi.Output[list[dict[str, Any]]]
    """The applied objects, as ``render`` writes them with the same options."""
    mutated: pulumi.Output[dict[str, Any]]
    """The TServer after the mutating webhook's rules, as the validation resource computed."""

    def __init__(
        self, name: str, args: TServerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        framework: TFramework = args.framework
        super().__init__("tars:index:TServer", name, None, with_framework_parent(opts, framework))
        skip_await = framework.skip_await if args.skip_await is None else args.skip_await
        options = replace(framework.options, skip_await=skip_await)
        self.document = framework.register(args.to_document(options.namespace))
        """The TServer document as given (before mutation)."""
        self.validation = validation_resource(
            f"{name}-validation", self.document, framework, self, opts
        )
        """The validation resource every object of this server depends on."""

        if options.mode == Mode.CRD:
            objects = [crd_document(self.document, framework.config, options)]
        else:
            objects = expand_server(self.document, framework.config, options)
            self._warn_on_replacement(args, framework, objects)

        external = (
            framework.external_replicas
            if args.external_replicas is None
            else args.external_replicas
        )
        retain = retain_on_delete(opts, framework.retain_on_delete)
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The server's Kubernetes resources by kind."""
        for obj in objects:
            replicas = REPLICAS_PATHS.get(obj["kind"]) if external else None
            self.resources[obj["kind"]] = kubernetes_resource(
                child_name(name, obj),
                obj,
                pulumi.ResourceOptions(
                    parent=self,
                    depends_on=[self.validation],
                    retain_on_delete=retain,
                    ignore_changes=[replicas] if replicas else None,
                ),
            )

        self.object_name = pulumi.Output.from_input(self.document.object_name)
        self.namespace = pulumi.Output.from_input(self.document.namespace)
        self.objects = pulumi.Output.from_input([object_id(o) for o in objects])
        self.manifests = pulumi.Output.from_input(objects)
        self.mutated = self.validation.mutated
        self.register_outputs(
            {
                "objectName": self.object_name,
                "namespace": self.namespace,
                "objects": self.objects,
                "manifests": self.manifests,
                "mutated": self.mutated,
            }
        )

    def _warn_on_replacement(
        self, args: TServerArgs, framework: TFramework, objects: list[dict[str, Any]]
    ) -> None:
        if args.previous is None:
            return
        previous = _in_namespace(args.previous, framework.options.namespace)
        before = expand_server(previous, framework.config, framework.options)
        message = replacement_warning(before, objects)
        if message:
            pulumi.log.warn(message, resource=self)


__all__ = ["TServer"]
