"""The TarsK8S admission webhook as a Pulumi dynamic provider (design §1, §5, §7).

A :class:`TarsValidation` resource stands for one TarsK8S document (TServer, TTemplate or
TFrameworkConfig). Its provider, :class:`TarsValidationProvider`, runs the same loader, rules
and mutation as the command line, so a bad spec fails ``pulumi preview`` instead of a cluster
webhook:

* ``check`` reports every rule error about the document as a ``CheckFailure`` whose property
  is the document's field path (``spec.tars.servants[1].port``) and whose reason starts with
  the rule code (``TS004: port 10001 is already used by servant AObj``); when there are old
  inputs it adds the change rules (TS001, TS002). Warnings never fail: they are returned in
  the ``warnings`` output.
* ``diff`` reports a change when the document or its context changed; validation never
  replaces anything.
* ``create``/``update`` return the mutated document (the mutating webhook's M-* rules) as the
  ``mutated`` output.
* ``delete`` of a TTemplate fails with TT003/TT005 while other templates name it as parent or
  servers use it (as recorded in its ``templateUsers`` at the last create/update).

The provider is a plain class of an importable module and keeps no state, so
``pulumi.dynamic`` pickles it by reference (a few bytes naming
``tars_components.provider.TarsValidationProvider``); the ``pulumi.dynamic`` process therefore
needs ``tars_components`` installed, like the program itself. Every input is plain data: the
document as a camelCase mapping plus the parts of the stack the rules need (see
:class:`ValidationInputs`).

During a preview the engine sends values it does not know yet as the string
``pulumi.runtime.rpc.UNKNOWN``; ``pulumi.dynamic`` hands them to ``check`` and ``diff`` as
:class:`pulumi.output.Unknown` objects (``create``, ``update`` and ``delete`` never get any). They
are validated as deferred values: the document is checked with a :data:`PENDING` marker in
their place (the models accept it where a ``pulumi.Input`` is allowed, e.g. ``release.image``),
and no violation at or under an unknown field is reported. An unknown number (say a servant's
port) stands in as a number that no other field of the document uses, so it collides with
nothing and the other rules still run; any other unknown structural field (say ``spec.app``)
leaves the document unchecked until it is known. An unknown context property drops the rules
that need it (:data:`CONTEXT_RULES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.output import Unknown as _UnknownValue
from pulumi.runtime import rpc
from pydantic import ValidationError

from .errors import LoadError, LoadProblem, Violation
from .loader import load_texts
from .models import (
    FRAMEWORK_CONFIG_NAME,
    KINDS,
    V1BETA3,
    Document,
    TFrameworkConfig,
    TServer,
    TTemplate,
)
from .mutation import mutate
from .paths import Segment, parse_path
from .rules import validate, validate_change
from .stack import Rejected, Stack
from .yamlio import dump

# --- property names ------------------------------------------------------------------------

DOCUMENT = "document"
"""Input: the TServer/TTemplate/TFrameworkConfig as a camelCase mapping."""
NAMESPACE = "namespace"
"""Input: the stack namespace (for a document without ``metadata.namespace``)."""
TEMPLATES = "templates"
"""Input: ``{template name: parent}`` for every TTemplate of the document's namespace."""
FRAMEWORK_NODE_IMAGE = "frameworkNodeImage"
"""Input: ``nodeImage`` (``{image, secret}``) of the namespace's ``tars-framework``, or absent."""
TEMPLATE_USERS = "templateUsers"
"""Input (TTemplate only): ``{"servers": [...], "templates": [...]}`` that use this template."""
SERVER_NAMES = "serverNames"
"""Input (TServer only): ``<app>-<server>`` of the TServers before this one in the namespace."""

INPUTS = (DOCUMENT, NAMESPACE, TEMPLATES, FRAMEWORK_NODE_IMAGE, TEMPLATE_USERS, SERVER_NAMES)
"""Every input property, in a stable order."""

MUTATED = "mutated"
"""Output: the document as the TarsK8S mutating webhook admits it (camelCase mapping)."""
VIOLATIONS = "violations"
"""Output: every violation about the document, ``CODE severity field: message``."""
WARNINGS = "warnings"
"""Output: the warnings among them (they never block), ``CODE field: message``."""

OUTPUTS = (MUTATED, VIOLATIONS, WARNINGS)
"""Properties the provider computes."""

USER_SERVERS = "servers"
"""Key of ``templateUsers``: TServers whose ``spec.tars.template`` names the template."""
USER_TEMPLATES = "templates"
"""Key of ``templateUsers``: TTemplates whose ``spec.parent`` names the template."""

CONTEXT_RULES: dict[str, frozenset[str]] = {
    TEMPLATES: frozenset({"TS010", "TT002", "TT004"}),
    FRAMEWORK_NODE_IMAGE: frozenset({"TS020"}),
    SERVER_NAMES: frozenset({"TS017"}),
}
"""The rules that need a context property: not reported while that property is unknown."""

RESOURCE_TYPE_MODULE = "tars"
RESOURCE_TYPE_NAME = "TarsValidation"

# Where the document is loaded from inside the provider; violations about it carry this file,
# which tells them apart from violations about the context stand-ins.
DOCUMENT_FILE = "document.yaml"
PLACEHOLDER = "unknown"
"""Stand-in text for unknown values where YAML or a strict model needs a string."""

Path = tuple[Segment, ...]


class Pending:
    """A value that is not known yet (a preview's unknown).

    It has an ``apply`` method, so the models treat it like any other deferred
    ``pulumi.Input``: accepted where such values are allowed and skipped by the rules.
    """

    def apply(self, _func: Any) -> Pending:
        """Deferred values are mapped lazily; an unknown stays unknown."""
        return self

    def __repr__(self) -> str:
        return "<unknown>"


PENDING = Pending()
"""The marker that stands for every unknown value inside the provider."""


DELETE_HINTS: dict[str, str] = {
    "TT003": (
        "re-parent or remove those templates in an earlier `pulumi up`, or declare the "
        "template again until they are gone"
    ),
    "TT005": (
        "remove those servers or move them to another template in an earlier `pulumi up`, or "
        "declare the template again until they are gone"
    ),
}
"""How to proceed when a delete is refused, by rule code: the users that count are the ones
recorded at the template's last create or update."""


class AdmissionError(Exception):
    """A rule error found by create, update or delete; each line of the message starts with
    the rule code."""

    def __init__(self, violations: Sequence[Violation], lines: Sequence[str] | None = None) -> None:
        self.violations = list(violations)
        if lines is None:
            lines = [_reason_line(v) for v in self.violations]
        super().__init__("\n".join(lines))

    @classmethod
    def refused_delete(cls, violations: Sequence[Violation]) -> AdmissionError:
        """The error of a refused delete (TT003, TT005): each violation with how to proceed
        (:data:`DELETE_HINTS`)."""
        lines = [
            f"{v.code}: {v.message}"
            + (f"; {DELETE_HINTS[v.code]}" if v.code in DELETE_HINTS else "")
            for v in violations
        ]
        return cls(violations, lines)


# --- inputs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValidationInputs:
    """The inputs of a :class:`TarsValidation`: one document and what the rules need of its
    stack. All plain data (``pulumi.Input`` values allowed only where the models allow them).

    * ``document``: the TServer, TTemplate or TFrameworkConfig as a camelCase mapping
      (``apiVersion``, ``kind``, ``metadata``, ``spec``), before mutation.
    * ``namespace``: the stack namespace, used when the document has none. Defaults to
      ``default``.
    * ``templates``: ``{name: parent}`` of every TTemplate in the document's namespace (TS010,
      TT002, TT004). Defaults to none.
    * ``framework_node_image``: ``nodeImage`` of the namespace's ``tars-framework``
      TFrameworkConfig (TS020, M-TS13). Defaults to None (no such config).
    * ``template_users``: for a TTemplate, ``{"servers": [...], "templates": [...]}``: the
      TServers using it and the TTemplates whose parent it is (TT005, TT003 on delete).
      Defaults to none.
    * ``server_names``: the names other TServers of the namespace already take, each as
      ``<app>-<server>`` in the original case (compared lowercased, like object names; the
      case only makes messages name the server as written), plus a ``metadata.name`` that
      differs from it. TS017 fires when this server's name or object name is among them.
      Defaults to none.
    """

    document: Mapping[str, Any]
    namespace: str = "default"
    templates: Mapping[str, str] = field(default_factory=dict)
    framework_node_image: Mapping[str, Any] | None = None
    template_users: Mapping[str, Sequence[str]] = field(default_factory=dict)
    server_names: Sequence[str] = ()

    def to_props(self) -> dict[str, Any]:
        """The Pulumi input properties (camelCase names of :data:`INPUTS`)."""
        props: dict[str, Any] = {
            DOCUMENT: self.document,
            NAMESPACE: self.namespace,
            TEMPLATES: self.templates,
            TEMPLATE_USERS: self.template_users,
            SERVER_NAMES: self.server_names,
        }
        if self.framework_node_image is not None:
            props[FRAMEWORK_NODE_IMAGE] = self.framework_node_image
        return {key: _copy(value) for key, value in props.items()}

    @classmethod
    def for_document(cls, stack: Stack, doc: Document) -> ValidationInputs:
        """The inputs for one document of a loaded stack.

        ``server_names`` lists the TServers loaded before ``doc``, so
        TS017 fires on the same document as in ``tars-components validate``.
        """
        ns = doc.namespace
        templates = {t.name: t.spec.parent for t in stack.templates if t.namespace == ns}
        for name in stack.template_names(ns):
            templates.setdefault(name, name)
        framework = stack.framework(ns)
        users: dict[str, list[str]] = {}
        if isinstance(doc, TTemplate):
            users = {
                USER_SERVERS: stack.template_servers(ns, doc.name),
                USER_TEMPLATES: stack.template_children(ns, doc.name),
            }
        taken: list[str] = []
        if isinstance(doc, TServer):
            for other in stack.servers:
                if other is doc:
                    break
                if other.namespace == ns:
                    names = [f"{other.spec.app}-{other.spec.server}"]
                    if other.name != other.object_name and "-" in other.name:
                        names.append(other.name)
                    taken.extend(n for n in names if n not in taken)
        return cls(
            document=doc.to_dict(),
            namespace=stack.namespace,
            templates=templates,
            framework_node_image=framework.node_image.to_dict() if framework else None,
            template_users=users,
            server_names=taken,
        )


# --- the dynamic provider ------------------------------------------------------------------


class TarsValidationProvider(pulumi.dynamic.ResourceProvider):
    """Check, diff, create, update and delete of :class:`TarsValidation` resources.

    Stateless; it never contacts anything. The serialized provider is not a secret (it holds
    nothing), so the state and ``pulumi preview`` stay readable.
    """

    serialize_as_secret_always = False

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> pulumi.dynamic.CheckResult:
        """Every rule error about the new document as a ``CheckFailure`` (property: field path;
        reason: ``CODE: message``), plus the change rules against the old inputs if any.

        The inputs are returned unchanged (unknown values stay unknown).
        """
        failures = [
            pulumi.dynamic.CheckFailure(field_path, reason)
            for field_path, reason in check_failures(olds, news)
        ]
        return pulumi.dynamic.CheckResult(news, failures)

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A change when any input (document or context) differs or is still unknown; never a
        replacement (``pulumi.dynamic`` passes no per-property diff to the engine, which then
        shows the input diff itself)."""
        return pulumi.dynamic.DiffResult(changes=bool(changed_inputs(olds, news)), replaces=[])

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """Validate once more (the engine checked already) and return the mutated document.

        The id is ``<kind>/<namespace>/<name>``.
        """
        result = Subject.parse(props).evaluate()
        _raise_errors(result)
        return pulumi.dynamic.CreateResult(result.resource_id, _outputs(props, result))

    def update(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        """As :meth:`create`, with the change rules against the old document."""
        result = Subject.parse(news).evaluate()
        _raise_errors(result, _change_violations(olds, news))
        return pulumi.dynamic.UpdateResult(_outputs(news, result))

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        """Refuse to delete a TTemplate that other templates (TT003) or servers (TT005) of the
        stack still use, according to its ``templateUsers`` at the last create or update.

        The record is what the state holds. It follows every change of the users (they are an
        input, so a change is a diff and an update stores the new ones), but when a template
        and its last users are removed in the same update (or the whole stack is destroyed),
        the users are still recorded and the delete fails; the error says how to proceed
        (:data:`DELETE_HINTS`). Give the resource ``deleted_with`` a resource that goes away
        with the whole stack (e.g. its TFramework) so that ``pulumi destroy`` skips this check.
        """
        errors = delete_violations(props)
        if errors:
            raise AdmissionError.refused_delete(errors)


class TarsValidation(pulumi.dynamic.Resource, module=RESOURCE_TYPE_MODULE, name=RESOURCE_TYPE_NAME):
    """The admission rules of one TarsK8S document, enforced at ``pulumi preview``.

    Type token ``pulumi-python:dynamic/tars:TarsValidation``. Inputs: see
    :class:`ValidationInputs`; outputs ``mutated``, ``violations`` and ``warnings``.
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
        args.update(dict.fromkeys(OUTPUTS))
        super().__init__(TarsValidationProvider(), name, args, opts)


# --- what the provider computes (pure functions of the property bags) ---------------------


@dataclass(frozen=True)
class Evaluation:
    """The document's identity, its violations and, when it is schema-valid, the mutated
    document; or the load problems of a document that is not TarsK8S at all."""

    kind: str
    namespace: str
    name: str
    violations: list[Violation]
    mutated: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)
    """Why the document cannot be read as a TarsK8S document at all (no rule applies)."""

    @property
    def resource_id(self) -> str:
        """``<kind>/<namespace>/<name>``."""
        return f"{self.kind}/{self.namespace}/{self.name}"


@dataclass(frozen=True)
class Subject:
    """A document and its context, parsed from a property bag, with unknown values replaced
    by :data:`PENDING` and their paths recorded."""

    document: dict[str, Any]
    namespace: str
    templates: dict[str, str]
    framework_node_image: dict[str, Any] | None
    template_users: dict[str, list[str]]
    server_names: list[str]
    unknown_fields: tuple[Path, ...] = ()
    unknown_context: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, props: Mapping[str, Any]) -> Subject:
        """Read the inputs of :data:`INPUTS` (numbers normalized, secrets unwrapped).

        Raises ``ValueError`` when the document or the namespace is missing or not known.
        """
        unknown_fields: list[Path] = []
        document = plain(props.get(DOCUMENT), (), unknown_fields)
        if not isinstance(document, dict) or () in unknown_fields:
            raise ValueError("the document is missing or not known yet")
        namespace = plain(props.get(NAMESPACE) or "default", (), [])
        if not isinstance(namespace, str):
            raise ValueError("the namespace is not known yet")
        unknown_context: set[str] = set()

        def context(key: str, kind: type) -> Any:
            found: list[Path] = []
            value = plain(props.get(key), (), found, placeholder=PLACEHOLDER)
            if found:
                unknown_context.add(key)
            return value if isinstance(value, kind) else kind()

        users = context(TEMPLATE_USERS, dict)
        node_image = context(FRAMEWORK_NODE_IMAGE, dict)
        return cls(
            document=document,
            namespace=namespace,
            templates={str(k): str(v) for k, v in context(TEMPLATES, dict).items()},
            framework_node_image=node_image or None,
            template_users={
                str(k): [str(n) for n in v] for k, v in users.items() if isinstance(v, list)
            },
            server_names=[str(n) for n in context(SERVER_NAMES, list)],
            unknown_fields=tuple(unknown_fields),
            unknown_context=frozenset(unknown_context),
        )

    # -- the stack the rules see ---------------------------------------------------------

    def load(self) -> tuple[Stack, Document | Rejected]:
        """The document loaded like a stack file, next to stand-ins for its context.

        Raises :class:`LoadError` when the document cannot be read as a TarsK8S document.
        """
        raw = plain(self.document, (), [], placeholder=PLACEHOLDER)
        loaded = load_texts({DOCUMENT_FILE: dump(raw)}, self.namespace)
        numbers: dict[Path, int] = {}
        for descending in (True, False):
            # Where the schema refuses the text stand-in it wants a number (a port, replicas):
            # put numbers there that no other field of the document uses, so they collide with
            # nothing and the other rules still run; high ones first (ports), then low ones
            # (bounded fields such as replicas).
            if loaded.documents:
                break
            refused = {
                tuple(parse_path(v.field)) for v in loaded.violations if v.file == DOCUMENT_FILE
            }
            paths = [path for path in self.unknown_fields if path in refused]
            if not paths:
                break
            for path, number in zip(paths, _unused_numbers(raw, descending), strict=False):
                _put(raw, path, number)
                numbers[path] = number
            loaded = load_texts({DOCUMENT_FILE: dump(raw)}, self.namespace)
        if not loaded.documents and not loaded.rejected:  # a plain object, or a skipped kind
            kinds = [o.kind for o in loaded.objects] or ["a kind written by the controller"]
            raise LoadError([LoadProblem(DOCUMENT_FILE, 1, f"{kinds[0]} is not validated here")])
        target: Document | Rejected = (
            self._deferred(loaded.documents[0], numbers) if loaded.documents else loaded.rejected[0]
        )
        documents, rejected = self._context(target)
        if isinstance(target, Document):
            documents.append(target)
        else:
            rejected.append(target)
        stack = Stack(
            namespace=loaded.namespace,
            documents=tuple(documents),
            violations=loaded.violations,
            rejected=tuple(rejected),
        )
        return stack, target

    def _deferred(self, doc: Document, numbers: Mapping[Path, int]) -> Document | Rejected:
        """The loaded document with :data:`PENDING` back where values are unknown, except
        where an unused number stands in (``numbers``); a document whose unknown values sit in
        other structural fields (say ``spec.app``) is left unchecked (rejected)."""
        if not self.unknown_fields:
            return doc
        raw = doc.to_dict()
        for path in self.unknown_fields:
            if path not in numbers:
                _put(raw, path, PENDING)
        try:
            deferred = type(doc).model_validate(raw)
        except ValidationError:
            return Rejected(doc.kind, doc.namespace, doc.name, doc.source)
        deferred.with_source(doc.source)
        return deferred

    def _context(self, target: Document | Rejected) -> tuple[list[Document], list[Rejected]]:
        """Stand-ins for the rest of the namespace: templates with their parents, the servers
        holding the names of :attr:`server_names`, the framework config."""
        ns = target.namespace
        raws: list[dict[str, Any]] = []
        for name, parent in self.templates.items():
            if not (target.kind == TTemplate.KIND and name == target.name):
                raws.append(stub_template(name, parent, ns))
        raws.extend(stub_server(name, ns) for name in self.server_names)
        if self.framework_node_image is not None and not (
            target.kind == TFrameworkConfig.KIND and target.name == FRAMEWORK_CONFIG_NAME
        ):
            raws.append(stub_framework(self.framework_node_image, ns))
        return build_documents(raws)

    # -- results ---------------------------------------------------------------------------

    def evaluate(self) -> Evaluation:
        """Violations about the document (unknown fields and unknown-context rules left out)
        and the mutated document."""
        try:
            stack, target = self.load()
        except LoadError as exc:
            return Evaluation(
                kind=str(self.document.get("kind", "")),
                namespace=self.namespace,
                name=str(_mapping(self.document.get("metadata")).get("name", "")),
                violations=[],
                mutated=None,
                problems=[problem.message for problem in exc.problems],
            )
        violations = self.relevant(validate(stack))
        mutated = None
        if isinstance(target, Document):
            for doc in mutate(stack).documents:
                if _is_target(doc):
                    mutated = doc.to_dict()
        return Evaluation(target.kind, target.namespace, target.name, violations, mutated)

    def relevant(self, violations: Iterable[Violation]) -> list[Violation]:
        """The violations about the document itself that unknown values cannot have caused."""
        dropped = set().union(*(CONTEXT_RULES.get(key, ()) for key in self.unknown_context))
        found = []
        for v in violations:
            if v.file != DOCUMENT_FILE or v.code in dropped:
                continue
            if any(_under(parse_path(v.field), path) for path in self.unknown_fields):
                continue
            if v not in found:
                found.append(v)
        return found


def check_failures(olds: Mapping[str, Any], news: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What ``check`` reports, as ``(property, reason)``: each rule error about the document at
    its field path with reason ``CODE: message`` (the change rules included when there are old
    inputs), or why the document is not a TarsK8S document at all. Nothing while the document
    itself is unknown; warnings never."""
    if _is_unknown(news.get(DOCUMENT)) or _is_unknown(news.get(NAMESPACE)):
        return []
    try:
        result = Subject.parse(news).evaluate()
    except ValueError as exc:
        return [(DOCUMENT, str(exc))]
    if result.problems:
        return [("", f"not a TarsK8S document: {problem}") for problem in result.problems]
    found = [*result.violations, *_change_violations(olds, news)]
    return [(v.field, _reason(v)) for v in found if v.is_error]


def changed_inputs(olds: Mapping[str, Any], news: Mapping[str, Any]) -> list[str]:
    """The input properties whose new value differs from the old one or is not known yet."""
    changed = []
    for key in INPUTS:
        unknown: list[Path] = []
        new = plain(news.get(key), (), unknown)
        if unknown or plain(olds.get(key), (), []) != new:
            changed.append(key)
    return changed


def delete_violations(props: Mapping[str, Any]) -> list[Violation]:
    """The rule errors (TT003, TT005) of removing this document from its stack, where the
    stack is what the resource's state recorded at its last create or update: the templates
    map plus its ``templateUsers``. Only a TTemplate can break a rule by going away."""
    subject = Subject.parse(props)
    name = _mapping(subject.document.get("metadata")).get("name")
    if subject.document.get("kind") != TTemplate.KIND or not isinstance(name, str):
        return []
    children = {
        child: name for child in subject.template_users.get(USER_TEMPLATES, []) if child != name
    }
    subject = replace(subject, templates={**subject.templates, **children}, server_names=[])
    try:
        previous, target = subject.load()
    except LoadError:
        return []
    if not isinstance(target, TTemplate):
        return []  # a template the schema rejects was never admitted: nothing depends on it
    servers, rejected = build_documents(
        stub_server(server, target.namespace, template=target.name)
        for server in subject.template_users.get(USER_SERVERS, [])
    )
    others = [d for d in previous.documents if d is not target]
    previous = replace(
        previous,
        documents=(*others, *servers, target),
        rejected=(*previous.rejected, *rejected),
    )
    current = replace(previous, documents=(*others, *servers))
    return [v for v in validate_change(previous, current) if v.is_error]


def _change_violations(olds: Mapping[str, Any], news: Mapping[str, Any]) -> list[Violation]:
    """TS001/TS002 between the old and the new document of this resource (matched, as in
    ``validate --previous``, by kind, namespace and name)."""
    old_document = olds.get(DOCUMENT) if olds else None
    if not isinstance(old_document, Mapping):
        return []
    current = Subject.parse(news)
    try:
        current_stack, _ = current.load()
        previous_stack, _ = Subject.parse(olds).load()
    except (LoadError, ValueError):
        return []
    return current.relevant(validate_change(previous_stack, current_stack))


# --- stand-ins for the rest of the stack ---------------------------------------------------


def stub_template(name: str, parent: str, namespace: str) -> dict[str, Any]:
    """A TTemplate known only by its name and parent."""
    return {
        "apiVersion": V1BETA3,
        "kind": TTemplate.KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"content": "", "parent": parent},
    }


def stub_server(name: str, namespace: str, template: str | None = None) -> dict[str, Any]:
    """A TServer known only by ``<app>-<server>`` (named lowercased, like its objects): a
    normal server, or a tars server of ``template``."""
    app, _, server = name.partition("-")
    spec: dict[str, Any] = {"app": app, "server": server or app, "k8s": {}}
    if template is None:
        spec.update(subType="normal", normal={"ports": []})
    else:
        spec.update(subType="tars", tars={"template": template, "servants": []})
    return {
        "apiVersion": V1BETA3,
        "kind": TServer.KIND,
        "metadata": {"name": name.lower(), "namespace": namespace},
        "spec": spec,
    }


def stub_framework(node_image: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """The namespace's ``tars-framework`` config, known only by its nodeImage."""
    return {
        "apiVersion": V1BETA3,
        "kind": TFrameworkConfig.KIND,
        "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
        "nodeImage": dict(node_image),
    }


def build_documents(raws: Iterable[Mapping[str, Any]]) -> tuple[list[Document], list[Rejected]]:
    """Typed stand-ins; one the schema rejects is kept by identity (its name still counts)."""
    documents: list[Document] = []
    rejected: list[Rejected] = []
    for raw in raws:
        cls = KINDS[raw["kind"]]
        meta = raw["metadata"]
        try:
            documents.append(cls.model_validate(raw))
        except ValidationError:
            rejected.append(Rejected(cls.KIND, meta["namespace"], meta["name"]))
    return documents, rejected


# --- values --------------------------------------------------------------------------------


def _is_unknown(value: Any) -> bool:
    """True for a value the engine does not know yet (preview)."""
    return isinstance(value, (_UnknownValue, Pending)) or (
        isinstance(value, str) and value == rpc.UNKNOWN
    )


def plain(value: Any, path: Path, unknown: list[Path], placeholder: Any = PENDING) -> Any:
    """A property value as the models expect it: secrets unwrapped, whole-number floats (all
    numbers cross gRPC as doubles) back to ints, and each unknown value replaced by
    ``placeholder`` with its path appended to ``unknown``."""
    if _is_unknown(value):
        unknown.append(path)
        return placeholder
    if rpc.is_rpc_secret(value):
        return plain(rpc.unwrap_rpc_secret(value), path, unknown, placeholder)
    if isinstance(value, Mapping):
        return {str(k): plain(v, (*path, str(k)), unknown, placeholder) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, (*path, i), unknown, placeholder) for i, v in enumerate(value)]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _copy(value: Any) -> Any:
    """Plain dicts and lists of mappings and sequences (other values, e.g. ``pulumi.Output``,
    as they are)."""
    if isinstance(value, Mapping):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(item) for item in value]
    return value


def _unused_numbers(raw: Any, descending: bool) -> Iterator[int]:
    """Numbers from 1 to 65535 (the port range) that appear nowhere in ``raw``, from the top
    or from the bottom."""
    used: set[int] = set()
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, int) and not isinstance(node, bool):
            used.add(node)
    numbers = range(65535, 0, -1) if descending else range(1, 65536)
    return (number for number in numbers if number not in used)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _put(raw: Any, path: Path, value: Any) -> None:
    """Set ``raw[path] = value`` where the path still exists."""
    if not path:
        return
    node = raw
    for seg in path[:-1]:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(node, list):
        if isinstance(last, int) and last < len(node):
            node[last] = value
        return
    if isinstance(node, dict) and last in node:
        node[last] = value


def _under(field_path: Sequence[Segment], prefix: Sequence[Segment]) -> bool:
    """True when ``field_path`` is ``prefix`` or below it."""
    return tuple(field_path[: len(prefix)]) == tuple(prefix)


def _is_target(doc: Document) -> bool:
    return doc.source is not None and doc.source.file == DOCUMENT_FILE


# --- results -------------------------------------------------------------------------------


def _reason(v: Violation) -> str:
    return f"{v.code}: {v.message}"


def _reason_line(v: Violation) -> str:
    where = f" (at {v.field})" if v.field else ""
    return f"{v.code}: {v.message}{where}"


def _raise_errors(result: Evaluation, more: Iterable[Violation] = ()) -> None:
    if result.problems:
        raise ValueError("not a TarsK8S document: " + "; ".join(result.problems))
    errors = [v for v in (*result.violations, *more) if v.is_error]
    if errors:
        raise AdmissionError(errors)


def _outputs(props: Mapping[str, Any], result: Evaluation) -> dict[str, Any]:
    outs = {key: props[key] for key in INPUTS if key in props}
    outs[MUTATED] = result.mutated
    outs[VIOLATIONS] = [f"{v.code} {v.severity} {v.field}: {v.message}" for v in result.violations]
    outs[WARNINGS] = [
        f"{v.code} {v.field}: {v.message}" for v in result.violations if not v.is_error
    ]
    return outs


__all__ = [
    "CONTEXT_RULES",
    "DELETE_HINTS",
    "DOCUMENT",
    "FRAMEWORK_NODE_IMAGE",
    "INPUTS",
    "MUTATED",
    "NAMESPACE",
    "OUTPUTS",
    "PENDING",
    "SERVER_NAMES",
    "TEMPLATES",
    "TEMPLATE_USERS",
    "VIOLATIONS",
    "WARNINGS",
    "AdmissionError",
    "Evaluation",
    "Pending",
    "Subject",
    "TarsValidation",
    "TarsValidationProvider",
    "ValidationInputs",
    "build_documents",
    "changed_inputs",
    "check_failures",
    "delete_violations",
    "plain",
    "stub_framework",
    "stub_server",
    "stub_template",
]
