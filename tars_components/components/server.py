"""``tars:index:TServer``: one Tars service and the Kubernetes objects it becomes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property
from typing import Any, overload

import pulumi

from ..expansion import crd_document, expand_server
from ..models import K8sSpec, NormalSpec, Release, SubType, TarsSpec
from ..models import TServer as TServerDocument
from ..options import Mode
from .args import TServerArgs, _in_namespace, split_args
from .kube import REPLICAS_PATHS, child_name, kubernetes_resource, object_id
from .outputs import deferred_leaves, known, lift, with_secrecy_of
from .scope import FrameworkScope, HasScope
from .shapes import K8sSpecArgsDict, NormalSpecArgsDict, ReleaseArgsDict, TarsSpecArgsDict
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
    no resource created late. Secrets stay secret: ``mutated`` is secret exactly when an input
    of the server is.

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
    mutated: pulumi.Output[dict[str, Any]]
    """The TServer after the mutating webhook's rules, as the validation resource computed."""

    @overload
    def __init__(
        self, resource_name: str, args: TServerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TServerDocument | None = None,
        app: str | None = None,
        server: str | None = None,
        sub_type: SubType | str | None = None,
        important: pulumi.Input[int] | None = None,
        tars: TarsSpec | TarsSpecArgsDict | None = None,
        normal: NormalSpec | NormalSpecArgsDict | None = None,
        k8s: K8sSpec | K8sSpecArgsDict | None = None,
        release: Release | ReleaseArgsDict | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
        previous: TServerDocument | None = None,
        skip_await: bool | None = None,
        external_replicas: bool | None = None,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TServer(name, TServerArgs(...), opts)`` or ``TServer(name, opts, framework=...,
        app=..., ...)`` with the fields of :class:`TServerArgs` as keywords."""
        server_args, opts = split_args(TServerArgs, "TServer", args, kwargs)
        self._declare(resource_name, server_args, opts)

    def _declare(self, name: str, args: TServerArgs, opts: pulumi.ResourceOptions | None) -> None:
        scope: FrameworkScope = args.framework.scope
        super().__init__("tars:index:TServer", name, None, with_framework_parent(opts, scope))
        skip_await = scope.skip_await if args.skip_await is None else args.skip_await
        options = replace(scope.options, skip_await=skip_await)
        self.document = args.to_document(options.namespace)
        """The TServer document as given (before mutation)."""
        position = scope.register(self.document)
        raw = self.document.to_dict()
        leaves = deferred_leaves(raw)
        self.validation = validation_resource(
            f"{name}-validation", self.document, position, raw, leaves, scope, self, opts
        )
        """The validation resource every object of this server depends on."""

        if options.mode == Mode.CRD:
            objects = [crd_document(self.document, scope.config, options)]
        else:
            objects = expand_server(self.document, scope.config, options)
            self._warn_on_replacement(args, scope, objects)
        self._objects = objects

        external = (
            scope.external_replicas if args.external_replicas is None else args.external_replicas
        )
        retain = retain_on_delete(opts, scope.retain_on_delete)
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

        target = objects[0] if options.mode == Mode.CRD else _workload(objects)
        self.scale_target_ref: dict[str, str] | None = (
            {
                "apiVersion": str(target["apiVersion"]),
                "kind": str(target["kind"]),
                "name": str(target["metadata"]["name"]),
            }
            if target is not None and target["kind"] != "DaemonSet"
            else None
        )
        """What an ``autoscaling/v2`` HorizontalPodAutoscaler's ``scaleTargetRef`` names to
        scale this server: the TServer (its scale subresource on ``spec.k8s.replicas``) in crd
        mode, the StatefulSet in expand mode; None for a DaemonSet or an unreleased server.
        Give the server ``external_replicas`` so that Pulumi leaves the replicas to the HPA."""
        self.external_replicas = external
        """True when the replicas belong to another field manager (HPA, TarsWeb)."""
        self.object_name = known(self.document.object_name)
        self.namespace = known(self.document.namespace)
        self.objects = known([object_id(o) for o in objects])
        self.mutated = with_secrecy_of(self.validation.mutated, leaves)
        self.register_outputs(
            {
                "objectName": self.object_name,
                "namespace": self.namespace,
                "objects": self.objects,
                "mutated": self.mutated,
            }
        )

    @cached_property
    def manifests(self) -> pulumi.Output[list[dict[str, Any]]]:
        """The applied objects, as ``render`` writes them with the same options (secret when
        an input placed in them is)."""
        return lift(self._objects)

    def _warn_on_replacement(
        self, args: TServerArgs, scope: FrameworkScope, objects: list[dict[str, Any]]
    ) -> None:
        if args.previous is None:
            return
        previous = _in_namespace(args.previous, scope.namespace)
        before = expand_server(previous, scope.config, scope.options)
        message = replacement_warning(before, objects)
        if message:
            pulumi.log.warn(message, resource=self)


def _workload(objects: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((o for o in objects if o["kind"] in ("StatefulSet", "DaemonSet")), None)


__all__ = ["TServer"]
