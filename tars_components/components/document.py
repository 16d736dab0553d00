"""What the components of the kinds that are applied as they are (``tars:index:TConfig``,
``TImage``, ``TTree`` and ``TAccount``) share, built like
:class:`~tars_components.components.TTemplate`: one validation resource per document (the same
rules and change rules as ``validate``, through the dynamic provider), and in crd mode the
document as the webhook admits it (:mod:`tars_components.mutation`) as a custom resource
that depends on the validation, named ``<component>-<kind>``. Expand mode has no controller for
these kinds: the components then validate and apply nothing (``render`` warns TX001).

Each kind's module handles its trap (docs/pulumi/namespace-components.md):
:mod:`~tars_components.components.tconfig` (previews must not reach the TConfig webhook),
:mod:`~tars_components.components.taccount` (the password stays secret, its hash stable),
:mod:`~tars_components.components.timage` (releases published through TarsWeb are not the
program's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import pulumi

from ..models import Document
from ..mutation import mutate_kind
from ..secrets.hashing import AccountHashing
from ..settings.options import Mode
from .kube import child_name, kubernetes_resource, object_id
from .outputs import deferred_leaves, known, lift, with_secrecy_of
from .placement import place
from .scope import FrameworkScope, HasScope
from .validation import retain_on_delete, validation_resource


def kind_object(
    document: Document,
    scope: FrameworkScope,
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> dict[str, Any]:
    """The custom resource of a TConfig, TImage, TTree or TAccount, exactly as ``render
    --mode crd`` writes it (:func:`tars_components.expansion.resources.kind_documents`); a
    credential resolved from ``secrets`` stays the Output it is, and so does a hash salted by
    an Output of ``hashing``."""
    body = mutate_kind(document, secrets, hashing).to_dict()
    body["apiVersion"] = scope.options.crd_api_version
    return body


def _depends_on(opts: pulumi.ResourceOptions) -> list[pulumi.Resource]:
    """The resources the component's ``depends_on`` names: its object waits for them too
    (the engine does not pass a component's dependencies on to its children)."""
    given = opts.depends_on
    if isinstance(given, pulumi.Resource):
        return [given]
    if isinstance(given, list | tuple):
        return [r for r in given if isinstance(r, pulumi.Resource)]
    return []


def _retain(
    opts: pulumi.ResourceOptions | None, scope: FrameworkScope, default: bool
) -> bool | None:
    """``retain_on_delete`` of the object: the component's, else the framework's, else
    ``default``."""
    retain = retain_on_delete(opts, scope.retain_on_delete)
    return default if retain is None else retain


class DocumentComponent(pulumi.ComponentResource):
    """What the components of one document applied as it is share (TConfig, TImage, TTree,
    TAccount): the validation resource, the custom resource of crd mode, the outputs."""

    object_name: pulumi.Output[str]
    """``metadata.name`` of the document."""
    namespace: pulumi.Output[str]
    """The document's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects (``apiVersion/kind:namespace/name``); empty in expand mode."""
    mutated: pulumi.Output[dict[str, Any]]
    """The document after the mutating webhook's rules, as the validation resource computed
    (secret when an input of the document is)."""

    def _declare_document(
        self,
        type_token: str,
        name: str,
        document: Document,
        framework: HasScope,
        opts: pulumi.ResourceOptions | None,
        secrets: Mapping[str, Any] | None = None,
        ignore_changes: Sequence[str] | None = None,
        guard: bool = False,
        retain_by_default: bool = False,
    ) -> None:
        scope = framework.scope
        kind = type_token.rsplit(":", 1)[-1]
        opts, provider = place(opts, scope.resource, f"{kind} {name!r}")
        super().__init__(type_token, name, None, opts)
        position = scope.register(document)
        raw = self._raw(document)
        leaves = deferred_leaves(raw)
        self.validation = validation_resource(
            f"{name}-validation", document, position, raw, leaves, scope, self, opts
        )
        """The validation resource the object depends on."""
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The component's Kubernetes resources by kind (none in expand mode)."""
        manifests: list[dict[str, Any]] = []
        if scope.options.mode == Mode.CRD:
            obj = self._kind_object(document, scope, secrets)
            manifests.append(obj)
            applied = self._applied(scope.placed(obj), guard)
            self.resources[str(obj["kind"])] = kubernetes_resource(
                child_name(name, obj),
                applied,
                pulumi.ResourceOptions(
                    parent=self,
                    provider=provider,
                    depends_on=[self.validation, *_depends_on(opts)],
                    retain_on_delete=_retain(opts, scope, retain_by_default),
                    ignore_changes=list(ignore_changes) if ignore_changes else None,
                ),
            )
        self._manifests = scope.placed(manifests)
        self.object_name = known(document.name)
        self.namespace = scope.namespace_of()
        self.objects = lift(scope.placed([object_id(m) for m in manifests]))
        self.mutated = with_secrecy_of(self.validation.mutated, leaves)
        self.register_outputs(
            {
                "objectName": self.object_name,
                "namespace": self.namespace,
                "objects": self.objects,
                "mutated": self.mutated,
            }
        )

    def _raw(self, document: Document) -> dict[str, Any]:
        """The document as its validation resource receives it."""
        return document.to_dict()

    def _kind_object(
        self, document: Document, scope: FrameworkScope, secrets: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """The custom resource (crd mode; the component is registered by then)."""
        return kind_object(document, scope, secrets)

    def _applied(self, obj: dict[str, Any], guard: bool) -> dict[str, Any]:
        """The object as registered (the kind-specific guards of the module doc)."""
        return obj

    @cached_property
    def manifests(self) -> pulumi.Output[list[dict[str, Any]]]:
        """The applied objects, as ``render --mode crd`` writes them (secret when a
        credential in them is)."""
        return lift(self._manifests)


__all__ = ["DocumentComponent", "kind_object"]
