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

Secrets are handled as the engine handles them: the Python dynamic provider declares that it
does not accept secrets, so their markers are stripped before ``check`` and ``create``; the
outputs named in ``additional_secret_outputs``, and a dynamic resource's outputs whose input of
the same name held a secret, come back secret. :meth:`Recording.plaintext` finds a secret's
text anywhere outside a secret marker (inputs, outputs, component and stack outputs, log,
error). Like the engine, :func:`record` fails when two resources get one URN.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import dill  # type: ignore[import-untyped,unused-ignore]
import pulumi
from pulumi.dynamic.dynamic import PROVIDER_KEY
from pulumi.runtime import mocks, rpc
from pulumi.runtime.config import set_all_config
from pulumi.runtime.settings import reset_options
from pulumi.runtime.sync_await import _sync_await

DYNAMIC_PREFIX = "pulumi-python:dynamic"
"""Type prefix of dynamic-provider resources."""
VALIDATION_TYPE = f"{DYNAMIC_PREFIX}/tars:TarsValidation"
"""Type token of the validation resources."""


class ValidationFailed(Exception):
    """Dynamic resources' ``check`` returned failures, as the engine reports them: each failed
    resource by its name and type, then ``property: reason`` per failure (``failures`` holds
    them as ``(resource name, resource type, property, reason)``). :func:`record` raises one
    for every resource that failed in the run, not only the first."""

    def __init__(self, failures: Sequence[tuple[str, str, str, str]]) -> None:
        self.failures = list(failures)
        resources: dict[tuple[str, str], list[str]] = {}
        for name, type_, prop, reason in self.failures:
            resources.setdefault((name, type_), []).append(f"{prop}: {reason}")
        super().__init__(
            "\n".join(
                f"{name} ({type_}): {'; '.join(reasons)}"
                for (name, type_), reasons in resources.items()
            )
        )

    @property
    def resources(self) -> list[str]:
        """The names of the resources that failed, in the order they failed."""
        return list(dict.fromkeys(name for name, *_ in self.failures))


class DuplicateUrn(Exception):
    """Two resources were registered with one URN (the engine refuses the second)."""


def is_secret_value(value: Any) -> bool:
    """True for a value wrapped in a secret marker (as properties cross the monitor)."""
    return isinstance(value, Mapping) and rpc.is_rpc_secret(value)


def strip_secrets(value: Any) -> Any:
    """``value`` without secret markers, as the engine sends properties to a provider that
    does not accept secrets (the Python dynamic provider)."""
    if is_secret_value(value):
        return strip_secrets(rpc.unwrap_rpc_secret(value))
    if isinstance(value, Mapping):
        return {k: strip_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_secrets(v) for v in value]
    return value


def contains_secret(value: Any) -> bool:
    """True when a secret marker sits anywhere in ``value``."""
    if is_secret_value(value):
        return True
    if isinstance(value, Mapping):
        return any(contains_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_secret(v) for v in value)
    return False


def plaintext_paths(value: Any, text: str, path: str = "") -> list[str]:
    """Where ``text`` occurs in ``value`` outside secret markers (keys included)."""
    if is_secret_value(value):
        return []
    if isinstance(value, Mapping):
        found = []
        for k, v in value.items():
            where = f"{path}.{k}" if path else str(k)
            if text in str(k):
                found.append(where)
            found.extend(plaintext_paths(v, text, where))
        return found
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in plaintext_paths(v, text, f"{path}[{i}]")]
    return [path] if text in str(value) else []


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
    delete_before_replace: bool = False
    """True when ``delete_before_replace`` was set."""
    read: bool = False
    """True for a lookup of an existing resource (``Resource.get``): read, never created."""

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
    """``(level, message)`` of what the program logged at INFO and above: what ``pulumi
    preview`` shows without ``-v`` (the SDK's own DEBUG traces, several per registration, are
    dropped before a log record is made)."""
    component_outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """What each resource passed to ``register_outputs``, by URN (the stack's own excluded)."""

    def of_type(self, type_: str) -> list[Registration]:
        """The registrations of one type token."""
        return [r for r in self.registrations if r.type == type_]

    def by_urn(self, urn: str) -> Registration:
        """The registration with this URN."""
        return next(r for r in self.registrations if r.urn == urn)

    def kubernetes(self) -> list[Registration]:
        """The Kubernetes objects the program creates (``kubernetes:*`` types; providers and
        lookups excluded)."""
        return [r for r in self.registrations if r.type.startswith("kubernetes:") and not r.read]

    def validations(self) -> list[Registration]:
        """The validation resources (``TarsValidation``; not the other dynamic resources,
        such as a TAccount's ``TAccountSalt``)."""
        return [r for r in self.registrations if r.type == VALIDATION_TYPE]

    def children(self, parent: Registration) -> list[Registration]:
        """The registrations whose parent is ``parent``."""
        return [r for r in self.registrations if r.parent == parent.urn]

    def warnings(self) -> list[str]:
        """Messages logged with ``pulumi.log.warn``."""
        return [message for level, message in self.log if level == "WARNING"]

    def plaintext(self, text: str) -> list[str]:
        """Every place where ``text`` (say a secret's value) appears outside a secret marker:
        a registration's inputs or outputs, a component's or the stack's outputs, the log."""
        found = []
        for r in self.registrations:
            found += [f"{r.urn} inputs {p}" for p in plaintext_paths(r.inputs, text)]
            found += [f"{r.urn} outputs {p}" for p in plaintext_paths(r.outputs, text)]
        for urn, outputs in self.component_outputs.items():
            found += [f"{urn} registered outputs {p}" for p in plaintext_paths(outputs, text)]
        found += [f"stack outputs {p}" for p in plaintext_paths(self.outputs, text)]
        # The SDK's own DEBUG traces of serialized requests (older SDKs print them, secret
        # markers included) are not messages a user sees.
        found += [f"log {level}: {m}" for level, m in self.log if text in m and level != "DEBUG"]
        return found


class RecordingMocks(mocks.Mocks):
    """Mocks that echo inputs as outputs and run dynamic providers for real: ``check`` always
    (failures raise :class:`ValidationFailed`), ``create`` outside previews.

    ``stack_outputs`` gives the outputs of the stacks that ``pulumi.StackReference`` reads,
    keyed by stack name (``org/project/stack``). ``previous`` is the recording of an earlier
    run standing for the state: a dynamic resource registered then (same type and name) is
    diffed against its previous outputs, as the engine does, and keeps them when the
    provider's ``diff`` reports no change (updated or replaced otherwise).
    """

    def __init__(
        self,
        stack_outputs: Mapping[str, Mapping[str, Any]] | None = None,
        previous: Recording | None = None,
    ) -> None:
        self.stack_outputs = {name: dict(outs) for name, outs in (stack_outputs or {}).items()}
        self.state: dict[tuple[str, str], dict[str, Any]] = {
            (r.type, r.name): strip_secrets(r.outputs)
            for r in (previous.registrations if previous is not None else ())
            if r.type.startswith(DYNAMIC_PREFIX) and r.outputs
        }
        self.failures: list[tuple[str, str, str, str]] = []
        """Every failed check of the run: (resource name, type, property, reason)."""
        self._pending = threading.local()
        # The inputs of the dynamic resource being registered, unknowns kept (older SDKs'
        # mocks turn them into None): set by the monitor for its own thread, since the SDK
        # registers resources from a pool of threads.

    def set_pending_inputs(self, inputs: dict[str, Any] | None) -> None:
        """The inputs of the dynamic resource this thread registers next (None: done)."""
        self._pending.inputs = inputs

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        """Resource id and outputs of one registration."""
        if args.typ.startswith(DYNAMIC_PREFIX):
            return self._dynamic(args)
        if args.typ == "pulumi:pulumi:StackReference":
            name = args.resource_id or args.name
            outputs = self.stack_outputs.get(name, {})
            return name, {"name": name, "outputs": outputs, "secretOutputNames": []}
        meta = args.inputs.get("metadata")
        if isinstance(meta, Mapping) and meta.get("name"):  # unknown in a preview: no name
            return f"{meta.get('namespace', 'default')}/{meta['name']}", dict(args.inputs)
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: mocks.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """No function is mocked."""
        return {}, []

    def _dynamic(self, args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        pending: dict[str, Any] | None = getattr(self._pending, "inputs", None)
        given = pending if pending is not None else args.inputs
        inputs = strip_secrets(given)  # the engine strips them for pulumi.dynamic
        props = {k: v for k, v in inputs.items() if k != PROVIDER_KEY}
        provider = dill.loads(base64.b64decode(inputs[PROVIDER_KEY]))
        old = self.state.get((args.typ, args.name))
        # As the engine does: check gets the old inputs of a resource in the state, else none.
        checked = provider.check(old or {}, props)
        if checked.failures:
            failed = [(args.name, args.typ, f.property, f.reason) for f in checked.failures]
            self.failures.extend(failed)
            raise ValidationFailed(failed)
        news = checked.inputs or props
        if old is not None and not rpc.contains_unknowns(props):
            old_id, olds = f"{args.name}-id", old
            diff = provider.diff(old_id, olds, news)
            if not diff.changes:
                return old_id, olds
            if not diff.replaces and not pulumi.runtime.is_dry_run():
                updated = provider.update(old_id, olds, news)
                return old_id, {**news, **(updated.outs or {})}
        if pulumi.runtime.is_dry_run() or rpc.contains_unknowns(props):
            # A preview checks; outputs of a create are unknown (and the engine never creates
            # with unknown inputs).
            return None, props
        created = provider.create(news)
        return created.id, {**props, **(created.outs or {})}


# The SDK's mock monitor and test runner are untyped: typed handles on them.
_MOCK_REGISTER: Callable[[mocks.MockMonitor, Any], Any] = mocks.MockMonitor.RegisterResource
_MOCK_READ: Callable[[mocks.MockMonitor, Any], Any] = mocks.MockMonitor.ReadResource
_MOCK_REGISTER_OUTPUTS: Callable[[mocks.MockMonitor, Any], Any] = (
    mocks.MockMonitor.RegisterResourceOutputs
)
_RUN_TEST: Callable[[Callable[[], Any]], Callable[[], Any]] = pulumi.runtime.test


class _RecordingMonitor(mocks.MockMonitor):
    def __init__(self, mock: mocks.Mocks, recording: Recording) -> None:
        super().__init__(mock)
        self.recording = recording

    def RegisterResource(self, request: Any) -> Any:
        urn = self.make_urn(request.parent, request.type, request.name)
        if urn in self.resources:
            raise DuplicateUrn(f"Duplicate resource URN '{urn}'; try giving it a unique name")
        # One deserialization (unknowns kept) serves the dynamic mock, the secret outputs and
        # the recording; the SDK's monitor deserializes the request once more for the mocks.
        inputs = (
            rpc.deserialize_properties(request.object, keep_unknowns=True)
            if request.type != "pulumi:pulumi:Stack"
            else {}
        )
        dynamic = request.type.startswith(DYNAMIC_PREFIX)
        recording_mocks = self.mocks if isinstance(self.mocks, RecordingMocks) else None
        if recording_mocks is not None and dynamic:
            recording_mocks.set_pending_inputs(inputs)
        try:
            response = _MOCK_REGISTER(self, request)
        finally:
            if recording_mocks is not None:
                recording_mocks.set_pending_inputs(None)
        secret = self._secret_outputs(request, inputs if dynamic else None)
        if secret:
            registration = self.resources[response.urn]
            state = dict(registration.state)
            for name in secret:
                if name in state and not is_secret_value(state[name]):
                    state[name] = rpc.wrap_rpc_secret(state[name])
            self.resources[response.urn] = registration._replace(state=state)
            response.object.CopyFrom(_sync_await(rpc.serialize_properties(state, {})))
        if request.type != "pulumi:pulumi:Stack":
            self.recording.registrations.append(
                Registration(
                    type=request.type,
                    name=request.name,
                    urn=response.urn,
                    parent=request.parent,
                    custom=request.custom,
                    inputs=inputs,
                    outputs=dict(self.resources[response.urn].state),
                    dependencies=tuple(request.dependencies),
                    provider=request.provider,
                    ignore_changes=tuple(request.ignoreChanges),
                    protect=request.protect,
                    retain_on_delete=request.retainOnDelete,
                    deleted_with=request.deletedWith,
                    delete_before_replace=request.deleteBeforeReplace,
                )
            )
        return response

    def ReadResource(self, request: Any) -> Any:
        response = _MOCK_READ(self, request)
        self.recording.registrations.append(
            Registration(
                type=request.type,
                name=request.name,
                urn=response.urn,
                parent=request.parent,
                custom=True,
                inputs={"id": request.id},
                outputs=dict(self.resources[response.urn].state),
                dependencies=tuple(request.dependencies),
                provider=request.provider,
                ignore_changes=(),
                protect=False,
                retain_on_delete=False,
                read=True,
            )
        )
        return response

    def _secret_outputs(self, request: Any, dynamic_inputs: dict[str, Any] | None) -> set[str]:
        """The outputs the engine marks secret: those of ``additional_secret_outputs`` and,
        for a provider that accepts no secrets (dynamic ones, whose deserialized inputs are
        ``dynamic_inputs``), those whose input of the same name held a secret."""
        names = set(request.additionalSecretOutputs)
        if dynamic_inputs is not None:
            names.update(k for k, v in dynamic_inputs.items() if contains_secret(v))
        return names

    def RegisterResourceOutputs(self, request: Any) -> Any:
        response = _MOCK_REGISTER_OUTPUTS(self, request)
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


class _UnrunTransforms:
    """The SDK's callback server as newer SDKs give it under mocks, for older ones (the floor),
    whose mocks have none: a resource's transforms are registered with the mock monitor and
    never run (only the engine runs them), on every SDK alike."""

    def register_transform(self, transform: Any) -> Any:
        from pulumi.runtime.proto import callback_pb2

        return callback_pb2.Callback(target="mocks", token=f"transform-{id(transform)}")


def _prime_features() -> None:
    """Ask the mock monitor what it supports, as the SDK's entry point does before a real
    program runs; older SDKs read that from a cache their test runner never fills (and have
    no callback server under mocks: :class:`_UnrunTransforms`)."""
    settings = pulumi.runtime.settings.SETTINGS
    if not hasattr(settings, "feature_support"):  # newer SDKs ask the monitor every time
        return
    load = cast(
        "Callable[[], Awaitable[None]]", pulumi.runtime.settings._load_monitor_feature_support
    )
    asyncio.get_event_loop().run_until_complete(load())
    settings.callbacks = _UnrunTransforms()


def record(
    program: Callable[[], Any],
    config: Mapping[str, Any] | None = None,
    project: str = "tars",
    stack: str = "dev",
    preview: bool = False,
    mock: mocks.Mocks | None = None,
    recording: Recording | None = None,
    previous: Recording | None = None,
) -> Recording:
    """Run ``program`` as the body of a Pulumi program under mocks and return what it
    registered, its stack outputs (resolved) and its log.

    ``config`` holds full keys (``tars:namespace``); values are given to the program as
    ``pulumi.Config`` sees them. Exceptions of the program or of a registration are raised;
    pass a ``recording`` to see what was registered before one. ``previous`` (the recording of
    an earlier run) stands for the state the dynamic resources keep between runs (see
    :class:`RecordingMocks`; ignored when ``mock`` is given).
    """
    recording = recording if recording is not None else Recording()
    collecting = gc.isenabled()
    # Not registered with ``logging.getLogger``: the logging module would keep it (and the
    # recording its handler holds) for the rest of the process.
    logger = logging.Logger(f"tars_components.testing.{id(recording)}")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    logger.addHandler(_LogRecorder(recording))
    mock = mock or RecordingMocks(previous=previous)
    reset_options(project=project, stack=stack, preview=preview)
    set_all_config({key: _config_text(value) for key, value in (config or {}).items()})
    monitor = _RecordingMonitor(mock, recording)
    pulumi.runtime.set_mocks(
        mock,
        project=project,
        stack=stack,
        preview=preview,
        logger=logger,
        monitor=monitor,
    )
    _prime_features()
    root = pulumi.runtime.settings.get_root_resource()

    def body() -> pulumi.Output[Any]:
        program()
        exports = dict(getattr(root, "outputs", {}))

        async def collect() -> None:
            # Resolved values; a secret one stays wrapped in its marker, as in the state.
            for key, value in exports.items():
                output = pulumi.Output.from_input(value)
                if not await output.is_known():
                    continue
                resolved = await output.future()
                secret = await output.is_secret()
                recording.outputs[key] = rpc.wrap_rpc_secret(resolved) if secret else resolved

        return pulumi.Output.from_input(collect())

    _quiet_echoes(asyncio.get_event_loop())
    try:
        _RUN_TEST(body)()
    except ValidationFailed:
        _settle(asyncio.get_event_loop())
        failures = getattr(mock, "failures", None)
        if not failures:
            raise
        # every resource whose check failed in the run, as the engine lists them all
        raise ValidationFailed(list(failures)) from None
    finally:
        # The SDK's settings keep the monitor until the next run: let it drop what it held
        # (every registration's state), so that one run's heap does not weigh on the next.
        monitor.resources.clear()
        monitor.recording = Recording()
        # A program may have turned the collector off or frozen its heap (the project's
        # ``__main__.py`` does both): the run is over, so the test process gets it back.
        gc.unfreeze()
        if collecting:
            gc.enable()
    return recording


def _settle(loop: asyncio.AbstractEventLoop, seconds: float = 2.0) -> None:
    """Let the registrations still in flight finish, so that every check that fails is
    recorded: the SDK stops waiting at the first failure, and on a busy machine a second
    resource's check may not have run yet (at most ``seconds``)."""
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if pending:
        loop.run_until_complete(asyncio.wait(pending, timeout=seconds))


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
    "VALIDATION_TYPE",
    "DuplicateUrn",
    "Recording",
    "RecordingMocks",
    "Registration",
    "ValidationFailed",
    "contains_secret",
    "is_secret_value",
    "plaintext_paths",
    "record",
    "strip_secrets",
]
