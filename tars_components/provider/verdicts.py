"""What the provider decides, as pure functions of property bags: the violations about a
document (``check``), whether its inputs changed (``diff``), the mutated document and the
outputs (``create``/``update``), and the error of a refused create or update.

Secret values (the paths of :data:`~.wire.SECRET_FIELDS`) never appear in a message, nor in
the resource id: every verdict is computed under :func:`~tars_components.secrets.redaction.masking`,
so the messages are built with each secret value already replaced by :data:`~.wire.REDACTED`
(whatever characters it holds, however the message quotes it); the finished texts are searched
once more only as a second belt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..kernel.errors import LoadError, Violation
from ..kernel.paths import parse_path
from ..loading.document_set import DocumentSet
from ..models import Document
from ..mutation import mutate
from ..rules import validate, validate_change
from ..secrets.redaction import masking, redact_text
from .context import DOCUMENT_FILE, Subject, is_target
from .editing import under
from .wire import (
    CONTEXT_RULES,
    DOCUMENT,
    INPUTS,
    INPUTS_DIGEST,
    MUTATED,
    NAMESPACE,
    REDACTED,
    VIOLATIONS,
    WARNINGS,
    Path,
    decoded,
    input_value,
    inputs_digest,
    is_unknown,
    mapping,
    plain,
)


class AdmissionError(Exception):
    """A rule error found by create or update; each line of the message starts with the rule
    code and names the field (secret values printed as ``[secret]``)."""

    def __init__(self, violations: Sequence[Violation], lines: Sequence[str]) -> None:
        self.violations = list(violations)
        super().__init__("\n".join(lines))


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
    secrets: tuple[str, ...] = ()
    """Texts of the document's secret values, which messages must not show."""
    secret_name: bool = False
    """True when the document's name is (or derives from) a secret value."""

    @property
    def resource_id(self) -> str:
        """``<kind>/<namespace>/<name>``; ``[secret]`` in place of a namespace or name that
        holds a secret value (ids are plaintext in the state). Such an id is not unique, which
        nothing requires: the engine keys resources by URN, and this provider reads no id."""
        namespace = REDACTED if self._holds_secret(self.namespace) else self.namespace
        name = REDACTED if self.secret_name or self._holds_secret(self.name) else self.name
        return f"{self.kind}/{namespace}/{name}"

    def _holds_secret(self, text: str) -> bool:
        return any(secret.lower() in text.lower() for secret in self.secrets)

    def redact(self, text: str) -> str:
        """The second belt: ``text`` with every secret text in it replaced by ``[secret]``
        (the messages are built with their secrets masked already)."""
        return redact_text(text, self.secrets)

    def reason(self, v: Violation) -> str:
        """``CODE: message`` (the reason of a CheckFailure). The belt searches the message
        only: a secret as short as a digit must not blur the rule code."""
        return f"{v.code}: {self.redact(v.message)}"

    def outputs(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """The resource's outputs: the mutated document, the violations, the warnings and the
        digest of the inputs (not the inputs again: :data:`INPUTS_DIGEST`)."""
        outs: dict[str, Any] = {INPUTS_DIGEST: inputs_digest(decoded(props), [])}
        outs[MUTATED] = self.mutated
        outs[VIOLATIONS] = [
            f"{v.code} {v.severity} {v.field}: {self.redact(v.message)}" for v in self.violations
        ]
        outs[WARNINGS] = [
            f"{v.code} {v.field}: {self.redact(v.message)}"
            for v in self.violations
            if not v.is_error
        ]
        return outs

    def raise_errors(self, more: Iterable[Violation] = ()) -> None:
        """Raise :class:`AdmissionError` when a rule error is found, :class:`InvalidInputs`
        for a document that is not a TarsK8S document at all."""
        if self.problems:
            problems = "; ".join(self.redact(p) for p in self.problems)
            raise InvalidInputs(f"not a TarsK8S document: {problems}")
        errors = [v for v in (*self.violations, *more) if v.is_error]
        if errors:
            lines = [self.reason(v) + (f" (at {v.field})" if v.field else "") for v in errors]
            raise AdmissionError(errors, lines)


class InvalidInputs(ValueError):
    """Inputs that ``create`` or ``update`` cannot read at all, or a document that is not a
    TarsK8S document (their ``check`` failed already); the message is one line. Named
    ``tars_components.provider.InvalidInputs`` in answers, where it is exported."""

    __module__ = "tars_components.provider"


_NAME_SOURCES = (("metadata", "name"), ("spec", "app"), ("spec", "server"))
"""The fields a document's name is or derives from (a TServer is lower(app)-lower(server))."""


def evaluate(subject: Subject) -> Evaluation:
    """Violations about the document (unknown fields and unknown-context rules left out) and
    the mutated document, computed with the document's secrets masked in every message."""
    secrets = tuple(subject.secret_values())
    secret_name = any(path in _NAME_SOURCES for path in subject.secret_paths())
    with masking(secrets, subject.secret_paths()):
        try:
            stack, target = subject.load()
        except LoadError as exc:
            return Evaluation(
                kind=str(subject.document.get("kind", "")),
                namespace=subject.namespace,
                name=str(mapping(subject.document.get("metadata")).get("name", "")),
                violations=[],
                mutated=None,
                problems=[problem.message for problem in exc.problems],
                secrets=secrets,
                secret_name=secret_name,
            )
        violations = relevant(subject, validate(stack))
        mutated = None
        if isinstance(target, Document):
            for doc in mutate(stack).documents:
                if is_target(doc):
                    mutated = doc.to_dict()
    return Evaluation(
        target.kind,
        target.namespace,
        target.name,
        violations,
        mutated,
        secrets=secrets,
        secret_name=secret_name,
    )


def relevant(subject: Subject, violations: Iterable[Violation]) -> list[Violation]:
    """The violations about the document itself that unknown values cannot have caused."""
    dropped = set().union(
        subject.deferred_rules(),
        *(CONTEXT_RULES.get(key, ()) for key in subject.unknown_context),
    )
    found = []
    for v in violations:
        if v.file != DOCUMENT_FILE or v.code in dropped:
            continue
        if any(under(parse_path(v.field), path) for path in subject.unknown_fields):
            continue
        if v not in found:
            found.append(v)
    return found


def check_failures(olds: Mapping[str, Any], news: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What ``check`` reports, as ``(property, reason)``: each rule error about the document at
    its field path with reason ``CODE: message`` (the change rules included when there are old
    inputs), or why the document is not a TarsK8S document at all. Nothing while the document
    itself is unknown; warnings never."""
    if is_unknown(news.get(DOCUMENT)) or is_unknown(news.get(NAMESPACE)):
        return []
    try:
        result = evaluate(Subject.parse(news))
    except ValueError as exc:
        return [(DOCUMENT, str(exc))]
    if result.problems:
        return [
            ("", f"not a TarsK8S document: {result.redact(problem)}") for problem in result.problems
        ]
    found = [*result.violations, *change_violations(olds, news)]
    result = replace(result, secrets=(*result.secrets, *old_secrets(olds)))
    return [(v.field, result.reason(v)) for v in found if v.is_error]


def inputs_changed(olds: Mapping[str, Any], news: Mapping[str, Any]) -> bool:
    """``diff``'s answer: whether the new inputs differ from those the old outputs were made of
    (their :data:`INPUTS_DIGEST`), or are not all known yet. A state written before the digest
    holds an echo of the inputs instead: those are compared (:func:`changed_inputs`)."""
    if DOCUMENT in olds or INPUTS_DIGEST not in olds:
        return bool(changed_inputs(olds, news))
    unknown: list[Path] = []
    digest = inputs_digest(news, unknown)
    return bool(unknown) or plain(olds[INPUTS_DIGEST], (), []) != digest


def changed_inputs(olds: Mapping[str, Any], news: Mapping[str, Any]) -> list[str]:
    """The input properties whose new value differs from the old one or is not known yet:
    the document and the facts its verdict depends on, nothing else."""
    changed = []
    for key in INPUTS:
        unknown: list[Path] = []
        new = plain(input_value(news, key), (), unknown)
        if unknown or plain(input_value(olds, key), (), []) != new:
            changed.append(key)
    return changed


def change_violations(olds: Mapping[str, Any], news: Mapping[str, Any]) -> list[Violation]:
    """The change rules between the old and the new document of this resource (matched, as in
    ``validate --previous``, by kind, namespace and name); for a TDeploy request without old
    inputs, its creation (TD001)."""
    old_document = olds.get(DOCUMENT) if olds else None
    current = Subject.parse(news)
    if not isinstance(old_document, Mapping):
        # No old inputs: the engine creates the resource. For a TDeploy request that is the
        # request's creation, which must not carry its approval (TD001).
        if not current.is_request:
            return []
        with masking(current.secret_values(), current.secret_paths()):
            try:
                current_stack, _ = current.load()
            except LoadError:
                return []
            created = DocumentSet(current_stack.namespace)
            return relevant(current, validate_change(created, current_stack))
    try:
        previous = Subject.parse(olds)
    except ValueError:
        return []
    # A change rule quotes the old value too (TS001: app changed from X to Y).
    with masking(
        [*current.secret_values(), *previous.secret_values()],
        [*current.secret_paths(), *previous.secret_paths()],
    ):
        try:
            current_stack, _ = current.load()
            previous_stack, _ = previous.load()
        except LoadError:
            return []
        return relevant(current, validate_change(previous_stack, current_stack))


def old_secrets(olds: Mapping[str, Any]) -> tuple[str, ...]:
    """The secret texts of the old document (a change rule may quote an old value)."""
    if not olds or not isinstance(olds.get(DOCUMENT), Mapping):
        return ()
    try:
        return tuple(Subject.parse(olds).secret_values())
    except ValueError:
        return ()


__all__ = [
    "AdmissionError",
    "Evaluation",
    "InvalidInputs",
    "change_violations",
    "changed_inputs",
    "check_failures",
    "evaluate",
    "inputs_changed",
    "old_secrets",
    "relevant",
]
