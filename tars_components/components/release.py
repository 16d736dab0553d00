"""``tars:index:TServerRelease``: publish a TServer's release without owning the server (the
CI path of docs/pulumi/ownership.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi_kubernetes.apiextensions import CustomResourcePatch

from ..expansion import crd_document
from ..models import Release, TServerDocument
from ..models.ownership import FIELD_MANAGER_ANNOTATION
from ..stages import prepare_server
from .args_common import in_namespace, parse_built
from .failure import refusing
from .outputs import deferred_leaves
from .placement import place
from .scope import FrameworkScope, HasScope
from .validation import validation_resource


class TServerRelease(pulumi.ComponentResource):
    """Applies only ``spec.release`` of an existing TServer, as a pulumi-kubernetes
    ``CustomResourcePatch`` under its own server-side apply field manager, for pipelines that
    publish releases while another program (or TarsWeb) owns the rest of the server.

    The server as declared (``server``: its document, e.g. from the stack) with the new
    ``release`` is checked by the same admission rules as a :class:`TServer` (a validation
    resource the patch depends on), and the release is sent as the mutating webhook admits it
    (``nodeImage`` filled from the framework's ``tars-framework`` for a Tars server). The
    server's own program should hand the field over: ``release`` ``external`` in its field
    ownership (docs/concepts/ownership.md), or the two managers take it from each other.

    * ``field_manager``: the field manager of the patch; defaults to
      ``tars-release-<stack>``. Deleting the component gives the field up (the value stays).

    Outputs: ``object_name``, ``namespace``, ``release`` (the release as applied).
    """

    object_name: pulumi.Output[str]
    """The TServer's ``metadata.name``."""
    namespace: pulumi.Output[str]
    """The server's namespace."""
    release: pulumi.Output[dict[str, Any]]
    """``spec.release`` as applied."""

    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        server: TServerDocument,
        release: Release | Mapping[str, Any],
        field_manager: str | None = None,
    ) -> None:
        """``TServerRelease(name, opts, framework=..., server=..., release={...})``."""
        with refusing(f"TServerRelease {resource_name!r}"):
            self._declare(resource_name, opts, framework.scope, server, release, field_manager)

    def _declare(
        self,
        name: str,
        opts: pulumi.ResourceOptions | None,
        scope: FrameworkScope,
        server: TServerDocument,
        release: Release | Mapping[str, Any],
        field_manager: str | None,
    ) -> None:
        options = scope.options
        raw = in_namespace(server, options.namespace).to_dict()
        raw["spec"]["release"] = (
            release.to_dict() if isinstance(release, Release) else dict(release)
        )
        document = parse_built(raw, options.namespace, TServerDocument)
        raw = document.to_dict()
        leaves = deferred_leaves(raw)
        opts, provider = place(opts, scope.resource, f"TServerRelease {name!r}")
        super().__init__("tars:index:TServerRelease", name, None, opts)
        validation = validation_resource(
            f"{name}-validation", document, scope.reserve(), raw, leaves, scope, self, opts
        )
        prepared = prepare_server(document, scope.config)
        admitted = crd_document(prepared.admitted, scope.config, options)
        applied = admitted["spec"]["release"]
        manager = field_manager or f"tars-release-{pulumi.get_stack()}"
        self.patch = CustomResourcePatch(
            f"{name}-release",
            api_version=str(admitted["apiVersion"]),
            kind=TServerDocument.KIND,
            metadata={
                "name": document.name,
                "namespace": scope.namespace_input,
                "annotations": {FIELD_MANAGER_ANNOTATION: manager},
            },
            spec={"release": applied},
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[validation]),
        )
        """The ``CustomResourcePatch`` of ``spec.release``."""
        self.field_manager = manager
        """The server-side apply field manager of the patch."""
        self.object_name = pulumi.Output.from_input(document.name)
        self.namespace = pulumi.Output.from_input(scope.namespace_input)
        self.release = pulumi.Output.from_input(applied)
        self.register_outputs(
            {"objectName": self.object_name, "namespace": self.namespace, "release": self.release}
        )


__all__ = ["TServerRelease"]
