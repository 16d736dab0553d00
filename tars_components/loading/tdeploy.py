"""TDeploy requests as a stack source: an approved request becomes a TServer.

A ``kind: TDeploy`` document (``k8s.tars.io/v1beta2`` or ``v1beta3``) is read by the loader
through :class:`Requests`: its own fields are checked (TD007), it is recorded on the stack as a
:class:`Request`, and when approved (``approve.result: true``) its ``apply`` becomes a TServer
document named ``lower(app)-lower(server)`` in the request's namespace, whose
:class:`RequestSource` points every field back at the request's ``apply`` (and carries the
request, so the change rules can bind the approval to what was approved). That TServer then
goes through every TServer rule, mutation and expansion. A pending request (no ``approve``)
and a rejected one deploy nothing; the rules of :mod:`tars_components.rules.tdeploy` report
them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..kernel.errors import Violation
from ..kernel.paths import Segment, error_path, parse_path
from ..kernel.text import unknown_field
from ..models.document import API_VERSIONS, Source
from ..models.tdeploy import Request, TDeployDocument
from ..secrets.redaction import quote
from .schema_rules import document_schema_violation

KIND = TDeployDocument.KIND


@dataclass(frozen=True)
class RequestSource(Source):
    """The source of the TServer an approved request deploys: ``spec.X`` is ``apply.X`` of
    the request's document; ``metadata`` is the request's."""

    request: Request | None = field(default=None, compare=False, repr=False)

    def line(self, path: str | tuple[Segment, ...] = ()) -> int | None:
        """1-based line, in the request's file, of the ``apply`` field behind a TServer
        field."""
        segments = list(parse_path(path) if isinstance(path, str) else path)
        if segments[:1] == ["spec"]:
            segments = ["apply", *segments[1:]]
        return Source(self.file, self.index, self.file_index, self.prefix).line(tuple(segments))


def is_request(raw: Any) -> bool:
    """True for a ``kind: TDeploy`` document of a served TarsK8S version."""
    return (
        isinstance(raw, dict) and raw.get("kind") == KIND and raw.get("apiVersion") in API_VERSIONS
    )


def _server_name(apply: Mapping[str, Any]) -> str:
    app, server = apply.get("app"), apply.get("server")
    if isinstance(app, str) and isinstance(server, str) and app and server:
        return f"{app.lower()}-{server.lower()}"
    return ""


class Requests:
    """The loader's collector: :meth:`read` each TDeploy document; :attr:`requests` holds
    them in load order."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def read(
        self, raw: Mapping[str, Any], source: Source | None, namespace: str
    ) -> tuple[tuple[dict[str, Any], Source | None] | None, list[Violation]]:
        """``((TServer document, its source) | None, violations)`` for one TDeploy: the
        TServer only when the request is approved and its own fields are valid."""
        meta: dict[str, Any] = raw["metadata"] if isinstance(raw.get("metadata"), dict) else {}
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        ns = ns or namespace
        name = meta.get("name") if isinstance(meta.get("name"), str) else ""
        body = {k: v for k, v in raw.items() if k != "status" and v is not None}
        body["metadata"] = {
            k: v
            for k, v in meta.items()
            if k in ("name", "namespace", "labels", "annotations") and v is not None
        }
        errors = _schema_errors(body)
        apply: dict[str, Any] = raw["apply"] if isinstance(raw.get("apply"), dict) else {}
        approve = raw.get("approve") if isinstance(raw.get("approve"), dict) else None
        state = (
            "pending" if approve is None else "approved" if approve.get("result") else "rejected"
        )
        request = Request(
            ns,
            str(name),
            state,
            apply,
            approve,
            _server_name(apply),
            source,
            "deployed" in raw,
            body,
        )
        violations = [
            document_schema_violation(
                KIND,
                namespace=ns,
                name=str(name),
                path=path,
                message=message,
                source=source,
            )
            for path, message in errors
        ]
        self.requests.append(request)
        if errors or state != "approved":
            return None, violations
        server_source: Source | None = None
        if source is not None:
            server_source = RequestSource(
                source.file, source.index, source.file_index, source.prefix, request
            )
        server = {
            "apiVersion": raw["apiVersion"],
            "kind": "TServer",
            "metadata": {"name": request.server_name or str(name), "namespace": ns},
            "spec": dict(apply),
        }
        return (server, server_source), violations


def _schema_errors(body: Mapping[str, Any]) -> list[tuple[tuple[Segment, ...], str]]:
    """The request's own schema errors (``apply`` is checked as a TServer spec later)."""
    errors: list[tuple[tuple[Segment, ...], str]] = []
    if not body.get("metadata", {}).get("name"):
        errors.append((("metadata", "name"), "required field is missing"))
    try:
        TDeployDocument.model_validate(body)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            errors.append((error_path(error["loc"]), _message(error)))
    return errors


def _message(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return unknown_field(error["loc"][-1] if error.get("loc") else None)
    if kind == "string_pattern_mismatch":
        return (
            f"{quote(error.get('input'))} is not valid: expected a letter then at most 15 letters, "
            "digits, '_', '.' or '-'"
        )
    return re.sub(r"\s+", " ", str(error["msg"]))


STATES = ("pending", "approved", "rejected", "deployed")
"""A request's states: ``deployed`` is an approved request whose approval was already in the
stack as last deployed (its server exists)."""


def request_state(request: Request, previous: Request | None) -> str:
    """The state of ``request`` given its version in the stack as last deployed."""
    if request.state == "approved" and previous is not None and previous.state == "approved":
        return "deployed"
    return request.state


def _decision(request: Request) -> str:
    approve = request.approve or {}
    return f"by {approve.get('person')} at {approve.get('time')}"


def _what(request: Request, state: str) -> str:
    server = f"TServer {request.server_name or '?'}"
    return {
        "pending": "deploys nothing until approved",
        "approved": f"{_decision(request)}: deploys {server}",
        "rejected": f"{_decision(request)}: deploys nothing",
        "deployed": f"{server} deployed",
    }[state]


def request_lines(
    current: Sequence[Request],
    previous: Sequence[Request] | None,
    servers: Collection[tuple[str, str]] = (),
) -> list[str]:
    """One line per request: ``NAMESPACE/NAME: STATE (…)``, for ``render``'s summary (no
    ``previous``) and ``diff`` (``previous``: the requests of the old stack; only those whose
    state changes, each as ``OLD -> NEW``, removed ones last; ``servers``: ``(namespace,
    name)`` of the new stack's TServer documents, which may take over a removed request's
    server). A request that was approved in the old stack counts as deployed there."""
    before = {(r.namespace, r.name): r for r in previous or ()}
    lines = []
    for request in current:
        old = before.pop((request.namespace, request.name), None)
        state = request_state(request, old)
        change = state
        if previous is not None:
            if old is not None and old.state == request.state:
                continue  # no change of state
            change = f"{_state_of(old)} -> {state}"
        lines.append(f"{request.namespace}/{request.name}: {change} ({_what(request, state)})")
    for old in before.values():
        was = _state_of(old)
        effect = ""
        if was == "deployed":
            taken = (old.namespace, old.server_name) in servers
            effect = (
                f" (TServer {old.server_name} taken over by its own document: not recreated)"
                if taken
                else f" (deletes TServer {old.server_name or '?'})"
            )
        lines.append(f"{old.namespace}/{old.name}: {was} -> removed{effect}")
    return lines


def _state_of(old: Request | None) -> str:
    return "new" if old is None else request_state(old, old)


def request_of(source: Source | None) -> Request | None:
    """The request behind a TServer that an approved TDeploy deploys, if any."""
    return source.request if isinstance(source, RequestSource) else None


__all__ = [
    "KIND",
    "STATES",
    "RequestSource",
    "Requests",
    "is_request",
    "request_lines",
    "request_of",
    "request_state",
]
