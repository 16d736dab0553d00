"""TServer admission rules TS003-TS020, TS023 and TS024 (docs/rules/index.md), by topic:
:mod:`.ports`, :mod:`.mounts`, :mod:`.names` and :mod:`.spec`.

TS001/TS002 compare two versions and live in :mod:`..change`; TS014, TS019 and TS021 are
declared with the loader's rules in :mod:`..schema`. Every check takes a schema-valid
:class:`TServerDocument`: structural fields are plain values, and the only placed field inspected
here
(``release.nodeImage``) is skipped when it is deferred.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..kernel.errors import Violation
from ..kernel.registry import check
from ..loading.document_set import DocumentSet
from ..loading.schema_rules import section_mismatch
from ..models import TServerDocument
from ..models.names import is_port_name
from .tserver_mounts import (
    _daemon_claims,
    _mount_names_unique,
    _mount_options,
    _mount_paths,
    _mount_volume_names,
    _node_selector,
    _normal_claims,
)
from .tserver_names import (
    _ability_keys,
    _container_port_names_unique,
    _name_length,
    _name_matches,
    _namespace_label,
    _port_names,
)
from .tserver_ports import (
    _host_port_case,
    _host_port_refs,
    _host_ports_unique,
    _no_node_obj,
    _no_reserved_port,
    _normal_names_unique,
    _normal_ports_unique,
    _tars_names_unique,
    _tars_ports_unique,
)
from .tserver_spec import (
    _conversion_annotation,
    _daemon_release,
    _host_port_refs_unique,
    _node_image,
    _replica_annotations,
    _same_object_name,
    _sections,
    _template_exists,
)


@check()
def check_servers(stack: DocumentSet) -> Iterator[Violation]:
    """Every TServer rule of one stack (TS003-TS020, TS023, TS024)."""
    for server in stack.servers:
        yield from check_server(server, stack)
    yield from _same_object_name(stack.servers)


def check_server(server: TServerDocument, stack: DocumentSet) -> Iterator[Violation]:
    """The rules about one TServer; ``stack`` provides its templates and framework config."""
    for server_check in _CHECKS:
        yield from server_check(server)
    yield from _template_exists(server, stack)
    yield from _node_image(server, stack)


_CHECKS: tuple[Callable[[TServerDocument], Iterable[Violation]], ...] = (
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
"""The checks of one TServer, in report order."""

__all__ = [
    "check_server",
    "check_servers",
    "is_port_name",
    "section_mismatch",
]
