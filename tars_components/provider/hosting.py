"""Where the providers of the package's own custom resources (:class:`~.TarsValidation`,
:class:`~tars_components.components.account_salt.TAccountSalt`) run.

In a Python program they are ``pulumi.dynamic`` resources: the engine starts the
``pulumi-python`` dynamic provider, a Python process of the program's virtualenv, which
unpickles the provider class by reference. A program in another language has no such
virtualenv: the engine would start the dynamic provider with whatever ``python3`` is on PATH,
without ``tars_components`` (pulumi/pulumi#5455). There the component provider plugin
(``plugin/``, :mod:`tars_components.polyglot.host`), whose own virtualenv has the package,
serves them itself, as custom resources of its package (``tars:index:TarsValidation``), with the
same inputs and outputs (but the serialized provider: the plugin calls the provider classes
itself).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi.dynamic.dynamic import PROVIDER_KEY


@dataclass(frozen=True)
class PluginPackage:
    """The component provider plugin that serves the custom resources: its package name and
    version (the engine's default provider of that package and version, the one that
    constructs the components)."""

    name: str
    version: str


_served_by: PluginPackage | None = None


def serve_from_plugin(package: PluginPackage) -> None:
    """Register the custom resources of this process with ``package`` (the plugin host calls
    this once, before it serves anything)."""
    global _served_by
    _served_by = package


def plugin_type(dynamic_type: str) -> str:
    """The plugin's type token for a dynamic resource's (``dynamic/tars:TarsValidation`` gives
    ``tars:index:TarsValidation``)."""
    assert _served_by is not None
    return f"{_served_by.name}:index:{dynamic_type.rsplit(':', 1)[-1]}"


def register(
    resource: pulumi.CustomResource,
    dynamic_type: str,
    name: str,
    props: dict[str, object],
    opts: pulumi.ResourceOptions | None,
) -> None:
    """Register ``resource`` (a ``pulumi.dynamic.Resource`` whose ``props`` hold its serialized
    provider): with the ``pulumi-python`` dynamic provider in a Python program, with the
    plugin that serves this process otherwise."""
    if _served_by is None:
        pulumi.CustomResource.__init__(resource, f"pulumi-python:{dynamic_type}", name, props, opts)
        return
    opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(version=_served_by.version))
    served = {k: v for k, v in props.items() if k != PROVIDER_KEY}  # the plugin knows its own
    pulumi.CustomResource.__init__(resource, plugin_type(dynamic_type), name, served, opts)


__all__ = ["PluginPackage", "plugin_type", "register", "serve_from_plugin"]
