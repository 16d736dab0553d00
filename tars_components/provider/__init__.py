"""The TarsK8S admission webhook as a Pulumi dynamic provider (docs/index.md, docs/rules/index.md,
docs/performance.md).

A :class:`TarsValidation` resource stands for one TarsK8S document (TServer, TTemplate or
TFrameworkConfig). Its provider, :class:`TarsValidationProvider`, runs the same loader, rules
and mutation as the command line, so a bad spec fails ``pulumi preview`` instead of a cluster
webhook:

* ``check`` reports every rule error about the document as a ``CheckFailure`` whose property
  is the document's field path (``spec.tars.servants[1].port``) and whose reason starts with
  the rule code (``TS004: port 10001 is already used by servant AObj``); when there are old
  inputs it adds the change rules (TS001, TS002). Warnings never fail: they are returned in
  the ``warnings`` output.
* ``diff`` reports a change when the document or a fact its verdict depends on changed;
  validation never replaces anything.
* ``create``/``update`` return the mutated document (the mutating webhook's M-* rules) as the
  ``mutated`` output, and the digest of the inputs (``inputsDigest``) that ``diff`` compares
  the new inputs with (the engine hands ``diff`` the old outputs; the inputs are not stored
  twice).

One module per concern: :mod:`.wire` (property names, inputs, values as they cross gRPC),
:mod:`.facts` (the constant-size facts of a namespace, program side), :mod:`.context` (the
document and stand-ins for its facts, as a stack), :mod:`.standins` (those stand-ins),
:mod:`.preview` (stand-ins for the values a preview does not know), :mod:`.editing` (raw
documents by field path) and :mod:`.verdicts` (what check, diff and create decide). This
module holds the two Pulumi classes: the provider class lives here so that ``pulumi.dynamic``
pickles it by reference as ``tars_components.provider.TarsValidationProvider``, the name
existing states hold; the ``pulumi.dynamic`` process therefore needs ``tars_components``
installed, like the program.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from .context import Subject
from .facts import NamespaceFacts, inputs_for_document
from .hosting import register
from .standins import build_documents, stub_framework, stub_server, stub_template
from .verdicts import (
    AdmissionError,
    Evaluation,
    InvalidInputs,
    change_violations,
    changed_inputs,
    check_failures,
    evaluate,
    inputs_changed,
    old_secrets,
)
from .wire import (
    CONTEXT_RULES,
    DOCUMENT,
    FRAMEWORK_NODE_IMAGE,
    INPUTS,
    INPUTS_DIGEST,
    MAX_INPUT_DEPTH,
    MUTATED,
    NAMESPACE,
    OUTPUTS,
    PENDING,
    REDACTED,
    SECRET_FIELDS,
    SERVER_NAMES,
    TEMPLATES,
    VIOLATIONS,
    WARNINGS,
    MalformedInput,
    Pending,
    ValidationInputs,
    decoded,
    document_text,
    plain,
)

RESOURCE_TYPE_MODULE = "tars"
RESOURCE_TYPE_NAME = "TarsValidation"


class TarsValidationProvider(pulumi.dynamic.ResourceProvider):
    """Check, diff, create, update and delete of :class:`TarsValidation` resources.

    Stateless; it never contacts anything. The serialized provider is not a secret (it holds
    nothing), so the state and ``pulumi preview`` stay readable.
    """

    serialize_as_secret_always = False

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> pulumi.dynamic.CheckResult:
        """Every rule error about the new document as a ``CheckFailure`` (property: field path;
        reason: ``CODE: message``), plus the change rules against the old inputs if any.

        The inputs are returned unchanged (unknown values stay unknown). Inputs that cannot be
        read at all (not JSON, nested too deep, ...) are one failure whose reason names the input
        (no property, so the engine does not print the value): check answers any request with
        failures, never with an exception.
        """
        try:
            new_props = decoded(news)
        except MalformedInput as exc:
            # no property: the engine would print the (hostile) value next to its name
            return pulumi.dynamic.CheckResult(news, [_failure("", str(exc))])
        try:
            old_props = decoded(olds)
        except MalformedInput as exc:
            return pulumi.dynamic.CheckResult(news, [_failure("", _previous(exc))])
        try:
            found = check_failures(old_props, new_props)
        except Exception as exc:  # a bug: still one clean failure, not a traceback
            found = [("", _unexpected("check", exc))]
        failures = [_failure(field_path, reason) for field_path, reason in found]
        return pulumi.dynamic.CheckResult(news, failures)

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A change when the document or one of its facts differs or is still unknown; never a
        replacement (``pulumi.dynamic`` passes no per-property diff to the engine, which then
        shows the input diff itself). Inputs that cannot be read count as a change (their
        check or update says what is wrong)."""
        try:
            changes = inputs_changed(decoded(olds), decoded(news))
        except Exception:  # MalformedInput, or a bug: a change is the safe answer
            changes = True
        return pulumi.dynamic.DiffResult(changes=changes, replaces=[])

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """Validate once more (the engine checked already) and return the mutated document.

        The id is ``<kind>/<namespace>/<name>``. Refused inputs raise an error of one line
        per problem (:class:`AdmissionError`, or :class:`InvalidInputs`).
        """
        result = _evaluated("create", props)
        try:
            created = change_violations({}, decoded(props))  # a TDeploy request's creation (TD001)
        except Exception as exc:
            raise InvalidInputs(_unexpected("create", exc)) from None
        result.raise_errors(created)
        return pulumi.dynamic.CreateResult(result.resource_id, result.outputs(props))

    def update(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        """As :meth:`create`. The change rules ran in ``check``, which the engine hands the
        old inputs; ``olds`` here are the old outputs, which hold the old document only in a
        state written before :data:`INPUTS_DIGEST` (then the change rules run again here)."""
        result = _evaluated("update", news)
        try:
            old_props = decoded(olds)
            changes = []
            if DOCUMENT in old_props:
                result = replace(result, secrets=(*result.secrets, *old_secrets(old_props)))
                changes = change_violations(old_props, decoded(news))
        except MalformedInput as exc:
            raise InvalidInputs(_previous(exc)) from None
        except Exception as exc:
            raise InvalidInputs(_unexpected("update", exc)) from None
        result.raise_errors(changes)
        return pulumi.dynamic.UpdateResult(result.outputs(news))

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        """Nothing to refuse: a template that servers or templates still use cannot go away
        alone, since their own verdicts depend on it (TS010, TT002 fail their ``check``)."""


class TarsValidation(pulumi.dynamic.Resource, module=RESOURCE_TYPE_MODULE, name=RESOURCE_TYPE_NAME):
    """The admission rules of one TarsK8S document, enforced at ``pulumi preview``.

    Type token ``pulumi-python:dynamic/tars:TarsValidation`` (``tars:index:TarsValidation``
    when the component provider plugin serves it: :mod:`.hosting`). Inputs: see
    :class:`ValidationInputs`; outputs ``mutated``, ``violations`` and ``warnings``, registered
    as secret outputs whenever the document may carry a secret (its ``secretFields`` are not
    known to be empty), since the provider never sees which values were secret.
    """

    mutated: pulumi.Output[dict[str, Any]]
    """The document as the TarsK8S mutating webhook admits it."""
    violations: pulumi.Output[list[str]]
    """Every violation about the document (``CODE severity field: message``)."""
    warnings: pulumi.Output[list[str]]
    """The warnings among them (``CODE field: message``); they never block."""

    def __init__(
        self,
        name: str,
        props: ValidationInputs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        args = props.to_props() if isinstance(props, ValidationInputs) else dict(props)
        unknown = sorted(set(args) - set(INPUTS))
        if unknown:
            raise ValueError(f"unknown TarsValidation inputs: {', '.join(unknown)}")
        if DOCUMENT not in args:
            raise ValueError("TarsValidation needs a document")
        secret = args.get(SECRET_FIELDS)
        if isinstance(secret, pulumi.Output) or secret:
            opts = pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(additional_secret_outputs=list(OUTPUTS))
            )
        args.update(dict.fromkeys(OUTPUTS))
        args[PROVIDER_KEY] = _serialized_provider()
        # pulumi.dynamic.Resource.__init__ pickles the provider again for every resource
        # (dill, recursively: milliseconds each); the provider is stateless and pickled by
        # reference, so its serialization is computed once and registered as the SDK would.
        register(self, self._resource_type_name, name, args, opts)


def _failure(field_path: str, reason: str) -> pulumi.dynamic.CheckFailure:
    return pulumi.dynamic.CheckFailure(field_path, reason)


def _previous(exc: MalformedInput) -> str:
    """The failure of old inputs (from the state) that cannot be read."""
    return f"the previous inputs (from the state): {exc}; the change rules cannot run"


def _unexpected(method: str, exc: Exception) -> str:
    """One line for an exception nothing planned for (a bug)."""
    text = " ".join(str(exc).split())
    return (
        f"{method} failed: {type(exc).__name__}: {text[:300]} (a bug in tars-components: "
        "please report it)"
    )


def _evaluated(method: str, props: dict[str, Any]) -> Evaluation:
    """:func:`evaluate` of the inputs, or :class:`InvalidInputs` (one line) when they cannot be
    read at all."""
    try:
        return evaluate(Subject.parse(decoded(props)))
    except MalformedInput as exc:
        raise InvalidInputs(str(exc)) from None
    except ValueError as exc:  # Subject.parse: no document, an unknown namespace
        raise InvalidInputs(" ".join(str(exc).split())) from None
    except Exception as exc:
        raise InvalidInputs(_unexpected(method, exc)) from None


@functools.cache
def _serialized_provider() -> str:
    """The SDK's own serialization of :class:`TarsValidationProvider` (not a secret: it
    captures nothing)."""
    return str(serialize_provider(TarsValidationProvider()))


__all__ = [
    "CONTEXT_RULES",
    "DOCUMENT",
    "FRAMEWORK_NODE_IMAGE",
    "INPUTS",
    "INPUTS_DIGEST",
    "MAX_INPUT_DEPTH",
    "MUTATED",
    "NAMESPACE",
    "OUTPUTS",
    "PENDING",
    "REDACTED",
    "SECRET_FIELDS",
    "SERVER_NAMES",
    "TEMPLATES",
    "VIOLATIONS",
    "WARNINGS",
    "AdmissionError",
    "Evaluation",
    "InvalidInputs",
    "MalformedInput",
    "NamespaceFacts",
    "Pending",
    "Subject",
    "TarsValidation",
    "TarsValidationProvider",
    "ValidationInputs",
    "build_documents",
    "change_violations",
    "changed_inputs",
    "check_failures",
    "decoded",
    "document_text",
    "evaluate",
    "inputs_changed",
    "inputs_for_document",
    "plain",
    "stub_framework",
    "stub_server",
    "stub_template",
]
