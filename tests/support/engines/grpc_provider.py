"""Drive a Python dynamic provider the way the Pulumi engine does, without the engine.

* :func:`registered_inputs` runs a tiny Pulumi program under ``pulumi.runtime.set_mocks`` and
  returns the exact ``RegisterResource`` property struct that ``pulumi.dynamic.Resource`` sends
  to the engine, ``__provider`` (serialized by the SDK itself) included.
* :class:`DynamicProviderProcess` starts ``python -m pulumi.dynamic`` (what the engine runs
  for Python dynamic providers), reads the port it prints, and calls the ResourceProvider gRPC
  service with the SDK's generated stubs. Only 127.0.0.1 is used; every wait is bounded.

The dynamic provider process needs no engine endpoint: it prints its port, serves the
ResourceProvider service, and takes the stack config from ``Configure`` as the engine sends it.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pulumi
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import mocks, rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc
from typing_extensions import Self

REPO = Path(__file__).resolve().parents[3]
PROVIDER_KEY = "__provider"
START_TIMEOUT = 30.0
CALL_TIMEOUT = 30.0


# --- the program side: what pulumi.dynamic.Resource registers ------------------------------


class _EchoMocks(pulumi.runtime.Mocks):
    """Every resource's state is its inputs."""

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        return f"{args.name}-id", args.inputs

    def call(self, args: mocks.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        return {}, []


class _CapturingMonitor(mocks.MockMonitor):
    """A mock resource monitor that keeps the raw property struct of every registration."""

    def __init__(self, mocks_: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks_)
        self.registered: dict[str, tuple[str, struct_pb2.Struct]] = {}
        self.requests: dict[str, Any] = {}

    def RegisterResource(self, request: Any) -> Any:
        captured = struct_pb2.Struct()
        captured.CopyFrom(request.object)
        self.registered[request.name] = (request.type, captured)
        self.requests[request.name] = request
        return super().RegisterResource(request)


def registered_inputs(
    name: str, build: Callable[[], pulumi.Resource], preview: bool = False
) -> tuple[str, struct_pb2.Struct]:
    """``(type token, property struct)`` that ``build()`` registers as resource ``name``.

    ``build`` runs inside a mocked Pulumi program (``preview`` selects a dry run, where
    unknown outputs are sent as the unknown sentinel). The program runs in a copy of the
    current context: the Pulumi settings are context variables, so mocks that other tests set
    stay as they were.
    """
    monitor = _CapturingMonitor(_EchoMocks())

    @pulumi.runtime.test
    def program() -> pulumi.Output[str]:
        return build().urn

    def run() -> None:
        try:
            asyncio.get_event_loop()
        except RuntimeError:  # another test closed the thread's loop (asyncio.run)
            asyncio.set_event_loop(asyncio.new_event_loop())
        pulumi.runtime.set_mocks(_EchoMocks(), preview=preview, monitor=monitor)
        program()

    contextvars.copy_context().run(run)
    return monitor.registered[name]


def registered_request(
    name: str, build: Callable[[], pulumi.Resource], preview: bool = False
) -> Any:
    """The whole ``RegisterResourceRequest`` of resource ``name`` (resource options included,
    e.g. ``additionalSecretOutputs``); see :func:`registered_inputs`."""
    monitor = _CapturingMonitor(_EchoMocks())

    @pulumi.runtime.test
    def program() -> pulumi.Output[str]:
        return build().urn

    def run() -> None:
        try:
            asyncio.get_event_loop()
        except RuntimeError:
            asyncio.set_event_loop(asyncio.new_event_loop())
        pulumi.runtime.set_mocks(_EchoMocks(), preview=preview, monitor=monitor)
        program()

    contextvars.copy_context().run(run)
    return monitor.requests[name]


def engine_strips_secrets(struct: struct_pb2.Struct) -> struct_pb2.Struct:
    """The properties as the engine sends them to a provider that does not accept secrets
    (``python -m pulumi.dynamic`` answers ``acceptSecrets: false``): every secret marker
    replaced by the value it wraps."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict) and rpc.is_rpc_secret(value):
            return strip(rpc.unwrap_rpc_secret(value))
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    raw = json_format.MessageToDict(struct)
    return to_struct(strip(raw))


def unknown_output() -> pulumi.Output[Any]:
    """An output whose value is not known (as in a preview); call inside a program."""
    loop = asyncio.get_event_loop()
    value: asyncio.Future[Any] = loop.create_future()
    value.set_result(None)
    known: asyncio.Future[bool] = loop.create_future()
    known.set_result(False)
    return pulumi.Output(set(), value, known)


# --- the engine side: the provider process and its gRPC service ----------------------------


def to_struct(props: Mapping[str, Any]) -> struct_pb2.Struct:
    """Plain property values (``pulumi.output.Unknown`` allowed) as a protobuf Struct, by the
    SDK's own serializer."""
    loop = asyncio.new_event_loop()  # as pulumi.dynamic does; the current loop stays as it is
    try:
        return loop.run_until_complete(rpc.serialize_properties(dict(props), {}))
    finally:
        loop.close()


def from_struct(struct: struct_pb2.Struct, keep_unknowns: bool = True) -> dict[str, Any]:
    """A protobuf Struct as plain values, by the SDK's own deserializer."""
    return rpc.deserialize_properties(struct, keep_unknowns)


def with_props(struct: struct_pb2.Struct, **changes: Any) -> struct_pb2.Struct:
    """A copy of a property struct with some top-level properties replaced."""
    props = from_struct(struct)
    props.update(changes)
    return to_struct(props)


@dataclass(frozen=True)
class Failure:
    """One ``CheckFailure`` of a Check response."""

    property: str
    reason: str

    @property
    def code(self) -> str:
        """The rule code the reason starts with."""
        return self.reason.split(":", 1)[0]


class ProviderProcess:
    """A provider plugin in a subprocess, as the engine starts it (its first stdout line is
    the port it listens on), and a gRPC client for it. Use as a context manager: the process
    is terminated (then killed) on exit."""

    def __init__(
        self,
        command: list[str],
        cwd: Path,
        what: str,
        env: Mapping[str, str] | None = None,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        self.cwd = cwd
        self.what = what
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(cwd), full_env.get("PYTHONPATH", "")) if p
        )
        full_env.update(env or {})
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.port = self._read_port(start_timeout)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        grpc.channel_ready_future(self.channel).result(timeout=start_timeout)
        self.stub = provider_pb2_grpc.ResourceProviderStub(self.channel)

    def _read_port(self, timeout: float) -> int:
        """The first stdout line is the port the provider listens on."""
        line: list[bytes] = []
        reader = threading.Thread(
            target=lambda: line.append(self.process.stdout.readline()),  # type: ignore[union-attr]
            daemon=True,
        )
        reader.start()
        reader.join(timeout)
        if not line or not line[0].strip().isdigit():
            self.close()
            raise RuntimeError(f"{self.what} printed no port: {line!r}\n{self.stderr()}")
        return int(line[0])

    def stderr(self) -> str:
        """What the provider process wrote to stderr so far."""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def close(self) -> None:
        """Stop the provider process (terminate, then kill after 5 s)."""
        channel = getattr(self, "channel", None)
        if channel is not None:
            channel.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._stderr.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DynamicProviderProcess(ProviderProcess):
    """``python -m pulumi.dynamic`` in a subprocess, and a gRPC client for it."""

    def __init__(self, cwd: Path = REPO) -> None:
        super().__init__(
            [sys.executable, "-m", "pulumi.dynamic"],
            cwd,
            "pulumi.dynamic",
            env={"PULUMI_PROJECT": "tars"},
        )

    # -- the ResourceProvider service -----------------------------------------------------

    def configure(self, config: Mapping[str, Any] | None = None) -> provider_pb2.ConfigureResponse:
        """What the engine calls first, with the stack config as ``args``."""
        request = provider_pb2.ConfigureRequest(args=to_struct(config or {}))
        return self.stub.Configure(request, timeout=CALL_TIMEOUT)

    def check(
        self, urn: str, olds: struct_pb2.Struct | None, news: struct_pb2.Struct
    ) -> tuple[struct_pb2.Struct, list[Failure]]:
        """Check: the inputs to use and the failures."""
        request = provider_pb2.CheckRequest(urn=urn, olds=olds or struct_pb2.Struct(), news=news)
        response = self.stub.Check(request, timeout=CALL_TIMEOUT)
        failures = [Failure(f.property, f.reason) for f in response.failures]
        return response.inputs, failures

    def diff(
        self, urn: str, id_: str, olds: struct_pb2.Struct, news: struct_pb2.Struct
    ) -> provider_pb2.DiffResponse:
        """Diff of the old outputs against the new inputs."""
        request = provider_pb2.DiffRequest(urn=urn, id=id_, olds=olds, news=news)
        return self.stub.Diff(request, timeout=CALL_TIMEOUT)

    def create(self, urn: str, news: struct_pb2.Struct) -> tuple[str, struct_pb2.Struct]:
        """Create: the id and the output properties."""
        request = provider_pb2.CreateRequest(urn=urn, properties=news)
        response = self.stub.Create(request, timeout=CALL_TIMEOUT)
        return response.id, response.properties

    def update(
        self, urn: str, id_: str, olds: struct_pb2.Struct, news: struct_pb2.Struct
    ) -> struct_pb2.Struct:
        """Update: the new output properties."""
        request = provider_pb2.UpdateRequest(urn=urn, id=id_, olds=olds, news=news)
        return self.stub.Update(request, timeout=CALL_TIMEOUT).properties

    def delete(self, urn: str, id_: str, outputs: struct_pb2.Struct) -> None:
        """Delete with the resource's last outputs, as the engine sends them."""
        request = provider_pb2.DeleteRequest(urn=urn, id=id_, properties=outputs)
        self.stub.Delete(request, timeout=CALL_TIMEOUT)
