"""How a component registers the validation resource of its document and passes resource
options on.

Every TarsK8S document of a component gets one :class:`~tars_components.provider.TarsValidation`
(the dynamic provider that runs the admission rules); every Kubernetes object of the component
depends on it, so nothing is applied when a rule fails. Its inputs are the document (as given:
``pulumi.Input`` leaves stay Outputs, nothing else is lifted; its JSON text when it has none)
and the constant-size facts of the namespace its rules need
(:class:`~tars_components.provider.NamespaceFacts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pulumi

from ..models import Document, TTemplateDocument
from ..provider import TarsValidation, document_text
from .outputs import Leaf, secret_fields
from .scope import FrameworkScope


def validation_resource(
    name: str,
    document: Document,
    position: int,
    raw: dict[str, Any],
    leaves: Sequence[Leaf],
    scope: FrameworkScope,
    parent: pulumi.Resource,
    opts: pulumi.ResourceOptions | None,
) -> TarsValidation:
    """The validation resource of ``document`` (``raw``: its camelCase mapping, ``leaves``: the
    Outputs in it). It inherits the component's ``depends_on``, so whatever the component waits
    for, its objects wait for too. Its derived outputs are secret when the document may carry
    a secret.

    A template's validation is ``deleted_with`` the framework, so that ``pulumi destroy`` of
    the whole framework deletes it without a separate step.

    A document without deferred leaves (every document of a loaded stack) is sent as its JSON
    text: the SDK and the engine handle one string instead of one value per field (per field,
    serializing a document cost as much as a third of its Kubernetes objects), and the
    engine's display still diffs it field by field. A document with ``pulumi.Input`` leaves
    stays a mapping, so that each leaf stays unknown or secret on its own.

    A framework namespace given as an Output is the resource's ``namespace`` input and is put
    in the document (its text, or its mapping) once known: the resource's inputs are then
    those of the plain namespace (:meth:`FrameworkScope.validation_props
    <tars_components.components.scope.FrameworkScope.validation_props>`)."""
    text = None if leaves else document_text(raw)
    inputs = scope.inputs(document, position, raw, secret_fields(leaves))
    if text is not None:
        inputs = replace(inputs, document=text)
    return TarsValidation(
        name,
        scope.validation_props(inputs),
        pulumi.ResourceOptions(
            parent=parent,
            depends_on=opts.depends_on if opts else None,
            deleted_with=scope.resource if isinstance(document, TTemplateDocument) else None,
        ),
    )


def retain_on_delete(
    opts: pulumi.ResourceOptions | None, default: bool | None = None
) -> bool | None:
    """``retain_on_delete`` of a component's options, else ``default`` (the framework's).
    Pulumi does not pass it from parent to child (unlike ``protect`` and providers), so
    components hand it to their objects."""
    own = opts.retain_on_delete if opts is not None else None
    return default if own is None else own


__all__ = ["retain_on_delete", "validation_resource"]
