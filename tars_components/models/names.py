"""Names that TarsK8S fixes or derives, shared by the expansion and the rules."""

from __future__ import annotations

import re

HOST_TIMEZONE = "host-timezone"
HOST_TIMEZONE_PATH = "/etc/localtime"
TARSNODE_WORK_DIR = "tarsnode-work-dir"
TARSNODE_WORK_DIR_PATH = "/usr/local/app/tars/tarsnode"
DELAY_BIND = "delay-bind"

RESERVED_VOLUMES = {
    HOST_TIMEZONE: "the host-timezone volume every pod gets",
    TARSNODE_WORK_DIR: "the tarsnode-work-dir volume of tars servers",
    DELAY_BIND: "the delay-bind claim template of servers bound to their node",
}
"""Volume and claim names every generated pod may already use."""

RESERVED_MOUNT_PATHS = {
    HOST_TIMEZONE_PATH: HOST_TIMEZONE,
    TARSNODE_WORK_DIR_PATH: TARSNODE_WORK_DIR,
}
"""Mount paths of the generated volumes."""

_LOWER_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def is_port_name(name: str) -> bool:
    """True for a valid Kubernetes port name (IANA service name): at most 15 lowercase
    letters, digits and '-', at least one letter, no leading, trailing or double '-'."""
    return (
        len(name) <= 15
        and _LOWER_NAME.fullmatch(name) is not None
        and "--" not in name
        and any(c.isalpha() for c in name)
    )


def container_port_name(name: str, port: int, is_servant: bool) -> str:
    """The containerPort name of a servant or port (docs/concepts/mapping.md): a servant's
    lowercased name, or ``p<port>`` when that is not a valid port name; a plain port keeps its own
    name."""
    if not is_servant:
        return name
    lowered = name.lower()
    return lowered if is_port_name(lowered) else f"p{port}"


def is_dns_label(name: str) -> bool:
    """True for a DNS-1123 label (a valid volume name): at most 63 lowercase letters, digits
    and '-', alphanumeric at both ends."""
    return len(name) <= 63 and _LOWER_NAME.fullmatch(name) is not None
