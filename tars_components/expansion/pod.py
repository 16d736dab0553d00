"""The pod template shared by StatefulSet and DaemonSet (docs/concepts/mapping.md)."""

from __future__ import annotations

from ..models import V1BETA3, TFrameworkConfigDocument, TServerDocument, is_deferred
from ..models.conversion import read_server_annotation
from ..models.vocabulary import LABEL_SERVER_ID, TARS_ACTIVE_GATE
from ..settings.options import Options
from .affinity import build_affinity
from .labels import (
    IMAGE_PLACEHOLDER,
    TARSNODE,
    TARSNODE_WORK_DIR,
    TARSNODE_WORK_DIR_PATH,
    selector_labels,
)
from .ports import build_container_ports
from .quantity import canonical_resources
from .volumes import build_volume_mounts, build_volumes

DNS_CONFIG = {"options": [{"name": "ndots", "value": "2"}]}


def build_pod_template(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    daemon: bool,
) -> dict[str, object]:
    """``spec.template`` of the workload."""
    k8s = server.spec.k8s
    labels: dict[str, object] = dict(selector_labels(server))
    if server.spec.release is not None:
        labels[LABEL_SERVER_ID] = server.spec.release.id
    spec: dict[str, object] = {}
    if k8s.service_account:
        spec["serviceAccountName"] = k8s.service_account
    if k8s.host_network:
        spec["hostNetwork"] = True
    if k8s.host_ipc:
        spec["hostIPC"] = True
    spec["dnsPolicy"] = "ClusterFirstWithHostNet" if k8s.host_network else "ClusterFirst"
    spec["dnsConfig"] = {"options": [dict(o) for o in DNS_CONFIG["options"]]}
    spec["enableServiceLinks"] = False
    spec["restartPolicy"] = "Always"
    gates = build_readiness_gates(server, options)
    if gates:
        spec["readinessGates"] = gates
    secrets = build_image_pull_secrets(server, framework)
    if secrets:
        spec["imagePullSecrets"] = secrets
    spec["affinity"] = build_affinity(server, daemon)
    if server.is_tars:
        spec["initContainers"] = [build_tarsnode_container(server, framework)]
    spec["containers"] = [build_main_container(server, daemon)]
    spec["volumes"] = build_volumes(server)
    return {"metadata": {"name": server.name, "labels": labels}, "spec": spec}


def readiness_gate_names(server: TServerDocument) -> list[str]:
    """The server's readiness gates after mutation: v1beta3 ``readinessGates``; v1beta2
    ``readinessGate`` followed by the gates its ``tars.io/Conversion.1b21b3`` annotation
    restores (the controller works on the v1beta3 object the conversion webhook makes)."""
    k8s = server.spec.k8s
    if server.api_version == V1BETA3:
        return list(k8s.readiness_gates or [])
    gates = [k8s.readiness_gate] if k8s.readiness_gate else []
    restored = read_server_annotation(server.annotations)
    if restored is not None:
        gates.extend(restored.readiness_gates or [])
    return gates


def command_and_args(server: TServerDocument) -> tuple[list[str] | None, list[str] | None]:
    """The main container's command and args: v1beta3 ``command``/``args``; for v1beta2,
    what its conversion annotation restores (empty lists count as absent, as in Go)."""
    k8s = server.spec.k8s
    if server.api_version == V1BETA3:
        return k8s.command, k8s.args
    restored = read_server_annotation(server.annotations)
    if restored is None:
        return None, None
    return restored.command or None, restored.args or None


def build_readiness_gates(server: TServerDocument, options: Options) -> list[dict[str, str]]:
    """``readinessGates``: one conditionType per gate, in order. ``tars.io/active`` is dropped
    from Tars servers when the option is off (nothing would ever patch that condition)."""
    gates = readiness_gate_names(server)
    if not options.tars_readiness_gate and server.spec.tars is not None:
        gates = [g for g in gates if g != TARS_ACTIVE_GATE]
    return [{"conditionType": gate} for gate in gates]


def build_image_pull_secrets(
    server: TServerDocument, framework: TFrameworkConfigDocument | None
) -> list[dict[str, str]]:
    """``imagePullSecrets`` (only with a release): the release secret, then the node secret
    (release.nodeSecret, else the framework default) of a Tars server when it differs."""
    release = server.spec.release
    if release is None:
        return []
    names: list[str] = []
    if release.secret:
        names.append(release.secret)
    if server.spec.tars is not None:
        node_secret = release.node_secret or (framework.node_image.secret if framework else "")
        if node_secret and node_secret not in names:
            names.append(node_secret)
    return [{"name": name} for name in names]


def node_image(server: TServerDocument, framework: TFrameworkConfigDocument | None) -> object:
    """The tarsnode image: release.nodeImage, else the framework default, else ``" "``."""
    release = server.spec.release
    image = release.node_image if release is not None else None
    if is_deferred(image) or (image and image != IMAGE_PLACEHOLDER):
        return image
    if framework is not None:
        return framework.node_image.image
    return IMAGE_PLACEHOLDER


def _field_env(name: str, field_path: str) -> dict[str, object]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def build_tarsnode_container(
    server: TServerDocument, framework: TFrameworkConfigDocument | None
) -> dict[str, object]:
    """The ``tarsnode`` init container of a Tars server: it prepares tarsnode in the work dir."""
    env: list[dict[str, object]] = [
        _field_env("Namespace", "metadata.namespace"),
        _field_env("PodName", "metadata.name"),
        _field_env("PodIP", "status.podIP"),
        {"name": "ServerApp", "value": server.spec.app},
        {"name": "ServerName", "value": server.spec.server},
    ]
    launcher = server.spec.k8s.launcher_type
    if launcher != "background":
        env.append({"name": "LauncherType", "value": launcher})
    return {
        "name": TARSNODE,
        "image": node_image(server, framework),
        "imagePullPolicy": "Always",
        "env": env,
        "resources": {},
        "volumeMounts": [{"name": TARSNODE_WORK_DIR, "mountPath": TARSNODE_WORK_DIR_PATH}],
    }


def build_main_container(server: TServerDocument, daemon: bool) -> dict[str, object]:
    """The server's own container, named like the TServer."""
    k8s, release = server.spec.k8s, server.spec.release
    container: dict[str, object] = {
        "name": server.name,
        "image": release.image if release is not None else IMAGE_PLACEHOLDER,
        "imagePullPolicy": k8s.image_pull_policy,
    }
    command, args = command_and_args(server)
    if command is not None:
        container["command"] = list(command)
    if args is not None:
        container["args"] = list(args)
    if k8s.env is not None:
        container["env"] = [e.to_dict() for e in k8s.env]
    if k8s.env_from is not None:
        container["envFrom"] = [e.to_dict() for e in k8s.env_from]
    ports = build_container_ports(server)
    if ports:
        container["ports"] = ports
    container["resources"] = canonical_resources(k8s.resources.to_dict())
    container["volumeMounts"] = build_volume_mounts(server, daemon)
    return container
