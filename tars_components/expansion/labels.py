"""Label and name constants shared by the builders (docs/concepts/mapping.md)."""

from __future__ import annotations

from ..models import TServerDocument
from ..models.names import (
    DELAY_BIND,
    HOST_TIMEZONE,
    HOST_TIMEZONE_PATH,
    TARSNODE_WORK_DIR,
    TARSNODE_WORK_DIR_PATH,
)
from ..models.ownership import PATCH_FORCE_ANNOTATION
from ..models.vocabulary import LABEL_APP, LABEL_SERVER
from ..settings.options import Options

TARSNODE = "tarsnode"
IMAGE_PLACEHOLDER = " "
REVISION_HISTORY_LIMIT = 1
DAEMONSET_MIN_READY_SECONDS = 3
SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait"


def selector_labels(server: TServerDocument) -> dict[str, str]:
    """``{tars.io/ServerApp: app, tars.io/ServerName: server}``: every object's labels and
    selector (app and server in their own case)."""
    return {LABEL_APP: server.spec.app, LABEL_SERVER: server.spec.server}


def object_meta(server: TServerDocument) -> dict[str, object]:
    """Metadata of a generated object: the TServer's name and namespace, the selector labels,
    and ``pulumi.com/patchForce: "true"`` when the TServer carries it (the force a user sets
    on the server reaches every object Pulumi applies for it, docs/concepts/ownership.md).

    No ownerReferences: there is no TServer object in the cluster to own them.
    """
    meta: dict[str, object] = {
        "name": server.name,
        "namespace": server.namespace,
        "labels": selector_labels(server),
    }
    if (server.metadata.annotations or {}).get(PATCH_FORCE_ANNOTATION) == "true":
        meta["annotations"] = {PATCH_FORCE_ANNOTATION: "true"}
    return meta


def workload_meta(server: TServerDocument, options: Options) -> dict[str, object]:
    """Metadata of a StatefulSet or DaemonSet: :func:`object_meta`, plus the
    ``pulumi.com/skipAwait`` annotation when the option asks for it."""
    meta = object_meta(server)
    if options.skip_await:
        annotations = dict(meta.get("annotations") or {})  # type: ignore[call-overload]
        meta["annotations"] = {**annotations, SKIP_AWAIT_ANNOTATION: "true"}
    return meta


__all__ = [
    "DAEMONSET_MIN_READY_SECONDS",
    "DELAY_BIND",
    "HOST_TIMEZONE",
    "HOST_TIMEZONE_PATH",
    "IMAGE_PLACEHOLDER",
    "REVISION_HISTORY_LIMIT",
    "SKIP_AWAIT_ANNOTATION",
    "TARSNODE",
    "TARSNODE_WORK_DIR",
    "TARSNODE_WORK_DIR_PATH",
    "object_meta",
    "selector_labels",
    "workload_meta",
]
