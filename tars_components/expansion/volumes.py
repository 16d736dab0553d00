"""Pod volumes, container volume mounts and StatefulSet volumeClaimTemplates
(docs/concepts/mapping.md).

Mounts whose source is a persistentVolumeClaimTemplate or a tLocalVolume become claim
templates (StatefulSet only; DaemonSets skip them); every other mount becomes a pod volume.
``host-timezone`` is always added, ``tarsnode-work-dir`` for Tars servers, and a ``delay-bind``
claim template pins pods with host bindings (hostIPC, hostNetwork, hostPorts) to their node.
"""

from __future__ import annotations

from ..models import Mount, TServerDocument
from ..models.vocabulary import LABEL_LOCAL_VOLUME
from ..settings.options import Options
from .labels import (
    DELAY_BIND,
    HOST_TIMEZONE,
    HOST_TIMEZONE_PATH,
    TARSNODE_WORK_DIR,
    TARSNODE_WORK_DIR_PATH,
    selector_labels,
)
from .quantity import canonical_quantity, canonical_resources

LOCAL_VOLUME_SIZE = "1G"


def _mounts(server: TServerDocument) -> list[Mount]:
    return list(server.spec.k8s.mounts or [])


def build_volumes(server: TServerDocument) -> list[dict[str, object]]:
    """Pod volumes: every plain mount's source, then ``host-timezone``, then (Tars servers)
    ``tarsnode-work-dir``."""
    volumes: list[dict[str, object]] = []
    for mount in _mounts(server):
        if mount.source.is_claim_template:
            continue
        source = mount.source.to_dict()
        if "sizeLimit" in source.get("emptyDir", {}):
            source["emptyDir"]["sizeLimit"] = canonical_quantity(source["emptyDir"]["sizeLimit"])
        volumes.append({"name": mount.name, **source})
    volumes.append({"name": HOST_TIMEZONE, "hostPath": {"path": HOST_TIMEZONE_PATH}})
    if server.is_tars:
        volumes.append({"name": TARSNODE_WORK_DIR, "emptyDir": {}})
    return volumes


def build_volume_mounts(server: TServerDocument, daemon: bool) -> list[dict[str, object]]:
    """Main container mounts in mount order (claim-template mounts skipped for DaemonSets),
    then ``host-timezone`` and, for Tars servers, ``tarsnode-work-dir``."""
    mounts: list[dict[str, object]] = []
    for mount in _mounts(server):
        if daemon and mount.source.is_claim_template:
            continue
        entry: dict[str, object] = {"name": mount.name, "mountPath": mount.mount_path}
        if mount.read_only:
            entry["readOnly"] = True
        if mount.sub_path is not None:
            entry["subPath"] = mount.sub_path
        if mount.sub_path_expr is not None:
            entry["subPathExpr"] = mount.sub_path_expr
        if mount.mount_propagation is not None:
            entry["mountPropagation"] = mount.mount_propagation
        mounts.append(entry)
    mounts.append({"name": HOST_TIMEZONE, "mountPath": HOST_TIMEZONE_PATH})
    if server.is_tars:
        mounts.append({"name": TARSNODE_WORK_DIR, "mountPath": TARSNODE_WORK_DIR_PATH})
    return mounts


def build_claim_templates(server: TServerDocument, options: Options) -> list[dict[str, object]]:
    """StatefulSet volumeClaimTemplates: claim-template mounts in mount order, then
    ``delay-bind`` when the pod binds host resources (unless turned off)."""
    templates: list[dict[str, object]] = []
    for mount in _mounts(server):
        source = mount.source
        if source.persistent_volume_claim_template is not None:
            templates.append(_claim_from_template(mount))
        elif source.t_local_volume is not None:
            templates.append(_local_volume_claim(server, mount.name, options))
    if options.delay_bind and server.spec.k8s.has_host_binding:
        templates.append(_local_volume_claim(server, DELAY_BIND, options))
    return templates


def _claim_from_template(mount: Mount) -> dict[str, object]:
    """A persistentVolumeClaimTemplate named after its mount: only labels, annotations and
    spec are kept."""
    template = mount.source.persistent_volume_claim_template
    assert template is not None
    metadata: dict[str, object] = {"name": mount.name}
    if template.metadata is not None:
        if template.metadata.labels:
            metadata["labels"] = dict(template.metadata.labels)
        if template.metadata.annotations:
            metadata["annotations"] = dict(template.metadata.annotations)
    spec = template.spec.to_dict()
    spec["resources"] = canonical_resources(spec["resources"])
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": metadata,
        "spec": spec,
    }


def _local_volume_claim(server: TServerDocument, name: str, options: Options) -> dict[str, object]:
    """The controller's TLocalVolume claim template (also used for ``delay-bind``)."""
    labels = {**selector_labels(server), LABEL_LOCAL_VOLUME: name}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": server.namespace, "labels": labels},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "selector": {"matchLabels": dict(labels)},
            "resources": {"requests": {"storage": LOCAL_VOLUME_SIZE}},
            "storageClassName": options.local_volume_storage_class,
            "volumeMode": "Filesystem",
        },
    }
