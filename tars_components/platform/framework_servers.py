"""The framework's TServers, one :class:`ServerSpec` each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models.vocabulary import (
    ANNOTATION_MAX_REPLICAS,
    ANNOTATION_MIN_REPLICAS,
    LABEL_APP,
    LABEL_SERVER,
    LABEL_SUBTYPE,
    LABEL_TEMPLATE,
    TARS_ACTIVE_GATE,
)
from . import chart_text
from .framework_common import ENV_NAMESPACE, ENV_POD_NAME, LOG_DIR, TARS_API
from .framework_documents import object_meta, tarslog_profile
from .values import FrameworkValues


@dataclass(frozen=True)
class ServerSpec:
    """What differs between the framework TServers of the chart."""

    name: str
    server: str
    sub_type: str
    template: str | None = None  # tars servers: spec.tars.template
    label_template: str | None = None  # the chart's tars.io/Template label (webhook rewrites)
    servants: tuple[dict[str, Any], ...] = ()
    ports: tuple[dict[str, Any], ...] = ()
    profile: str | None = None  # None: no profile key; "hashmap"/"tarslog": computed
    replicas: int = 1
    annotations: tuple[tuple[str, str], ...] = ()
    service_account: str | None = None
    extra_env: tuple[dict[str, Any], ...] = ()
    standard_env: bool = True
    log_mount_path: str | None = LOG_DIR
    node_image: bool = True
    readiness_gates: tuple[str, ...] = ()


SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec(
        name="elasticsearch",
        server="elasticsearch",
        sub_type="normal",
        ports=({"isTcp": True, "name": "http", "port": 9200},),
        standard_env=False,
        log_mount_path=None,
        node_image=False,
    ),
    ServerSpec(
        name="tarsadminregistry",
        server="tarsAdminRegistry",
        sub_type="tars",
        template="tars.cpp",
        label_template="tars.es",
        servants=({"name": "AdminRegObj", "port": 19111},),
        profile="",
        service_account="tars-tarsadminregistry",
    ),
    ServerSpec(
        name="tarsconfig",
        server="tarsconfig",
        sub_type="tars",
        template="tars.cpp",
        label_template="tars.default",
        servants=({"name": "ConfigObj", "port": 11111},),
        annotations=((ANNOTATION_MIN_REPLICAS, "1"),),
        service_account="tars-tarsconfig",
    ),
    ServerSpec(
        name="tarsimage",
        server="tarsimage",
        sub_type="normal",
        ports=({"name": "http", "port": 80},),
        service_account="tars-tarsimage",
        extra_env=(
            {"name": "WorkSpaceInHost", "value": "/usr/local/app/tars/image_build"},
            {"name": "WorkSpaceInPod", "value": "/workspace"},
        ),
        log_mount_path=None,
        node_image=False,
    ),
    ServerSpec(
        name="tarskevent",
        server="tarskevent",
        sub_type="tars",
        template="tars.es",
        service_account="tars-tarskevent",
    ),
    ServerSpec(
        name="tarslog",
        server="tarslog",
        sub_type="tars",
        template="tars.cpp",
        servants=(
            {"name": "LogObj", "port": 12111, "thread": 5},
            {"name": "TopologyObj", "port": 13030, "thread": 3},
        ),
        profile="tarslog",
    ),
    ServerSpec(
        name="tarsnotify",
        server="tarsnotify",
        sub_type="tars",
        template="tars.es",
        servants=({"name": "NotifyObj", "port": 13111},),
        profile="",
        service_account="tars-tarsnotify",
    ),
    ServerSpec(
        name="tarsproperty",
        server="tarsproperty",
        sub_type="tars",
        template="tars.es",
        servants=({"name": "PropertyObj", "port": 14000},),
        profile="hashmap",
    ),
    ServerSpec(
        name="tarsqueryproperty",
        server="tarsqueryproperty",
        sub_type="tars",
        template="tars.es",
        servants=({"name": "QueryObj", "port": 15000},),
        profile="",
    ),
    ServerSpec(
        name="tarsquerystat",
        server="tarsquerystat",
        sub_type="tars",
        template="tars.es",
        servants=({"name": "QueryObj", "port": 16000, "thread": 5},),
    ),
    ServerSpec(
        name="tarsregistry",
        server="tarsregistry",
        sub_type="normal",
        ports=({"name": "queryobj", "port": 17890}, {"name": "registryobj", "port": 17891}),
        replicas=2,
        annotations=((ANNOTATION_MIN_REPLICAS, "2"),),
        service_account="tars-tarsregistry",
        extra_env=({"name": "PodIP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},),
        node_image=False,
        readiness_gates=(TARS_ACTIVE_GATE,),
    ),
    ServerSpec(
        name="tarsstat",
        server="tarsstat",
        sub_type="tars",
        template="tars.es",
        servants=({"name": "StatObj", "port": 17000},),
        profile="hashmap",
    ),
    ServerSpec(
        name="tarsweb",
        server="tarsweb",
        sub_type="normal",
        ports=({"name": "http", "port": 3000},),
        annotations=((ANNOTATION_MIN_REPLICAS, "1"), (ANNOTATION_MAX_REPLICAS, "2")),
        service_account="tars-tarsweb",
        log_mount_path="/tars-web/log",
        node_image=False,
    ),
)

"""The 13 framework TServers of the chart, in its file order (``tars-<name>``)."""


def _profile(spec: ServerSpec, values: FrameworkValues) -> str | None:
    if spec.profile == "hashmap":
        return chart_text.HASHMAP_PROFILE
    if spec.profile == "tarslog":
        return tarslog_profile(values.elk.nodes)
    return spec.profile


def _env(spec: ServerSpec) -> list[dict[str, Any]]:
    if spec.name == "elasticsearch":
        return [{"name": "discovery.type", "value": "single-node"}]
    if spec.name == "tarsweb":
        return [ENV_NAMESPACE, {"name": "ENABLE_K8S", "value": "true"}, ENV_POD_NAME]
    return [ENV_NAMESPACE, ENV_POD_NAME, *spec.extra_env]


def _mounts(spec: ServerSpec) -> list[dict[str, Any]]:
    mounts: list[dict[str, Any]] = []
    if spec.log_mount_path:
        mounts.append(
            {
                "name": "host-log-dir",
                "source": {"hostPath": {"path": LOG_DIR, "type": "DirectoryOrCreate"}},
                "mountPath": spec.log_mount_path,
                "subPathExpr": "$(Namespace)/$(PodName)",
            }
        )
    if spec.name == "tarslog":
        mounts.append(
            {
                "mountPath": "/usr/local/app/tars/remote_app_log",
                "name": "remote-log-dir",
                "source": {"tLocalVolume": {}},
                "subPathExpr": "$(PodName)",
            }
        )
    if spec.name == "tarsimage":
        mounts.append(
            {
                "name": "workspace",
                "source": {
                    "hostPath": {
                        "path": "/usr/local/app/tars/image_build",
                        "type": "DirectoryOrCreate",
                    }
                },
                "mountPath": "/workspace",
            }
        )
    if spec.name == "elasticsearch":
        mounts.append(
            {
                "mountPath": "/usr/share/elasticsearch/data",
                "name": "data",
                "readOnly": False,
                "source": {"tLocalVolume": {"uid": "1000"}},
            }
        )
    return mounts


def tserver(values: FrameworkValues, namespace: str, spec: ServerSpec) -> dict[str, Any]:
    """One framework TServer as the chart writes it (before the webhook's mutation)."""
    fw = values.framework
    labels = {
        LABEL_APP: "tars",
        LABEL_SERVER: spec.name,
        LABEL_SUBTYPE: spec.sub_type,
    }
    if spec.template:
        labels[LABEL_TEMPLATE] = spec.label_template or spec.template
    body: dict[str, Any] = {"app": "tars", "server": spec.server, "subType": spec.sub_type}
    if spec.name == "elasticsearch":
        body["important"] = 3
    if spec.sub_type == "tars":
        tars: dict[str, Any] = {"template": spec.template}
        profile = _profile(spec, values)
        if profile is not None:
            tars["profile"] = profile
        tars["servants"] = [dict(s) for s in spec.servants]
        body["tars"] = tars
    else:
        body["normal"] = {"ports": [dict(p) for p in spec.ports]}
    k8s: dict[str, Any] = {"replicas": spec.replicas, "env": _env(spec), "mounts": _mounts(spec)}
    if spec.service_account:
        k8s["serviceAccount"] = spec.service_account
    if spec.readiness_gates:
        k8s["readinessGates"] = list(spec.readiness_gates)
    if spec.name == "elasticsearch":
        k8s["podManagementPolicy"] = "Parallel"
    if spec.name == "tarsweb":
        k8s["resources"] = {"limits": {"memory": "2G"}, "requests": {"memory": "2G"}}
    body["k8s"] = k8s
    release: dict[str, Any] = {"id": fw.tag, "image": fw.image(f"tars.{spec.name}")}
    if spec.node_image:
        release["nodeImage"] = fw.image("tars.tarsnode")
    if fw.secret:
        release["secret"] = fw.secret
        if spec.node_image:
            release["nodeSecret"] = fw.secret
    body["release"] = release
    return {
        "apiVersion": TARS_API,
        "kind": "TServer",
        "metadata": object_meta(
            f"tars-{spec.name}", namespace, labels, dict(spec.annotations) or None
        ),
        "spec": body,
    }
