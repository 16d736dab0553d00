"""How a component registers its validation resource and passes resource options on.

Every TarsK8S document of a component gets one :class:`~tars_components.provider.TarsValidation`
(the dynamic provider that runs the admission rules); every Kubernetes object of the component
depends on it, so nothing is applied when a rule fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi

from ..models import Document, TTemplate
from ..provider import TarsValidation, ValidationInputs

if TYPE_CHECKING:
    from .framework import TFramework


def validation_resource(
    name: str,
    document: Document,
    framework: TFramework,
    parent: pulumi.Resource,
    opts: pulumi.ResourceOptions | None,
) -> TarsValidation:
    """The validation resource of ``document``, with the inputs the rules need from the
    framework's namespace (templates, server names, default node image). It inherits the
    component's ``depends_on``, so whatever the component waits for, its objects wait for too.

    A template's validation is ``deleted_with`` the framework: its delete enforces TT003/TT005
    (still a parent, still used), which must not block ``pulumi destroy`` of the whole
    framework, where the users go too."""
    inputs = ValidationInputs.for_document(framework.context(), document)
    return TarsValidation(
        name,
        inputs,
        pulumi.ResourceOptions(
            parent=parent,
            depends_on=opts.depends_on if opts else None,
            deleted_with=framework if isinstance(document, TTemplate) else None,
        ),
    )


def with_framework_parent(
    opts: pulumi.ResourceOptions | None, framework: TFramework
) -> pulumi.ResourceOptions:
    """``opts`` with the framework as parent when they name none, so that the framework's
    providers and ``protect`` reach the component's objects."""
    opts = opts or pulumi.ResourceOptions()
    if opts.parent is not None:
        return opts
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(parent=framework))


def retain_on_delete(
    opts: pulumi.ResourceOptions | None, default: bool | None = None
) -> bool | None:
    """``retain_on_delete`` of a component's options, else ``default`` (the framework's).
    Pulumi does not pass it from parent to child (unlike ``protect`` and providers), so
    components hand it to their objects."""
    own = opts.retain_on_delete if opts is not None else None
    return default if own is None else own


__all__ = ["retain_on_delete", "validation_resource", "with_framework_parent"]
