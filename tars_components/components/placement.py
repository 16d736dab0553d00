"""Which cluster a component's Kubernetes objects go to.

Pulumi gives a resource the provider of its parent unless its own options name one. A
component's objects are its children, and a component is the child of its framework unless
``opts.parent`` names another resource: a server given ``parent=my_group`` would then take
``my_group``'s provider, or the ambient kubeconfig when that has none, while its framework
(and so its template, its namespace facts, its rules) lives on another cluster. So the
provider of a component's Kubernetes objects never comes from an arbitrary parent:

* a Kubernetes provider in the component's own ``opts`` (``provider`` or ``providers``) is
  used, as the caller asked for it by name;
* otherwise the framework's (what its own options or its parent chain gave it) is passed to
  every object explicitly, and to the component's children through its ``providers``;
* when the framework has none (it uses the default provider, which no option can name) and
  the parent would give one, the component is refused before anything is registered.
"""

from __future__ import annotations

from collections.abc import Mapping

import pulumi

from .failure import refuse

KUBERNETES = "kubernetes"
"""The package of the Kubernetes provider."""

_MEMBER = "kubernetes:core/v1:Namespace"
"""Any type token of the package: ``Resource.get_provider`` looks providers up by one."""


def kubernetes_provider(resource: pulumi.Resource) -> pulumi.ProviderResource | None:
    """The Kubernetes provider ``resource`` passes to its children (its own or its parent
    chain's), None for the default provider."""
    return resource.get_provider(_MEMBER)


def explicit_provider(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    """The Kubernetes provider named in ``opts`` itself (``provider`` or ``providers``), if any;
    a parent's is not looked at."""
    if opts is None:
        return None
    if opts.provider is not None and opts.provider.package == KUBERNETES:
        return opts.provider
    providers = opts.providers
    if isinstance(providers, Mapping):
        found: pulumi.ProviderResource | None = providers.get(KUBERNETES)
        return found
    for provider in providers or ():
        if provider.package == KUBERNETES:
            return provider
    return None


def describe(provider: pulumi.ProviderResource | None) -> str:
    """A provider as messages name it."""
    if provider is None:
        return "the default Kubernetes provider (the ambient kubeconfig)"
    return f"the Kubernetes provider {resource_name(provider)!r}"


def resource_name(resource: pulumi.Resource) -> str:
    """The name a resource was declared with (for messages)."""
    # pulumi >= 3.158 has the public property; the declared floor (3.121) only the attribute
    return str(getattr(resource, "pulumi_resource_name", None) or getattr(resource, "_name", ""))


def resource_type(resource: pulumi.Resource) -> str:
    """The type token of a resource (for messages)."""
    return str(getattr(resource, "pulumi_resource_type", None) or getattr(resource, "_type", ""))


def place(
    opts: pulumi.ResourceOptions | None,
    owner: pulumi.Resource,
    what: str,
    explicit_wins: bool = True,
    adopt: bool = True,
    component: bool = True,
) -> tuple[pulumi.ResourceOptions, pulumi.ProviderResource | None]:
    """The options of a resource that belongs to ``owner`` (its framework, or the controller
    of a framework install) and the provider of its Kubernetes objects (None: the default).

    * ``what`` names the resource in messages (``TServer 'shop-order'``).
    * ``explicit_wins``: a provider named in ``opts`` is used as given; without it, one that
      is not the owner's is refused.
    * ``adopt``: ``opts`` get ``owner`` as parent when they name none.
    * ``component``: the owner's provider goes into ``providers`` (the component's children
      inherit it); otherwise (a custom resource) into ``provider``.

    Refusing raises :class:`~tars_components.components.failure.ComponentError` (a
    ``pulumi.RunError``: one line in ``pulumi preview``, no traceback), before anything of the
    resource is registered."""
    opts = opts or pulumi.ResourceOptions()
    wanted = kubernetes_provider(owner)
    owner_name = f"{resource_type(owner).rsplit(':', 1)[-1]} {resource_name(owner)!r}"
    own = explicit_provider(opts)
    if own is not None:
        if own is not wanted and not explicit_wins:
            refuse(
                what,
                [
                    f"{what}: opts name {describe(own)}, but {owner_name} uses "
                    f"{describe(wanted)}: its objects must go to the same cluster; drop the "
                    f"provider from opts"
                ],
            )
        return opts, own
    if opts.parent is None and adopt:
        adopted = pulumi.ResourceOptions(parent=owner, provider=None if component else wanted)
        return pulumi.ResourceOptions.merge(opts, adopted), wanted
    if wanted is None:
        inherited = kubernetes_provider(opts.parent) if opts.parent is not None else None
        if inherited is not None and opts.parent is not None:
            parent = resource_name(opts.parent)
            refuse(
                what,
                [
                    f"{what}: its parent {parent!r} would give it {describe(inherited)}, but "
                    f"{owner_name} uses {describe(None)}: its objects would go to another "
                    f"cluster than {owner_name}'s; give {owner_name} that provider, or "
                    f"{what} no parent"
                ],
            )
        return opts, None
    extra = (
        pulumi.ResourceOptions(providers=[wanted])
        if component
        else pulumi.ResourceOptions(provider=wanted)
    )
    return pulumi.ResourceOptions.merge(opts, extra), wanted


__all__ = ["describe", "explicit_provider", "kubernetes_provider", "place"]
