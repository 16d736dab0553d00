"""Drive the multi-language component provider the way the Pulumi engine does, without the
engine.

* :class:`RecordingEngine` serves, on 127.0.0.1, the two gRPC services a provider's ``Construct``
  calls back: the Engine (logs, the root resource) and a ResourceMonitor that records every
  ``RegisterResource`` (type, name, parent, inputs as plain values) and answers with the URN
  the engine would give (custom resources: their inputs as outputs).
* :class:`ComponentProviderProcess` starts ``python plugin/__main__.py <engine address>``
  (what the Python language host runs for ``PulumiPlugin.yaml`` with ``runtime: python``),
  reads the port it prints and calls the ResourceProvider service (``GetSchema``,
  ``Construct``) with the SDK's generated stubs.
* :func:`python_children` runs the Python API under ``pulumi.runtime.set_mocks`` and returns
  the same canonical form of what a component registers below itself, for comparison.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import (
    engine_pb2,
    engine_pb2_grpc,
    provider_pb2,
    resource_pb2,
    resource_pb2_grpc,
)

from tars_components.components.testing import Recording, record
from tars_components.polyglot.host import PLUGIN_RESOURCES

from ..engines.grpc_provider import ProviderProcess, from_struct, to_struct

REPO = Path(__file__).resolve().parents[3]
PLUGIN = REPO / "plugin"
START_TIMEOUT = 60.0
CALL_TIMEOUT = 60.0
PROJECT = "tars"
STACK = "dev"
STACK_URN = f"urn:pulumi:{STACK}::{PROJECT}::pulumi:pulumi:Stack::{PROJECT}-{STACK}"
DYNAMIC_PROVIDER = "__provider"
"""The serialized dynamic provider among a validation resource's inputs (code, not data)."""

_FEATURES = {"secrets", "resourceReferences", "outputValues", "deletedWith", "aliasSpecs"}


@dataclass(frozen=True)
class Child:
    """One registration, in the form both paths are compared in: the parent as a path of
    ``type::name`` below the component, the inputs as plain values."""

    type: str
    name: str
    parent: str
    custom: bool
    inputs: Any


@dataclass
class RecordingEngine:
    """The Engine and ResourceMonitor services of one deployment, recording."""

    registrations: list[resource_pb2.RegisterResourceRequest] = field(default_factory=list)
    urns: dict[str, resource_pb2.RegisterResourceRequest] = field(default_factory=dict)
    logs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        resource_pb2_grpc.add_ResourceMonitorServicer_to_server(_Monitor(self), self.server)
        engine_pb2_grpc.add_EngineServicer_to_server(_Engine(self), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    @property
    def address(self) -> str:
        """``127.0.0.1:<port>`` of both services."""
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop serving."""
        self.server.stop(grace=None)

    def urn_of(self, parent: str, type_: str, name: str) -> str:
        """The URN the engine gives a resource: the parent's type chain, then its type."""
        chain = type_
        if parent and parent != STACK_URN:
            chain = parent.split("::")[2] + "$" + type_
        return f"urn:pulumi:{STACK}::{PROJECT}::{chain}::{name}"

    def children_of(self, urn: str) -> list[Child]:
        """Everything registered below ``urn`` (see :func:`canonical`)."""
        return canonical(
            [
                (r.type, r.name, r.parent, r.custom, from_struct(r.object))
                for r in self.registrations
            ],
            urn,
            self.urn_of,
        )


class _Monitor(resource_pb2_grpc.ResourceMonitorServicer):
    def __init__(self, engine: RecordingEngine) -> None:
        self.engine = engine

    def SupportsFeature(self, request: Any, context: Any) -> Any:
        return resource_pb2.SupportsFeatureResponse(hasSupport=request.id in _FEATURES)

    def RegisterResource(self, request: Any, context: Any) -> Any:
        urn = self.engine.urn_of(request.parent, request.type, request.name)
        with self.engine.lock:
            if urn in self.engine.urns:
                context.abort(grpc.StatusCode.ALREADY_EXISTS, f"duplicate URN {urn}")
            self.engine.urns[urn] = request
            self.engine.registrations.append(request)
        if not request.custom:
            return resource_pb2.RegisterResourceResponse(urn=urn)
        outputs = struct_pb2.Struct()
        outputs.CopyFrom(request.object)
        return resource_pb2.RegisterResourceResponse(
            urn=urn, id=f"{request.name}-id", object=outputs
        )

    def RegisterResourceOutputs(self, request: Any, context: Any) -> Any:
        return empty_pb2.Empty()

    def RegisterStackTransform(self, request: Any, context: Any) -> Any:
        context.abort(grpc.StatusCode.UNIMPLEMENTED, "no transforms")

    def GetDeploymentInfo(self, request: Any, context: Any) -> Any:
        context.abort(grpc.StatusCode.UNIMPLEMENTED, "no deployment info")

    def Invoke(self, request: Any, context: Any) -> Any:
        return resource_pb2.InvokeResponse(**{"return": struct_pb2.Struct()})


class _Engine(engine_pb2_grpc.EngineServicer):
    def __init__(self, engine: RecordingEngine) -> None:
        self.engine = engine

    def Log(self, request: Any, context: Any) -> Any:
        with self.engine.lock:
            self.engine.logs.append(request.message)
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> Any:
        return engine_pb2.GetRootResourceResponse(urn=STACK_URN)

    def SetRootResource(self, request: Any, context: Any) -> Any:
        return engine_pb2.SetRootResourceResponse()


class ComponentProviderProcess(ProviderProcess):
    """The plugin in a subprocess (as the engine starts it) and a gRPC client for it."""

    def __init__(self, engine: RecordingEngine) -> None:
        self.engine = engine
        super().__init__(
            [sys.executable, str(PLUGIN / "__main__.py"), engine.address],
            PLUGIN,
            "the plugin",
            env={
                "PYTHONPATH": os.pathsep.join(
                    p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p
                )
            },
            start_timeout=START_TIMEOUT,
        )

    def schema(self) -> dict[str, Any]:
        """``GetSchema``: the package schema the plugin serves."""
        response = self.stub.GetSchema(provider_pb2.GetSchemaRequest(), timeout=CALL_TIMEOUT)
        result: dict[str, Any] = json.loads(response.schema)
        return result

    def construct(
        self,
        type_: str,
        name: str,
        inputs: Mapping[str, Any],
        dependencies: Mapping[str, list[str]] | None = None,
        preview: bool = False,
    ) -> provider_pb2.ConstructResponse:
        """``Construct`` of a component with plain JSON ``inputs``, as a program in another
        language sends them, under the stack."""
        deps = {
            key: provider_pb2.ConstructRequest.PropertyDependencies(urns=urns)
            for key, urns in (dependencies or {}).items()
        }
        request = provider_pb2.ConstructRequest(
            project=PROJECT,
            stack=STACK,
            organization="organization",
            dryRun=preview,
            parallel=4,
            monitorEndpoint=self.engine.address,
            type=type_,
            name=name,
            parent=STACK_URN,
            inputs=json_format.ParseDict(dict(inputs), struct_pb2.Struct()),
            inputDependencies=deps,
        )
        return self.stub.Construct(request, timeout=CALL_TIMEOUT)


def canonical(
    registrations: list[tuple[str, str, str, bool, dict[str, Any]]],
    root: str,
    urn_of: Callable[[str, str, str], str],
) -> list[Child]:
    """The registrations below ``root`` as :class:`Child` entries, sorted by parent, type and
    name (the SDK sends registrations concurrently: their order on the wire is not the
    program's): parents as a path of ``type::name`` relative to ``root``, the dynamic
    provider's serialized code left out, secret markers kept as ``{"secret": value}``."""
    names: dict[str, str] = {root: ""}
    children: list[Child] = []
    for type_, name, parent, custom, inputs in registrations:
        urn = urn_of(parent, type_, name)
        if parent not in names:
            continue
        names[urn] = f"{names[parent]}/{type_}::{name}".lstrip("/")
        kept = {k: _plain(v) for k, v in inputs.items() if k != DYNAMIC_PROVIDER}
        children.append(Child(type_, name, names[parent], custom, kept))
    return sorted(children, key=lambda c: (c.parent, c.type, c.name))


def _plain(value: Any) -> Any:
    if isinstance(value, dict) and rpc.is_rpc_secret(value):
        return {"secret": _plain(rpc.unwrap_rpc_secret(value))}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def python_children(program: Callable[[], Any], component_type: str, name: str) -> list[Child]:
    """What the Python API registers below the component ``name`` of ``component_type`` when
    ``program`` runs under mocks (a stack like the engine's test stack)."""
    recording: Recording = record(program, project=PROJECT, stack=STACK)
    root = next(r for r in recording.registrations if r.type == component_type and r.name == name)

    def urn_of(parent: str, type_: str, child: str) -> str:
        found = next(
            r.urn
            for r in recording.registrations
            if r.type == type_ and r.name == child and r.parent == parent
        )
        return found

    return canonical(
        [
            (plugin_type(r.type), r.name, r.parent, r.custom, r.inputs)
            for r in recording.registrations
        ],
        root.urn,
        lambda parent, type_, child: urn_of(parent, python_type(type_), child),
    )


def plugin_type(type_: str) -> str:
    """The type the plugin registers for a Python program's ``type_``: its own custom resource
    for a ``pulumi-python`` dynamic resource (``tars_components.provider.hosting``)."""
    prefix = "pulumi-python:dynamic/tars:"
    return f"tars:index:{type_.removeprefix(prefix)}" if type_.startswith(prefix) else type_


def python_type(type_: str) -> str:
    """The inverse of :func:`plugin_type`."""
    kind = type_.removeprefix("tars:index:")
    return f"pulumi-python:dynamic/tars:{kind}" if kind in PLUGIN_RESOURCES else type_


__all__ = [
    "PLUGIN",
    "STACK_URN",
    "Child",
    "ComponentProviderProcess",
    "RecordingEngine",
    "canonical",
    "python_children",
    "to_struct",
]
