"""``tars:index:TServer``: one Tars service and the Kubernetes objects it becomes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, overload

import pulumi

from ..errors import LoadError
from ..expansion import crd_document, expand_server
from ..models import K8sSpec, NormalSpec, Release, SubType, TarsSpec, is_deferred
from ..models import TServer as TServerDocument
from ..models.kind_facts import api_version_of
from ..options import Mode, Options
from ..provider import DOCUMENT, NAMESPACE, PENDING, Subject, TarsValidation, ValidationInputs
from .args import TServerArgs, _in_namespace, _parse, split_args
from .failure import ArgumentProblems, refusing
from .kube import REPLICAS_PATHS, child_name, kubernetes_resource, object_id
from .outputs import (
    Leaf,
    as_secret_as,
    deferred_leaves,
    known,
    lift,
    lift_values,
    secret_fields,
    touching,
    with_secrecy_of,
)
from .placement import place
from .scope import FrameworkScope, HasScope
from .shapes import (
    K8sSpecArgsDict,
    NormalSpecArgsDict,
    ReleaseArgsDict,
    SubTypeValue,
    TarsSpecArgsDict,
)
from .stateful import replacement_warning
from .validation import retain_on_delete, validation_resource


class TServer(pulumi.ComponentResource):
    """A TServer: validated by the admission rules first, then applied.

    * expand mode (default): the headless Service and the StatefulSet or DaemonSet of
      :func:`tars_components.expansion.expand_server`, exactly what ``tars-components render``
      writes, each with its explicit ``metadata.name``;
    * crd mode: the mutated TServer as a ``k8s.tars.io`` custom resource, for clusters that run
      the TarsK8S controller.

    Every object depends on the server's validation resource. ``protect`` reaches the objects
    through the parent chain and ``retain_on_delete`` is handed to them; the Kubernetes
    provider is the one named in ``opts``, else the framework's whatever ``opts.parent`` is
    (:mod:`~tars_components.components.placement`). Every field takes ``pulumi.Input``
    values: placed ones (say ``release.image`` from another stack) are put in the objects as
    they are (no ``apply``); an Output in a structural field (``app``, a port, replicas, …)
    makes the server expand its document in one ``apply`` once the values are known, the
    objects' ``metadata`` and ``spec`` being Outputs of it. The resources (logical names
    ``<name>-<kind>``, kinds) never wait for an unknown: ``k8s.daemonSet``, which decides the
    kinds, is a plain bool (an Output there is refused, naming the field). Secrets stay
    secret: ``mutated`` is secret exactly when an input of the server is, and each object part
    exactly when a secret input reaches it.

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
        app: pulumi.Input[str] | None = None,
        server: pulumi.Input[str] | None = None,
        sub_type: SubTypeValue | SubType | pulumi.Output[str] | None = None,
        important: pulumi.Input[int] | None = None,
        tars: TarsSpec | TarsSpecArgsDict | None = None,
        normal: NormalSpec | NormalSpecArgsDict | None = None,
        k8s: K8sSpec | K8sSpecArgsDict | None = None,
        release: Release | ReleaseArgsDict | None = None,
        labels: Mapping[str, pulumi.Input[str]] | None = None,
        annotations: Mapping[str, pulumi.Input[str]] | None = None,
        api_version: str = ...,
        previous: TServerDocument | None = None,
        skip_await: bool | None = None,
        external_replicas: bool | None = None,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TServer(name, TServerArgs(...), opts)`` or ``TServer(name, opts, framework=...,
        app=..., ...)`` with the fields of :class:`TServerArgs` as keywords."""
        server_args, opts = split_args(TServerArgs, "TServer", args, kwargs)
        with refusing(f"TServer {resource_name!r}"):
            self._declare(resource_name, server_args, opts)

    def _declare(self, name: str, args: TServerArgs, opts: pulumi.ResourceOptions | None) -> None:
        scope: FrameworkScope = args.framework.scope
        skip_await = scope.skip_await if args.skip_await is None else args.skip_await
        options = replace(scope.options, skip_await=skip_await)
        if args.document is not None:  # parsed already (a loaded stack): not again
            document: TServerDocument | None = args.to_document(options.namespace)
            raw, leaves = {}, []
        else:
            raw = args.raw_document(options.namespace)
            leaves = deferred_leaves(raw)
            document = _parsed(raw, options.namespace, bool(leaves))
            if document is None:
                _daemon_set(raw)  # refused before anything is registered
        opts, self._provider = place(opts, scope.resource, f"TServer {name!r}")
        super().__init__("tars:index:TServer", name, None, opts)
        self.document = document
        """The TServer document as given (before mutation); None while a structural field is
        an Output (the document is known only with its values: :attr:`manifests`)."""
        self.external_replicas = (
            scope.external_replicas if args.external_replicas is None else args.external_replicas
        )
        """True when the replicas belong to another field manager (HPA, TarsWeb)."""
        self._retain = retain_on_delete(opts, scope.retain_on_delete)
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The server's Kubernetes resources by kind."""
        if document is not None:
            # As the model holds it (defaults and aliases as parsed), placed Outputs kept.
            raw = document.to_dict()
            leaves = deferred_leaves(raw)
            self._declare_known(name, args, document, raw, leaves, scope, options, opts)
        else:
            self._declare_deferred(name, args, raw, leaves, scope, options, opts)
        self.namespace = known(options.namespace)
        self.mutated = with_secrecy_of(self.validation.mutated, leaves)
        self.register_outputs(
            {
                "objectName": self.object_name,
                "namespace": self.namespace,
                "objects": self.objects,
                "mutated": self.mutated,
            }
        )

    def _declare_known(
        self,
        name: str,
        args: TServerArgs,
        document: TServerDocument,
        raw: dict[str, Any],
        leaves: list[Leaf],
        scope: FrameworkScope,
        options: Options,
        opts: pulumi.ResourceOptions | None,
    ) -> None:
        """Every structural field is known: the objects are expanded now; placed Outputs
        (release image, env values, …) sit in them as they are (no apply)."""
        position = scope.register(document)
        self.validation = validation_resource(
            f"{name}-validation", document, position, raw, leaves, scope, self, opts
        )
        """The validation resource every object of this server depends on."""
        if options.mode == Mode.CRD:
            objects = [crd_document(document, scope.config, options)]
        else:
            objects = expand_server(document, scope.config, options)
            self._warn_on_replacement(args, scope, objects)
        self._objects: list[dict[str, Any]] | pulumi.Output[_Box] = objects
        self._leaves: list[Leaf] = leaves
        for obj in objects:
            self._register(name, obj)
        target = objects[0] if options.mode == Mode.CRD else _workload(objects)
        self._set_scale_target(target)
        self.object_name = known(document.object_name)
        self.objects = known([object_id(o) for o in objects])

    def _declare_deferred(
        self,
        name: str,
        args: TServerArgs,
        raw: dict[str, Any],
        leaves: list[Leaf],
        scope: FrameworkScope,
        options: Options,
        opts: pulumi.ResourceOptions | None,
    ) -> None:
        """A structural field is an Output: the pure core (load, mutation, expansion) runs on
        the resolved values in one ``Output.all(...).apply(...)``, and the objects' inputs are
        Outputs of it (secret when a leaf is). Which resources exist (logical names, kinds) is
        decided now, from the component's name, the mode and ``k8s.daemonSet``."""
        kinds = self._kinds(raw, options)
        position = scope.reserve()

        def core(values: list[Any]) -> _Box:
            resolved = _resolved(raw, leaves, values)
            try:
                document = _parse(resolved, options.namespace, TServerDocument)
            except ValueError:
                # The validation resource reports why, rule by rule (values redacted).
                return _Box({"objects": None, "templates": {}, "serverNames": []})
            # Earlier and later servers alike: a later one could not see this one's name.
            inputs = scope.inputs(document, _LAST)
            scope.learn(document, position)
            if options.mode == Mode.CRD:
                objects = [crd_document(document, scope.config, options)]
            else:
                objects = expand_server(document, scope.config, options)
                self._warn_on_replacement(args, scope, objects)
            return _Box(
                {
                    "objects": objects,
                    "templates": dict(inputs.templates),
                    "serverNames": list(inputs.server_names),
                }
            )

        # Computed from unsecreted values; each part is then as secret as the leaves that
        # reach it (names: app, server; the spec: every leaf).
        bundle = pulumi.Output.all(
            *(pulumi.Output.unsecret(pulumi.Output.from_input(leaf)) for _, leaf in leaves)
        ).apply(core)
        naming = touching(leaves, ("spec", "app"), ("spec", "server"), ("metadata",))
        template = touching(leaves, ("spec", "tars", "template"))
        self.validation = TarsValidation(
            f"{name}-validation",
            ValidationInputs(
                document=_with_defaults(raw, leaves, options.namespace),
                namespace=options.namespace,
                templates=as_secret_as(bundle.apply(lambda b: b.value["templates"]), template),
                framework_node_image=scope.facts.node_image,
                server_names=as_secret_as(bundle.apply(lambda b: b.value["serverNames"]), naming),
                secret_fields=secret_fields(leaves),
            ),
            pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None),
        )
        """The validation resource every object of this server depends on."""

        def objects_of(b: _Box) -> _Box:
            objects = b.value["objects"]
            if objects is None:
                # Not valid once known: the validation resource fails (rule by rule, values
                # redacted) before any object that depends on it is created; these stand-ins
                # never reach the cluster.
                return _Box([{"kind": kind, "metadata": None, "spec": None} for kind in kinds])
            found = [str(o["kind"]) for o in objects]
            if found != kinds:
                raise ValueError(
                    f"TServer {name}: k8s.daemonSet decided {kinds} at registration, the "
                    f"expansion gives {found}"
                )
            return _Box(list(objects))

        objects_output = bundle.apply(objects_of)
        self._objects = objects_output
        self._leaves = leaves
        name_input: pulumi.Input[str] = raw["metadata"]["name"]
        target = None
        for index, kind in enumerate(kinds):
            api_version = api_version_of(kind, options.crd_api_version)
            obj = {
                "apiVersion": api_version,
                "kind": kind,
                "metadata": as_secret_as(objects_output.apply(_part(index, "metadata")), naming),
                "spec": as_secret_as(objects_output.apply(_part(index, "spec")), leaves),
            }
            self._register(name, obj)
            if kind in ("StatefulSet", "DaemonSet", TServerDocument.KIND):
                target = {"apiVersion": api_version, "kind": kind, "metadata": {"name": name_input}}
        self._set_scale_target(target)
        self.object_name = pulumi.Output.from_input(name_input)
        self.objects = as_secret_as(
            objects_output.apply(lambda b: [object_id(o) for o in b.value if o["metadata"]]),
            naming,
        )

    def _kinds(self, raw: dict[str, Any], options: Options) -> list[str]:
        """The kinds of the objects, decided before any value is known: the TServer in crd
        mode; else by ``k8s.daemonSet`` (a DaemonSet, or none without a release) or the
        Service and StatefulSet."""
        if options.mode == Mode.CRD:
            return [TServerDocument.KIND]
        if not _daemon_set(raw):
            return ["Service", "StatefulSet"]
        return ["DaemonSet"] if raw["spec"].get("release") is not None else []

    def _register(self, name: str, obj: Mapping[str, Any]) -> None:
        replicas = REPLICAS_PATHS.get(str(obj["kind"])) if self.external_replicas else None
        self.resources[str(obj["kind"])] = kubernetes_resource(
            child_name(name, obj),
            obj,
            pulumi.ResourceOptions(
                parent=self,
                provider=self._provider,
                depends_on=[self.validation],
                retain_on_delete=self._retain,
                ignore_changes=[replicas] if replicas else None,
            ),
        )

    def _set_scale_target(self, target: Mapping[str, Any] | None) -> None:
        self.scale_target_ref: dict[str, pulumi.Input[str]] | None = (
            {
                "apiVersion": str(target["apiVersion"]),
                "kind": str(target["kind"]),
                "name": target["metadata"]["name"],
            }
            if target is not None and target["kind"] != "DaemonSet"
            else None
        )
        """What an ``autoscaling/v2`` HorizontalPodAutoscaler's ``scaleTargetRef`` names to
        scale this server: the TServer (its scale subresource on ``spec.k8s.replicas``) in crd
        mode, the StatefulSet in expand mode; None for a DaemonSet or an unreleased server.
        Give the server ``external_replicas`` so that Pulumi leaves the replicas to the HPA.
        ``name`` is an Output when ``app`` or ``server`` is one."""

    @cached_property
    def manifests(self) -> pulumi.Output[list[dict[str, Any]]]:
        """The applied objects, as ``render`` writes them with the same options (secret when
        an input placed in them is)."""
        if isinstance(self._objects, list):
            return lift(self._objects)
        manifests: pulumi.Output[list[dict[str, Any]]] = self._objects.apply(
            lambda b: [o for o in b.value if o["metadata"]]
        )
        return as_secret_as(manifests, self._leaves)

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


_LAST = 1 << 62
"""A position after every server: a server whose name is known only later is checked against
every other server of the namespace (TS017 reported on it)."""


def _parsed(raw: dict[str, Any], namespace: str, deferred: bool) -> TServerDocument | None:
    """The document when every structural field is known (placed Outputs allowed); None when
    an Output sits where the model wants a plain value. A document that is wrong in its known
    fields raises ValueError, as before any Output is involved."""
    try:
        document: TServerDocument = _parse(raw, namespace, TServerDocument)
    except ValueError:
        if not deferred:
            raise
        return None
    return document


def _with_defaults(raw: dict[str, Any], leaves: list[Leaf], namespace: str) -> dict[str, Any]:
    """``raw`` in the form the model gives a parsed document (the CRD defaults filled in, as
    the validation input of a server without structural Outputs holds it), the Outputs at
    their places: the document is loaded as the provider loads one with unknowns, then the
    leaves are put back. ``raw`` itself when it does not load."""
    pending = lift_values(raw, leaves, [PENDING] * len(leaves))
    try:
        _, target = Subject.parse({DOCUMENT: pending, NAMESPACE: namespace}).load()
    except (LoadError, ValueError):
        return raw
    if not isinstance(target, TServerDocument):
        return raw
    shaped: Any = target.to_dict()
    for path, leaf in leaves:
        try:
            node: Any = shaped
            for seg in path[:-1]:
                node = node[seg]
            if isinstance(node, list) and not isinstance(path[-1], int):
                return raw
            if isinstance(node, list) and not 0 <= int(path[-1]) < len(node):
                return raw
            node[path[-1]] = leaf
        except (KeyError, IndexError, TypeError):
            return raw
    result: dict[str, Any] = shaped
    return result


def _resolved(raw: dict[str, Any], leaves: list[Leaf], values: list[Any]) -> dict[str, Any]:
    """``raw`` with the leaves' values put in; enum values (``SubType``) as their text."""
    texts = [v.value if isinstance(v, SubType) else v for v in values]
    resolved: dict[str, Any] = lift_values(raw, leaves, texts)
    return resolved


def _daemon_set(raw: dict[str, Any]) -> bool:
    """``spec.k8s.daemonSet`` of ``raw``: it decides which resources the server registers, so
    it is a plain value (design §3: a structural field), never an Output; an Output there, or
    a ``k8s`` section that is one, raises :class:`ArgumentProblems` naming the field."""
    k8s = raw["spec"].get("k8s")
    if is_deferred(k8s):
        raise ArgumentProblems(
            [
                "spec.k8s: decides (through daemonSet) which Kubernetes objects the server "
                "has: give k8s as a mapping (its other fields may be Outputs)"
            ]
        )
    daemon = (k8s or {}).get("daemonSet")
    if is_deferred(daemon):
        raise ArgumentProblems(
            [
                "spec.k8s.daemonSet: decides which Kubernetes objects the server has: give "
                "it as a plain bool, not an Output"
            ]
        )
    return bool(daemon)


@dataclass(frozen=True)
class _Box:
    """Expansion results passed between Outputs as one opaque value: the SDK walks every
    plain value an Output holds (looking for unknowns) each time one is derived, and a
    manifest only needs walking once, as a resource input."""

    value: Any


def _part(index: int, key: str) -> Callable[[_Box], Any]:
    return lambda box: box.value[index].get(key)


def _workload(objects: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((o for o in objects if o["kind"] in ("StatefulSet", "DaemonSet")), None)


__all__ = ["TServer"]
