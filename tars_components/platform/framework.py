"""The ``tarsframework`` 1.4.1 chart as a pure builder: values and a namespace → documents.

The framework's TServers, TTemplates and its TFrameworkConfig are TarsK8S documents like any
user stack's: they are parsed into the models, validated by the admission rules and emitted as
the crd-mode custom resources :func:`~tars_components.pipeline.build` produces (with the
mutating webhook's additions). TImages and the TTree have no model yet and are emitted as the
chart writes them. The Kubernetes objects (ServiceAccounts, RBAC, Ingress) are plain dicts.

Chart bugs fixed here (each also in docs/install-tarsk8s.md):

* the ``tars-tarsstat`` and ``tars-tarsweb`` TImages carry ``framework.secret`` like the others;
* the tarsweb Role names real resources only (no ``tdeploys``, ``treleases``, ``tgateways``;
  ``tframeworkkey`` stays, it is that CRD's plural);
* tarslog's profile lists ``elk.nodes``, one per line, not a hard-coded
  ``tars-elasticsearch:9200``;
* release ids are strings whatever the tag looks like (the chart leaves four unquoted, so a
  tag ``1.10`` became the number 1.1);
* every RoleBinding subject and the Ingress carry their namespace (the chart leaves them out of
  tarsregistry's subject and of the Ingress);
* with ``web`` empty the Ingress rule has no ``host`` (the chart writes ``host: null``), i.e. it
  matches every host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..document_set import DocumentSet
from ..errors import UsageError, Violation
from ..loading.documents import parse_document
from ..models import Document
from ..models.kind_facts import RBAC_API
from ..options import Mode, Options
from ..pipeline import build
from . import chart_text
from .values import FrameworkValues

TARS_API = "k8s.tars.io/v1beta3"
HOOK = "helm.sh/hook"
HOOK_WEIGHT = "helm.sh/hook-weight"
LOG_DIR = "/usr/local/app/tars/app_log"
TREE_NAME = "tars-tree"
FRAMEWORK_CONFIG = "tars-framework"
INGRESS_NAME = "tars-web"
TARSWEB = "tars-tarsweb"

_ENV_NAMESPACE = {
    "name": "Namespace",
    "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
}
_ENV_POD_NAME = {"name": "PodName", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}


@dataclass(frozen=True)
class FrameworkBuild:
    """The framework install of one namespace: every object (in apply order: TTree, the
    TTemplates and TFrameworkConfig, then TImages, TServers, then the Kubernetes objects) and
    the rule violations of its TarsK8S documents (warnings only when ``ok``)."""

    namespace: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no violation is an error (objects are empty otherwise)."""
        return not any(v.is_error for v in self.violations)


def build_framework(values: FrameworkValues, namespace: str) -> FrameworkBuild:
    """Every object of the ``tarsframework`` chart for ``namespace``, bugs fixed."""
    documents = tarsk8s_documents(values, namespace)
    result = build(
        DocumentSet.of(documents, namespace), Options(namespace=namespace, mode=Mode.CRD)
    )
    if not result.ok:
        return FrameworkBuild(namespace, [], list(result.violations))
    frameworks = [o for o in result.objects if o["kind"] == "TFrameworkConfig"]
    templates = [o for o in result.objects if o["kind"] == "TTemplate"]
    servers = [o for o in result.objects if o["kind"] == "TServer"]
    objects = [
        ttree(namespace),
        *templates,
        *frameworks,
        *timages(values, namespace),
        *servers,
        *kubernetes_objects(values, namespace),
    ]
    return FrameworkBuild(namespace, objects, list(result.violations))


def tarsk8s_documents(values: FrameworkValues, namespace: str) -> list[Document]:
    """The TFrameworkConfig, the default TTemplates and the framework TServers, as models.

    Raises :class:`UsageError` when the values make a document the CRD schema rejects (e.g.
    an uppercase tag: TarsK8S image patterns allow lowercase only)."""
    raws = [framework_config(values, namespace), *ttemplates(values, namespace)]
    raws.extend(tserver(values, namespace, spec) for spec in SERVERS)
    try:
        return [parse_document(raw, namespace) for raw in raws]
    except ValueError as exc:  # the CRD schema rejects what these values make
        raise UsageError(
            f"these values make framework documents the TarsK8S CRDs reject: {exc}"
        ) from None


# --- TFrameworkConfig, TTree, TTemplates -------------------------------------------------


def _meta(
    name: str,
    namespace: str | None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return meta


def _hook(weight: str) -> dict[str, str]:
    # Kept for parity with the chart (helm's install order); nothing else reads them.
    return {HOOK: "pre-install,pre-upgrade", HOOK_WEIGHT: weight}


def framework_config(values: FrameworkValues, namespace: str) -> dict[str, Any]:
    """``tars-framework``: the chart's first-install content (maxBuildTime 600, empty upChain,
    ...). The fields the chart keeps from the live object on upgrade are left to the live
    object by the Pulumi component (ignore_changes)."""
    fw = values.framework
    return {
        "apiVersion": TARS_API,
        "kind": "TFrameworkConfig",
        "metadata": _meta(FRAMEWORK_CONFIG, namespace, annotations=_hook("-9")),
        "imageUpload": {"registry": values.upload.registry, "secret": values.upload.secret},
        "imageBuild": {
            "maxBuildTime": 600,
            "idFormat": "",
            "executor": {"image": fw.image("tars.tarskaniko"), "secret": fw.secret},
        },
        "nodeImage": {"image": fw.image("tars.tarsnode"), "secret": fw.secret},
        "recordLimit": {"timageRelease": 60, "texitedPod": 32, "tconfigHistory": 32},
        "upChain": {},
        "expand": {"nativeDBConfig": "", "nativeFrameworkConfig": ""},
    }


def ttree(namespace: str) -> dict[str, Any]:
    """``tars-tree``: the TarsFramework business with apps ``tars`` and ``base``."""
    return {
        "apiVersion": TARS_API,
        "kind": "TTree",
        "metadata": _meta(TREE_NAME, namespace, annotations=_hook("-10")),
        "apps": [
            {"businessRef": "TarsFramework", "name": "tars"},
            {"businessRef": "TarsFramework", "name": "base"},
        ],
        "businesses": [{"name": "TarsFramework", "show": "tars框架服务", "weight": 5}],
    }


def es_template_content(nodes: tuple[str, ...], namespace: str) -> str:
    """tars.es: Elasticsearch nodes (one line each) and the namespace's index names."""
    lines = "".join(f"      {node}\n" for node in nodes)
    return (
        "<tars>\n   protocol = http\n  <elk>\n    <nodes>\n"
        f"{lines}"
        "    </nodes>\n    <index>\n"
        f"      notify= {namespace}_notify_\n      kevent = {namespace}_kevent_\n"
        "    </index>\n    <indexpre>\n"
        f"      stat = {namespace}_stat_\n      property = {namespace}_property_\n"
        "    </indexpre>\n    <age>\n      notify = 3d\n      kevent = 3d\n      stat = 15d\n"
        "      property = 15d\n    </age>\n  </elk>\n</tars>\n"
    )


def ttemplates(values: FrameworkValues, namespace: str) -> list[dict[str, Any]]:
    """The six default TTemplates (tars.default is its own parent, the root)."""
    contents = [
        ("tars.cpp", chart_text.TEMPLATE_CPP, "-9"),
        ("tars.default", chart_text.TEMPLATE_DEFAULT, "-10"),
        ("tars.es", es_template_content(values.elk.nodes, namespace), "-9"),
        ("tars.java", chart_text.TEMPLATE_JAVA, "-9"),
        ("tars.nodejs", chart_text.TEMPLATE_NODEJS, "-9"),
        ("tars.php", chart_text.TEMPLATE_PHP, "-9"),
    ]
    return [
        {
            "apiVersion": TARS_API,
            "kind": "TTemplate",
            "metadata": _meta(name, namespace, annotations=_hook(weight)),
            "spec": {"content": content, "parent": "tars.default"},
        }
        for name, content, weight in contents
    ]


def tarslog_profile(nodes: tuple[str, ...]) -> str:
    """tarslog's profile; ``<elk><nodes>`` lists ``elk.nodes`` (tarslog reads
    ``/tars/elk/nodes`` line by line)."""
    lines = "".join(f"{chart_text.TARSLOG_NODE_INDENT}{node}\n" for node in nodes)
    return chart_text.TARSLOG_PROFILE_HEAD + lines + chart_text.TARSLOG_PROFILE_TAIL


# --- TImages ---------------------------------------------------------------------------


SERVER_IMAGES = (
    "tarsadminregistry",
    "tarsconfig",
    "tarsimage",
    "tarskaniko",
    "tarskevent",
    "tarslog",
    "tarsnotify",
    "tarsproperty",
    "tarsqueryproperty",
    "tarsquerystat",
    "tarsregistry",
    "tarsstat",
    "tarsweb",
)
"""Server TImages ``tars-<name>`` (elasticsearch has none)."""

BASE_IMAGES = (
    # name, release id prefix, image, supported types, release mark
    ("cppbase", "builtin-cppbase", "tars.cppbase", ("cpp", "go"), "builtin for [cpp,go] server"),
    ("javabase", "builtin-java8base", "tars.javabase", ("java-jar", "java-war"), None),
    ("nodejsbase", "builtin-nodejsbase", "tars.nodejsbase", ("nodejs",), None),
    ("php74base", "builtin-php74base", "tars.php74base", ("php",), None),
)


def _release(values: FrameworkValues, release_id: str, image: str) -> dict[str, Any]:
    fw = values.framework
    release: dict[str, Any] = {"id": release_id, "image": fw.image(image)}
    if fw.secret:
        release["secret"] = fw.secret
    return release


def timages(values: FrameworkValues, namespace: str) -> list[dict[str, Any]]:
    """The 13 server TImages, then ``node`` and the four base TImages, each with the chart's
    built-in release (earlier releases are the live object's; see the Pulumi component)."""
    tag = values.framework.tag
    out: list[dict[str, Any]] = []
    for name in SERVER_IMAGES:
        labels = {"tars.io/ServerApp": "tars", "tars.io/ServerName": name}
        if name == "tarsweb":
            labels["tars.io/SubType"] = "normal"
        out.append(
            {
                "apiVersion": TARS_API,
                "kind": "TImage",
                "metadata": _meta(f"tars-{name}", namespace, labels),
                "imageType": "server",
                "releases": [_release(values, tag, f"tars.{name}")],
            }
        )
    node = _release(values, f"builtin-node-{tag}", "tars.tarsnode")
    node["mark"] = "builtin release for tarsnode"
    out.append(
        {
            "apiVersion": TARS_API,
            "kind": "TImage",
            "metadata": _meta("node", namespace),
            "imageType": "node",
            "mark": "builtin release",
            "releases": [node],
        }
    )
    for name, prefix, image, supported, mark in BASE_IMAGES:
        labels = {"tars.io/ImageType": "base"}
        labels.update({f"tars.io/Supported.{t}": "" for t in supported})
        release = _release(values, f"{prefix}-{tag}", image)
        if mark:
            release["mark"] = mark
        out.append(
            {
                "apiVersion": TARS_API,
                "kind": "TImage",
                "metadata": _meta(name, namespace, labels),
                "imageType": "base",
                "supportedType": list(supported),
                "mark": "builtin release",
                "releases": [release],
            }
        )
    return out


# --- TServers --------------------------------------------------------------------------


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
        annotations=(("tars.io/MinReplicas", "1"),),
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
        annotations=(("tars.io/MinReplicas", "2"),),
        service_account="tars-tarsregistry",
        extra_env=({"name": "PodIP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},),
        node_image=False,
        readiness_gates=("tars.io/active",),
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
        annotations=(("tars.io/MinReplicas", "1"), ("tars.io/MaxReplicas", "2")),
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
        return [_ENV_NAMESPACE, {"name": "ENABLE_K8S", "value": "true"}, _ENV_POD_NAME]
    return [_ENV_NAMESPACE, _ENV_POD_NAME, *spec.extra_env]


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
        "tars.io/ServerApp": "tars",
        "tars.io/ServerName": spec.name,
        "tars.io/SubType": spec.sub_type,
    }
    if spec.template:
        labels["tars.io/Template"] = spec.label_template or spec.template
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
        "metadata": _meta(f"tars-{spec.name}", namespace, labels, dict(spec.annotations) or None),
        "spec": body,
    }


# --- Kubernetes objects ----------------------------------------------------------------


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


ROLES: dict[str, list[dict[str, Any]]] = {
    "tars-tarsadminregistry": [_rule([""], ["pods"], ["get", "list", "watch"])],
    "tars-tarsconfig": [
        _rule([""], ["pods"], ["get", "list", "watch"]),
        _rule(["k8s.tars.io"], ["tconfigs"], ["get", "list", "watch"]),
    ],
    "tars-tarsimage": [
        _rule([""], ["secrets"], ["get"]),
        _rule([""], ["pods"], ["create", "get", "list", "watch", "delete"]),
        _rule(["k8s.tars.io"], ["timages"], ["get", "update", "patch"]),
        _rule(["k8s.tars.io"], ["tframeworkconfigs"], ["get", "list", "watch"]),
    ],
    "tars-tarsnotify": [_rule([""], ["pods"], ["get", "list", "watch"])],
    "tars-tarsregistry": [
        _rule([""], ["pods/status"], ["patch"]),
        _rule([""], ["configmaps"], ["get", "list", "watch"]),
        _rule(
            ["k8s.tars.io"],
            ["ttemplates", "tendpoints", "tframeworkconfigs", "tplugins"],
            ["get", "list", "watch"],
        ),
    ],
    TARSWEB: [
        _rule([""], ["pods"], ["get", "list", "delete"]),
        _rule([""], ["pods/exec"], ["create", "get"]),
        _rule(
            ["autoscaling"],
            ["horizontalpodautoscalers"],
            ["create", "get", "list", "watch", "patch", "update", "delete"],
        ),
        _rule(
            ["k8s.tars.io"],
            ["ttrees", "tframeworkconfigs"],
            ["get", "list", "watch", "patch", "update"],
        ),
        # chart bug fixed: no tdeploys, treleases, tgateways (no such CRDs in 1.4.1)
        _rule(
            ["k8s.tars.io"],
            [
                "tservers",
                "ttemplates",
                "tconfigs",
                "taccounts",
                "timages",
                "tframeworkkey",
                "tplugins",
            ],
            ["create", "get", "list", "delete", "watch", "patch", "update"],
        ),
        _rule(
            ["k8s.tars.io"],
            ["tendpoints", "tendpoints/status", "texitedrecords"],
            ["get", "list", "watch"],
        ),
    ],
}
"""Namespaced Roles (and RoleBindings to the same-named ServiceAccount)."""

CLUSTER_ROLES: dict[str, list[dict[str, Any]]] = {
    "tars-tarskevent": [_rule([""], ["events"], ["get", "list", "watch"])],
    TARSWEB: [_rule([""], ["nodes"], ["get", "list", "watch", "update", "patch"])],
}
"""ClusterRoles ``<namespace>:<name>`` (and bindings to the ServiceAccount ``<name>``)."""

SERVICE_ACCOUNTS = (
    "tars-tarsadminregistry",
    "tars-tarsconfig",
    "tars-tarsimage",
    "tars-tarskevent",
    "tars-tarsnotify",
    "tars-tarsregistry",
    TARSWEB,
)


def _subject(name: str, namespace: str) -> dict[str, Any]:
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


def ingress(values: FrameworkValues, namespace: str) -> dict[str, Any]:
    """``tars-web`` → ``tars-tarsweb:3000``; no ``host`` when ``web`` is empty (every host)."""
    rule: dict[str, Any] = {}
    if values.web:
        rule["host"] = values.web
    rule["http"] = {
        "paths": [
            {
                "path": "/",
                "pathType": "Prefix",
                "backend": {"service": {"name": TARSWEB, "port": {"number": 3000}}},
            }
        ]
    }
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": _meta(
            INGRESS_NAME,
            namespace,
            annotations={
                "nginx.ingress.kubernetes.io/proxy-body-size": "0",
                "nginx.ingress.kubernetes.io/proxy-connect-timeout": "60",
                "nginx.ingress.kubernetes.io/proxy-read-timeout": "1200",
                "nginx.ingress.kubernetes.io/proxy-send-timeout": "1200",
            },
        ),
        "spec": {"rules": [rule]},
    }


def kubernetes_objects(values: FrameworkValues, namespace: str) -> list[dict[str, Any]]:
    """ServiceAccounts, Roles, RoleBindings, ClusterRoles, ClusterRoleBindings, Ingress."""
    out: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(name, namespace)}
        for name in SERVICE_ACCOUNTS
    ]
    for name, rules in ROLES.items():
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "Role",
                "metadata": _meta(name, namespace),
                "rules": rules,
            }
        )
    for name in ROLES:
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "RoleBinding",
                "metadata": _meta(name, namespace),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
                "subjects": [_subject(name, namespace)],
            }
        )
    for name, rules in CLUSTER_ROLES.items():
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "ClusterRole",
                "metadata": _meta(f"{namespace}:{name}", None),
                "rules": rules,
            }
        )
    for name in CLUSTER_ROLES:
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "ClusterRoleBinding",
                "metadata": _meta(f"{namespace}:{name}", None),
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": f"{namespace}:{name}",
                },
                "subjects": [_subject(name, namespace)],
            }
        )
    out.append(ingress(values, namespace))
    return out
