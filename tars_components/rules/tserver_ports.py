"""TServer ports: servant and port names and numbers (TS003-TS008) and host ports
(TS011, TS012, TS018, TS024)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..kernel.errors import Violation
from ..kernel.paths import Segment
from ..kernel.registry import ERROR, WARNING, Rule, rule
from ..models import (
    RESERVED_PORT,
    TServerDocument,
)
from .common import repeats

RESERVED_SERVANT = "nodeobj"
"""Servant name that tarsnode uses (compared case-insensitively, TS005)."""


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


# --- ports (TS003-TS008) ------------------------------------------------------------------


def _tars_ports(server: TServerDocument) -> list[_Port]:
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


def _normal_ports(server: TServerDocument) -> list[_Port]:
    normal = server.spec.normal
    if normal is None:
        return []
    return [
        _Port(("spec", "normal", "ports", i), "port", p.name, p.port)
        for i, p in enumerate(normal.ports)
    ]


def _duplicate_names(
    server: TServerDocument, code: Rule, ports: list[_Port]
) -> Iterator[Violation]:
    for later, first in repeats(ports, lambda p: p.name.lower()):
        yield code.at(
            server,
            (*later.path, "name"),
            f"name {later.name} is already used by {first.label}",
        )


def _duplicate_numbers(
    server: TServerDocument, code: Rule, ports: list[_Port]
) -> Iterator[Violation]:
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


def _tars_names_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS003."""
    return _duplicate_names(server, TS003, _tars_ports(server))


TS004 = rule(
    "TS004", ERROR, "TServer", "servant and spec.tars.ports port numbers are unique", origin="seed"
)


def _tars_ports_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS004."""
    return _duplicate_numbers(server, TS004, _tars_ports(server))


TS005 = rule("TS005", ERROR, "TServer", "no servant is named NodeObj (in any case)", origin="seed")


def _no_node_obj(server: TServerDocument) -> Iterator[Violation]:
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


def _no_reserved_port(server: TServerDocument) -> Iterator[Violation]:
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


def _normal_names_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS007."""
    return _duplicate_names(server, TS007, _normal_ports(server))


TS008 = rule("TS008", ERROR, "TServer", "spec.normal.ports port numbers are unique", origin="seed")


def _normal_ports_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS008."""
    return _duplicate_numbers(server, TS008, _normal_ports(server))


def _port_names_lower(server: TServerDocument) -> set[str]:
    return {p.name.lower() for p in _tars_ports(server) + _normal_ports(server)}


def _host_ports(server: TServerDocument) -> list[tuple[Path, str, int]]:
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
    fields=("spec.tars.servants.*.name", "spec.tars.ports.*.name", "spec.normal.ports.*.name"),
)


def _host_port_refs(server: TServerDocument) -> Iterator[Violation]:
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
    fields=("spec.tars.servants.*.name", "spec.tars.ports.*.name", "spec.normal.ports.*.name"),
)


def _host_port_case(server: TServerDocument) -> Iterator[Violation]:
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


def _host_ports_unique(server: TServerDocument) -> Iterator[Violation]:
    """TS012."""
    for (path, _, port), (_, first_ref, _) in repeats(_host_ports(server), lambda h: h[2]):
        yield TS012.at(server, (*path, "port"), f"host port {port} is already used by {first_ref}")
