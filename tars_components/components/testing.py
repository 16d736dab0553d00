"""Run a Pulumi program under ``pulumi.runtime.set_mocks`` and record what it registers.

For tests of the components, of the project's ``__main__.py`` and of users' own programs::

    from tars_components.components.testing import record

    recording = record(lambda: runpy.run_path("__main__.py"), config={"tars:namespace": "x"})
    [sts] = recording.of_type("kubernetes:apps/v1:StatefulSet")
    assert sts.inputs["spec"]["replicas"] == 2

Every registration keeps the request's resource options as the engine would see them (parent,
dependencies, provider, ``ignoreChanges``, ``protect``, ``retainOnDelete``, ``deletedWith``),
and a component's ``register_outputs`` are kept by URN (:attr:`Recording.component_outputs`).
Validation resources (the dynamic provider) are not faked: the mocks run the provider's own
``check`` and ``create``, so a rule error fails the registration as it fails ``pulumi preview``,
and the ``mutated`` output is the real one.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import dill
import pulumi
from pulumi.dynamic.dynamic import PROVIDER_KEY
from pulumi.runtime import mocks
from pulumi.runtime.config import set_all_config
from pulumi.runtime.settings import reset_options

DYNAMIC_PREFIX = "pulumi-python:dynamic"
"""Type prefix of dynamic-provider resources."""


class ValidationFailed(Exception):
    """A dynamic resource's ``check`` returned failures (as the engine reports them)."""


@dataclass(frozen=True)
class Registration:
    """One registered resource: its identity, inputs, outputs and resource options."""

    type: str
    name: str
    urn: str
    parent: str
    custom: bool
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    dependencies: tuple[str, ...]
    provider: str
    ignore_changes: tuple[str, ...]
    protect: bool
    retain_on_delete: bool
    deleted_with: str = ""
    """URN of the ``deleted_with`` resource, or empty."""

    @property
    def provider_urn(self) -> str:
        """The provider reference without its ``::<id>`` suffix."""
        return self.provider.rsplit("::", 1)[0] if self.provider else ""


@dataclass
class Recording:
    """What a program registered, in registration order, plus its stack outputs and log."""

    registrations: list[Registration] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    log: list[tuple[str, str]] = field(default_factory=list)
    component_outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What each resource passed to ``register_outputs``, by URN (the stack's own excluded)."""

    def of_type(self, type_: str) -> list[Registration]:
        """The registrations of one type token."""
        return [r for r in self.registrations if r.type == type_]

    def by_urn(self, urn: str) -> Registration:
        """The registration with this URN."""
        return next(r for r in self.registrations if r.urn == urn)

    def kubernetes(self) -> list[Registration]:
        """The Kubernetes objects (``kubernetes:*`` types, providers excluded)."""
        return [r for r in self.registrations if r.type.startswith("kubernetes:")]

    def validations(self) -> list[Registration]:
        """The dynamic-provider (validation) resources."""
        return [r for r in self.registrations if r.type.startswith(DYNAMIC_PREFIX)]

    def children(self, parent: Registration) -> list[Registration]:
        """The registrations whose parent is ``parent``."""
        return [r for r in self.registrations if r.parent == parent.urn]

    def warnings(self) -> list[str]:
        """Messages logged with ``pulumi.log.warn``."""
        return [message for level, message in self.log if level == "WARNING"]


class RecordingMocks(mocks.Mocks):
    """Mocks that echo inputs as outputs and run dynamic providers for real: ``check`` always
    (failures raise :class:`ValidationFailed`), ``create`` outside previews.

    ``stack_outputs`` gives the outputs of the stacks that ``pulumi.StackReference`` reads,
    keyed by stack name (``org/project/stack``).
    """

    def __init__(self, stack_outputs: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.stack_outputs = {name: dict(outs) for name, outs in (stack_outputs or {}).items()}

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        """Resource id and outputs of one registration."""
        if args.typ.startswith(DYNAMIC_PREFIX):
            return self._dynamic(args)
        if args.typ == "pulumi:pulumi:StackReference":
            name = args.resource_id or args.name
            outputs = self.stack_outputs.get(name, {})
            return name, {"name": name, "outputs": outputs, "secretOutputNames": []}
        meta = args.inputs.get("metadata") or {}
        if meta.get("name"):
            return f"{meta.get('namespace', 'default')}/{meta['name']}", dict(args.inputs)
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: mocks.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """No function is mocked."""
        return {}, []

    @staticmethod
    def _dynamic(args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        props = {k: v for k, v in args.inputs.items() if k != PROVIDER_KEY}
        provider = dill.loads(base64.b64decode(args.inputs[PROVIDER_KEY]))
        checked = provider.check({}, props)
        if checked.failures:
            raise ValidationFailed("; ".join(f"{f.property}: {f.reason}" for f in checked.failures))
        if pulumi.runtime.is_dry_run():  # a preview checks; outputs of a create are unknown
            return None, props
        created = provider.create(checked.inputs or props)
        return created.id, {**props, **(created.outs or {})}


class _RecordingMonitor(mocks.MockMonitor):
    def __init__(self, mock: mocks.Mocks, recording: Recording) -> None:
        super().__init__(mock)
        self.recording = recording

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.recording.registrations.append(
                Registration(
                    type=request.type,
                    name=request.name,
                    urn=response.urn,
                    parent=request.parent,
                    custom=request.custom,
                    inputs=pulumi.runtime.rpc.deserialize_properties(request.object),
                    outputs=dict(self.resources[response.urn].state),
                    dependencies=tuple(request.dependencies),
                    provider=request.provider,
                    ignore_changes=tuple(request.ignoreChanges),
                    protect=request.protect,
                    retain_on_delete=request.retainOnDelete,
                    deleted_with=request.deletedWith,
                )
            )
        return response

    def RegisterResourceOutputs(self, request: Any) -> Any:
        response = super().RegisterResourceOutputs(request)
        if "::pulumi:pulumi:Stack::" not in request.urn:
            self.recording.component_outputs[request.urn] = (
                pulumi.runtime.rpc.deserialize_properties(request.outputs)
            )
        return response


class _LogRecorder(logging.Handler):
    def __init__(self, recording: Recording) -> None:
        super().__init__(logging.DEBUG)
        self.recording = recording

    def emit(self, record: logging.LogRecord) -> None:
        self.recording.log.append((record.levelname, record.getMessage()))


def record(
    program: Callable[[], Any],
    config: Mapping[str, Any] | None = None,
    project: str = "tars",
    stack: str = "dev",
    preview: bool = False,
    mock: mocks.Mocks | None = None,
    recording: Recording | None = None,
) -> Recording:
    """Run ``program`` as the body of a Pulumi program under mocks and return what it
    registered, its stack outputs (resolved) and its log.

    ``config`` holds full keys (``tars:namespace``); values are given to the program as
    ``pulumi.Config`` sees them. Exceptions of the program or of a registration are raised;
    pass a ``recording`` to see what was registered before one.
    """
    recording = recording if recording is not None else Recording()
    logger = logging.getLogger(f"tars_components.testing.{id(recording)}")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_LogRecorder(recording))
    mock = mock or RecordingMocks()
    reset_options(project=project, stack=stack, preview=preview)
    set_all_config({key: _config_text(value) for key, value in (config or {}).items()})
    pulumi.runtime.set_mocks(
        mock,
        project=project,
        stack=stack,
        preview=preview,
        logger=logger,
        monitor=_RecordingMonitor(mock, recording),
    )
    root = pulumi.runtime.settings.get_root_resource()

    def body() -> pulumi.Output[Any]:
        program()
        exports = getattr(root, "outputs", {})
        return pulumi.Output.from_input(dict(exports)).apply(recording.outputs.update)

    _quiet_echoes(asyncio.get_event_loop())
    pulumi.runtime.test(body)()
    return recording


def _quiet_echoes(loop: asyncio.AbstractEventLoop) -> None:
    """Drop asyncio's "Future exception was never retrieved" for :class:`ValidationFailed`:
    a failed registration fails the futures of everything that waited for it, and the error
    itself is raised by :func:`record` already."""
    previous = loop.get_exception_handler()
    if getattr(previous, "_tars_quiet", False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), ValidationFailed):
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler._tars_quiet = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


def _config_text(value: Any) -> str:
    """Config values as the engine passes them: strings (booleans lowercase)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


__all__ = [
    "DYNAMIC_PREFIX",
    "Recording",
    "RecordingMocks",
    "Registration",
    "ValidationFailed",
    "record",
]
