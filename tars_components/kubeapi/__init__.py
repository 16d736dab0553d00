"""Reading a Kubernetes API server: what ``pulumi preview`` and ``diff --live-from`` learn from
the cluster itself (docs/concepts/live.md).

The one room of the package that talks to a cluster, to read it (and, at ``pulumi up``, to
hand field managers over): a kubeconfig and its context (:mod:`.kubeconfig`), then GET, LIST
and that one JSON patch over HTTPS (:mod:`.client`). What is read
comes back as plain objects, as ``kubectl get -o json --show-managed-fields`` prints them;
everything that interprets them is pure and sits in the rooms above.
"""

from __future__ import annotations

from .client import ApiClient, read_objects, resource_path
from .errors import LiveReadError
from .kubeconfig import Connection, connection, connection_from_text

__all__ = [
    "ApiClient",
    "Connection",
    "LiveReadError",
    "connection",
    "connection_from_text",
    "read_objects",
    "resource_path",
]
