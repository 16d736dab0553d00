"""TServer sections (TS014), replica and conversion annotations (TS019, TS021), the release
of a daemonSet (TS023), the template and tarsnode image a server needs (TS010, TS020) and
one object name per server of a namespace (TS017)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..kernel.errors import Severity, Violation
from ..kernel.paths import Segment
from ..kernel.registry import (
    ERROR,
    FACT_FRAMEWORK_NODE_IMAGE,
    FACT_SERVER_NAMES,
    FACT_TEMPLATES,
    WARNING,
    rule,
)
from ..loading.document_set import DocumentSet
from ..loading.schema_rules import TS014, TS019, TS021, section_mismatch
from ..models import (
    V1BETA2,
    SubType,
    TServerDocument,
    is_deferred,
)
from ..models.base import P_QUALNAME, PATTERN_HINTS
from ..models.conversion import read_server_annotation
from ..models.vocabulary import (
    ANNOTATION_MAX_REPLICAS,
    ANNOTATION_MIN_REPLICAS,
    CONVERSION_ANNOTATION,
)
from ..mutation import replica_count
from ..secrets.redaction import quote
from .common import repeats
from .tserver_names import MAX_LABEL_NAME
from .tserver_ports import _host_ports

Path = tuple[Segment, ...]


# --- sections, host ports, annotations, release --------------------------------------------


def _sections(server: TServerDocument) -> Iterator[Violation]:
    """TS014: an error, except for a normal server carrying spec.tars instead of spec.normal,
    which the controller admits and builds without tarsnode (a warning, docs/rules/index.md)."""
    spec = server.spec
    found = section_mismatch(spec.sub_type, spec.tars is not None, spec.normal is not None)
    if found is None:
        return
    path, message = found
    if spec.sub_type == SubType.NORMAL.value and spec.normal is None:
        yield TS014.at(
            server,
            path,
            "subType normal with spec.tars instead of spec.normal: the controller builds it "
            "without tarsnode and its servants become Service ports; use spec.normal.ports "
            "(or subType tars for a server run by tarsnode)",
            Severity.WARNING,
        )
        return
    yield TS014.at(server, path, message)


TS018 = rule(
    "TS018",
    ERROR,
    "TServer",
    "hostPorts nameRefs are unique (case-insensitive)",
    origin="controller",
)


def _host_port_refs_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS018 (case-insensitive)."""
    for (path, name_ref, _), _ in repeats(_host_ports(server), lambda h: h[1].lower()):
        yield TS018.at(server, (*path, "nameRef"), f"nameRef {name_ref} already has a host port")


def _replica_annotations(server: TServerDocument) -> Iterator[Violation]:
    """TS019."""
    bounds: dict[str, int] = {}
    for key in (ANNOTATION_MIN_REPLICAS, ANNOTATION_MAX_REPLICAS):
        value = server.annotations.get(key)
        if value is None:
            continue
        count = replica_count(value)
        if count is not None:
            bounds[key] = count
        else:
            yield TS019.at(
                server,
                ("metadata", "annotations", key),
                f"{quote(value, ('metadata', 'annotations', key))} is not a replica count "
                "from 0 to 99",
            )
    low, high = bounds.get(ANNOTATION_MIN_REPLICAS), bounds.get(ANNOTATION_MAX_REPLICAS)
    if low is not None and high is not None and low > high:
        yield TS019.at(
            server,
            ("metadata", "annotations", ANNOTATION_MIN_REPLICAS),
            f"MinReplicas {low} is greater than MaxReplicas {high}",
        )


_GATE = re.compile(P_QUALNAME)


def _conversion_annotation(server: TServerDocument) -> Iterator[Violation]:
    """TS021 for the readiness gates a v1beta2 TServer's ``tars.io/Conversion.1b21b3``
    annotation restores: the conversion webhook puts them in ``spec.k8s.readinessGates``,
    which the CRD constrains like any gate."""
    if server.api_version != V1BETA2:
        return
    restored = read_server_annotation(server.annotations)
    if restored is None:
        return
    for gate in restored.readiness_gates or []:
        if len(gate) > MAX_LABEL_NAME or _GATE.fullmatch(gate) is None:
            yield TS021.at(
                server,
                ("metadata", "annotations", CONVERSION_ANNOTATION),
                f"restores readiness gate {quote(gate)}, which is not valid: expected "
                f"{PATTERN_HINTS[P_QUALNAME]}, at most {MAX_LABEL_NAME} characters",
            )


TS023 = rule(
    "TS023",
    WARNING,
    "TServer",
    "a daemonSet server has a release (without one no DaemonSet is emitted)",
    origin="tars-components",
)


def _daemon_release(server: TServerDocument) -> Iterator[Violation]:
    """TS023 (warning)."""
    if server.spec.k8s.daemon_set and server.spec.release is None:
        yield TS023.at(
            server,
            "spec.k8s.daemonSet",
            "a daemonSet server without spec.release emits no DaemonSet",
        )


TS010 = rule(
    "TS010",
    ERROR,
    "TServer",
    "the TTemplate named by spec.tars.template exists in the namespace",
    origin="seed",
    facts=(FACT_TEMPLATES,),
)


def _template_exists(server: TServerDocument, stack: DocumentSet) -> Iterator[Violation]:
    """TS010 (whenever spec.tars is present, whatever the subType)."""
    tars = server.spec.tars
    if tars is not None and tars.template not in stack.template_names(server.namespace):
        yield TS010.at(
            server,
            "spec.tars.template",
            f"TTemplate {tars.template} does not exist in namespace {server.namespace}",
        )


TS020 = rule(
    "TS020",
    ERROR,
    "TServer",
    "a released tars server has a nodeImage or its namespace has TFrameworkConfig tars-framework",
    origin="controller",
    facts=(FACT_FRAMEWORK_NODE_IMAGE,),
)


def _node_image(server: TServerDocument, stack: DocumentSet) -> Iterator[Violation]:
    """TS020: a deferred nodeImage counts as set."""
    release = server.spec.release
    if server.spec.tars is None or release is None:
        return
    if is_deferred(release.node_image) or release.node_image:
        return
    if stack.framework(server.namespace) is None:
        yield TS020.at(
            server,
            "spec.release.nodeImage",
            f"no nodeImage, and namespace {server.namespace} has no TFrameworkConfig "
            "tars-framework to take the default tarsnode image from",
        )


TS017 = rule(
    "TS017",
    ERROR,
    "TServer",
    "no two TServers of a namespace map to the same object name",
    origin="tars-components",
    facts=(FACT_SERVER_NAMES,),
    fields=("metadata.name", "spec.app", "spec.server"),
)


def _same_object_name(servers: Iterable[TServerDocument]) -> Iterator[Violation]:
    """TS017: a later TServer whose name or lower(app)-lower(server) an earlier one has."""
    seen: dict[tuple[str, str], TServerDocument] = {}
    for server in servers:
        keys = sorted({(server.namespace, server.name), (server.namespace, server.object_name)})
        taken = next((key for key in keys if key in seen), None)
        if taken is not None:
            first = seen[taken]
            yield TS017.at(
                server,
                "metadata.name",
                f"object name {taken[1]} is already used by TServer {first.name} "
                f"(app {first.spec.app}, server {first.spec.server})",
            )
        for key in keys:
            seen.setdefault(key, server)
