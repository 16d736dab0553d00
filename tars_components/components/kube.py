"""Plain Kubernetes objects (the expansion's dicts, crd documents) as ``pulumi_kubernetes``
resources, and the one per-object setting the components add: the replicas path that another
field manager may own (``ignore_changes``).

Nothing here looks inside an object beyond ``apiVersion``, ``kind`` and ``metadata``: the
content comes from :mod:`tars_components.expansion` unchanged (the ``pulumi.com/skipAwait``
annotation included, which the expansion adds for ``Options.skip_await``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource
from pulumi_kubernetes.apiextensions.CustomResource import CustomResourceArgs

from ..models import GROUP
from ..models.kind_facts import EXPANDED_KINDS, REPLICAS_PATHS, object_id, pulumi_class_path


class TypedResource(Protocol):
    """The constructor of a typed ``pulumi_kubernetes`` resource class, called with the
    object's ``metadata`` and ``spec``."""

    def __call__(
        self,
        resource_name: str,
        *,
        metadata: Any = None,
        spec: Any = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> pulumi.CustomResource: ...


def typed_class(api_version: str, kind: str, among: tuple[str, ...] | None = None) -> Any:
    """The typed pulumi_kubernetes class of a built-in kind (:data:`.KIND_FACTS`), or None;
    ``among`` limits the kinds."""
    path = pulumi_class_path(api_version, kind, among)
    if path is None:
        return None
    found: Any = k8s
    for part in path.split("."):
        found = getattr(found, part)
    return found


_ENVELOPE = ("apiVersion", "kind", "metadata")

ENGINE_GROUPS = ("apps.kruise.io", "apps.tkestack.io")
"""API groups of the workload engines' custom resources (``--workload kruise|tapp``,
docs/concepts/rollout.md), registered as custom resources like the TarsK8S kinds."""


class TarsCustomResource(CustomResource):
    """A TarsK8S custom resource, including kinds whose fields sit at the top level
    (TFrameworkConfig has no ``spec``).

    The Python ``CustomResource`` only passes ``metadata`` and ``spec``
    (pulumi/pulumi-kubernetes#2363); this subclass registers every top-level field of the
    document, under the same type token ``kubernetes:<apiVersion>:<kind>``.
    """

    def __init__(
        self,
        resource_name: str,
        document: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        self._fields = {k: v for k, v in document.items() if k not in (*_ENVELOPE, "spec")}
        super().__init__(
            resource_name,
            api_version=str(document["apiVersion"]),
            kind=str(document["kind"]),
            metadata=document.get("metadata"),
            spec=document.get("spec"),
            opts=opts,
        )

    def _internal_init(
        self,
        resource_name: str,
        api_version: str,
        kind: str,
        opts: pulumi.ResourceOptions | None = None,
        metadata: Any = None,
        spec: Any = None,
        __props__: Any = None,
    ) -> None:
        # Filled in place as pulumi_kubernetes' own CustomResource does; the SDK serializes
        # the object's attributes (it is not the Mapping that the stub of __init__ names).
        props: Any = CustomResourceArgs.__new__(CustomResourceArgs)
        props.__dict__.update(api_version=api_version, kind=kind, metadata=metadata, spec=spec)
        props.__dict__.update(self._fields)
        pulumi.CustomResource.__init__(
            self, f"kubernetes:{api_version}:{kind}", resource_name, props, opts
        )


def kubernetes_resource(
    resource_name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> pulumi.CustomResource:
    """Register one object: Service, StatefulSet and DaemonSet with their typed classes, TarsK8S
    kinds and the workload engines' kinds as custom resources. ``metadata.name`` is always
    explicit (no auto-naming)."""
    api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
    meta = obj.get("metadata")
    # Metadata that is an Output (an expansion waiting for its inputs) names the object too.
    if not isinstance(meta, pulumi.Output) and not (meta or {}).get("name"):
        raise ValueError(f"{kind} without metadata.name: objects are never auto-named")
    cls: TypedResource | None = typed_class(api_version, kind, EXPANDED_KINDS)
    if cls is not None:
        extra = set(obj) - {*_ENVELOPE, "spec"}
        if extra:
            raise ValueError(f"{kind} has unexpected top-level fields: {sorted(extra)}")
        return cls(resource_name, metadata=obj["metadata"], spec=obj.get("spec"), opts=opts)
    if api_version.split("/")[0] in (GROUP, *ENGINE_GROUPS):
        return TarsCustomResource(resource_name, obj, opts)
    raise ValueError(f"no resource class for {api_version} {kind}")


def child_name(component_name: str, obj: Mapping[str, Any]) -> str:
    """Logical name of an object under its component: the component's name and the kind, e.g.
    ``tars-dev/shop-orderserver-statefulset``."""
    return f"{component_name}-{str(obj['kind']).lower()}"


__all__ = [
    "REPLICAS_PATHS",
    "TarsCustomResource",
    "TypedResource",
    "child_name",
    "kubernetes_resource",
    "object_id",
    "typed_class",
]
