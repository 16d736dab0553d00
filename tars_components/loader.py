"""Loading a stack directory into typed documents (design §3).

Two kinds of bad input, two outcomes:

* input that cannot be read as TarsK8S documents at all (YAML syntax, a document that is not a
  mapping, unknown apiVersion or kind, an unreadable file) raises :class:`LoadError` with one
  :class:`LoadProblem` per problem;
* whatever the CRD schema would reject becomes a :class:`Violation` with the kind's schema code
  (TS021, TT006, TF001; TT001 for a missing or empty parent) on the returned :class:`Stack`.

:func:`load_texts` is pure; :func:`load_stack` reads the files and calls it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .errors import LoadError, LoadProblem, Violation
from .helmlib import translate_file
from .legacy import old_version_problem
from .models import (
    API_VERSIONS,
    CONTROLLER_KINDS,
    GROUP,
    KINDS,
    UNTYPED_TARS_KINDS,
    V1BETA2,
    V1BETA3,
    Document,
    Source,
    TFrameworkConfig,
    TServer,
)
from .models.base import P_DNS1123SUB, PATTERN_HINTS
from .models.names import is_dns_label
from .paths import FileIndex, Segment
from .reading import UnreadableFile, file_size, read_text
from .redaction import quote, secret_keys, secret_subtrees
from .rules.schema import SECTION_MISMATCH, schema_violation, section_mismatch, skipped_object
from .stack import KubeObject, Rejected, Stack
from .tdeploy import Requests, is_request
from .yamlio import (
    LIMIT_NAMES,
    Limits,
    YamlLimitError,
    describe_yaml_error,
    format_size,
    load_documents,
)

# What a live cluster adds to an object; ignored so that exported objects load unchanged.
CLUSTER_METADATA = (
    "managedFields",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "ownerReferences",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_DNS_SUBDOMAIN = re.compile(P_DNS1123SUB)
_SUBDOMAIN_HINT = PATTERN_HINTS[P_DNS1123SUB]

# Fields that exist in one served version only: (kind, apiVersion) → {path: replacement hint}.
VERSION_ONLY_FIELDS: dict[tuple[str, str], dict[tuple[str, ...], str]] = {
    (TServer.KIND, V1BETA2): {
        ("spec", "k8s", "readinessGates"): "use spec.k8s.readinessGate in v1beta2",
        ("spec", "k8s", "command"): "command needs k8s.tars.io/v1beta3",
        ("spec", "k8s", "args"): "args needs k8s.tars.io/v1beta3",
    },
    (TServer.KIND, V1BETA3): {
        ("spec", "k8s", "readinessGate"): "use spec.k8s.readinessGates in v1beta3",
    },
    (TFrameworkConfig.KIND, V1BETA2): {
        ("imageUpload",): "use imageRegistry in v1beta2",
        ("imageBuild", "executor"): "imageBuild.executor needs k8s.tars.io/v1beta3",
    },
    (TFrameworkConfig.KIND, V1BETA3): {
        ("imageRegistry",): "use imageUpload in v1beta3",
    },
}
VERSION_REQUIRED_FIELDS: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    (TFrameworkConfig.KIND, V1BETA2): (("imageRegistry",),),
    (TFrameworkConfig.KIND, V1BETA3): (
        ("imageBuild",),
        ("imageBuild", "executor"),
        ("imageUpload",),
    ),
}


def load_stack(
    path: str | Path, namespace: str | None = None, limits: Limits | None = None
) -> Stack:
    """Load every ``*.yaml``/``*.yml`` file of a stack directory (or one file), sorted by path.

    Raises :class:`LoadError` when a file cannot be read or parsed, or is beyond ``limits``
    (sizes are checked before anything is read).
    """
    limits = limits or Limits()
    return load_texts(read_texts(path, limits), namespace, limits=limits)


def read_texts(
    path: str | Path,
    limits: Limits,
    suffixes: tuple[str, ...] = (".yaml", ".yml"),
    what: str = "stack directory",
) -> dict[str, str]:
    """``{file name: text}`` of a directory's files with these suffixes (or of one file),
    sorted by path, within ``limits`` (sizes are checked before anything is read).

    Every entry with one of the suffixes must be a readable regular file (or a link to one):
    a dangling link, a FIFO, a device or a directory named ``x.yaml`` is a problem naming it,
    never skipped (skipping a file would read as deleting its objects).
    """
    root = Path(path)
    if root.is_dir():
        try:
            files = sorted(p for p in root.iterdir() if p.suffix in suffixes)
        except OSError as exc:
            problem = LoadProblem(str(root), 0, f"cannot read {what}: {exc.strerror}")
            raise LoadError([problem]) from None
    elif root.exists() or root.is_symlink():
        files = [root]
    else:
        raise LoadError([LoadProblem(str(root), 0, f"no such {what} or file")])
    if not files:
        patterns = " or ".join(", ".join(f"*{x}" for x in suffixes).rsplit(", ", 1))
        raise LoadError([LoadProblem(str(root), 0, f"no {patterns} files in the directory")])
    texts: dict[str, str] = {}
    problems = _size_problems(root, files, limits)
    if problems:
        raise LoadError(problems)
    flag, key = LIMIT_NAMES["max_file_bytes"]
    for file in files:
        try:
            texts[str(file)] = read_text(file, limits.max_file_bytes, f"{flag}, {key}")
        except UnreadableFile as exc:
            problems.append(LoadProblem(exc.path, 0, exc.message))
    if problems:
        raise LoadError(problems)
    return texts


def _size_problems(root: Path, files: list[Path], limits: Limits) -> list[LoadProblem]:
    """Files that are not regular files or are larger than ``limits.max_file_bytes``, and the
    stack when its files add up to more than ``limits.max_stack_bytes``."""
    problems: list[LoadProblem] = []
    total = 0
    for file in files:
        try:
            size = file_size(file)
        except UnreadableFile as exc:
            problems.append(LoadProblem(exc.path, 0, exc.message))
            continue
        total += size
        if size > limits.max_file_bytes:
            problems.append(_file_too_large(file, size, limits))
    if total > limits.max_stack_bytes:
        flag, key = LIMIT_NAMES["max_stack_bytes"]
        problems.append(
            LoadProblem(
                str(root),
                0,
                f"the stack's files add up to {format_size(total)}, more than "
                f"{format_size(limits.max_stack_bytes)} (limit: {flag}, {key})",
            )
        )
    return problems


def _file_too_large(file: Path, size: int, limits: Limits) -> LoadProblem:
    flag, key = LIMIT_NAMES["max_file_bytes"]
    return LoadProblem(
        str(file),
        0,
        f"file is {format_size(size)}, more than {format_size(limits.max_file_bytes)} "
        f"(limit: {flag}, {key})",
    )


def load_texts(
    texts: Mapping[str, str],
    namespace: str | None = None,
    cleaned: list[dict[str, Any]] | None = None,
    limits: Limits | None = None,
) -> Stack:
    """Pure loader: ``{file name: YAML text}`` (taken in sorted name order) → :class:`Stack`.

    A document's own ``metadata.namespace`` wins; otherwise ``namespace``; otherwise
    ``default``. When given, ``cleaned`` receives every loaded object (TarsK8S or plain, not
    the skipped ones) as a mapping without what a live cluster writes, in load order (what
    ``import`` writes).
    Nesting and alias expansion are bounded by ``limits`` (a LoadError beyond).
    """
    stack_namespace = namespace or "default"
    documents: list[Document] = []
    violations: list[Violation] = []
    rejected: list[Rejected] = []
    objects: list[KubeObject] = []
    problems: list[LoadProblem] = []
    live = 0
    deprecated: list[Source] = []  # documents written as v1beta2 (not from a values file)
    requests = Requests()
    for file in sorted(texts):
        index = FileIndex(file, texts[file])
        try:
            raws = load_documents(texts[file], limits)
        except yaml.YAMLError as exc:
            problems.append(_yaml_problem(file, exc))
            continue
        except YamlLimitError as exc:
            line = exc.line or index.document_line(exc.document or 0)
            problems.append(LoadProblem(file, line, exc.message))
            continue
        values = translate_file(file, raws, index, stack_namespace)  # a helm-lib values file
        if values is not None:
            problems.extend(values[0].problems)
            violations.extend(values[0].warnings)
            raws = [produced.body for produced in values[0].documents]
        elif (old := old_version_problem(file, raws, index)) is not None:
            problems.append(old)  # k8s.tars.io/v1beta1: one line for the whole file
            continue
        for position, document in enumerate(raws):
            if document is None:
                continue
            for raw, prefix in list_items(document):
                source = values[1][position] if values else Source(file, position, index, prefix)
                if is_request(raw):  # a TDeploy: its apply as a TServer once approved
                    produced, found = requests.read(raw, source, stack_namespace)
                    violations.extend(found)
                    if produced is None:
                        continue
                    raw, source = produced[0], produced[1] or source  # never None here
                problem = _identify(raw)
                if problem:
                    line = source.line() or index.document_line(position)
                    problems.append(LoadProblem(file, line, problem))
                    continue
                if live_fields(raw):
                    live += 1
                if values is None and raw.get("apiVersion") == V1BETA2 and raw.get("kind") in KINDS:
                    deprecated.append(source)
                route = _route(raw)
                if route == "skip":
                    violations.append(_skipped(raw, stack_namespace, source))
                    continue
                if route == "pass":
                    body = _clean_plain(raw, stack_namespace)
                    objects.append(KubeObject(body, source))
                    if cleaned is not None:
                        cleaned.append(body)
                    continue
                body = _clean(raw, stack_namespace)
                if cleaned is not None:
                    cleaned.append(body)
                doc, found = _build(body, source, stack_namespace)
                violations.extend(found)
                if doc is not None:
                    documents.append(doc)
                else:
                    rejected.append(_rejected(raw, stack_namespace, source))
    if problems:
        raise LoadError(problems)
    notes: list[str] = []
    if live:
        notes.append(
            f"ignored the fields a live cluster writes (status, metadata.uid, resourceVersion, "
            f"generation, creationTimestamp, managedFields, selfLink, controller "
            f"ownerReferences, the last-applied annotation) in {live} object(s)"
        )
    if deprecated:
        first = deprecated[0]
        notes.append(
            f'{V1BETA2} is deprecated (its CRDs warn "please migrate to {V1BETA3}"): '
            f"{len(deprecated)} document(s), the first at {first.file}:{first.line() or 1}; "
            f"`tars-components convert FILE... --out DIR` writes them as {V1BETA3}"
        )
    return Stack(
        namespace=stack_namespace,
        documents=tuple(documents),
        violations=tuple(violations),
        rejected=tuple(rejected),
        objects=tuple(objects),
        notes=tuple(notes),
        requests=tuple(requests.requests),
    )


def _yaml_problem(file: str, exc: yaml.YAMLError) -> LoadProblem:
    """One line for a YAML syntax error: where it was noticed, and what was being parsed."""
    line, message = describe_yaml_error(exc)
    return LoadProblem(file, line, f"invalid YAML: {message}")


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
    problem = _identify(raw)
    if problem is None and _route(raw) != "typed":
        problem = f"{raw['kind']} ({raw['apiVersion']}) has no TarsK8S model"
    if problem:
        raise LoadError([LoadProblem("<input>", 0, problem)])
    doc, found = _build(_clean(raw, namespace), None, namespace)
    if doc is None or any(v.is_error for v in found):
        raise SchemaError(found)
    return doc


def _identify(raw: Any) -> str | None:
    """Why a document cannot be read at all (None when it can): not a mapping, no apiVersion
    or kind, a TarsK8S apiVersion or kind that does not exist, a plain object without a name."""
    if not isinstance(raw, dict):
        return f"document is a {_yaml_type(raw)}, expected a mapping with apiVersion and kind"
    api_version, kind = raw.get("apiVersion"), raw.get("kind")
    tars_group = isinstance(api_version, str) and api_version.startswith(f"{GROUP}/")
    if (
        not isinstance(api_version, str)
        or not api_version
        or (tars_group and api_version not in API_VERSIONS)
    ):
        return (
            f"unknown apiVersion {quote(api_version)}: expected one of {', '.join(API_VERSIONS)} "
            "or a Kubernetes apiVersion"
        )
    if not isinstance(kind, str) or not kind:
        return f"unknown kind {quote(kind)} for {api_version}: a document needs a kind"
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


def _yaml_type(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


def _without_nulls(value: Any) -> Any:
    """Mappings without their null entries, recursively: the API server drops a null in a
    non-nullable field and applies the CRD default (no TarsK8S field is nullable); Helm
    templates write such nulls routinely."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _clean(raw: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """Drop nulls and what a live cluster adds, and default the namespace (a copy)."""
    doc: dict[str, Any] = _without_nulls(raw)
    doc.pop("status", None)
    meta = doc.get("metadata")
    if meta is None:
        meta = {}
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k not in CLUSTER_METADATA}
        _drop_last_applied(meta)
        if not meta.get("namespace"):
            meta["namespace"] = namespace
        doc["metadata"] = meta
    return doc


LIST_KIND = "List"
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "APIService",
        "CertificateSigningRequest",
        "ClusterIssuer",
        "ClusterRole",
        "ClusterRoleBinding",
        "CSIDriver",
        "CSINode",
        "CustomResourceDefinition",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "Namespace",
        "Node",
        "PersistentVolume",
        "PodSecurityPolicy",
        "PriorityClass",
        "RuntimeClass",
        "StorageClass",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)
"""Kinds without a namespace: a plain object of these kinds never gets the stack namespace."""


def list_items(document: Any) -> Iterator[tuple[Any, tuple[Segment, ...]]]:
    """The objects of one YAML document with their path in it: the document itself, or the
    ``items`` of a ``kind: List`` (what ``kubectl get -o yaml`` writes) or of a typed list
    (``TServerList``, ``ConfigMapList``, …). Items of a typed list that lack ``apiVersion``
    and ``kind`` (the raw API omits them) get the list's."""
    if not _is_list(document):
        yield document, ()
        return
    kind = document["kind"]
    for position, item in enumerate(document.get("items") or []):
        if isinstance(item, dict) and kind != LIST_KIND:
            item = {"apiVersion": document.get("apiVersion"), "kind": kind[: -len("List")], **item}
        yield item, ("items", position)


def _is_list(document: Any) -> bool:
    if not isinstance(document, dict):
        return False
    kind = document.get("kind")
    return (
        isinstance(kind, str)
        and kind.endswith(LIST_KIND)
        and isinstance(document.get("items", []), list)
        and ("items" in document or kind == LIST_KIND)
        and "spec" not in document
    )


def live_fields(raw: Mapping[str, Any]) -> bool:
    """True when a document carries fields a live cluster writes."""
    meta = raw.get("metadata")
    if "status" in raw:
        return True
    if not isinstance(meta, dict):
        return False
    annotations = meta.get("annotations")
    return any(key in meta for key in CLUSTER_METADATA) or (
        isinstance(annotations, dict) and LAST_APPLIED in annotations
    )


def _route(raw: Mapping[str, Any]) -> str:
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


def controller_owner(raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``ownerReferences`` entry with ``controller: true``, if any."""
    meta = raw.get("metadata")
    owners = meta.get("ownerReferences") if isinstance(meta, dict) else None
    for owner in owners if isinstance(owners, list) else []:
        if isinstance(owner, dict) and owner.get("controller") is True:
            return owner
    return None


def _skipped(raw: Mapping[str, Any], namespace: str, source: Source | None) -> Violation:
    """TX002: an object a controller writes is not part of a stack."""
    identity = _rejected(raw, namespace, source)
    owner = controller_owner(raw)
    if owner is not None:
        why = (
            f"created by the controller of its owner {owner.get('kind')}/{owner.get('name')}"
            " (ownerReferences controller: true)"
        )
    else:
        why = "written only by the TarsK8S controller"
    return skipped_object(identity, why)


def _clean_plain(raw: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """A plain object without what a live cluster writes: ``status``, the server-set
    metadata, the last-applied annotation. The stack namespace is filled in unless the kind
    is cluster-scoped; nulls are kept (the object is passed through as written)."""
    doc = dict(raw)
    doc.pop("status", None)
    meta = dict(doc.get("metadata") or {})
    for key in CLUSTER_METADATA:
        if key == "ownerReferences":
            continue
        meta.pop(key, None)
    owners = [o for o in meta.pop("ownerReferences", None) or [] if not _is_controller(o)]
    if owners:
        meta["ownerReferences"] = owners
    _drop_last_applied(meta)
    if not meta.get("namespace") and doc.get("kind") not in CLUSTER_SCOPED_KINDS:
        meta["namespace"] = namespace
    doc["metadata"] = meta
    return doc


def _is_controller(owner: Any) -> bool:
    return isinstance(owner, dict) and owner.get("controller") is True


def _rejected(raw: Mapping[str, Any], namespace: str, source: Source | None) -> Rejected:
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


def _build(
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
    if kind == TServer.KIND:
        errors = [_section_error(raw, error) for error in errors]
    identity = _rejected(raw, namespace, source)
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
    elif kind != TServer.KIND and isinstance(name, str) and not _DNS_SUBDOMAIN.fullmatch(name):
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
        if _lookup(raw, path) is not _MISSING:
            yield path, "extra_forbidden", f"unknown field in {api_version} ({hint})"
    for path in VERSION_REQUIRED_FIELDS.get((kind, api_version), ()):
        parent = _lookup(raw, path[:-1]) if len(path) > 1 else raw
        if isinstance(parent, dict) and path[-1] not in parent:
            yield path, "missing", f"required field is missing in {api_version}"


_MISSING = object()


def _lookup(raw: Any, path: tuple[str, ...]) -> Any:
    node = raw
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _pydantic_errors(
    exc: ValidationError, api_version: str, kind_name: str
) -> Iterator[tuple[tuple[Segment, ...], str, str]]:
    for error in exc.errors(include_url=False):
        path = tuple(seg for seg in error["loc"] if isinstance(seg, (str, int)))
        # pydantic appends the validator of a constrained type to the location
        path = tuple(seg for seg in path if not (isinstance(seg, str) and "[" in seg))
        kind = error["type"]
        if kind == "string_pattern_mismatch" and error.get("input") == "":
            kind = "empty"
        message = _describe(error, _Quoter(api_version, kind_name, path))
        if kind == "missing" and kind_name == TServer.KIND and _misspelled_required(path):
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
        return "unknown field"
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
        return f"must be {expected}, got {_yaml_type(value)} {quoted(value)}"
    return str(error["msg"])


def _drop_last_applied(meta: dict[str, Any]) -> None:
    """Remove kubectl's last-applied-configuration annotation (and an emptied annotations map)
    from ``metadata``, in place."""
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        annotations = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
        if annotations:
            meta["annotations"] = annotations
        else:
            del meta["annotations"]
