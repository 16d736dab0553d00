"""TServer names Kubernetes accepts (TS016): the object name, label keys, port names."""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.paths import Segment
from ..kernel.registry import ERROR, rule
from ..models import (
    AbilityAffinity,
    TServerDocument,
)
from ..models.names import container_port_name, is_port_name
from ..models.vocabulary import LABEL_PREFIX, app_ability_label, node_label, server_ability_label
from .common import repeats
from .tserver_ports import _normal_ports, _tars_ports

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


# --- names (TS016) ------------------------------------------------------------------------


TS016 = rule(
    "TS016",
    ERROR,
    "TServer",
    "names Kubernetes accepts: metadata.name is lower(app)-lower(server), at most 58 characters "
    "(52 for a StatefulSet); ability label keys at most 63; mount names are DNS-1123 labels, "
    "mount names and paths are not reserved, mount paths are unique; tars/normal port names are "
    "IANA service names",
    origin="controller",
    fields=("metadata.name", "spec.app", "spec.server"),
)


def _name_matches(server: TServerDocument) -> Iterator[Violation]:
    """TS016: metadata.name is lower(app)-lower(server) (a missing name is TS021)."""
    name = server.metadata.name
    if name is not None and name != server.object_name:
        yield TS016.at(
            server,
            "metadata.name",
            f"name {name} must be {server.object_name} (lower(app)-lower(server))",
        )


def _name_length(server: TServerDocument) -> Iterator[Violation]:
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


def ability_label_names(server: TServerDocument) -> list[str]:
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


def _namespace_label(server: TServerDocument) -> Iterator[Violation]:
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


def _ability_keys(server: TServerDocument) -> Iterator[Violation]:
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


def _port_names(server: TServerDocument) -> Iterator[Violation]:
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


def _container_port_names_unique(server: TServerDocument) -> Iterator[Violation]:
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
