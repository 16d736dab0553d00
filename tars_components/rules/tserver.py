"""TServer admission rules TS003-TS020 and TS023 (reference §6.1, design §5).

TS001/TS002 compare two versions and live in :mod:`.change`; TS021 (the CRD schema) is
reported by the loader. Every check takes a schema-valid :class:`TServer`: structural fields
are plain values, and the only placed field inspected here (``release.nodeImage``) is skipped
when it is deferred.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..errors import Severity, Violation
from ..models import (
    RESERVED_PORT,
    V1BETA2,
    AbilityAffinity,
    Mount,
    SubType,
    TServer,
    is_deferred,
)
from ..models.base import P_QUALNAME, PATTERN_HINTS
from ..models.conversion import CONVERSION_ANNOTATION, read_server_annotation
from ..models.kube import MountPropagation, SelectorOperator
from ..models.names import (
    DELAY_BIND,
    HOST_TIMEZONE,
    LABEL_PREFIX,
    RESERVED_MOUNT_PATHS,
    RESERVED_VOLUMES,
    TARSNODE_WORK_DIR,
    app_ability_label,
    container_port_name,
    is_dns_label,
    is_port_name,
    node_label,
    server_ability_label,
)
from ..mutation import ANNOTATION_MAX_REPLICAS, ANNOTATION_MIN_REPLICAS, replica_count
from ..paths import Segment
from ..redaction import quote
from ..stack import Stack
from .common import repeats
from .registry import ERROR, WARNING, Rule, rule
from .schema import TS014, TS019, TS021, section_mismatch

RESERVED_SERVANT = "nodeobj"
"""Servant name that tarsnode uses (compared case-insensitively, TS005)."""

MAX_NAME = 58
"""Longest TServer name the webhook accepts (``len(name) < 59``)."""
MAX_STATEFULSET_NAME = 52
"""Longest StatefulSet name whose pods get a valid ``controller-revision-hash`` label."""
MAX_LABEL_NAME = 63
"""Longest name part (after the ``/``) of a label key."""

_SERVER_KEY_AFFINITIES = (
    AbilityAffinity.SERVER_REQUIRED.value,
    AbilityAffinity.APP_OR_SERVER_PREFERRED.value,
)
_APP_KEY_AFFINITIES = (
    AbilityAffinity.APP_REQUIRED.value,
    AbilityAffinity.APP_OR_SERVER_PREFERRED.value,
)

Path = tuple[Segment, ...]


@dataclass(frozen=True)
class _Port:
    """A servant or a plain port, with the path of its list entry."""

    path: Path
    role: str
    name: str
    port: int

    @property
    def label(self) -> str:
        return f"{self.role} {self.name}"


def check_servers(stack: Stack) -> Iterator[Violation]:
    """Every TServer rule of one stack (TS003-TS020, TS023)."""
    for server in stack.servers:
        yield from check_server(server, stack)
    yield from _same_object_name(stack.servers)


def check_server(server: TServer, stack: Stack) -> Iterator[Violation]:
    """The rules about one TServer; ``stack`` provides its templates and framework config."""
    for check in _CHECKS:
        yield from check(server)
    yield from _template_exists(server, stack)
    yield from _node_image(server, stack)


# --- ports (TS003-TS008) ------------------------------------------------------------------


def _tars_ports(server: TServer) -> list[_Port]:
    """Servants, then ``spec.tars.ports``: one namespace of names and of port numbers."""
    tars = server.spec.tars
    if tars is None:
        return []
    servants = [
        _Port(("spec", "tars", "servants", i), "servant", s.name, s.port)
        for i, s in enumerate(tars.servants)
    ]
    ports = [
        _Port(("spec", "tars", "ports", i), "port", p.name, p.port)
        for i, p in enumerate(tars.ports or [])
    ]
    return servants + ports


def _normal_ports(server: TServer) -> list[_Port]:
    normal = server.spec.normal
    if normal is None:
        return []
    return [
        _Port(("spec", "normal", "ports", i), "port", p.name, p.port)
        for i, p in enumerate(normal.ports)
    ]


def _duplicate_names(server: TServer, code: Rule, ports: list[_Port]) -> Iterator[Violation]:
    for later, first in repeats(ports, lambda p: p.name.lower()):
        yield code.at(
            server,
            (*later.path, "name"),
            f"name {later.name} is already used by {first.label}",
        )


def _duplicate_numbers(server: TServer, code: Rule, ports: list[_Port]) -> Iterator[Violation]:
    for later, first in repeats(ports, lambda p: p.port):
        yield code.at(
            server,
            (*later.path, "port"),
            f"port {later.port} is already used by {first.label}",
        )


TS003 = rule(
    "TS003",
    ERROR,
    "TServer",
    "servant and spec.tars.ports names are unique (case-insensitive)",
    origin="seed",
)


def _tars_names_unique(server: TServer) -> Iterator[Violation]:
    """TS003."""
    return _duplicate_names(server, TS003, _tars_ports(server))


TS004 = rule(
    "TS004", ERROR, "TServer", "servant and spec.tars.ports port numbers are unique", origin="seed"
)


def _tars_ports_unique(server: TServer) -> Iterator[Violation]:
    """TS004."""
    return _duplicate_numbers(server, TS004, _tars_ports(server))


TS005 = rule("TS005", ERROR, "TServer", "no servant is named NodeObj (in any case)", origin="seed")


def _no_node_obj(server: TServer) -> Iterator[Violation]:
    """TS005."""
    for entry in _tars_ports(server):
        if entry.role == "servant" and entry.name.lower() == RESERVED_SERVANT:
            yield TS005.at(
                server,
                (*entry.path, "name"),
                f"servant name {entry.name} is reserved for tarsnode",
            )


TS006 = rule(
    "TS006",
    ERROR,
    "TServer",
    "servants and spec.tars.ports do not use port 19385 (tarsnode)",
    origin="seed",
)


def _no_reserved_port(server: TServer) -> Iterator[Violation]:
    """TS006 (port 19385 stays allowed in spec.normal.ports)."""
    for entry in _tars_ports(server):
        if entry.port == RESERVED_PORT:
            yield TS006.at(
                server,
                (*entry.path, "port"),
                f"port {RESERVED_PORT} is reserved for tarsnode",
            )


TS007 = rule(
    "TS007",
    ERROR,
    "TServer",
    "spec.normal.ports names are unique (case-insensitive)",
    origin="seed",
)


def _normal_names_unique(server: TServer) -> Iterator[Violation]:
    """TS007."""
    return _duplicate_names(server, TS007, _normal_ports(server))


TS008 = rule("TS008", ERROR, "TServer", "spec.normal.ports port numbers are unique", origin="seed")


def _normal_ports_unique(server: TServer) -> Iterator[Violation]:
    """TS008."""
    return _duplicate_numbers(server, TS008, _normal_ports(server))


# --- mounts (TS009, TS013, TS015, TS016) ---------------------------------------------------


def _mounts(server: TServer) -> list[tuple[Path, Mount]]:
    return [(("spec", "k8s", "mounts", i), m) for i, m in enumerate(server.spec.k8s.mounts or [])]


def _claim_source(mount: Mount) -> str | None:
    """The source key of a mount that becomes a volumeClaimTemplate, else None."""
    if mount.source.persistent_volume_claim_template is not None:
        return "persistentVolumeClaimTemplate"
    if mount.source.t_local_volume is not None:
        return "tLocalVolume"
    return None


TS009 = rule("TS009", ERROR, "TServer", "spec.k8s.mounts names are unique", origin="seed")


def _mount_names_unique(server: TServer) -> Iterator[Violation]:
    """TS009 (exact, case-sensitive)."""
    for (path, later), _ in repeats(_mounts(server), lambda entry: entry[1].name):
        yield TS009.at(server, (*path, "name"), f"mount name {later.name} is already used")


def _claim_mounts(server: TServer) -> Iterator[tuple[Path, Mount, str]]:
    """``(path, mount, source)`` of the mounts that become claim templates."""
    for path, mount in _mounts(server):
        source = _claim_source(mount)
        if source is not None:
            yield path, mount, source


TS013 = rule(
    "TS013",
    ERROR,
    "TServer",
    "a daemonSet server has no persistentVolumeClaimTemplate or tLocalVolume mount",
    origin="seed",
)


def _daemon_claims(server: TServer) -> Iterator[Violation]:
    """TS013."""
    if not server.spec.k8s.daemon_set:
        return
    for path, mount, source in _claim_mounts(server):
        yield TS013.at(
            server,
            (*path, "source", source),
            f"a daemonSet server cannot mount {source} {mount.name}: claim templates "
            "need a StatefulSet",
        )


TS015 = rule(
    "TS015",
    WARNING,
    "TServer",
    "persistentVolumeClaimTemplate and tLocalVolume mounts are meant for tars servers",
    origin="seed",
)


def _normal_claims(server: TServer) -> Iterator[Violation]:
    """TS015 (warning)."""
    if server.is_tars:
        return
    for path, mount, source in _claim_mounts(server):
        yield TS015.at(
            server,
            (*path, "source", source),
            f"{source} {mount.name} on a normal server: TarsK8S documents claim templates "
            "for tars servers only",
        )


def _generated_volumes(server: TServer) -> set[str]:
    """The volumes and claim templates the expansion adds to this server's pods."""
    names = {HOST_TIMEZONE}
    if server.is_tars:
        names.add(TARSNODE_WORK_DIR)
    if server.spec.k8s.has_host_binding:
        names.add(DELAY_BIND)
    return names


TS016 = rule(
    "TS016",
    ERROR,
    "TServer",
    "names Kubernetes accepts: metadata.name is lower(app)-lower(server), at most 58 characters "
    "(52 for a StatefulSet); ability label keys at most 63; mount names are DNS-1123 labels, "
    "mount names and paths are not reserved, mount paths are unique; tars/normal port names are "
    "IANA service names",
    origin="controller",
)


def _mount_volume_names(server: TServer) -> Iterator[Violation]:
    """TS016: mount names are DNS-1123 labels and not the pod's own volumes."""
    generated = _generated_volumes(server)
    for path, mount in _mounts(server):
        if mount.name in generated:
            yield TS016.at(
                server,
                (*path, "name"),
                f"mount name {mount.name} is reserved for {RESERVED_VOLUMES[mount.name]}",
            )
        elif not is_dns_label(mount.name):
            yield TS016.at(
                server,
                (*path, "name"),
                f"mount name {mount.name} is not a valid volume name (DNS-1123 label: lowercase "
                "letters, digits and '-')",
            )


def _normal_path(path: str) -> str:
    return posixpath.normpath(path) if path else path


def _mount_paths(server: TServer) -> Iterator[Violation]:
    """TS016: mount paths are unique and not the pod's own mount points."""
    mounts = _mounts(server)
    generated = _generated_volumes(server)
    for path, mount in mounts:
        volume = RESERVED_MOUNT_PATHS.get(_normal_path(mount.mount_path))
        if volume in generated:
            yield TS016.at(
                server,
                (*path, "mountPath"),
                f"mountPath {mount.mount_path} is reserved for the {volume} volume",
            )
    for (path, later), (_, first) in repeats(mounts, lambda e: _normal_path(e[1].mount_path)):
        yield TS016.at(
            server,
            (*path, "mountPath"),
            f"mountPath {later.mount_path} is already used by mount {first.name}",
        )


def _mount_options(server: TServer) -> Iterator[Violation]:
    """TS016: volume mount options Kubernetes accepts for the main container."""
    for path, mount in _mounts(server):
        if mount.sub_path is not None and mount.sub_path_expr is not None:
            yield TS016.at(
                server,
                (*path, "subPathExpr"),
                "subPath and subPathExpr are mutually exclusive",
            )
        if mount.mount_propagation == MountPropagation.BIDIRECTIONAL:
            yield TS016.at(
                server,
                (*path, "mountPropagation"),
                "Bidirectional propagation needs a privileged container, and the main "
                "container is not privileged: use HostToContainer",
            )


def _node_selector(server: TServer) -> Iterator[Violation]:
    """TS016: node selector requirements the scheduler can use (values per operator).

    Stricter than the API server for ``Gt``/``Lt``: it admits any single value, but the
    scheduler parses it as a 64-bit integer (``strconv.ParseInt``) and never places a pod
    whose value is not one (``Version Lt [v1]``, as TarsK8S's e2e suite writes, pends for
    ever). v1.4.1 admits the TServer; refusing it here is a deliberate difference."""
    for i, requirement in enumerate(server.spec.k8s.node_selector):
        operator, values = requirement.operator, requirement.values or []
        if operator in (SelectorOperator.IN, SelectorOperator.NOT_IN) and not values:
            problem = "needs at least one value"
        elif operator in (SelectorOperator.EXISTS, SelectorOperator.DOES_NOT_EXIST) and values:
            problem = "takes no values"
        elif operator in (SelectorOperator.GT, SelectorOperator.LT) and (
            len(values) != 1 or not _is_integer(values[0])
        ):
            problem = "needs exactly one integer value"
        else:
            continue
        yield TS016.at(
            server,
            ("spec", "k8s", "nodeSelector", i, "values"),
            f"operator {operator} {problem}",
        )


_INT64 = re.compile(r"[+-]?[0-9]+")


def _is_integer(value: str) -> bool:
    """What Go's ``strconv.ParseInt(value, 10, 64)`` accepts."""
    return _INT64.fullmatch(value) is not None and -(2**63) <= int(value) < 2**63


# --- names (TS016) ------------------------------------------------------------------------


def _name_matches(server: TServer) -> Iterator[Violation]:
    """TS016: metadata.name is lower(app)-lower(server) (a missing name is TS021)."""
    name = server.metadata.name
    if name is not None and name != server.object_name:
        yield TS016.at(
            server,
            "metadata.name",
            f"name {name} must be {server.object_name} (lower(app)-lower(server))",
        )


def _name_length(server: TServer) -> Iterator[Violation]:
    """TS016: at most 58 characters; at most 52 for a StatefulSet."""
    name = server.name
    if len(name) > MAX_NAME:
        yield TS016.at(
            server,
            "metadata.name",
            f"name {name} has {len(name)} characters, more than {MAX_NAME}",
        )
    elif len(name) > MAX_STATEFULSET_NAME and not server.spec.k8s.daemon_set:
        yield TS016.at(
            server,
            "metadata.name",
            f"name {name} has {len(name)} characters: a StatefulSet name over "
            f"{MAX_STATEFULSET_NAME} leaves no room for the controller-revision-hash label, so "
            "no pod can be created",
        )


def ability_label_names(server: TServer) -> list[str]:
    """Name parts (after ``tars.io/``) of the node label keys the server's abilityAffinity
    uses: ``ability.<ns>.<app>-<server>`` and/or ``ability.<ns>.<app>`` (none for a
    daemonSet, which ignores abilityAffinity)."""
    k8s, spec = server.spec.k8s, server.spec
    if k8s.daemon_set:
        return []
    names = []
    if k8s.ability_affinity in _SERVER_KEY_AFFINITIES:
        names.append(server_ability_label(server.namespace, spec.app, spec.server))
    if k8s.ability_affinity in _APP_KEY_AFFINITIES:
        names.append(app_ability_label(server.namespace, spec.app))
    return [name.removeprefix(LABEL_PREFIX) for name in names]


def _namespace_label(server: TServer) -> Iterator[Violation]:
    """TS016: the node label key ``tars.io/node.<namespace>`` every pod requires is valid."""
    name = node_label(server.namespace).removeprefix(LABEL_PREFIX)
    if len(name) > MAX_LABEL_NAME:
        yield TS016.at(
            server,
            "metadata.namespace",
            f"node label key tars.io/{name} has a name part of {len(name)} characters, more "
            f"than {MAX_LABEL_NAME}: the namespace may have at most "
            f"{MAX_LABEL_NAME - len('node.')} characters",
        )


def _ability_keys(server: TServer) -> Iterator[Violation]:
    """TS016: ability label keys that Kubernetes would reject in the node affinity."""
    for name in ability_label_names(server):
        if len(name) > MAX_LABEL_NAME:
            yield TS016.at(
                server,
                "spec.k8s.abilityAffinity",
                f"node label key tars.io/{name} (abilityAffinity "
                f"{server.spec.k8s.ability_affinity}) has a name part of {len(name)} characters, "
                f"more than {MAX_LABEL_NAME}: shorten app/server or set abilityAffinity to None",
            )


def _port_names(server: TServer) -> Iterator[Violation]:
    """TS016: spec.tars.ports and spec.normal.ports names are valid container port names."""
    plain = [p for p in _tars_ports(server) if p.role == "port"] + _normal_ports(server)
    for entry in plain:
        if not is_port_name(entry.name):
            yield TS016.at(
                server,
                (*entry.path, "name"),
                f"port name {entry.name} is not a valid Kubernetes port name (at most 15 "
                "lowercase letters, digits and '-', with a letter and no '--')",
            )


def _container_port_names_unique(server: TServer) -> Iterator[Violation]:
    """TS016: the containerPort names the servants and ports become are unique (a servant whose
    name is too long becomes ``p<port>``, which a port may already be called)."""
    entries = [
        (p, container_port_name(p.name, p.port, p.role == "servant"))
        for p in _tars_ports(server) + _normal_ports(server)
    ]
    for (later, name), (first, _) in repeats(entries, lambda entry: entry[1]):
        if later.name.lower() == first.name.lower():
            continue  # the same name twice: TS003/TS007
        yield TS016.at(
            server,
            (*later.path, "name"),
            f"{later.label} becomes container port {name}, which {first.label} already is",
        )


# --- sections, host ports, annotations, release --------------------------------------------


def _sections(server: TServer) -> Iterator[Violation]:
    """TS014: an error, except for a normal server carrying spec.tars instead of spec.normal,
    which the controller admits and builds without tarsnode (a warning, design §5)."""
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


def _port_names_lower(server: TServer) -> set[str]:
    return {p.name.lower() for p in _tars_ports(server) + _normal_ports(server)}


def _host_ports(server: TServer) -> list[tuple[Path, str, int]]:
    return [
        (("spec", "k8s", "hostPorts", i), h.name_ref, h.port)
        for i, h in enumerate(server.spec.k8s.host_ports or [])
    ]


TS011 = rule(
    "TS011",
    ERROR,
    "TServer",
    "every hostPorts nameRef names a servant or port of the server (case-insensitive)",
    origin="seed",
)


def _host_port_refs(server: TServer) -> Iterator[Violation]:
    """TS011."""
    names = _port_names_lower(server)
    for path, name_ref, _ in _host_ports(server):
        if name_ref.lower() not in names:
            yield TS011.at(
                server,
                (*path, "nameRef"),
                f"nameRef {name_ref} names no servant or port of this server",
            )


TS024 = rule(
    "TS024",
    WARNING,
    "TServer",
    "a hostPorts nameRef is spelled in the same case as its servant or port (the v1.4.1 "
    "controller matches case-sensitively and binds no host port otherwise)",
    origin="tars-components",
)


def _host_port_case(server: TServer) -> Iterator[Violation]:
    """TS024 (warning): the v1.4.1 translator looks a nameRef up case-sensitively, so an entry
    spelled in another case than its servant or port gets no host port from the controller
    (this product binds it case-insensitively, as the webhook validates it). Under
    hostNetwork neither binds host ports, so the case does not matter there."""
    if server.spec.k8s.host_network:
        return
    exact = {p.name for p in _tars_ports(server) + _normal_ports(server)}
    by_lower = {p.name.lower(): p.name for p in _tars_ports(server) + _normal_ports(server)}
    for path, name_ref, _ in _host_ports(server):
        target = by_lower.get(name_ref.lower())
        if target is not None and name_ref not in exact:
            yield TS024.at(
                server,
                (*path, "nameRef"),
                f"nameRef {name_ref} differs in case from {target}: the TarsK8S v1.4.1 "
                f"controller matches it case-sensitively and exposes no host port for it; "
                f"write {target}",
            )


TS012 = rule("TS012", ERROR, "TServer", "hostPorts port numbers are unique", origin="seed")


def _host_ports_unique(server: TServer) -> Iterator[Violation]:
    """TS012."""
    for (path, _, port), (_, first_ref, _) in repeats(_host_ports(server), lambda h: h[2]):
        yield TS012.at(server, (*path, "port"), f"host port {port} is already used by {first_ref}")


TS018 = rule(
    "TS018",
    ERROR,
    "TServer",
    "hostPorts nameRefs are unique (case-insensitive)",
    origin="controller",
)


def _host_port_refs_unique(server: TServer) -> Iterator[Violation]:
    """TS018 (case-insensitive)."""
    for (path, name_ref, _), _ in repeats(_host_ports(server), lambda h: h[1].lower()):
        yield TS018.at(server, (*path, "nameRef"), f"nameRef {name_ref} already has a host port")


def _replica_annotations(server: TServer) -> Iterator[Violation]:
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


def _conversion_annotation(server: TServer) -> Iterator[Violation]:
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


def _daemon_release(server: TServer) -> Iterator[Violation]:
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
)


def _template_exists(server: TServer, stack: Stack) -> Iterator[Violation]:
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
)


def _node_image(server: TServer, stack: Stack) -> Iterator[Violation]:
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
)


def _same_object_name(servers: Iterable[TServer]) -> Iterator[Violation]:
    """TS017: a later TServer whose name or lower(app)-lower(server) an earlier one has."""
    seen: dict[tuple[str, str], TServer] = {}
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


_CHECKS: tuple[Callable[[TServer], Iterable[Violation]], ...] = (
    _tars_names_unique,
    _tars_ports_unique,
    _no_node_obj,
    _no_reserved_port,
    _normal_names_unique,
    _normal_ports_unique,
    _mount_names_unique,
    _host_port_refs,
    _host_port_case,
    _host_ports_unique,
    _daemon_claims,
    _sections,
    _normal_claims,
    _name_matches,
    _name_length,
    _ability_keys,
    _mount_volume_names,
    _container_port_names_unique,
    _mount_options,
    _node_selector,
    _namespace_label,
    _mount_paths,
    _port_names,
    _host_port_refs_unique,
    _replica_annotations,
    _conversion_annotation,
    _daemon_release,
)
