"""Rules about the plain Kubernetes objects of a stack (passed through unchanged).

TX003: two objects with one apiVersion, kind, namespace and name would overwrite each other.
A collision with what a TServer's expansion creates is checked in expand mode by
:func:`tars_components.pipeline.check`. TX005 (crd mode): workloads the TarsK8S validating
webhook admits from its controller only.

TX006: what the API server checks of every object's identity and metadata, so that neither
``render`` (which names a file after them) nor ``kubectl apply`` meets a name with ``/`` or a
NUL: apiVersion, kind, the name as the kind's registry validates it, the namespace, label keys
and values, annotation keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..kernel.errors import Violation
from ..kernel.paths import Segment
from ..kernel.registry import ERROR, check, rule
from ..loading.document_set import DocumentSet, KubeObject
from ..models.vocabulary import LABEL_APP, LABEL_SERVER
from ..secrets.redaction import quote
from .common import repeats

_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(_LABEL)
_DNS1123_SUBDOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_DNS1035_LABEL = re.compile(r"[a-z](?:[-a-z0-9]*[a-z0-9])?")
_QUALIFIED_NAME = re.compile(
    rf"(?:{_LABEL}(?:\.{_LABEL})*/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?"
)
_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_API_VERSION = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*/)?{_LABEL}")

_SUBDOMAIN = "a lowercase DNS subdomain (a-z, 0-9, '-' and '.', at most 253 characters)"
_RBAC_GROUP = "rbac.authorization.k8s.io"
_PATH_SEGMENT_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})


TX003 = rule(
    "TX003",
    ERROR,
    "any",
    "one plain Kubernetes object per apiVersion, kind, namespace and name, and none that a "
    "TServer's expansion also creates",
    origin="tars-components",
)


def overwritten_by_output(obj: KubeObject) -> Violation:
    """TX003: a plain object that an output object of the same kind, namespace and name
    would overwrite (say a Service named like a TServer in expand mode)."""
    return TX003.at(
        obj,
        "metadata.name",
        f"{obj.kind} {obj.namespace}/{obj.name} is also created by the stack's "
        "TarsK8S objects: rename or remove this object",
    )


TX006 = rule(
    "TX006",
    ERROR,
    "any",
    "a plain Kubernetes object's apiVersion, kind, name (per kind: DNS-1123 subdomain; DNS-1035 "
    "label for a Service; DNS-1123 label for a Namespace; a path segment for RBAC kinds), "
    "namespace, label and annotation keys and label values are what the API server admits",
    origin="tars-components",
)


@check()
def check_objects(stack: DocumentSet) -> Iterator[Violation]:
    """TX003 among the plain objects; TX006 for each one's identity and metadata."""
    for later, first in repeats(
        stack.objects, lambda o: (o.api_version, o.kind, o.namespace, o.name)
    ):
        where = f" ({first.source.file})" if first.source else ""
        yield TX003.at(
            later,
            "metadata.name",
            f"{later.kind} {later.namespace}/{later.name} is already defined{where}",
        )
    for obj in stack.objects:
        for path, problem in object_problems(obj.body):
            yield TX006.at(obj, path, f"{problem} (the API server refuses it)")


def object_problems(body: Mapping[str, Any]) -> Iterator[tuple[tuple[Segment, ...], str]]:
    """``(field path, problem)`` for what the API server refuses in a plain object's
    apiVersion, kind and metadata (name, namespace, labels, annotations)."""
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if not isinstance(api_version, str) or not _valid_api_version(api_version):
        yield ("apiVersion",), f"{api_version!r} is not valid: expected VERSION or GROUP/VERSION"
    if not isinstance(kind, str) or not _valid_kind(kind):
        yield ("kind",), f"{kind!r} is not valid: expected a letter followed by letters and digits"
    meta = body.get("metadata")
    if not isinstance(meta, Mapping):
        return
    name = meta.get("name")
    if isinstance(kind, str) and isinstance(api_version, str):
        problem = name_problem(api_version, kind, name)
        if problem:
            yield ("metadata", "name"), problem
    namespace = meta.get("namespace")
    if namespace is not None and not (
        isinstance(namespace, str) and (namespace == "" or _is_label(namespace))
    ):
        yield (
            ("metadata", "namespace"),
            f"{namespace!r} is not valid: expected a DNS-1123 label (a-z, 0-9 and '-', at most "
            "63 characters)",
        )
    yield from _map_problems(meta, "labels", values=True)
    yield from _map_problems(meta, "annotations", values=False)


def name_problem(api_version: str, kind: str, name: Any) -> str | None:
    """Why the API server refuses ``name`` for an object of this kind, or None: a Service
    name is a DNS-1035 label, a Namespace name a DNS-1123 label, RBAC names any path segment
    (``system:controller:x`` is fine), every other kind's (custom resources included) a
    DNS-1123 subdomain."""
    if not isinstance(name, str):
        return f"{name!r} is not valid: expected a string"
    if name in (".", "..") or "/" in name or "%" in name:
        return f"{name!r} is not valid: a name may not be '.' or '..' nor contain '/' or '%'"
    group = api_version.rpartition("/")[0]
    if group == _RBAC_GROUP and kind in _PATH_SEGMENT_KINDS:
        if not name.isprintable():
            return f"{name!r} is not valid: a name may not contain control characters"
        return None
    if kind == "Service" and group == "":
        if len(name) > 63 or _DNS1035_LABEL.fullmatch(name) is None:
            return (
                f"{name!r} is not valid: a Service name is a DNS-1035 label (a lowercase "
                "letter, then a-z, 0-9 and '-', at most 63 characters)"
            )
        return None
    if kind == "Namespace" and group == "":
        if not _is_label(name):
            return (
                f"{name!r} is not valid: a Namespace name is a DNS-1123 label (a-z, 0-9 and "
                "'-', at most 63 characters)"
            )
        return None
    if len(name) > 253 or _DNS1123_SUBDOMAIN.fullmatch(name) is None:
        return f"{name!r} is not valid: expected {_SUBDOMAIN}"
    return None


def _is_label(value: str) -> bool:
    return len(value) <= 63 and _DNS1123_LABEL.fullmatch(value) is not None


def _valid_api_version(value: str) -> bool:
    group = value.rpartition("/")[0]
    return len(group) <= 253 and _API_VERSION.fullmatch(value) is not None


def _valid_kind(value: str) -> bool:
    return len(value) <= 63 and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", value) is not None


def _map_problems(
    meta: Mapping[str, Any], field: str, values: bool
) -> Iterator[tuple[tuple[Segment, ...], str]]:
    entries = meta.get(field)
    if entries is None:
        return
    if not isinstance(entries, Mapping):
        yield ("metadata", field), f"must be a mapping of strings, got {type(entries).__name__}"
        return
    for key, value in entries.items():
        path: tuple[Segment, ...] = (
            ("metadata", field, key) if isinstance(key, str) else ("metadata", field)
        )
        if not isinstance(key, str) or not _valid_key(key):
            yield path, f"key {key!r} is not valid: expected a qualified name ([prefix/]name)"
            continue
        if not isinstance(value, str):
            yield path, f"must be a string, got {type(value).__name__} {quote(value, path)}"
        elif values and (len(value) > 63 or _LABEL_VALUE.fullmatch(value) is None):
            yield (
                path,
                f"{value!r} is not a valid label value: at most 63 letters, digits, '-', '_' "
                "and '.', starting and ending alphanumeric",
            )


def _valid_key(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    return len(name) <= 63 and len(prefix) <= 253 and _QUALIFIED_NAME.fullmatch(key) is not None


# What v1.4.1's ``validating.k8s.tars.io-0`` webhook intercepts (matchPolicy Exact) for objects
# labelled with both server labels: its CREATE handlers refuse any user but the controller.
_CONTROLLER_ONLY = {("v1", "Service"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet")}


TX005 = rule(
    "TX005",
    ERROR,
    "any",
    "crd mode: no plain v1 Service, apps/v1 StatefulSet or DaemonSet labelled both "
    "tars.io/ServerApp and tars.io/ServerName (the webhook admits them from the controller only)",
    origin="controller",
)


def controller_only_objects(stack: DocumentSet) -> Iterator[Violation]:
    """TX005 (crd mode): a plain Service, StatefulSet or DaemonSet labelled with both
    ``tars.io/ServerApp`` and ``tars.io/ServerName``, which the cluster refuses to create."""
    for obj in stack.objects:
        if (obj.api_version, obj.kind) not in _CONTROLLER_ONLY:
            continue
        labels = (obj.body.get("metadata") or {}).get("labels") or {}
        if LABEL_APP in labels and LABEL_SERVER in labels:
            yield TX005.at(
                obj,
                "metadata.labels",
                f"the TarsK8S webhook refuses to create a {obj.kind} labelled "
                f'{LABEL_APP} and {LABEL_SERVER} ("only use authorized account '
                f'can create {obj.kind.lower()}"): only the controller builds it from a '
                "TServer; declare the TServer, or drop one of the labels",
            )
