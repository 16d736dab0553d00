"""One document into its typed model: which documents can be read at all
(:func:`identify`), where each goes (:func:`route`: typed, passed through or skipped), and
what the CRD schema refuses (pydantic errors, version-only fields, metadata), handed to
:func:`tars_components.loading.schema_rules.schema_violation` to become violations."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import ValidationError

from ..kernel.errors import LoadError, LoadProblem, Violation
from ..kernel.paths import MISSING, Segment, error_path, lookup
from ..kernel.text import unknown_field
from ..models import (
    API_VERSIONS,
    CONTROLLER_KINDS,
    GROUP,
    KINDS,
    UNTYPED_TARS_KINDS,
    V1BETA2,
    V1BETA3,
    Document,
    Source,
    TFrameworkConfigDocument,
    TServerDocument,
)
from ..models.base import P_DNS1123SUB, PATTERN_HINTS
from ..models.names import is_dns_label
from ..secrets.redaction import quote, secret_keys, secret_subtrees
from .document_set import Rejected
from .exports import clean_document, controller_owner
from .schema_rules import SECTION_MISMATCH, schema_violation, section_mismatch, skipped_object

_DNS_SUBDOMAIN = re.compile(P_DNS1123SUB)


_SUBDOMAIN_HINT = PATTERN_HINTS[P_DNS1123SUB]


# Fields that exist in one served version only: (kind, apiVersion) → {path: replacement hint}.
VERSION_ONLY_FIELDS: dict[tuple[str, str], dict[tuple[str, ...], str]] = {
    (TServerDocument.KIND, V1BETA2): {
        ("spec", "k8s", "readinessGates"): "use spec.k8s.readinessGate in v1beta2",
        ("spec", "k8s", "command"): "command needs k8s.tars.io/v1beta3",
        ("spec", "k8s", "args"): "args needs k8s.tars.io/v1beta3",
    },
    (TServerDocument.KIND, V1BETA3): {
        ("spec", "k8s", "readinessGate"): "use spec.k8s.readinessGates in v1beta3",
    },
    (TFrameworkConfigDocument.KIND, V1BETA2): {
        ("imageUpload",): "use imageRegistry in v1beta2",
        ("imageBuild", "executor"): "imageBuild.executor needs k8s.tars.io/v1beta3",
    },
    (TFrameworkConfigDocument.KIND, V1BETA3): {
        ("imageRegistry",): "use imageUpload in v1beta3",
    },
}


VERSION_REQUIRED_FIELDS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    (TFrameworkConfigDocument.KIND, V1BETA2): (("imageRegistry",),),
    (TFrameworkConfigDocument.KIND, V1BETA3): (
        ("imageBuild",),
        ("imageBuild", "executor"),
        ("imageUpload",),
    ),
}


class SchemaError(ValueError):
    """A document the CRD schema refuses; :attr:`violations` are the schema violations."""

    def __init__(self, violations: list[Violation]) -> None:
        super().__init__("; ".join(v.format() for v in violations))
        self.violations = violations


def parse_document(raw: Mapping[str, Any], namespace: str = "default") -> Document:
    """One document given as a mapping → its typed model.

    Raises :class:`LoadError` for an unknown apiVersion/kind and :class:`SchemaError` (a
    ValueError) listing the schema violations otherwise.
    """
    problem = identify(raw)
    if problem is None and route(raw) != "typed":
        problem = f"{raw['kind']} ({raw['apiVersion']}) has no TarsK8S model"
    if problem:
        raise LoadError([LoadProblem("<input>", 0, problem)])
    doc, found = build_document(clean_document(raw, namespace), None, namespace)
    if doc is None or any(v.is_error for v in found):
        raise SchemaError(found)
    return doc


def identify(raw: Any) -> str | None:
    """Why a document cannot be read at all (None when it can): not a mapping, no apiVersion
    or kind, a TarsK8S apiVersion or kind that does not exist, a plain object without a name."""
    if not isinstance(raw, dict):
        return f"document is a {yaml_type(raw)}, expected a mapping with apiVersion and kind"
    shape = shape_problem(raw)
    if shape is not None:
        return shape
    api_version, kind = str(raw["apiVersion"]), str(raw["kind"])
    tars_group = api_version.startswith(f"{GROUP}/")
    if tars_group and api_version not in API_VERSIONS:
        return f"unknown apiVersion {quote(api_version)}: {_EXPECTED}"
    if (
        not tars_group
        and not api_version.lower().startswith(f"{GROUP}/")  # a casing slip: TX006 tells it
        and (tars_kind := _tars_kind(kind)) is not None
    ):
        return misplaced_tars_kind(tars_kind, api_version)
    if tars_group:
        if kind not in KINDS and kind not in CONTROLLER_KINDS and kind not in UNTYPED_TARS_KINDS:
            return (
                f"unknown kind {quote(kind)} for {api_version}: expected one of {', '.join(KINDS)}"
            )
        if kind not in UNTYPED_TARS_KINDS:  # passed through like a plain object otherwise
            return None
    meta = raw.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        return f"{kind} without metadata.name: a Kubernetes object needs a name"
    return None


_EXPECTED = f"expected one of {', '.join(API_VERSIONS)} or a Kubernetes apiVersion"


def shape_problem(raw: Mapping[str, Any]) -> str | None:
    """Why a mapping's apiVersion or kind cannot be read (missing, empty, not a string), or
    None. A mapping or list there is a slip of indentation that may hold a whole document (a
    Secret's data): its type is told, never its content."""
    api_version, kind = raw.get("apiVersion"), raw.get("kind")
    if not isinstance(api_version, str) or not api_version:
        return f"unknown apiVersion ({_shape(api_version)}, not a string): {_EXPECTED}"
    if not isinstance(kind, str) or not kind:
        return (
            f"unknown kind ({_shape(kind)}, not a string) for {api_version}: a document "
            "needs a kind"
        )
    return None


_ALL_TARS_KINDS = {k.lower(): k for k in (*KINDS, *CONTROLLER_KINDS, *UNTYPED_TARS_KINDS)}


def _tars_kind(kind: str) -> str | None:
    """The TarsK8S kind ``kind`` names in any casing (None for another kind)."""
    return _ALL_TARS_KINDS.get(kind.lower())


def misplaced_tars_kind(kind: str, api_version: str) -> str:
    """Why a TarsK8S kind under another API group is refused: read as a plain object, no
    rule would check it and its credentials would be written as they are."""
    version = api_version.rsplit("/", 1)[-1]
    suggestion = f"{GROUP}/{version}" if f"{GROUP}/{version}" in API_VERSIONS else API_VERSIONS[-1]
    return (
        f"{kind} is a TarsK8S kind, but apiVersion {quote(api_version)} is not the TarsK8S "
        f"group: did you mean {suggestion}? (expected one of {', '.join(API_VERSIONS)})"
    )


def _shape(value: Any) -> str:
    """What a value is, never what it holds: ``a mapping``, ``a list``, ``a number``, …"""
    if value is None or value == "":
        return "nothing"
    return {list: "a list", dict: "a mapping", bool: "a boolean", str: "a string"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else "a YAML value"
    )


def yaml_type(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


def route(raw: Mapping[str, Any]) -> str:
    """``"typed"`` (a TarsK8S kind with a model), ``"skip"`` (written by a controller) or
    ``"pass"`` (passed through unchanged)."""
    kind, api_version = raw["kind"], raw["apiVersion"]
    if api_version in API_VERSIONS:
        if kind in CONTROLLER_KINDS:
            return "skip"
        return "typed" if kind in KINDS else "pass"
    if controller_owner(raw) is not None:
        return "skip"
    return "pass"


def skipped(raw: Mapping[str, Any], namespace: str, source: Source | None) -> Violation:
    """TX002: an object a controller writes is not part of a stack."""
    identity = identity_of(raw, namespace, source)
    owner = controller_owner(raw)
    if owner is not None:
        why = (
            f"created by the controller of its owner {owner.get('kind')}/{owner.get('name')}"
            " (ownerReferences controller: true)"
        )
    else:
        why = "written only by the TarsK8S controller"
    return skipped_object(identity, why)


def identity_of(raw: Mapping[str, Any], namespace: str, source: Source | None) -> Rejected:
    """The identity (kind, namespace, name) of a document, however broken its metadata."""
    meta = raw.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    name, ns = meta.get("name"), meta.get("namespace")
    spec = raw.get("spec") if raw.get("kind") == "TServer" else raw
    fields = spec if isinstance(spec, dict) else {}
    return Rejected(
        kind=str(raw["kind"]),
        namespace=ns if isinstance(ns, str) and ns else namespace,
        name=name if isinstance(name, str) else "",
        source=source,
        identity={
            key: fields[key]
            for key in ("app", "server", "configName", "podSeq")
            if isinstance(fields.get(key), str)
        },
    )


def build_document(
    raw: dict[str, Any], source: Source | None, namespace: str
) -> tuple[Document | None, list[Violation]]:
    kind, api_version = raw["kind"], raw["apiVersion"]
    cls = KINDS[kind]
    errors = list(_version_errors(kind, api_version, raw))
    errors.extend(_metadata_errors(kind, raw.get("metadata")))
    doc: Document | None = None
    try:
        doc = cls.model_validate(raw)
    except ValidationError as exc:
        errors.extend(_pydantic_errors(exc, api_version, kind))
    if errors:
        doc = None  # the API server rejects the whole object
    elif doc is not None:
        doc.with_source(source)
    if kind == TServerDocument.KIND:
        errors = [_section_error(raw, error) for error in errors]
    identity = identity_of(raw, namespace, source)
    violations = [
        schema_violation(identity, path, error_type, message)
        for path, error_type, message in errors
    ]
    return doc, violations


def _metadata_errors(kind: str, meta: Any) -> Iterator[tuple[tuple[Segment, ...], str, str]]:
    """What the API server checks in any object's metadata: a name (a DNS-1123 subdomain; a
    TServer's name is checked against its app and server by TS016) and a namespace that is a
    DNS-1123 label."""
    if not isinstance(meta, dict):
        return
    name, namespace = meta.get("name"), meta.get("namespace")
    if not name:
        yield ("metadata", "name"), "missing", "metadata.name is required"
    elif (
        kind != TServerDocument.KIND
        and isinstance(name, str)
        and not _DNS_SUBDOMAIN.fullmatch(name)
    ):
        message = f"{quote(name, ('metadata', 'name'))} is not valid: expected {_SUBDOMAIN_HINT}"
        yield ("metadata", "name"), "name", message
    if isinstance(namespace, str) and not is_dns_label(namespace):
        yield (
            ("metadata", "namespace"),
            "namespace",
            f"{quote(namespace, ('metadata', 'namespace'))} is not a valid namespace: expected "
            "a DNS-1123 label (at most 63 lowercase letters, digits and '-')",
        )


def _section_error(
    raw: Mapping[str, Any], error: tuple[tuple[Segment, ...], str, str]
) -> tuple[tuple[Segment, ...], str, str]:
    """The CRD's tars/normal oneOf failure, told as TS014 (subType vs sections) where it is one:
    the seed's own example has both sections, and the hint is to use spec.tars.ports."""
    path, error_type, _ = error
    spec = raw.get("spec")
    if path != ("spec",) or error_type != "value_error" or not isinstance(spec, dict):
        return error
    mismatch = section_mismatch(
        spec.get("subType"), spec.get("tars") is not None, spec.get("normal") is not None
    )
    if mismatch is None:
        return error
    return (mismatch[0], SECTION_MISMATCH, mismatch[1])


def _version_errors(
    kind: str, api_version: str, raw: Mapping[str, Any]
) -> Iterator[tuple[tuple[Segment, ...], str, str]]:
    for path, hint in VERSION_ONLY_FIELDS.get((kind, api_version), {}).items():
        if lookup(raw, path) is not MISSING:
            yield path, "extra_forbidden", f"unknown field in {api_version} ({hint})"
    for path in VERSION_REQUIRED_FIELDS.get((kind, api_version), ()):
        parent = lookup(raw, path[:-1]) if len(path) > 1 else raw
        if isinstance(parent, dict) and path[-1] not in parent:
            yield path, "missing", f"required field is missing in {api_version}"


def _pydantic_errors(
    exc: ValidationError, api_version: str, kind_name: str
) -> Iterator[tuple[tuple[Segment, ...], str, str]]:
    for error in exc.errors(include_url=False):
        path = error_path(error["loc"])
        kind = error["type"]
        if kind == "string_pattern_mismatch" and error.get("input") == "":
            kind = "empty"
        message = _describe(error, _Quoter(api_version, kind_name, path))
        if kind == "missing" and kind_name == TServerDocument.KIND and _misspelled_required(path):
            message += f" ({_REQUIRE_NOTE})"
        yield path, kind, message


# The v1.4.1 TServer CRD lists these as `require:` instead of `required:`, so the API server
# does not enforce them: the TServer is admitted and the controller's StatefulSet is refused.
_MISSPELLED_REQUIRED = {
    "mounts": ("name", "source", "mountPath"),
    "nodeSelector": ("key", "operator"),
}


_REQUIRE_NOTE = (
    "the v1.4.1 CRD spells its required list `require:`, so kubectl apply admits the TServer; "
    "the controller's StatefulSet is then refused by the API server and the server never runs"
)


def _misspelled_required(path: tuple[Segment, ...]) -> bool:
    """Whether ``path`` is ``spec.k8s.<list>[i].<field>`` of a misspelled required field."""
    return (
        len(path) == 5
        and path[:2] == ("spec", "k8s")
        and isinstance(path[3], int)
        and path[4] in _MISSPELLED_REQUIRED.get(str(path[2]), ())
    )


class _Quoter:
    """Quotes the value of one schema error, its secrets masked (:mod:`.redaction`): the
    credentials of the document's kind wherever they sit in the value, and the Pulumi secrets
    of the document being checked."""

    def __init__(self, api_version: str, kind: str, path: tuple[Segment, ...]) -> None:
        self.path = path
        self.subtrees = secret_subtrees(api_version, kind)
        self.keys = secret_keys(api_version, kind)

    def __call__(self, value: Any) -> str:
        return quote(value, self.path, self.subtrees, self.keys)


def _describe(error: Mapping[str, Any], quoted: Callable[[Any], str] = quote) -> str:
    """A short, user-facing sentence for one pydantic error (values quoted by ``quoted``)."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "extra_forbidden":
        return unknown_field(error["loc"][-1] if error.get("loc") else None)
    if kind == "missing":
        return "required field is missing"
    if kind == "string_pattern_mismatch":
        if value == "":
            return "must not be empty"
        hint = PATTERN_HINTS.get(ctx.get("pattern", ""), f"pattern {ctx.get('pattern')}")
        return f"{quoted(value)} is not valid: expected {hint}"
    if kind in ("greater_than_equal", "greater_than"):
        return f"{quoted(value)} is below the minimum {ctx.get('ge', ctx.get('gt'))}"
    if kind in ("less_than_equal", "less_than"):
        return f"{quoted(value)} is above the maximum {ctx.get('le', ctx.get('lt'))}"
    if kind in ("string_too_long", "too_long"):
        limit = ctx.get("max_length")
        return f"is longer than {limit} {'characters' if kind == 'string_too_long' else 'items'}"
    if kind == "too_short":
        return f"needs at least {ctx.get('min_length')} item(s)"
    if kind == "enum":
        return f"{quoted(value)} is not one of {ctx.get('expected')}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    if kind == "credential_type":
        return str(error["msg"])
    expected = {
        "string_type": "a string",
        "int_type": "an integer",
        "bool_type": "a boolean (true or false)",
        "list_type": "a list",
        "dict_type": "a mapping",
        "model_type": "a mapping",
        "model_attributes_type": "a mapping",
    }.get(kind)
    if expected:
        return f"must be {expected}, got {yaml_type(value)} {quoted(value)}"
    return str(error["msg"])
