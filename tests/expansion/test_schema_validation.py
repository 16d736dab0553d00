"""Every rendered object is valid Kubernetes: strict OpenAPI schema validation (design §7).

The objects of ``stacks/dev`` and of every corpus stack (``tests/data/corpus/*/``) are rendered the
way the ``render`` command writes them (load → mutate, validate, expand → YAML text), parsed
back, and validated with ``kubernetes_validate.validate(obj, version, strict=True)`` (unknown
fields fail) for Kubernetes 1.30 and for the newest version the package ships. One test per
object and version, named after the object's file, so a failure names the object.

The corpus also has to be valid input: no rule errors (``tars_components.rules.validate``),
and warnings only where the corpus means to show them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tars_components.jobs.config import read_stack_config
from tars_components.loading.load import load_stack
from tars_components.settings.options import Options

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
DEV_ENV = "dev"
DEV_STACK = REPO / "stacks" / DEV_ENV
PLACEHOLDER_IMAGE = " "

OLDEST_VERSION = "1.30"
NEWEST_VERSION = kubernetes_validate.latest_version()
VERSIONS = (OLDEST_VERSION, NEWEST_VERSION)

# Corpus documents that warn on purpose: (code, object name).
EXPECTED_WARNINGS = {
    ("TS015", "tars-elasticsearch"),  # the framework's own TLV on a normal server
    ("TS015", "edge-pvcnormal"),  # normal server with a PVC template
    ("TS023", "edge-dsunreleased"),  # DaemonSet server without a release
    ("TS024", "edge-hostports"),  # nameRefs in another case than their servant/port
    ("TS024", "edge-hostnormal"),
}


@dataclass(frozen=True)
class RenderedStack:
    """The objects one stack renders to, keyed by file path (or why rendering failed)."""

    label: str
    directory: Path
    options: Options
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    built: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


def _render(label: str, directory: Path, options: Options) -> RenderedStack:
    """Render a stack as the CLI does and parse every file back; never raises."""
    try:
        # Imported here so that a missing or broken module fails these tests, not collection.
        from tars_components.jobs.render import render_files
        from tars_components.pipeline import build

        if not directory.is_dir():
            raise FileNotFoundError(f"stack directory {directory} does not exist")
        result = build(load_stack(directory, options.namespace), options)
        if not result.ok:
            errors = "; ".join(v.format() for v in result.violations if v.is_error)
            raise ValueError(f"rule errors: {errors}")
        files = render_files(result.objects)
        objects = {path: yaml.safe_load(text) for path, text in files.items()}
    except Exception as exc:  # reported by test_stack_renders, with the stack named
        return RenderedStack(label, directory, options, error=f"{type(exc).__name__}: {exc}")
    return RenderedStack(label, directory, options, objects, result.objects)


def _render_dev() -> RenderedStack:
    """The dev stack, with the ``tars:*`` options of ``Pulumi.dev.yaml`` when the project has
    one (as ``render --stack dev``), else ``stacks/dev`` with the default options."""
    if not (REPO / f"Pulumi.{DEV_ENV}.yaml").is_file():
        return _render(DEV_ENV, DEV_STACK, Options())
    try:
        settings = read_stack_config(DEV_ENV, REPO)
    except Exception as exc:
        return RenderedStack(DEV_ENV, DEV_STACK, Options(), error=f"Pulumi.{DEV_ENV}.yaml: {exc}")
    return _render(DEV_ENV, Path(settings.stack_dir), settings.options)


def _render_all() -> list[RenderedStack]:
    """The dev stack, every corpus stack with the default options, and the edge corpus once
    more with every output option changed."""
    rendered = [_render_dev()]
    for directory in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        rendered.append(_render(f"corpus-{directory.name}", directory, Options()))
    changed = Options(
        namespace="tars-dev",
        local_volume_storage_class="local-ssd",
        delay_bind=False,
        tars_readiness_gate=False,
    )
    rendered.append(_render("corpus-edge-options", CORPUS / "edge", changed))
    return rendered


RENDERED = _render_all()


def _cases() -> Iterator[Any]:
    for stack in RENDERED:
        for path, obj in stack.objects.items():
            for version in VERSIONS:
                yield pytest.param(obj, version, id=f"{stack.label}:{Path(path).stem}@{version}")


def _images(obj: dict[str, Any]) -> Iterator[str]:
    """Images of every container and init container of a workload's pod template."""
    pod = obj.get("spec", {}).get("template", {}).get("spec", {})
    for key in ("initContainers", "containers"):
        for container in pod.get(key) or []:
            yield container["image"]


@pytest.mark.parametrize("stack", RENDERED, ids=[s.label for s in RENDERED])
def test_stack_renders(stack: RenderedStack) -> None:
    """Each stack (the dev stack included: it must exist) renders to at least one object."""
    assert stack.error is None, f"{stack.label} ({stack.directory}): {stack.error}"
    assert stack.objects, f"{stack.label} ({stack.directory}) renders no object"


@pytest.mark.parametrize("stack", RENDERED, ids=[s.label for s in RENDERED])
def test_rendered_files_load_back_to_the_built_objects(stack: RenderedStack) -> None:
    """What is validated is what was built: every file parses back to its object exactly (no
    string turned into a boolean, number or null by the YAML writer), in build order."""
    assert list(stack.objects.values()) == stack.built


@pytest.mark.parametrize(("obj", "version"), list(_cases()))
def test_object_validates_strictly(obj: dict[str, Any], version: str) -> None:
    """The object is accepted by the strict OpenAPI schema of that Kubernetes version."""
    try:
        kubernetes_validate.validate(obj, version, strict=True)
    except kubernetes_validate.ValidationError as exc:
        where = ".".join(str(p) for p in exc.path) or "<root>"
        pytest.fail(
            f"{obj['kind']} {obj['metadata'].get('namespace')}/{obj['metadata']['name']} "
            f"invalid for Kubernetes {exc.version} at {where}: {exc.message}"
        )


def test_two_distinct_kubernetes_versions() -> None:
    """The newest shipped schema is newer than 1.30, so two minor versions are checked."""
    newest = tuple(int(p) for p in NEWEST_VERSION.split(".")[:2])
    assert newest > (1, 30)


def test_corpus_exercises_every_kind_and_the_placeholder_image() -> None:
    """The validated objects include each kind the expansion emits, PVC templates, and pods
    whose main image is the one-space placeholder of a server without release."""
    corpus = [o for s in RENDERED if s.label.startswith("corpus") for o in s.objects.values()]
    kinds = {obj["kind"] for obj in corpus}
    assert {"Service", "StatefulSet", "DaemonSet"} <= kinds
    assert any(obj["spec"].get("volumeClaimTemplates") for obj in corpus)
    placeholders = [o for o in corpus if PLACEHOLDER_IMAGE in _images(o)]
    assert placeholders, "no rendered pod template uses the placeholder image ' '"
    assert all(o["kind"] == "StatefulSet" and o["spec"]["replicas"] == 0 for o in placeholders)


@pytest.mark.parametrize(
    "directory", sorted(p for p in CORPUS.iterdir() if p.is_dir()), ids=lambda p: p.name
)
def test_corpus_is_valid_input(directory: Path) -> None:
    """No corpus document breaks a rule: no load violation, no rule error, and only the
    warnings listed in EXPECTED_WARNINGS."""
    from tars_components.rules import validate

    stack = load_stack(directory)
    violations = list(stack.violations) + list(validate(stack))
    errors = [v.format() for v in violations if v.is_error]
    assert not errors, "\n".join(errors)
    unexpected = [v.format() for v in violations if (v.code, v.name) not in EXPECTED_WARNINGS]
    assert not unexpected, "\n".join(unexpected)


# --- the corpus really exercises every mapping row ----------------------------------------
#
# Schema validation only proves something about the rows the corpus reaches. Each row below
# pins one mapping choice (design §4) on one corpus object: ("<stack> <kind>/<name>", path,
# expected), where stack is edge, framework or options (the edge corpus with every option
# changed) and kind is sts, ds or svc. ``path`` is dotted, with ``[n]`` for an index and
# ``[*]`` for every item; a missing key reads as None, and an empty path with expected None
# means "no such object".

POD = "spec.template.spec"
MAIN = f"{POD}.containers[0]"
INIT = f"{POD}.initContainers[0]"
GATES = f"{POD}.readinessGates[*].conditionType"
CLAIMS = "spec.volumeClaimTemplates[*].metadata.name"
REQUIRED = (
    f"{POD}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    ".nodeSelectorTerms[0].matchExpressions[*].key"
)
PREFERRED = f"{POD}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
ANTI = f"{POD}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
KINDS = {"sts": "StatefulSet", "ds": "DaemonSet", "svc": "Service"}
NODE = "registry.example.com/tars/tars.tarsnode:v1.4.0"
# env values of edge-yamlscalars: strings that a careless YAML writer would turn into other types
YAML_LOOKALIKES = [
    "true", "yes", "Off", "null", "~", "42", "0644", "0x1F", "1.5e3", ".inf", "1:30",
    "2024-03-01", " ", "key: value", "#not-a-comment", 'it\'s "quoted"', "[a, b]", "&anchor",
    "<<", "服务 ümlaut", "trailing ",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ0n1\n-----END CERTIFICATE-----\n", "a\tb",
]  # fmt: skip

MAPPING_ROWS: list[tuple[str, str, Any]] = [
    # readiness gates per apiVersion and subType; command/args (v1beta3)
    ("edge sts/edge-vtwotars", GATES, ["tars.io/active"]),
    ("edge sts/edge-vtwonormal", GATES, ["example.com/warm"]),
    (
        "edge sts/edge-vthreetars",
        GATES,
        ["tars.io/active", "example.com/ready", "example.com/warm"],
    ),
    ("edge sts/edge-vthreenormal", GATES, ["example.com/b", "example.com/a"]),
    ("edge sts/edge-vthreetars", f"{MAIN}.command", ["/bin/entrypoint.sh"]),
    (
        "edge sts/edge-vthreetars",
        f"{MAIN}.args",
        ["--config", "/usr/local/app/conf/edge.conf", "--verbose"],
    ),
    # DaemonSets: no Service, update strategy, minReadySeconds, affinity without ability terms
    ("edge svc/edge-dsagent", "", None),
    (
        "edge ds/edge-dsagent",
        "spec.updateStrategy",
        {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
    ),
    (
        "edge ds/edge-dsexporter",
        "spec.updateStrategy",
        {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}},
    ),
    ("edge ds/edge-dsondelete", "spec.updateStrategy", {"type": "OnDelete"}),
    ("edge ds/edge-dsagent", "spec.minReadySeconds", 3),
    ("edge ds/edge-dsagent", "spec.revisionHistoryLimit", 1),
    ("edge ds/edge-dsagent", REQUIRED, ["kubernetes.io/os", "tars.io/node.default"]),
    ("edge ds/edge-dsagent", f"{POD}.affinity.podAntiAffinity", None),
    ("edge ds/edge-dsunreleased", "", None),
    ("edge svc/edge-dsunreleased", "", None),
    ("edge ds/edge-dshostnet", f"{POD}.dnsPolicy", "ClusterFirstWithHostNet"),
    ("edge ds/edge-dshostnet", f"{MAIN}.ports[*].hostPort", [None]),
    # StatefulSet strategies
    ("edge sts/edge-stsondelete", "spec.updateStrategy", {"type": "OnDelete"}),
    ("edge sts/edge-stsondelete", "spec.podManagementPolicy", "OrderedReady"),
    (
        "edge sts/edge-stscanary",
        "spec.updateStrategy",
        {"type": "RollingUpdate", "rollingUpdate": {"partition": 3}},
    ),
    ("edge sts/edge-stscanary", "spec.revisionHistoryLimit", 1),
    # host binding and delay-bind
    ("edge sts/edge-hostnet", f"{POD}.hostNetwork", True),
    ("edge sts/edge-hostnet", f"{MAIN}.ports[*].hostPort", [None]),
    ("edge sts/edge-hostnet", CLAIMS, ["delay-bind"]),
    ("edge sts/edge-hostnet", f"{ANTI}.topologyKey", "kubernetes.io/hostname"),  # M-TS7
    ("edge sts/edge-tlvhostnet", f"{POD}.affinity.podAntiAffinity", None),
    ("edge sts/edge-hostipc", f"{POD}.hostIPC", True),
    ("edge sts/edge-hostipc", f"{ANTI}.topologyKey", "kubernetes.io/hostname"),
    ("edge sts/edge-hostipc", CLAIMS, ["delay-bind"]),
    (
        "edge sts/edge-hostports",
        f"{MAIN}.ports",
        [
            {"name": "firstobj", "containerPort": 10510, "hostPort": 20510, "protocol": "TCP"},
            {"name": "secondobj", "containerPort": 10511, "hostPort": 20511, "protocol": "UDP"},
            {"name": "thirdobj", "containerPort": 10512, "protocol": "TCP"},
            {"name": "admin", "containerPort": 10519, "hostPort": 20519, "protocol": "TCP"},
            {"name": "stats", "containerPort": 10518, "protocol": "UDP"},
        ],
    ),
    ("edge sts/edge-hostports", f"{ANTI}.namespaces", ["default"]),
    ("edge sts/edge-hostnormal", f"{MAIN}.ports[*].hostPort", [30080, 30053]),
    # node affinity: user expressions, tars.io/node.<ns>, then the ability term
    (
        "edge sts/edge-appreq",
        REQUIRED,
        [
            "topology.kubernetes.io/zone",
            "node.example.com/pool",
            "node.example.com/ssd",
            "node.example.com/cordoned",
            "node.example.com/cores",
            "node.example.com/age-days",
            "tars.io/node.default",
            "tars.io/ability.default.edge",
        ],
    ),
    (
        "edge sts/shop-cartserver",
        REQUIRED,
        ["tars.io/node.default", "tars.io/ability.default.Shop-CartServer"],
    ),
    (
        "edge sts/shop-cartserver",
        "spec.selector.matchLabels",
        {"tars.io/ServerApp": "Shop", "tars.io/ServerName": "CartServer"},
    ),
    ("edge sts/edge-preferred", REQUIRED, ["tars.io/node.default"]),
    ("edge sts/edge-preferred", f"{PREFERRED}[*].weight", [60, 30]),
    (
        "edge sts/edge-preferred",
        f"{PREFERRED}[*].preference.matchExpressions[0].key",
        ["tars.io/ability.default.edge-Preferred", "tars.io/ability.default.edge"],
    ),
    ("edge sts/edge-noaffinity", REQUIRED, ["tars.io/node.default"]),
    ("edge sts/edge-noaffinity", PREFERRED, None),
    (
        "edge sts/edge-noaffinity",
        f"{ANTI}.labelSelector.matchLabels",
        {"tars.io/ServerApp": "edge", "tars.io/ServerName": "NoAffinity"},
    ),
    # volumes, mounts and claim templates
    (
        "edge sts/edge-mounts",
        f"{POD}.volumes[*].name",
        [
            "host-data",
            "host-socket",
            "scratch",
            "shm",
            "tls",
            "conf",
            "shared",
            "host-timezone",
            "tarsnode-work-dir",
        ],
    ),
    (
        "edge sts/edge-mounts",
        f"{MAIN}.volumeMounts[*].name",
        [
            "host-data",
            "host-socket",
            "scratch",
            "shm",
            "tls",
            "conf",
            "shared",
            "cache",
            "local",
            "host-timezone",
            "tarsnode-work-dir",
        ],
    ),
    (
        "edge sts/edge-mounts",
        f"{POD}.volumes[3].emptyDir",
        {"medium": "Memory", "sizeLimit": "256Mi"},
    ),
    (
        "edge sts/edge-mounts",
        f"{POD}.volumes[4].secret.items[*].path",
        ["server.crt", "server.key"],
    ),
    (
        "edge sts/edge-mounts",
        f"{POD}.volumes[6].persistentVolumeClaim",
        {"claimName": "edge-shared", "readOnly": True},
    ),
    ("edge sts/edge-mounts", CLAIMS, ["cache", "local"]),
    (
        "edge sts/edge-mounts",
        "spec.volumeClaimTemplates[0].metadata.labels",
        {"app.kubernetes.io/part-of": "edge"},
    ),
    (
        "edge sts/edge-mounts",
        "spec.volumeClaimTemplates[0].metadata.annotations",
        {"backup.example.com/schedule": "daily"},
    ),
    ("edge sts/edge-mounts", "spec.volumeClaimTemplates[0].spec.storageClassName", "fast-ssd"),
    (
        "edge sts/edge-mounts",
        "spec.volumeClaimTemplates[1].spec.storageClassName",
        "tars-storage-class",
    ),
    (
        "edge sts/edge-mounts",
        "spec.volumeClaimTemplates[1].spec.selector.matchLabels",
        {
            "tars.io/ServerApp": "edge",
            "tars.io/ServerName": "Mounts",
            "tars.io/LocalVolume": "local",
        },
    ),
    ("edge sts/edge-pvcnormal", CLAIMS, ["pgdata"]),
    ("edge sts/edge-pvcnormal", f"{POD}.volumes[*].name", ["host-timezone"]),
    ("edge sts/edge-tlvhostnet", CLAIMS, ["data", "delay-bind"]),
    # main container and the tarsnode init container
    (
        "edge sts/edge-env",
        f"{MAIN}.env[*].name",
        [
            "PLAIN",
            "EMPTY",
            "NODE_NAME",
            "POD_IP",
            "CPU_LIMIT_MILLIS",
            "MEMORY_REQUEST",
            "LOG_LEVEL",
            "DB_PASSWORD",
            "dotted.name-with_chars",
        ],
    ),
    (
        "edge sts/edge-env",
        f"{MAIN}.env[4].valueFrom.resourceFieldRef",
        {"containerName": "edge-env", "resource": "limits.cpu", "divisor": "1m"},
    ),
    ("edge sts/edge-env", f"{MAIN}.envFrom[*].prefix", ["CFG_", "Secret_1", None]),
    (
        "edge sts/edge-env",
        f"{MAIN}.resources",
        {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"cpu": "2", "memory": "1Gi"}},
    ),
    ("edge sts/edge-env", f"{MAIN}.imagePullPolicy", "IfNotPresent"),
    ("edge sts/edge-yamlscalars", f"{MAIN}.env[*].value", YAML_LOOKALIKES),
    ("edge sts/edge-env", f"{POD}.serviceAccountName", "edge-env"),
    (
        "edge sts/edge-env",
        f"{INIT}.env[*].name",
        ["Namespace", "PodName", "PodIP", "ServerApp", "ServerName", "LauncherType"],
    ),
    ("edge sts/edge-env", f"{INIT}.env[5].value", "foreground"),
    ("edge sts/edge-pullnever", f"{MAIN}.imagePullPolicy", "Never"),
    ("edge sts/edge-pullnever", f"{POD}.initContainers", None),
    ("edge sts/edge-pullnever", f"{POD}.dnsConfig.options", [{"name": "ndots", "value": "2"}]),
    ("edge sts/edge-pullnever", f"{POD}.enableServiceLinks", False),
    # ports: p<port> fallback, protocols, Service ports
    (
        "edge sts/edge-ports",
        f"{MAIN}.ports[*].name",
        ["p10900", "exactlyfifteenx", "udpobj", "httpobj", "metrics", "gossip-udp"],
    ),
    (
        "edge sts/edge-ports",
        f"{MAIN}.ports[*].protocol",
        ["TCP", "TCP", "UDP", "TCP", "TCP", "UDP"],
    ),
    (
        "edge svc/edge-ports",
        "spec.ports[*].name",
        ["verylongservantnameobj", "exactlyfifteenx", "udpobj", "httpobj", "metrics", "gossip-udp"],
    ),
    (
        "edge svc/edge-ports",
        "spec.ports[2]",
        {"name": "udpobj", "port": 10902, "targetPort": 10902, "protocol": "UDP"},
    ),
    ("edge svc/edge-ports", "spec.clusterIP", "None"),
    ("edge svc/edge-ports", "spec.sessionAffinity", "None"),
    ("edge svc/edge-noservants", "spec.ports", []),
    ("edge svc/edge-noports", "spec.ports", []),
    ("edge svc/edge-udpnormal", "spec.ports[*].protocol", ["UDP", "UDP"]),
    ("edge sts/edge-onlyports", f"{MAIN}.ports[*].name", ["web"]),
    # releases, pull secrets, node image, replicas
    ("edge sts/edge-secrets", f"{POD}.imagePullSecrets[*].name", ["private-pull", "node-pull"]),
    ("edge sts/edge-secrets", f"{INIT}.image", "private.example.com/tars/tars.tarsnode:v1.4.0"),
    ("edge sts/edge-samesecret", f"{POD}.imagePullSecrets[*].name", ["private-pull"]),
    (
        "edge sts/edge-defaultnode",
        f"{POD}.imagePullSecrets[*].name",
        ["private-pull", "tars-node-pull"],
    ),
    ("edge sts/edge-defaultnode", f"{INIT}.image", NODE),
    ("edge sts/edge-unreleased", "spec.replicas", 0),
    ("edge sts/edge-unreleased", f"{MAIN}.image", PLACEHOLDER_IMAGE),
    ("edge sts/edge-unreleased", f"{POD}.imagePullSecrets", None),
    ("edge sts/edge-unreleased", "spec.template.metadata.labels.tars.io/ServerID", None),
    ("edge sts/edge-unreleased", f"{INIT}.image", NODE),
    ("edge sts/edge-unreleasednormal", f"{MAIN}.image", PLACEHOLDER_IMAGE),
    ("edge sts/edge-clamped", "spec.replicas", 3),
    ("edge sts/edge-minreplicas", "spec.replicas", 2),
    ("edge sts/edge-exported", "spec.replicas", 2),
    ("edge sts/edge-exported", "spec.template.metadata.labels.tars.io/ServerID", "new-release"),
    ("edge sts/edge-elsewhere", "metadata.namespace", "tars-edge"),
    (
        "edge sts/edge-elsewhere",
        f"{INIT}.image",
        "registry.example.com/tars/tars.tarsnode:v1.3.0",
    ),
    (
        "edge sts/edge-elsewhere",
        REQUIRED,
        ["tars.io/node.tars-edge", "tars.io/ability.tars-edge.edge-Elsewhere"],
    ),
    # the framework's own servers
    ("framework svc/tars-tarskevent", "spec.ports", []),
    ("framework sts/tars-tarsregistry", "spec.replicas", 2),
    ("framework sts/tars-tarsregistry", GATES, ["tars.io/active"]),
    ("framework sts/tars-tarsregistry", f"{POD}.initContainers", None),
    (
        "framework sts/tars-tarsadminregistry",
        "metadata.labels",
        {"tars.io/ServerApp": "tars", "tars.io/ServerName": "tarsAdminRegistry"},
    ),
    ("framework sts/tars-tarslog", CLAIMS, ["remote-log-dir"]),
    ("framework sts/tars-elasticsearch", CLAIMS, ["data"]),
    (
        "framework sts/tars-tarsweb",
        f"{MAIN}.resources",
        {"requests": {"memory": "2G"}, "limits": {"memory": "2G"}},
    ),
    (
        "framework sts/tars-tarsconfig",
        f"{INIT}.image",
        "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.0",
    ),
    # every output option changed: namespace, storage class, no delay-bind, no tars gate
    ("options sts/edge-hostnet", "metadata.namespace", "tars-dev"),
    ("options sts/edge-hostnet", REQUIRED, ["tars.io/node.tars-dev"]),
    ("options sts/edge-hostnet", "spec.volumeClaimTemplates", None),
    (
        "options sts/edge-tlvhostnet",
        "spec.volumeClaimTemplates[*].spec.storageClassName",
        ["local-ssd"],
    ),
    ("options sts/edge-vthreetars", GATES, ["example.com/ready", "example.com/warm"]),
    ("options sts/edge-vtwotars", f"{POD}.readinessGates", None),
]


def dig(obj: Any, path: str) -> Any:
    """The value at a dotted path (``a.b[0].c``, ``[*]`` maps over a list); None if absent.

    Label keys contain dots, so a segment is matched against the keys of the mapping at hand
    greedily: ``labels.tars.io/ServerID`` finds the key ``tars.io/ServerID``.
    """
    if not path:
        return obj
    head, _, rest = path.partition(".")
    index = None
    if head.endswith("]"):
        head, _, index = head[:-1].partition("[")
    if isinstance(obj, dict) and head not in obj and rest:
        # a key with dots in it: extend the segment until it names a key
        for cut in range(len(rest.split(".")), 0, -1):
            candidate = ".".join([head, *rest.split(".")[:cut]])
            if candidate in obj:
                remainder = ".".join(rest.split(".")[cut:])
                return dig(obj[candidate], remainder)
    value = obj.get(head) if isinstance(obj, dict) and head else obj
    if index == "*":
        return None if value is None else [dig(item, rest) for item in value]
    if index is not None:
        value = value[int(index)] if isinstance(value, list) and int(index) < len(value) else None
    return None if value is None else dig(value, rest)


STACK_LABELS = {
    "edge": "corpus-edge",
    "framework": "corpus-framework",
    "options": "corpus-edge-options",
}


def _find(where: str) -> dict[str, Any] | None:
    """The rendered object named by ``"<stack> <kind>/<name>"`` (None when not rendered)."""
    stack_key, _, rest = where.partition(" ")
    kind, _, name = rest.partition("/")
    stack = next(s for s in RENDERED if s.label == STACK_LABELS[stack_key])
    for obj in stack.objects.values():
        if obj["kind"] == KINDS[kind] and obj["metadata"]["name"] == name:
            return obj
    return None


@pytest.mark.parametrize(
    ("where", "path", "expected"),
    MAPPING_ROWS,
    ids=[f"{w}:{p.replace(POD, 'pod') or 'exists'}" for w, p, _ in MAPPING_ROWS],
)
def test_corpus_object_has_the_mapped_value(where: str, path: str, expected: Any) -> None:
    """One mapping choice, pinned on the corpus object that exercises it."""
    obj = _find(where)
    if not path:
        assert obj is None if expected is None else obj is not None, where
        return
    assert obj is not None, f"{where} is not rendered"
    assert dig(obj, path) == expected
