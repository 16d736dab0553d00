"""crd mode on a real API server, through the CRDs that ``tars-components controller`` installs:
the dev stack's documents applied as custom resources by the real ``pulumi up``, with a TAccount
whose password is a Pulumi config secret; what the API server stores against what ``render``
predicts; the scale subresource; a TarsWeb release written with server-side apply; and every
*tighter* row of docs/crds.md, with v1.4.1's own CRDs installed beside ours."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bcrypt
import pytest
import yaml
from support.assertions.upstream import REPO, shared
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-crd"
STACK = "crd"
USERNAME = "crdadmin"
#: The TAccount's password: set with ``pulumi config set --secret`` and searched for.
PASSWORD = "Crd-e2e-7Qx!pass"
SECRET_KEY = "crdAdminPassword"
#: TarsWeb's database settings in the TFrameworkConfig's ``expand``, a config secret too.
DB_PASSWORD = "Db-e2e-3Kp!pass"
DB_CONFIG = f'{{"host": "tars-mysql", "user": "tarsweb", "password": "{DB_PASSWORD}"}}'
DB_KEY = "crdDBConfig"
#: v1.4.1's CRDs, renamed so that they live beside ours: group, kinds and resource names.
LEGACY_GROUP = "v141.tars.io"
LEGACY_PREFIX = "v141"

ACCOUNT = f"""---
apiVersion: k8s.tars.io/v1beta3
kind: TAccount
metadata:
  name: {hashlib.md5(USERNAME.encode()).hexdigest()}
  namespace: {NAMESPACE}
spec:
  username: {USERNAME}
  authentication:
    password: {{configSecret: {SECRET_KEY}}}
  authorization:
    - {{role: admin, flag: "*"}}
"""


def tars_components(venv: Path, *args: str, cwd: Path) -> None:
    subprocess.run(
        [str(venv / "bin" / "tars-components"), *args], cwd=cwd, check=True, capture_output=True
    )


@pytest.fixture(scope="module")
def project(
    venv: Path, tmp_path_factory: pytest.TempPathFactory, cluster: e2e.Cluster, pulumi: e2e.Pulumi
) -> Path:
    """The project with a crd-mode stack of its own: the dev stack's documents in
    ``tars-crd`` and a TAccount whose password is the config secret ``tars:crdAdminPassword``."""
    project = e2e.project_copy(tmp_path_factory.mktemp("crd-mode") / "tars", venv)
    e2e.install_crds(cluster, venv, project)
    cluster.kubectl("create", "namespace", NAMESPACE)
    stack = project / "stacks" / STACK
    stack.mkdir()
    for source in sorted((project / "stacks" / "dev").glob("*.yaml")):
        text = source.read_text(encoding="utf-8").replace("tars-dev", NAMESPACE)
        (stack / source.name).write_text(text, encoding="utf-8")
    (stack / "70-account.yaml").write_text(ACCOUNT, encoding="utf-8")
    framework = stack / "00-framework.yaml"
    text = framework.read_text(encoding="utf-8")
    assert text.count('nativeDBConfig: ""') == 1
    framework.write_text(
        text.replace('nativeDBConfig: ""', f"nativeDBConfig: {{configSecret: {DB_KEY}}}"),
        encoding="utf-8",
    )
    e2e.stack_config(project, STACK, NAMESPACE, f"stacks/{STACK}", "crd")
    pulumi("stack", "init", STACK, cwd=project).ok()
    for key, value in ((SECRET_KEY, PASSWORD), (DB_KEY, DB_CONFIG)):
        set_secret = ("config", "set", "--secret", f"tars:{key}", value)
        pulumi(*set_secret, "--stack", STACK, cwd=project).ok()
    return project


#: The CLI output of every pulumi command of the journey (searched for the password).
outputs: list[str] = []


@pytest.fixture(scope="module")
def up(project: Path, pulumi: e2e.Pulumi) -> Path:
    """The stack, previewed and up."""
    for args in (("preview", "--diff"), ("up", "--yes", "--skip-preview")):
        result = pulumi(*args, "--stack", STACK, cwd=project)
        outputs.append(result.output)
        result.ok()
    return project


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    """An object as the API server would store it, without what the server writes itself
    (status, uid, timestamps, managed fields) or what the secret makes (the password hash)."""
    out = {k: v for k, v in obj.items() if k not in {"status", "metadata", "apiVersion"}}
    meta = obj["metadata"]
    out["metadata"] = {
        k: meta[k] for k in ("name", "namespace", "labels", "annotations") if meta.get(k)
    }
    if obj["kind"] == "TAccount":
        out["spec"] = json.loads(json.dumps(obj["spec"]))
        out["spec"]["authentication"].pop("bcryptPassword", None)
    if obj["kind"] == "TFrameworkConfig":  # render: a placeholder; the cluster: the secret
        out["expand"] = {k: v for k, v in obj["expand"].items() if k != "nativeDBConfig"}
    return out


def test_the_crds_are_established(up: Path, cluster: e2e.Cluster) -> None:
    crds = [
        c
        for c in cluster.get("customresourcedefinitions")["items"]
        if c["spec"]["group"] == "k8s.tars.io"
    ]
    assert len(crds) == 11, [c["metadata"]["name"] for c in crds]
    for crd in crds:
        conditions = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
        assert conditions.get("Established") == "True", crd["metadata"]["name"]
        assert conditions.get("NonStructuralSchema") is None, crd["metadata"]["name"]


def test_the_api_server_stores_what_render_predicts(
    up: Path, venv: Path, cluster: e2e.Cluster
) -> None:
    expected = e2e.render_stack(up, venv, STACK)
    kinds = sorted({o["kind"] for o in expected})
    assert kinds == ["TAccount", "TFrameworkConfig", "TServer", "TTemplate"], kinds
    for obj in expected:
        meta = obj["metadata"]
        stored = cluster.get(e2e.resource_of(obj), meta["name"], f"--namespace={meta['namespace']}")
        # nothing defaulted that render did not write, nothing pruned that it wrote
        assert comparable(stored) == comparable(obj), (obj["kind"], meta["name"])


def test_the_password_is_stored_only_as_the_webhook_hash(up: Path, cluster: e2e.Cluster) -> None:
    name = hashlib.md5(USERNAME.encode()).hexdigest()
    account = cluster.get("taccounts.k8s.tars.io", name, f"--namespace={NAMESPACE}")
    auth = account["spec"]["authentication"]
    assert "password" not in auth
    # what TarsWeb checks: bcrypt over the lowercase hex SHA-1 of the password
    sha1 = hashlib.sha1(PASSWORD.encode()).hexdigest()
    assert bcrypt.checkpw(sha1.encode(), auth["bcryptPassword"].encode())


def test_tarsweb_reads_the_expand_secret_from_the_framework_config(
    up: Path, cluster: e2e.Cluster
) -> None:
    stored = cluster.get(
        "tframeworkconfigs.k8s.tars.io", "tars-framework", f"--namespace={NAMESPACE}"
    )
    assert stored["expand"] == {"nativeDBConfig": DB_CONFIG, "nativeFrameworkConfig": ""}


def state_files(pulumi: e2e.Pulumi) -> Iterator[tuple[Path, str]]:
    """Every file of the file backend (stack states, backups, history), decompressed."""
    for path in sorted(p for p in pulumi.state.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        yield path, data.decode("utf-8", errors="replace")


def test_kubectl_scale_goes_through_the_scale_subresource(up: Path, cluster: e2e.Cluster) -> None:
    ns = f"--namespace={NAMESPACE}"
    cluster.kubectl("scale", "tserver/shop-orderserver", "--replicas=3", ns)
    server = cluster.get("tservers.k8s.tars.io", "shop-orderserver", ns)
    assert server["spec"]["k8s"]["replicas"] == 3
    scale = cluster.get("tservers.k8s.tars.io", "shop-orderserver", "--subresource=scale", ns)
    assert scale["kind"] == "Scale"
    assert scale["spec"]["replicas"] == 3


def test_a_field_scaled_by_hand_conflicts_until_handed_over(
    up: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    # the next apply of the scaled server (any change to it) meets kubectl's replica count:
    # pulumi-kubernetes does not force, so the program stops first, having read the live
    # managedFields: it names the manager, the field, both values and the fix
    source = up / "stacks" / STACK / "20-shop-order.yaml"
    text = source.read_text(encoding="utf-8")
    assert text.count("asyncThread: 4") == 1
    source.write_text(text.replace("asyncThread: 4", "asyncThread: 6"), encoding="utf-8")
    refused = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=up)
    outputs.append(refused.output)
    assert refused.code != 0
    assert "spec.k8s.replicas: owned by kubectl" in refused.output, refused.output
    assert "(live 3), the stack applies 2" in refused.output
    assert "replicas=external" in refused.output
    # handed over (docs/concepts/ownership.md), the up applies the rest and keeps the count
    owners = ("tars:fieldOwnership", "replicas=external", "--stack", STACK)
    pulumi("config", "set", *owners, cwd=up).ok()
    result = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=up)
    outputs.append(result.output)
    result.ok()
    server = cluster.get("tservers.k8s.tars.io", "shop-orderserver", f"--namespace={NAMESPACE}")
    assert server["spec"]["tars"]["asyncThread"] == 6
    assert server["spec"]["k8s"]["replicas"] == 3
    pulumi("preview", "--expect-no-changes", "--stack", STACK, cwd=up).ok()


def release_write(release_id: str) -> str:
    """A TServer release as TarsWeb writes it: ``spec.release`` only, under its own manager."""
    return json.dumps(
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TServer",
            "metadata": {"name": "shop-orderserver", "namespace": NAMESPACE},
            "spec": {
                "release": {
                    "id": release_id,
                    "image": f"docker.tarsyun.com/{NAMESPACE}/shop.orderserver:{release_id}",
                    "secret": "tars-image-secret",
                    "time": "2026-12-04T08:00:00Z",
                    "nodeImage": "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.0",
                    "nodeSecret": "tars-image-secret",
                }
            },
        }
    )


def test_a_tarsweb_release_write_is_admitted(
    up: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    ns = f"--namespace={NAMESPACE}"
    apply = ("apply", "--server-side", "--field-manager=tarsweb", "-f", "-")
    # Pulumi owns the release until the stack hands it over: the write conflicts, naming it
    refused = cluster.kubectl(*apply, stdin=release_write("v20261204-1"), check=False)
    assert refused.returncode != 0
    assert "conflict" in refused.stderr.lower() and ".spec.release" in refused.stderr
    # TarsWeb forcing its release in (as it does with a JSON patch): admitted through our CRDs
    cluster.kubectl(*apply, "--force-conflicts", stdin=release_write("v20261204-1"))
    stored = cluster.get("tservers.k8s.tars.io", "shop-orderserver", ns)
    assert stored["spec"]["release"] == json.loads(release_write("v20261204-1"))["spec"]["release"]
    # handed over (docs/concepts/ownership.md), the next `pulumi up` keeps TarsWeb's release
    owners = ("tars:fieldOwnership", "replicas=external,release=external", "--stack", STACK)
    pulumi("config", "set", *owners, cwd=up).ok()
    result = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=up)
    outputs.append(result.output)
    result.ok()
    kept = cluster.get("tservers.k8s.tars.io", "shop-orderserver", ns)
    assert kept["spec"]["release"]["id"] == "v20261204-1"
    cluster.kubectl(*apply, stdin=release_write("v20261204-2"))
    assert (
        cluster.get("tservers.k8s.tars.io", "shop-orderserver", ns)["spec"]["release"]["id"]
        == "v20261204-2"
    )
    pulumi("preview", "--expect-no-changes", "--stack", STACK, cwd=up).ok()


def engine_changes(preview: e2e.Result) -> dict[tuple[str, str, str], str]:
    """The Kubernetes objects a ``pulumi preview --json`` changes: (kind, namespace, name) to
    create, update, replace or delete."""
    found = {}
    for step in e2e.preview_steps(preview):
        kind_type = step["urn"].split("::")[-2].rsplit("$", 1)[-1]
        if not kind_type.startswith("kubernetes:") or step["op"] == "same":
            continue
        state = step.get("newState") or step.get("oldState") or {}
        meta = state.get("inputs", {}).get("metadata", {})
        op = "replace" if "replace" in step["op"] else step["op"]
        found[(kind_type.rsplit(":", 1)[1], meta.get("namespace", ""), meta["name"])] = op
    return found


def test_preview_and_diff_name_the_same_changes(up: Path, venv: Path, pulumi: e2e.Pulumi) -> None:
    stack = up / "stacks" / STACK
    before = up / "stacks" / f"{STACK}-before"
    shutil.copytree(stack, before)
    # a pull request: a template edited, a template added, a server removed
    templates = stack / "10-templates.yaml"
    text = templates.read_text(encoding="utf-8")
    assert text.count("sync-invoke-timeout = 1500") == 1
    templates.write_text(
        text.replace("sync-invoke-timeout = 1500", "sync-invoke-timeout = 2500")
        + f"""---
apiVersion: k8s.tars.io/v1beta3
kind: TTemplate
metadata:
  name: shop.java
  namespace: {NAMESPACE}
spec:
  parent: tars.java
  content: ""
""",
        encoding="utf-8",
    )
    (stack / "60-shop-payment.yaml").unlink()
    preview = pulumi("preview", "--json", "--diff", "--stack", STACK, cwd=up)
    outputs.append(preview.output)
    done = subprocess.run(
        [
            str(venv / "bin" / "tars-components"),
            *("diff", "--stack", STACK, "--format", "json"),
            *(f"stacks/{STACK}-before", f"stacks/{STACK}"),
        ],
        cwd=up,
        capture_output=True,
        text=True,
        check=True,
    )
    ours = {
        (c["kind"], c["namespace"], c["name"]): c["action"]
        for c in json.loads(done.stdout)["changes"]
    }
    assert ours == {
        ("TTemplate", NAMESPACE, "shop.cpp"): "update",
        ("TTemplate", NAMESPACE, "shop.java"): "create",
        ("TServer", NAMESPACE, "shop-paymentserver"): "delete",
    }, ours
    assert engine_changes(preview.ok()) == ours


# -- the tighter rows of docs/crds.md -------------------------------------------------------


def legacy(crd: dict[str, Any]) -> dict[str, Any]:
    """A v1.4.1 CRD renamed into LEGACY_GROUP (kinds prefixed), without its conversion
    webhook, so that it is served beside ours."""
    crd = json.loads(json.dumps(crd))
    names = crd["spec"]["names"]
    kind = names["kind"]
    names.update(
        kind=f"V141{kind}",
        listKind=f"V141{kind}List",
        plural=LEGACY_PREFIX + names["plural"],
        singular=LEGACY_PREFIX + names["singular"],
    )
    names.pop("shortNames", None)
    names.pop("categories", None)
    crd["spec"]["group"] = LEGACY_GROUP
    crd["spec"]["conversion"] = {"strategy": "None"}
    crd["metadata"] = {"name": f"{names['plural']}.{LEGACY_GROUP}"}
    versions = crd["spec"]["versions"]
    for version in versions:
        version["served"] = True
        version["storage"] = version["name"] == "v1beta3"
    return crd


@pytest.fixture(scope="module")
def legacy_crds(cluster: e2e.Cluster) -> Iterator[None]:
    """v1.4.1's TServer, TAccount and TTemplate CRDs (the chart's, from the shared data),
    renamed, plus v1.4.1's TTemplate webhook rule TT001 as an admission policy."""
    crds = [
        legacy(yaml.safe_load(shared("tarsk8s", "crds", f"{kind}.yaml").read_text()))
        for kind in ("TServer", "TAccount", "TTemplate")
    ]
    listed = json.dumps({"apiVersion": "v1", "kind": "List", "items": crds + TT001_POLICY})
    cluster.kubectl("apply", "--server-side", "-f", "-", stdin=listed)
    cluster.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
    try:
        yield
    finally:
        cluster.kubectl("delete", "-f", "-", "--wait=false", stdin=listed, check=False)


WEBHOOK_LABEL = "e2e.tars.io/v141-webhook"
"""Objects with this label also meet v1.4.1's webhook rule (TT001_POLICY)."""

#: ``validTTemplate`` of v1.4.1's webhook (validating/tars/v1beta3/ttemplate.go), its first
#: check: an empty ``.spec.parent`` is refused, with the webhook's own message.
TT001_POLICY: list[dict[str, Any]] = [
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "v141-ttemplate-parent"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [LEGACY_GROUP],
                        "apiVersions": ["*"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": [f"{LEGACY_PREFIX}ttemplates"],
                    }
                ]
            },
            "validations": [
                {
                    "expression": "has(object.spec) && has(object.spec.parent) "
                    "&& object.spec.parent != ''",
                    "message": 'ttemplate resource invalid: value of filed ".spec.parent" '
                    "should not empty ",
                }
            ],
        },
    },
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "v141-ttemplate-parent"},
        "spec": {
            "policyName": "v141-ttemplate-parent",
            "validationActions": ["Deny"],
            # the webhook's part is checked apart from the CRD's: on objects so labelled
            "matchResources": {"objectSelector": {"matchLabels": {WEBHOOK_LABEL: "true"}}},
        },
    },
]


def server(version: str = "v1beta3") -> dict[str, Any]:
    """A TServer that both v1.4.1's CRDs and ours admit."""
    k8s: dict[str, Any] = {"replicas": 0}
    return {
        "apiVersion": f"k8s.tars.io/{version}",
        "kind": "TServer",
        "metadata": {"name": "tighter", "namespace": NAMESPACE},
        "spec": {
            "app": "Row",
            "server": "Tighter",
            "subType": "tars",
            "tars": {
                "template": "tars.cpp",
                "servants": [{"name": "RowObj", "port": 10000}],
            },
            "k8s": k8s,
        },
    }


def statefulset(pod: dict[str, Any]) -> dict[str, Any]:
    """A StatefulSet as the controller builds it, with ``pod`` merged into its pod spec."""
    container = {"name": "row-tighter", "image": "docker.tarsyun.com/row/tighter:v1"}
    container.update(pod.pop("container", {}))
    spec: dict[str, Any] = {"containers": [container], **pod}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "row-tighter", "namespace": NAMESPACE},
        "spec": {
            "serviceName": "row-tighter",
            "replicas": 0,
            "selector": {"matchLabels": {"tars.io/ServerName": "Tighter"}},
            "template": {"metadata": {"labels": {"tars.io/ServerName": "Tighter"}}, "spec": spec},
        },
    }


def claim(selector: dict[str, Any]) -> dict[str, Any]:
    """The claim the StatefulSet controller creates from a claim template with ``selector``."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-row-tighter-0", "namespace": NAMESPACE},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "selector": selector,
        },
    }


def with_k8s(version: str = "v1beta3", **fields: Any) -> dict[str, Any]:
    doc = server(version)
    doc["spec"]["k8s"].update(fields)
    return doc


def with_mount(source: dict[str, Any], **mount: Any) -> dict[str, Any]:
    return with_k8s(mounts=[{"name": "data", "mountPath": "/data", **mount, "source": source}])


def template_claim(selector: dict[str, Any]) -> dict[str, Any]:
    return {
        "persistentVolumeClaimTemplate": {
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
                "selector": selector,
            }
        }
    }


BAD_KEY = "Tars_IO/disk"
"""A label key v1.4.1's pattern admits (its prefix may hold capitals and ``_``) and Kubernetes'
qualified-name rule refuses (a prefix is a lowercase DNS subdomain)."""
BAD_GATE = "Tars_IO/active"


@dataclass(frozen=True)
class Tighter:
    """One *tighter* row of docs/crds.md: a document v1.4.1's CRDs admit and ours refuse at
    ``field``, and what refuses it anyway: a Kubernetes object the controller would build from
    it, or v1.4.1's webhook (``anyway`` returns the refusal, which names ``says``)."""

    kind: str
    row: str
    document: Callable[[], dict[str, Any]]
    field: str
    anyway: Callable[[e2e.Cluster], str]
    says: str


def dry_run(obj: dict[str, Any]) -> Callable[[e2e.Cluster], str]:
    """The API server's refusal of ``obj`` (a server-side dry run of its creation)."""

    def refused(cluster: e2e.Cluster) -> str:
        done = cluster.kubectl(
            "create", "--dry-run=server", "-f", "-", stdin=json.dumps(obj), check=False
        )
        assert done.returncode != 0, f"{obj['kind']} admitted: {done.stdout}"
        return str(done.stderr)

    return refused


def webhook_tokens_patch(cluster: e2e.Cluster) -> str:
    """v1.4.1's TAccount webhook answers every create with ``add /spec/authentication/tokens``
    (mutating/tars/v1beta3/taccount.go), which the API server applies as a JSON patch: on a
    TAccount without ``spec`` the patch fails, and so does the create (on a TAccount with its
    ``spec`` the same patch applies)."""
    empty = hashlib.md5(b"").hexdigest()  # TA001: the name of the username ""
    whole = hashlib.md5(b"legacy").hexdigest()
    accounts = [
        {"metadata": {"name": empty, "namespace": NAMESPACE}},
        {
            "metadata": {"name": whole, "namespace": NAMESPACE},
            "spec": {
                "username": "legacy",
                "authentication": {"bcryptPassword": "$2a$06$" + "x" * 53},
                "authorization": [],
            },
        },
    ]
    for account in accounts:
        account.update(apiVersion=f"{LEGACY_GROUP}/v1beta3", kind="V141TAccount")
        cluster.kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(account))
    patch = [{"op": "add", "path": "/spec/authentication/tokens", "value": []}]

    def patched(name: str) -> subprocess.CompletedProcess[str]:
        return cluster.kubectl(
            "patch",
            f"{LEGACY_PREFIX}taccounts.{LEGACY_GROUP}",
            name,
            f"--namespace={NAMESPACE}",
            "--type=json",
            f"--patch={json.dumps(patch)}",
            "--dry-run=server",
            check=False,
        )

    assert patched(whole).returncode == 0
    done = patched(empty)
    assert done.returncode != 0, done.stdout
    return str(done.stderr)


def no_spec(kind: str) -> Callable[[], dict[str, Any]]:
    name = hashlib.md5(b"").hexdigest() if kind == "TAccount" else "no-spec"
    return lambda: {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": kind,
        "metadata": {"name": name, "namespace": NAMESPACE},
    }


def env(value_from: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": "ROW", "valueFrom": value_from}]


def mounted(volume: dict[str, Any], mount: dict[str, Any] | None = None) -> dict[str, Any]:
    """A StatefulSet with ``volume`` mounted as the translator mounts a TServer's mount."""
    return statefulset(
        {
            "volumes": [{"name": "data", **volume}],
            "container": {"volumeMounts": [mount or {"name": "data", "mountPath": "/data"}]},
        }
    )


def node_affinity(expression: dict[str, Any]) -> dict[str, Any]:
    """A StatefulSet whose node affinity has ``expression``, as the translator puts every
    ``spec.k8s.nodeSelector`` entry into one term."""
    terms = [{"matchExpressions": [expression]}]
    return statefulset(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
                }
            }
        }
    )


CLAIM_PATH = "spec.k8s.mounts[0].source.persistentVolumeClaimTemplate.spec.selector"

TIGHTER = [
    Tighter(
        "TServer",
        "spec.k8s.env[].valueFrom.fieldRef required",
        lambda: with_k8s(env=env({"fieldRef": {}})),
        "spec.k8s.env[0].valueFrom.fieldRef.fieldPath",
        dry_run(statefulset({"container": {"env": env({"fieldRef": {}})}})),
        "fieldPath",
    ),
    Tighter(
        "TServer",
        "spec.k8s.env[].valueFrom.resourceFieldRef.divisor pattern",
        lambda: with_k8s(
            env=env({"resourceFieldRef": {"resource": "limits.cpu", "divisor": "one"}})
        ),
        "spec.k8s.env[0].valueFrom.resourceFieldRef.divisor",
        dry_run(
            statefulset(
                {
                    "container": {
                        "env": env(
                            {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "one"}}
                        )
                    }
                }
            )
        ),
        "quantities must match",
    ),
    Tighter(
        "TServer",
        "spec.k8s.mounts[] required",
        lambda: with_k8s(mounts=[{"name": "data", "source": {"emptyDir": {}}}]),
        "spec.k8s.mounts[0].mountPath",
        dry_run(mounted({"emptyDir": {}}, {"name": "data"})),
        "mountPath",
    ),
    Tighter(
        "TServer",
        "spec.k8s.mounts[].source.configMap.items[] required",
        lambda: with_mount({"configMap": {"name": "row-conf", "items": [{"key": "a.conf"}]}}),
        "spec.k8s.mounts[0].source.configMap.items[0].path",
        dry_run(mounted({"configMap": {"name": "row-conf", "items": [{"key": "a.conf"}]}})),
        "path",
    ),
    Tighter(
        "TServer",
        "spec.k8s.mounts[].source.emptyDir.sizeLimit pattern",
        lambda: with_mount({"emptyDir": {"sizeLimit": "big"}}),
        "spec.k8s.mounts[0].source.emptyDir.sizeLimit",
        dry_run(mounted({"emptyDir": {"sizeLimit": "big"}})),
        "quantities must match",
    ),
    Tighter(
        "TServer",
        "spec.k8s.mounts[].source.persistentVolumeClaimTemplate.spec.selector.matchExpressions[]"
        " required",
        lambda: with_mount(template_claim({"matchExpressions": [{"key": "tier"}]})),
        f"{CLAIM_PATH}.matchExpressions[0].operator",
        dry_run(claim({"matchExpressions": [{"key": "tier"}]})),
        "operator",
    ),
    Tighter(
        "TServer",
        "spec.k8s.mounts[].source.persistentVolumeClaimTemplate.spec.selector.matchExpressions[]"
        ".key pattern",
        lambda: with_mount(
            template_claim({"matchExpressions": [{"key": BAD_KEY, "operator": "Exists"}]})
        ),
        f"{CLAIM_PATH}.matchExpressions[0].key",
        dry_run(claim({"matchExpressions": [{"key": BAD_KEY, "operator": "Exists"}]})),
        "prefix part",
    ),
    Tighter(
        "TServer",
        "spec.k8s.mounts[].source.secret.items[] required",
        lambda: with_mount({"secret": {"secretName": "row-secret", "items": [{"key": "a"}]}}),
        "spec.k8s.mounts[0].source.secret.items[0].path",
        dry_run(mounted({"secret": {"secretName": "row-secret", "items": [{"key": "a"}]}})),
        "path",
    ),
    Tighter(
        "TServer",
        "spec.k8s.nodeSelector[] required",
        lambda: with_k8s(nodeSelector=[{"key": "disk"}]),
        "spec.k8s.nodeSelector[0].operator",
        dry_run(node_affinity({"key": "disk"})),
        "operator",
    ),
    Tighter(
        "TServer",
        "spec.k8s.nodeSelector[].key pattern",
        lambda: with_k8s(nodeSelector=[{"key": BAD_KEY, "operator": "Exists"}]),
        "spec.k8s.nodeSelector[0].key",
        dry_run(node_affinity({"key": BAD_KEY, "operator": "Exists"})),
        "prefix part",
    ),
    Tighter(
        "TServer",
        "spec.k8s.readinessGate pattern",
        lambda: with_k8s("v1beta2", readinessGate=BAD_GATE),
        "spec.k8s.readinessGate",
        dry_run(statefulset({"readinessGates": [{"conditionType": BAD_GATE}]})),
        "conditionType",
    ),
    Tighter(
        "TServer",
        "spec.k8s.readinessGates[] pattern",
        lambda: with_k8s(readinessGates=[BAD_GATE]),
        "spec.k8s.readinessGates[0]",
        dry_run(statefulset({"readinessGates": [{"conditionType": BAD_GATE}]})),
        "conditionType",
    ),
    Tighter(
        "TAccount",
        ". required",
        no_spec("TAccount"),
        "spec: Required value",
        webhook_tokens_patch,
        "rejected",
    ),
    Tighter(
        "TTemplate",
        ". required",
        no_spec("TTemplate"),
        "spec: Required value",
        dry_run(
            {
                "apiVersion": f"{LEGACY_GROUP}/v1beta3",
                "kind": "V141TTemplate",
                "metadata": {
                    "name": "no-spec",
                    "namespace": NAMESPACE,
                    "labels": {WEBHOOK_LABEL: "true"},
                },
            }
        ),
        "should not empty",
    ),
]


@pytest.mark.parametrize("row", TIGHTER, ids=[f"{t.kind} {t.row}" for t in TIGHTER])
def test_a_tighter_row_refuses_only_what_fails_anyway(
    row: Tighter, up: Path, cluster: e2e.Cluster, legacy_crds: None
) -> None:
    document = row.document()
    theirs = json.loads(json.dumps(document))
    theirs["apiVersion"] = theirs["apiVersion"].replace("k8s.tars.io", LEGACY_GROUP)
    theirs["kind"] = f"V141{theirs['kind']}"
    admitted = cluster.kubectl(
        "create", "--dry-run=server", "-f", "-", stdin=json.dumps(theirs), check=False
    )
    assert admitted.returncode == 0, f"v1.4.1's CRD refuses it:\n{admitted.stderr}"
    ours = cluster.kubectl(
        "create", "--dry-run=server", "-f", "-", stdin=json.dumps(document), check=False
    )
    assert ours.returncode != 0, "our CRD admits it"
    assert row.field in ours.stderr, ours.stderr
    refusal = row.anyway(cluster)
    assert row.says in refusal, refusal


def test_every_tighter_row_has_its_test() -> None:
    text = (REPO / "docs" / "crds.md").read_text(encoding="utf-8")
    rows = {
        (cells[1].strip(), cells[2].strip().strip("`"))
        for line in text.splitlines()
        if len(cells := line.split("|")) == 7 and cells[4].strip() == "tighter"
    }
    assert rows == {(t.kind, t.row) for t in TIGHTER}


def test_the_secret_is_in_no_state_output_or_object(
    up: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    """Last: after every pulumi command of the journey (ups, previews, the PR diff). The
    expand secret is in the TFrameworkConfig, where TarsWeb reads it, and nowhere else."""
    # the password, and the SHA-1 that TarsWeb's login compares (as good as the password)
    # and the expand secret, which only the TFrameworkConfig TarsWeb reads may hold
    needles = (PASSWORD, hashlib.sha1(PASSWORD.encode()).hexdigest(), DB_PASSWORD)
    exported = pulumi("stack", "export", "--stack", STACK, cwd=up).ok().stdout
    haystacks = {"pulumi stack export": exported}
    haystacks.update({f"the state file {p.name}": text for p, text in state_files(pulumi)})
    haystacks.update({f"pulumi output {i}": text for i, text in enumerate(outputs)})
    kinds = cluster.kubectl("api-resources", "--verbs=list", "--output=name").stdout.split()
    listed = [k for k in kinds if k != "secrets" and not k.startswith("events")]
    for kind in listed:
        haystacks[f"kubectl get {kind}"] = cluster.kubectl(
            "get", kind, "--all-namespaces", "-o", "json"
        ).stdout
    assert "taccounts.k8s.tars.io" in listed
    assert len(haystacks) > 20
    found = [(where, n) for where, text in haystacks.items() for n in needles if n in text]
    assert found == [("kubectl get tframeworkconfigs.k8s.tars.io", DB_PASSWORD)], found
