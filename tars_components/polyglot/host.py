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

import argparse
import asyncio
import contextlib
import difflib
import inspect
import json
import re
import sys
from collections.abc import Mapping
from typing import Any

import grpc
import pulumi
import pulumi.dynamic
from google.protobuf import empty_pb2
from pulumi.errors import InputPropertiesError, InputPropertyError
from pulumi.runtime import proto, rpc
from pulumi.runtime.proto import provider_pb2_grpc

from ..components.account_salt import TAccountSaltProvider
from ..components.claim_resize import ClaimResizeProvider
from ..components.rollout_pause import RolloutPauseProvider
from ..kernel.errors import UsageError
from ..provider import TarsValidationProvider
from ..provider.hosting import PluginPackage, serve_from_plugin
from .components import COMPONENTS, argument_path

PACKAGE = "tars"
"""The package name: type tokens are ``tars:index:<Kind>``, as in Python programs."""

try:
    from pulumi.provider.experimental.analyzer import PropertyDefinition, PropertyType
    from pulumi.provider.experimental.component import ComponentProvider
    from pulumi.provider.server import ComponentInitError, ProviderServicer
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
        self.schema = json.dumps(registry_grade(json.loads(self.schema or "{}")))

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: Any,
        options: pulumi.ResourceOptions | None = None,
    ) -> Any:
        """Construct the component; see the class docstring for how a refusal is reported."""
        kind = resource_type.rsplit(":", 1)[-1]
        what = f"{kind} {name!r}"
        try:
            return super().construct(name, resource_type, inputs, options)
        except InputPropertyError as exc:  # the SDK's own checks and :meth:`_checked`
            raise _refusal(what, [(exc.property_path, exc.reason)]) from None
        except ComponentInitError as exc:
            inner = exc.inner
            if isinstance(inner, InputPropertiesError):
                raise InputPropertiesError(
                    _steady(inner.message),
                    [
                        {"property_path": e["property_path"], "reason": _steady(e["reason"])}
                        for e in inner.errors or []
                    ],
                ) from None
            if isinstance(inner, (pulumi.RunError, UsageError)):  # problems, one per line
                raise _refusal(what, _problems(what, str(inner))) from None
            missing = _needs_one_of(inner, inputs)
            if missing:
                raise _refusal(what, missing) from None
            # a bug, or a value no check foresaw: still INVALID_ARGUMENT, one steady line
            problem = f"cannot be constructed: {type(inner).__name__}: {inner}"
            raise _refusal(what, [("", problem)]) from None

    def map_input_properties(
        self,
        inputs: Any,
        properties: dict[str, PropertyDefinition],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> Any:
        """The SDK's mapping of the inputs to Python names, each known value first checked
        against its declared type (:class:`InputPropertyError` with its path otherwise)."""
        if not isinstance(inputs, Mapping) and inputs is not None and not _deferred(inputs):
            raise InputPropertyError(property_path, f"must be an object, got {_kind(inputs)}")
        for key in sorted(inputs or {}, key=str) if isinstance(inputs, Mapping) else ():
            if key not in properties:  # Python refuses a misspelt key too (mypy, pydantic)
                path = f"{property_path}.{key}" if property_path else str(key)
                raise InputPropertyError(path, _unknown(str(key), properties))
        for schema_name, prop in properties.items():
            value = inputs.get(schema_name) if isinstance(inputs, Mapping) else None
            path = f"{property_path}.{schema_name}" if property_path else schema_name
            self._checked(value, prop, path)
        return super().map_input_properties(
            inputs, properties, mapping, component_name, property_path
        )

    def _checked(self, value: Any, prop: PropertyDefinition, path: str) -> None:
        """Raise :class:`InputPropertyError` at ``path`` when the known ``value`` is not of
        the declared type of ``prop`` (nested lists and maps of plain values included;
        objects of a named type are checked when the SDK maps them)."""
        if value is None or _deferred(value):
            return
        if prop.ref:
            type_def = self.get_type_definition(prop) if ":" in prop.ref else None
            if type_def is not None and type_def.enum:
                allowed = [e.value for e in type_def.enum]
                if value not in allowed or isinstance(value, bool):
                    choices = ", ".join(json.dumps(a) for a in allowed)
                    raise InputPropertyError(path, f"must be one of {choices}")
            elif type_def is not None and not isinstance(value, Mapping):
                raise InputPropertyError(path, f"must be an object, got {_kind(value)}")
            return
        wanted = prop.type
        if wanted is None:
            return
        if not _fits(value, wanted):
            raise InputPropertyError(path, f"must be {_NAMES[wanted]}, got {_kind(value)}")
        if wanted is PropertyType.ARRAY and prop.items is not None:
            for index, item in enumerate(value):
                self._checked(item, prop.items, f"{path}[{index}]")
        if wanted is PropertyType.OBJECT and prop.additional_properties is not None:
            for key, item in value.items():
                self._checked(item, prop.additional_properties, f"{path}.{key}")


def _unknown(key: str, properties: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(key, list(properties), n=1)
    hint = f"did you mean {close[0]}?" if close else f"expected one of {', '.join(properties)}"
    return f"unknown property ({hint})"


_NAMES = {
    PropertyType.STRING: "a string",
    PropertyType.INTEGER: "an integer",
    PropertyType.NUMBER: "a number",
    PropertyType.BOOLEAN: "a boolean",
    PropertyType.OBJECT: "an object",
    PropertyType.ARRAY: "a list",
}


def _deferred(value: Any) -> bool:
    """A value the engine does not know yet, or a secret: checked by the validation
    resource once known."""
    return isinstance(value, pulumi.Output) or type(value).__name__ == "Unknown"


def _fits(value: Any, wanted: PropertyType) -> bool:
    if wanted is PropertyType.STRING:
        return isinstance(value, str)
    if wanted is PropertyType.BOOLEAN:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if wanted is PropertyType.INTEGER:
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if wanted is PropertyType.NUMBER:
        return isinstance(value, (int, float))
    if wanted is PropertyType.ARRAY:
        return isinstance(value, (list, tuple))
    return isinstance(value, Mapping)


def _kind(value: Any) -> str:
    """A JSON value's type in the words of every Pulumi language (never the value: it may be
    a secret)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return "a value of another type"


_ADDRESS = re.compile(r"<([\w.]+) object at 0x[0-9a-fA-F]+>")


def _steady(text: str) -> str:
    """``text`` without the memory addresses Python prints for some objects (a
    ``pulumi.Output`` that reached a message): the same on every run."""
    return _ADDRESS.sub(lambda m: "(a value not known yet)" if "Output" in m[1] else m[1], text)


def _refusal(what: str, problems: list[tuple[str, str]]) -> InputPropertiesError:
    """INVALID_ARGUMENT: one error per ``(property path, reason)``, the message one line per
    problem prefixed by ``what``."""
    lines = [
        f"{what}: {path}: {reason}" if path else f"{what}: {reason}" for path, reason in problems
    ]
    errors: list[Any] = [
        {"property_path": path, "reason": _steady(reason)} for path, reason in problems
    ]
    return InputPropertiesError(_steady("\n".join(lines)), errors)


_FIELD_PROBLEM = re.compile(r"^([A-Za-z][\w.\[\]\"/-]*): ([A-Z]{2,3}\d{3}: .*)$")


def _problems(what: str, text: str) -> list[tuple[str, str]]:
    """A component's refusal (one problem per line, each ``WHAT: field: CODE: message``) as
    ``(property path, reason)`` pairs: a rule's field by its argument path."""
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        line = line.removeprefix(f"{what}: ")
        match = _FIELD_PROBLEM.match(line)
        found.append((argument_path(match[1]), match[2]) if match else ("", line))
    return found


_NEEDS = re.compile(r"needs a document or (?:both )?(.+)$")


def _needs_one_of(error: BaseException, inputs: Any) -> list[tuple[str, str]]:
    """The arguments an ``...Args`` class asked for (``needs a document or both app and
    config_name``), by their schema names, each with its reason; none for another error."""
    found = _NEEDS.search(str(error)) if isinstance(error, TypeError) else None
    if found is None:
        return []
    names = [n.strip() for n in re.split(r",| and | or ", found[1].removeprefix("a ")) if n.strip()]
    wire = [re.sub(r"_([a-z])", lambda m: m[1].upper(), n.removeprefix("a ")) for n in names]
    given = inputs if isinstance(inputs, Mapping) else {}
    missing = [n for n in wire if given.get(n) is None] or wire
    reason = f"required when no document is given ({' and '.join(wire)})"
    return [(n, reason) for n in missing]


REPOSITORY = "https://github.com/tars-components/tars-components"
"""Where the package is published from (the schema's ``repository`` and ``homepage``, the Go
SDK's import path)."""

METADATA: dict[str, Any] = {
    "displayName": "TarsK8S components",
    "description": "TarsK8S (the Kubernetes edition of the Tars RPC framework) as Pulumi "
    "components: TServer, TTemplate, TFramework, TConfig, TImage, TTree, TAccount and the "
    "TarsK8S install, checked against the TarsK8S admission rules at preview time.",
    "publisher": "tars-components",
    "repository": REPOSITORY,
    "homepage": REPOSITORY,
    "license": "BSD-3-Clause",
    "keywords": ["tars", "tarsk8s", "kubernetes", "category/infrastructure", "kind/component"],
}
"""The package metadata of a registry entry."""

LANGUAGE: dict[str, dict[str, Any]] = {
    "nodejs": {"packageName": "@tars-components/tars"},
    "go": {
        "importBasePath": "github.com/tars-components/tars-components/sdk/go/tars",
        "generateResourceContainerTypes": True,
        # the Args types of the object types every input takes plain (Authorization, ...),
        # which the resources' Args structs refer to
        "generateExtraInputTypes": True,
    },
    "csharp": {"rootNamespace": "TarsComponents"},
    "java": {"basePackage": "io.github.tarscomponents"},
}
"""Each language's SDK settings (on top of the analyzer's ``respectSchemaVersion``): a Node
scope of ours (not ``@pulumi/tars``), a Go import path (and every object type's ``Args``: the
resources refer to them even where an input is plain), a C# namespace, a Java package."""

_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|obj|exc):`(~?)([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def markdown(text: str) -> str:
    """A docstring's reStructuredText as the Markdown registry pages and IDEs show:
    ````x```` → `` `x` ``; ``:class:`~a.b.C``` → `` `C` `` (the full path without ``~``)."""
    text = inspect.cleandoc(text)  # an attribute's docstring keeps its indentation
    text = _ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", text)
    return _LITERAL.sub(r"`\1`", text)


def registry_grade(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The analyzer's schema as a registry publishes it: :data:`METADATA`, the
    :data:`LANGUAGE` settings, Markdown descriptions, and no ``null`` description (the
    analyzer writes one for an enum value without a docstring, which Pulumi's metaschema
    refuses)."""

    def walk(value: Any) -> Any:
        if isinstance(value, Mapping):
            out = {}
            for key, item in value.items():
                if key == "description" and item is None:
                    continue
                out[key] = (
                    markdown(item) if key == "description" and isinstance(item, str) else walk(item)
                )
            return out
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    graded: dict[str, Any] = walk(schema)
    graded.update(METADATA)
    language = {k: dict(v) for k, v in graded.get("language", {}).items()}
    for name, settings in LANGUAGE.items():
        language[name] = {**language.get(name, {}), **settings}
    graded["language"] = language
    return graded


def plugin_version() -> str:
    """The schema's version: the package's (:data:`tars_components.__version__`), so that a
    generated SDK, the plugin and ``tars-components --version`` name one release."""
    from ..kernel.version import __version__

    return __version__


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


PLUGIN_RESOURCES: dict[str, type[pulumi.dynamic.ResourceProvider]] = {
    "TarsValidation": TarsValidationProvider,
    "TAccountSalt": TAccountSaltProvider,
    "RolloutPause": RolloutPauseProvider,
    "ClaimResize": ClaimResizeProvider,
}
"""The custom resources the plugin serves itself, by kind, and their providers
(:mod:`tars_components.provider.hosting`)."""


def _plain(value: Any) -> tuple[Any, bool]:
    """``value`` with every secret unwrapped (the plugin accepts secrets, the providers take
    plain values), and whether it held one."""
    if rpc.is_rpc_secret(value):
        return _plain(value["value"])[0], True
    if isinstance(value, dict):
        items = {k: _plain(v) for k, v in value.items()}
        return {k: v for k, (v, _) in items.items()}, any(s for _, s in items.values())
    if isinstance(value, list):
        found = [_plain(v) for v in value]
        return [v for v, _ in found], any(s for _, s in found)
    return value, False


def _properties(struct: Any, keep_unknowns: bool = False) -> tuple[dict[str, Any], set[str]]:
    """The properties of a request, plain, and the names of those that held a secret."""
    props = rpc.deserialize_properties(struct, keep_unknowns) or {}
    plain: dict[str, Any] = {}
    secret: set[str] = set()
    for key, value in props.items():
        plain[key], held = _plain(value)
        if held:
            secret.add(key)
    return plain, secret


async def _struct(outs: Mapping[str, Any], secret: set[str]) -> Any:
    """``outs`` for the engine, each output named like a secret input a secret too (what the
    engine does itself for a provider that takes no secrets, ``pulumi.dynamic``'s)."""
    marked = {k: rpc.wrap_rpc_secret(v) if k in secret else v for k, v in outs.items()}
    return await rpc.serialize_properties(marked, {})


MAX_MESSAGE = 400 * 1024 * 1024
"""The largest request the plugin takes, as the SDK's own provider server (400 MiB)."""


class PluginServicer(ProviderServicer):
    """The SDK's servicer of components (``Construct``, ``GetSchema``, ...) plus the resource
    methods of :data:`PLUGIN_RESOURCES`, which call the very providers ``pulumi.dynamic``
    runs for a Python program (:mod:`tars_components.provider.hosting`)."""

    async def _provider(self, request: Any, context: Any) -> pulumi.dynamic.ResourceProvider:
        kind = str(request.urn).split("::")[-2].rsplit(":", 1)[-1] if request.urn else ""
        if kind not in PLUGIN_RESOURCES:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"{PACKAGE}: no resource {kind!r}")
        return PLUGIN_RESOURCES[kind]()

    async def Check(self, request: Any, context: Any) -> Any:
        """``check``: the failures; the inputs go back as they came (secrets and unknowns)."""
        provider = await self._provider(request, context)
        olds, _ = _properties(request.olds, keep_unknowns=True)
        news, _ = _properties(request.news, keep_unknowns=True)
        result = provider.check(olds, news)
        failures = [
            proto.CheckFailure(property=f.property, reason=f.reason) for f in result.failures
        ]
        return proto.CheckResponse(inputs=request.news, failures=failures)

    async def Diff(self, request: Any, context: Any) -> Any:
        """``diff``."""
        provider = await self._provider(request, context)
        olds, _ = _properties(request.olds, keep_unknowns=True)
        news, _ = _properties(request.news, keep_unknowns=True)
        result = provider.diff(request.id, olds, news)
        changes = (
            proto.DiffResponse.DIFF_UNKNOWN
            if result.changes is None
            else proto.DiffResponse.DIFF_SOME
            if result.changes
            else proto.DiffResponse.DIFF_NONE
        )
        return proto.DiffResponse(
            changes=changes,
            replaces=result.replaces or [],
            deleteBeforeReplace=bool(result.delete_before_replace),
        )

    async def Create(self, request: Any, context: Any) -> Any:
        """``create``; a refusal is the call's error, one line per problem."""
        provider = await self._provider(request, context)
        props, secret = _properties(request.properties)
        try:
            result = provider.create(props)
        except Exception as exc:
            await context.abort(grpc.StatusCode.UNKNOWN, str(exc))
        return proto.CreateResponse(
            id=result.id, properties=await _struct(result.outs or {}, secret)
        )

    async def Read(self, request: Any, context: Any) -> Any:
        """``read`` (``pulumi refresh``): the state as it is (the resources contact nothing)."""
        await self._provider(request, context)
        return proto.ReadResponse(
            id=request.id, properties=request.properties, inputs=request.inputs
        )

    async def Update(self, request: Any, context: Any) -> Any:
        """``update``; a refusal is the call's error, one line per problem."""
        provider = await self._provider(request, context)
        olds, _ = _properties(request.olds)
        news, secret = _properties(request.news)
        try:
            result = provider.update(request.id, olds, news)
        except Exception as exc:
            await context.abort(grpc.StatusCode.UNKNOWN, str(exc))
        return proto.UpdateResponse(properties=await _struct(result.outs or {}, secret))

    async def Delete(self, request: Any, context: Any) -> Any:
        """``delete``."""
        provider = await self._provider(request, context)
        props, _ = _properties(request.properties)
        provider.delete(request.id, props)
        return empty_pb2.Empty()


def main(args: list[str] | None = None) -> None:
    """Serve the components and :data:`PLUGIN_RESOURCES` (the plugin's entry point), as
    ``pulumi.provider.main`` serves components: print the port, then answer the engine.
    ``args``: the engine's (its address first); defaults to ``sys.argv[1:]``."""
    argv = sys.argv[1:] if args is None else args
    parser = argparse.ArgumentParser(description="the tars component provider plugin")
    parser.add_argument("engine", help="the Pulumi engine's address")
    engine = parser.parse_known_args(argv)[0].engine
    provider = TarsComponentProvider()
    serve_from_plugin(PluginPackage(PACKAGE, provider.version or plugin_version()))

    async def serve() -> None:
        server = grpc.aio.server(options=[("grpc.max_receive_message_length", MAX_MESSAGE)])
        servicer = PluginServicer(provider, argv, engine_address=engine)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port(address="127.0.0.1:0")
        await server.start()
        sys.stdout.buffer.write(f"{port}\n".encode())
        sys.stdout.buffer.flush()
        await server.wait_for_termination()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


__all__ = [
    "LANGUAGE",
    "METADATA",
    "PACKAGE",
    "PLUGIN_RESOURCES",
    "REPOSITORY",
    "PluginServicer",
    "TarsComponentProvider",
    "comparable",
    "main",
    "markdown",
    "package_schema",
    "plugin_version",
    "registry_grade",
    "schema_text",
]
