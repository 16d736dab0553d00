"""TDeploy rules (docs/concepts/tdeploy.md), as a stack in version control applies them.

The request is a file; its approval is a reviewed change to that file. The change rules
compare the request with its version in the stack as last deployed: the base branch's
(``validate --previous``, ``tars:previousStackDir``) or, in a plain ``pulumi preview``, the
Pulumi state (the request's validation resource, whose old inputs the provider compares):

* TD001 (change): a request new in this change already carries ``approve``: the seed's
  webhook refuses ``approve`` on create, so the request and its approval are two changes
  (two pull requests, or two reviewed commits);
* TD002 (change): once approved (or rejected), ``apply`` does not change: the decision is
  bound to the ``apply`` it decided on (to change a deployed server, its TServer document
  takes the request's place);
* TD003: a request whose server (its name, or ``lower(app)-lower(server)`` of ``apply``) is
  also a TServer of the stack: the seed's "the object must not exist yet";
* TD004 (warning): ``deployed`` is the controller's field; it is ignored;
* TD005 (warning): a pending request deploys nothing until approved;
* TD006: ``approve.person`` is not in the stack's approver list (``tars:approvers`` /
  ``--approvers``, when set);
* TD008 (change): ``approve`` never changes once set, the seed's "禁止重复修改 approve 域": no
  second approval, and an approved request is not turned into a rejected one (which would
  delete its server);
* TD007: the request's own schema (``approve`` fields, ``apply`` a mapping), reported by the
  loader; ``apply`` itself is checked as a TServer (TS rules) once approved.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..kernel.errors import Violation
from ..kernel.paths import Segment, format_path
from ..kernel.registry import ERROR, WARNING, Need, Rule, check, rule
from ..loading.document_set import DocumentSet
from ..loading.tdeploy import KIND, request_of
from ..models.tdeploy import Request
from ..settings.options import Options


def _report(
    request: Request,
    code: Rule,
    path: Sequence[Segment],
    message: str,
) -> Violation:
    field = format_path(path)
    source = request.source
    return code.violation(
        kind=KIND,
        namespace=request.namespace,
        name=request.name,
        field=field,
        message=message,
        file=source.file if source else None,
        line=source.line(field) if source else None,
    )


TD003 = rule(
    "TD003",
    ERROR,
    "TDeploy",
    "a request's server (its name or lower(app)-lower(server)) is not also a TServer of the stack",
    origin="seed",
)
TD004 = rule(
    "TD004", WARNING, "TDeploy", "deployed is the controller's field: ignored", origin="seed"
)
TD005 = rule(
    "TD005",
    WARNING,
    "TDeploy",
    "a pending request (no approve) deploys nothing until approved",
    origin="tars-components",
)


@check()
def check_requests(stack: DocumentSet) -> Iterator[Violation]:
    """TD003, TD004, TD005 for every request of a stack."""
    servers: dict[tuple[str, str], list[Request | None]] = {}
    for server in stack.servers:
        servers.setdefault((server.namespace, server.name), []).append(request_of(server.source))
    for rejected in stack.rejected:
        if rejected.kind == "TServer":
            servers.setdefault((rejected.namespace, rejected.name), []).append(
                request_of(rejected.source)
            )
    for request in stack.requests:
        for name in dict.fromkeys(n for n in (request.name, request.server_name) if n):
            owners = servers.get((request.namespace, name), [])
            if any(owner is None or owner is not request for owner in owners):
                yield _report(
                    request,
                    TD003,
                    ("metadata", "name"),
                    f"TServer {name} is also in the stack: a request deploys a server that "
                    "does not exist yet (remove the TServer, or the request once deployed)",
                )
                break
        if request.has_deployed:
            yield _report(
                request,
                TD004,
                ("deployed",),
                "deployed is the controller's field; ignored (the approval decides)",
            )
        if request.state == "pending":
            yield _report(
                request,
                TD005,
                ("metadata", "name"),
                f"pending: deploys nothing until approved (approve: {{person, reason, "
                f"result: true, time}}); server {request.server_name or '?'}",
            )


def _by_key(requests: Iterable[Request]) -> dict[tuple[str, str], Request]:
    found: dict[tuple[str, str], Request] = {}
    for request in requests:
        found.setdefault((request.namespace, request.name), request)
    return found


TD001 = rule(
    "TD001",
    ERROR,
    "TDeploy",
    "a request new in this change carries no approve (request and approval are two reviewed "
    "changes)",
    origin="seed",
    change=True,
)
TD002 = rule(
    "TD002",
    ERROR,
    "TDeploy",
    "apply does not change once the request is approved or rejected (the decision is bound to "
    "the apply it decided on)",
    origin="seed",
    change=True,
)
TD008 = rule(
    "TD008",
    ERROR,
    "TDeploy",
    "approve never changes once set: no second approval, no rejection of an approved request",
    origin="seed",
    change=True,
)


@check(Need.PREVIOUS)
def request_changes(previous: DocumentSet, current: DocumentSet) -> Iterator[Violation]:
    """TD001, TD002 and TD008: the current requests against the previous stack's."""
    before = _by_key(previous.requests)
    for request in current.requests:
        old = before.get((request.namespace, request.name))
        if old is None:
            if request.approve is not None:
                yield _report(
                    request,
                    TD001,
                    ("approve",),
                    "a new request cannot carry its own approval: add the request without "
                    "approve, and approve it in a later reviewed change",
                )
            continue
        if old.approve is None:
            continue
        decided = f"{old.state} by {old.approve.get('person')} at {old.approve.get('time')}"
        if request.approve != old.approve:
            yield _report(request, TD008, ("approve",), _final(request, old, decided))
        elif dict(request.apply) != dict(old.apply):
            yield _report(
                request,
                TD002,
                ("apply",),
                f"apply changed after the request was {decided}: the decision is for the "
                "previous apply; restore it"
                + (
                    f", and change the server through its own TServer document (replace the "
                    f"request by TServer {old.server_name}: nothing is recreated)"
                    if old.state == "approved"
                    else ", and file a new request (a new name) for the new apply"
                ),
            )


def _final(request: Request, old: Request, decided: str) -> str:
    """TD008's message: why the decision stands, and what to do instead."""
    if old.state == "approved" and request.state == "rejected":
        return (
            f"the request was {decided} and is final: rejecting it now would not undo the "
            f"deployment; remove the request (or TServer {old.server_name}) to delete the server"
        )
    if request.approve is None:
        return (
            f"the request was {decided} and is final: approve cannot be removed; restore it, "
            "or remove the whole request"
        )
    return (
        f"the request was {decided} and is final: approve is set once (no second approval); "
        "restore it, and file a new request (a new name) for a new decision"
    )


TD006 = rule(
    "TD006",
    ERROR,
    "TDeploy",
    "approve.person is in the stack's approver list (tars:approvers, --approvers), when one is set",
    origin="tars-components",
)


def approver_violations(stack: DocumentSet, approvers: Sequence[str]) -> Iterator[Violation]:
    """TD006: approvals by someone not in ``approvers`` (nothing when the list is empty)."""
    if not approvers:
        return
    allowed = set(approvers)
    for request in stack.requests:
        if request.approve is None:
            continue
        person = request.approve.get("person")
        if person not in allowed:
            yield _report(
                request,
                TD006,
                ("approve", "person"),
                f"{person!r} is not an approver of this stack ({', '.join(approvers)})",
            )


@check(Need.OPTIONS)
def listed_approvers(stack: DocumentSet, options: Options) -> Iterator[Violation]:
    """TD006 against the approvers the stack's settings list (``tars:approvers``)."""
    return approver_violations(stack, options.approvers)
