"""The component provider: what ``PulumiPlugin.yaml`` (``runtime: python``) runs
(docs/pulumi/multi-language.md).

:func:`main` serves the components of :mod:`.components` over gRPC as the Pulumi engine
expects from a provider plugin (it prints its port, then answers ``GetSchema`` and
``Construct``); :func:`package_schema` is the schema Pulumi's analyzer infers from their type
annotations and docstrings (``tools/gen_plugin_schema.py`` writes it to
``plugin/schema.json``).

Needs pulumi 3.166 or newer (the ``ComponentProvider`` of a list of components in
``pulumi.provider.experimental``), the package's declared minimum; importing this module with
an older one says so.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pulumi
from pulumi.errors import InputPropertiesError

from ..errors import UsageError
from .components import COMPONENTS

PACKAGE = "tars"
"""The package name: type tokens are ``tars:index:<Kind>``, as in Python programs."""

try:
    from pulumi.provider.experimental.component import ComponentProvider
    from pulumi.provider.server import ComponentInitError
except ImportError as exc:  # pragma: no cover - pulumi older than the declared floor
    raise ImportError(
        "the multi-language components need pulumi>=3.166 "
        "(pulumi.provider.experimental); pip install -U pulumi"
    ) from exc


class TarsComponentProvider(ComponentProvider):
    """Pulumi's component provider for :data:`~.components.COMPONENTS`, reporting a refused
    component as the ``Construct`` error itself: the rule code and the argument's path
    (``InputPropertiesError``), or the component's one-line problems, never a Python
    traceback."""

    def __init__(self, version: str | None = None) -> None:
        super().__init__(COMPONENTS, PACKAGE, None, version or plugin_version())

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: Any,
        options: pulumi.ResourceOptions | None = None,
    ) -> Any:
        """Construct the component; see the class docstring for how a refusal is reported."""
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as exc:
            inner = exc.inner
            if isinstance(inner, InputPropertiesError):
                raise inner from None
            if isinstance(inner, (pulumi.RunError, UsageError)):  # problems, one per line
                raise InputPropertiesError(str(inner), []) from None
            raise


def plugin_version() -> str:
    """The schema's version: ``0.0.0`` (the SDK generator needs one; the package's own
    version comes from git tags, which would make the committed schema change per commit)."""
    return "0.0.0"


def package_schema() -> dict[str, Any]:
    """The package schema Pulumi's analyzer infers from the components, as a mapping: what
    the provider serves in ``GetSchema``."""
    provider = TarsComponentProvider()
    schema: dict[str, Any] = json.loads(provider.schema or "{}")
    return schema


def comparable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as SDK versions agree on it: an empty ``dependencies`` list (written since
    pulumi 3.170) left out."""
    found = dict(schema)
    if not found.get("dependencies"):
        found.pop("dependencies", None)
    return found


def schema_text() -> str:
    """:func:`package_schema` as the committed file holds it: sorted keys, two-space indent,
    a final newline."""
    return json.dumps(package_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(args: list[str] | None = None) -> None:
    """Serve the components (the plugin's entry point). ``args``: the engine's (its address
    first); defaults to ``sys.argv[1:]``."""
    from pulumi.provider import main as serve

    serve(TarsComponentProvider(), sys.argv[1:] if args is None else args)


__all__ = [
    "PACKAGE",
    "TarsComponentProvider",
    "comparable",
    "main",
    "package_schema",
    "plugin_version",
    "schema_text",
]
