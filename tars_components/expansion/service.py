"""The headless Service of a StatefulSet server (docs/concepts/mapping.md)."""

from __future__ import annotations

from ..models import TServerDocument
from .labels import object_meta, selector_labels
from .ports import build_service_ports


def build_service(server: TServerDocument) -> dict[str, object] | None:
    """Headless ClusterIP Service named like the server; None for DaemonSet servers.

    tarsregistry hands out ``<pod>.<lower(app)-lower(server)>`` endpoints, so the Service is
    load-bearing even without ports.
    """
    if server.spec.k8s.daemon_set:
        return None
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": object_meta(server),
        "spec": {
            "type": "ClusterIP",
            "clusterIP": "None",
            "sessionAffinity": "None",
            "selector": selector_labels(server),
            "ports": build_service_ports(server),
        },
    }
