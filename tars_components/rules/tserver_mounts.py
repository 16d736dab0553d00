"""TServer mounts and node selection: mount names, claim sources, paths and options
(TS009, TS013, TS015, TS016) and spec.k8s.nodeSelector."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.paths import Segment
from ..kernel.registry import ERROR, WARNING, rule
from ..models import (
    Mount,
    TServerDocument,
)
from ..models.kube import MountPropagation, SelectorOperator
from ..models.names import (
    DELAY_BIND,
    HOST_TIMEZONE,
    RESERVED_MOUNT_PATHS,
    RESERVED_VOLUMES,
    TARSNODE_WORK_DIR,
    is_dns_label,
)
from .common import repeats
from .tserver_names import TS016

Path = tuple[Segment, ...]


# --- mounts (TS009, TS013, TS015, TS016) ---------------------------------------------------


def _mounts(server: TServerDocument) -> list[tuple[Path, Mount]]:
    return [(("spec", "k8s", "mounts", i), m) for i, m in enumerate(server.spec.k8s.mounts or [])]


def _claim_source(mount: Mount) -> str | None:
    """The source key of a mount that becomes a volumeClaimTemplate, else None."""
    if mount.source.persistent_volume_claim_template is not None:
        return "persistentVolumeClaimTemplate"
    if mount.source.t_local_volume is not None:
        return "tLocalVolume"
    return None


TS009 = rule("TS009", ERROR, "TServer", "spec.k8s.mounts names are unique", origin="seed")


def _mount_names_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS009 (exact, case-sensitive)."""
    for (path, later), _ in repeats(_mounts(server), lambda entry: entry[1].name):
        yield TS009.at(server, (*path, "name"), f"mount name {later.name} is already used")


def _claim_mounts(server: TServerDocument) -> Iterator[tuple[Path, Mount, str]]:
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


def _daemon_claims(server: TServerDocument) -> Iterator[Violation]:
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


def _normal_claims(server: TServerDocument) -> Iterator[Violation]:
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


def _generated_volumes(server: TServerDocument) -> set[str]:
    """The volumes and claim templates the expansion adds to this server's pods."""
    names = {HOST_TIMEZONE}
    if server.is_tars:
        names.add(TARSNODE_WORK_DIR)
    if server.spec.k8s.has_host_binding:
        names.add(DELAY_BIND)
    return names


def _mount_volume_names(server: TServerDocument) -> Iterator[Violation]:
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


def _mount_paths(server: TServerDocument) -> Iterator[Violation]:
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


def _mount_options(server: TServerDocument) -> Iterator[Violation]:
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


def _node_selector(server: TServerDocument) -> Iterator[Violation]:
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
