"""The wire format of a :class:`~tars_components.provider.TarsValidation`: property names,
the inputs as the program builds them, and property values as the provider reads them back
(numbers that crossed gRPC as doubles, secrets, unknowns).

Every input is plain data of constant size for its document: the document itself plus the
few cross-document facts its rules need (see :class:`ValidationInputs`); adding, removing or
changing another document changes none of them unless the verdict depends on it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulumi.output import Unknown as _UnknownValue
from pulumi.runtime import rpc

from ..kernel.paths import Segment
from ..kernel.registry import (
    FACT_CONFIG_MASTER,
    FACT_FRAMEWORK_NODE_IMAGE,
    FACT_SERVER_NAMES,
    FACT_TEMPLATES,
    Rule,
)
from ..rules.catalog import RULES

# --- property names ------------------------------------------------------------------------

DOCUMENT = "document"
"""Input: the TServer/TTemplate/TFrameworkConfig as a camelCase mapping, or as the JSON text of
that mapping (what the components send for a document without ``pulumi.Input`` leaves: one
string crosses gRPC in place of one value per field, and the engine's display diffs JSON text
field by field, as it does a mapping)."""
NAMESPACE = "namespace"
"""Input: the stack namespace (for a document without ``metadata.namespace``)."""
TEMPLATES = FACT_TEMPLATES
"""Input: ``{template name: parent}`` of the templates the document's rules look at: a
TServer's own template; a TTemplate's ancestors (TS010, TT002, TT004)."""
FRAMEWORK_NODE_IMAGE = FACT_FRAMEWORK_NODE_IMAGE
"""Input (TServer only): ``nodeImage`` (``{image, secret}``) of the namespace's
``tars-framework``, or absent (TS020, M-TS13); ``{}`` for a config that exists on the cluster
but whose node image the program does not know (crd mode, ``existing_config``)."""
SERVER_NAMES = FACT_SERVER_NAMES
"""Input (TServer only): ``<app>-<server>`` of the earlier TServers of the namespace whose
name or object name this server takes too (TS017); empty for a server with a free name."""
SECRET_FIELDS = "secretFields"
"""Input: field paths of the document whose values are Pulumi secrets. The engine strips the
secret markers before ``check`` and ``create`` (the Python dynamic provider accepts no secrets),
so the program names them: messages print ``[secret]`` instead of their values."""

CONFIG_MASTER = FACT_CONFIG_MASTER
"""Input (node-level TConfig only): true when the namespace holds the activated master version
of the same file (TC002), false when it does not; absent for every other document."""

INPUTS = (
    DOCUMENT,
    NAMESPACE,
    TEMPLATES,
    FRAMEWORK_NODE_IMAGE,
    SERVER_NAMES,
    SECRET_FIELDS,
    CONFIG_MASTER,
)
"""Every input property, in a stable order."""

MUTATED = "mutated"
"""Output: the document as the TarsK8S mutating webhook admits it (camelCase mapping)."""
VIOLATIONS = "violations"
"""Output: every violation about the document, ``CODE severity field: message``."""
WARNINGS = "warnings"
"""Output: the warnings among them (they never block), ``CODE field: message``."""

INPUTS_DIGEST = "inputsDigest"
"""Output: the SHA-256 of the inputs (:func:`inputs_digest`). The engine hands ``diff`` and
``update`` the old *outputs*, not the old inputs; this digest stands in for an echo of the
inputs, which would store the document a second time in a state that the backend rewrites after
every step. The change rules need the old document itself: ``check`` has it (the engine hands
``check`` the old inputs)."""

OUTPUTS = (MUTATED, VIOLATIONS, WARNINGS, INPUTS_DIGEST)
"""Properties the provider computes (secret when the document carries a secret: the digest of
a secret is a secret too, since a short one can be found by trying)."""

EMPTY_FACTS: dict[str, Any] = {TEMPLATES: {}, SERVER_NAMES: [], SECRET_FIELDS: []}
"""The facts that are not sent when empty, with the value their absence stands for."""


def _codes_by(keys: Callable[[Rule], Sequence[str]]) -> dict[str, frozenset[str]]:
    """``{key: codes of the rules that declare it}``, by key."""
    found: dict[str, set[str]] = {}
    for declared in RULES.values():
        for key in keys(declared):
            found.setdefault(key, set()).add(declared.code)
    return {key: frozenset(codes) for key, codes in sorted(found.items())}


CONTEXT_RULES: dict[str, frozenset[str]] = _codes_by(lambda declared: declared.facts)
"""The rules that need a context property: not reported while that property is unknown (each
rule's :attr:`~tars_components.kernel.registry.Rule.facts`)."""

FIELD_RULES: dict[str, frozenset[str]] = _codes_by(lambda declared: declared.fields)
"""The rules that relate a field (``*``: any list index) to other fields of the document (a
hostPorts ``nameRef`` to the servant names, ``metadata.name`` to app and server): not
reported while that field is unknown, wherever they would point (each rule's
:attr:`~tars_components.kernel.registry.Rule.fields`)."""

REDACTED = "[secret]"
"""What messages print instead of a secret value."""

Path = tuple[Segment, ...]


@dataclass(frozen=True)
class ValidationInputs:
    """The inputs of a :class:`~tars_components.provider.TarsValidation`: one document and the
    facts of its namespace that its rules need, all of constant size.

    * ``document``: the TServer, TTemplate or TFrameworkConfig as a camelCase mapping, before
      mutation; leaves may be ``pulumi.Input`` values. Or its JSON text (:func:`document_text`)
      when it has no such leaves.
    * ``namespace``: the stack namespace, used when the document has none. Defaults to
      ``default``.
    * ``templates``: ``{name: parent}`` of the templates the rules look at (see
      :data:`TEMPLATES`); may be an Output (a server whose template is one). Defaults to
      none.
    * ``framework_node_image``: ``nodeImage`` of the namespace's ``tars-framework``
      TFrameworkConfig (TS020, M-TS13). Defaults to None (no such config).
    * ``server_names``: names of earlier TServers that this one collides with (TS017), each
      as ``<app>-<server>`` in the original case; may be an Output (a server whose app or
      server is one). Defaults to none.
    * ``secret_fields``: paths of secret values in the document (see :data:`SECRET_FIELDS`);
      may be an Output. Defaults to none.
    * ``config_master``: for a node-level TConfig, whether the namespace holds the activated
      master of its file (see :data:`CONFIG_MASTER`). Defaults to None (not sent).
    """

    document: Mapping[str, Any] | str
    namespace: str = "default"
    templates: Mapping[str, str] | Any = field(default_factory=dict)
    framework_node_image: Mapping[str, Any] | None = None
    server_names: Sequence[str] | Any = ()
    secret_fields: Any = ()
    config_master: bool | None = None

    def to_props(self) -> dict[str, Any]:
        """The Pulumi input properties (camelCase names of :data:`INPUTS`); the document is
        passed as it is (``pulumi.Input`` leaves included), nothing is copied deeply. A fact
        that is empty (most servers: no colliding name, no secret) is not sent at all: the
        provider reads an absent fact as empty (:data:`EMPTY_FACTS`), and every property costs
        the SDK an Output of its own on each of thousands of resources."""
        props: dict[str, Any] = {DOCUMENT: self.document, NAMESPACE: self.namespace}
        for key, value in (
            (TEMPLATES, self.templates),
            (SERVER_NAMES, self.server_names),
            (SECRET_FIELDS, self.secret_fields),
        ):
            if isinstance(value, Mapping):
                value = dict(value)
            elif isinstance(value, (list, tuple)):
                value = list(value)
            if value != EMPTY_FACTS[key]:
                props[key] = value
        if self.framework_node_image is not None:
            props[FRAMEWORK_NODE_IMAGE] = dict(self.framework_node_image)
        if self.config_master is not None:
            props[CONFIG_MASTER] = self.config_master
        return props


def document_text(document: Mapping[str, Any]) -> str | None:
    """The JSON text of a plain document (no ``pulumi.Input`` leaves), keys in the document's
    own order; None when a value has no JSON form."""
    try:
        return json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None


MAX_INPUT_DEPTH = 100
"""The deepest nesting of mappings and lists an input may have (a stack file's default
``--max-depth``); a real document nests about ten levels."""


class MalformedInput(ValueError):
    """An input property the provider cannot read at all: ``prop`` (its name), ``subject``
    (``the document``, ``the templates input``) and a one-line ``message``; the text is both
    (``the document is not valid JSON text: ...``)."""

    def __init__(self, prop: str, message: str) -> None:
        self.prop = prop
        self.message = message
        self.subject = "the document" if prop == DOCUMENT else f"the {prop} input"
        super().__init__(f"{self.subject} {message}")


def decoded(props: Mapping[str, Any]) -> Mapping[str, Any]:
    """``props`` with a document given as JSON text (:func:`document_text`) as its mapping;
    anything else unchanged (a mapping, an unknown, a missing document).

    Raises :class:`MalformedInput` for a document text that is not the JSON text of a
    mapping, a document that is neither, and any input that nests deeper than
    :data:`MAX_INPUT_DEPTH` or holds a string that is not valid Unicode: what the engine
    sends is untrusted, and nothing below may fail on it in an unplanned way.
    """
    if not props:
        return props
    text = props.get(DOCUMENT)
    if isinstance(text, str) and not is_unknown(text):
        props = {**props, DOCUMENT: _json_document(text)}
    document = props.get(DOCUMENT)
    if document is not None and not is_unknown(document) and not _is_mapping(document):
        raise MalformedInput(DOCUMENT, f"must be a mapping, got {_type_name(document)}")
    for key, value in props.items():
        _check_value(str(key), value)
    return props


def _json_document(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise MalformedInput(DOCUMENT, _too_deep()) from None
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        message = " ".join(str(exc).split())
        if "integer string conversion" in message:
            limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
            message = f"a number has more than {limit:,} digits"
        raise MalformedInput(DOCUMENT, f"is not valid JSON text: {message}") from None


def _is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping) or rpc.is_rpc_secret(value)


def _type_name(value: Any) -> str:
    names = {list: "a list", str: "a string", bool: "a boolean", int: "a number"}
    return names.get(type(value), "a number" if isinstance(value, float) else type(value).__name__)


def _too_deep() -> str:
    return f"nests deeper than {MAX_INPUT_DEPTH} levels"


def _check_value(prop: str, value: Any) -> None:
    """Depth and strings of one property value, without recursion (any depth is safe)."""
    work: list[tuple[Any, int]] = [(value, 0)]
    while work:
        node, depth = work.pop()
        if isinstance(node, str):
            if not node.isascii():
                try:
                    node.encode("utf-8")
                except UnicodeEncodeError:
                    raise MalformedInput(
                        prop, "holds a string that is not valid Unicode (a lone surrogate)"
                    ) from None
            continue
        if isinstance(node, Mapping):
            children: list[Any] = [*node.keys(), *node.values()]
        elif isinstance(node, (list, tuple)):
            children = list(node)
        else:
            continue
        if depth >= MAX_INPUT_DEPTH:
            raise MalformedInput(prop, _too_deep())
        work.extend((child, depth + 1) for child in children)


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


def is_unknown(value: Any) -> bool:
    """True for a value the engine does not know yet (preview)."""
    return isinstance(value, (_UnknownValue, Pending)) or (
        isinstance(value, str) and value == rpc.UNKNOWN
    )


def plain(value: Any, path: Path, unknown: list[Path], placeholder: Any = PENDING) -> Any:
    """A property value as the models expect it: secrets unwrapped, whole-number floats (all
    numbers cross gRPC as doubles) back to ints, and each unknown value replaced by
    ``placeholder`` with its path appended to ``unknown``."""
    if is_unknown(value):
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


def input_value(props: Mapping[str, Any], key: str) -> Any:
    """Input ``key`` of ``props``; a fact that is not sent stands for its empty value
    (:data:`EMPTY_FACTS`), as older states may hold it."""
    return props.get(key, EMPTY_FACTS.get(key))


def inputs_digest(props: Mapping[str, Any], unknown: list[Path]) -> str:
    """The SHA-256 (hex) of the inputs the verdict depends on, as :func:`plain` values in
    canonical JSON (sorted keys), an empty fact counting as an absent one; the path of each
    value not known yet is appended to ``unknown`` (the digest is then meaningless)."""
    given = {key: input_value(props, key) for key in INPUTS}
    values = {
        key: plain(value, (key,), unknown) for key, value in given.items() if value is not None
    }
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


__all__ = [
    "CONFIG_MASTER",
    "CONTEXT_RULES",
    "DOCUMENT",
    "EMPTY_FACTS",
    "FIELD_RULES",
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
    "MalformedInput",
    "Pending",
    "ValidationInputs",
    "decoded",
    "document_text",
    "input_value",
    "inputs_digest",
    "is_unknown",
    "mapping",
    "plain",
]
