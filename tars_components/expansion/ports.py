"""Service ports and container ports (docs/concepts/mapping.md).

Container ports follow the seed, not the controller: every servant becomes a containerPort
named lower(servant name) — or ``p<port>`` when that is not a valid port name — then the
``tars.ports``/``normal.ports`` entries with their own names, in declaration order.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..models import TServerDocument
from ..models.names import container_port_name


def protocol(is_tcp: bool) -> str:
    """``TCP`` or ``UDP``."""
    return "TCP" if is_tcp else "UDP"


def _declared_ports(server: TServerDocument) -> Iterator[tuple[str, int, bool, bool]]:
    """``(name, port, is_tcp, is_servant)`` in declaration order: servants, tars.ports,
    normal.ports."""
    spec = server.spec
    if spec.tars is not None:
        for servant in spec.tars.servants:
            yield servant.name, servant.port, servant.is_tcp, True
        for port in spec.tars.ports or []:
            yield port.name, port.port, port.is_tcp, False
    if spec.normal is not None:
        for port in spec.normal.ports:
            yield port.name, port.port, port.is_tcp, False


def build_service_ports(server: TServerDocument) -> list[dict[str, object]]:
    """Service ports: servants, then tars.ports, then normal.ports; lowercased names,
    ``targetPort`` = port."""
    return [
        {"name": name.lower(), "port": port, "targetPort": port, "protocol": protocol(is_tcp)}
        for name, port, is_tcp, _ in _declared_ports(server)
    ]


def build_container_ports(server: TServerDocument) -> list[dict[str, object]]:
    """Container ports of the main container, with ``hostPort`` where a hostPorts entry's
    nameRef matches the servant or port name case-insensitively (none under hostNetwork)."""
    k8s = server.spec.k8s
    host_ports: dict[str, int] = {}
    if not k8s.host_network:
        for entry in k8s.host_ports or []:
            host_ports.setdefault(entry.name_ref.lower(), entry.port)
    ports: list[dict[str, object]] = []
    for name, port, is_tcp, is_servant in _declared_ports(server):
        container_port: dict[str, object] = {
            "name": container_port_name(name, port, is_servant),
            "containerPort": port,
        }
        host_port = host_ports.get(name.lower())
        if host_port is not None:
            container_port["hostPort"] = host_port
        container_port["protocol"] = protocol(is_tcp)
        ports.append(container_port)
    return ports
