"""The real-engine harness: the toolchain's binaries, a loopback cluster, and Pulumi projects
run with the real ``pulumi`` CLI on a local file backend.

Nothing here is mocked: ``tools/e2e/toolchain`` gives the binaries, ``tools/e2e/cluster``
the control plane, and every check reads the API server with ``kubectl``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib
import yaml

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ROOT / "tools" / "e2e"
#: The passphrase of every e2e stack's secrets provider.
PASSPHRASE = "tars-e2e-passphrase"
#: The files of the project's own Pulumi program.
PROJECT_FILES = (
    "Pulumi.yaml",
    "Pulumi.dev.yaml",
    "Pulumi.staging.yaml",
    "Pulumi.prod.yaml",
    "__main__.py",
    "stacks",
    "platform",
)


def required() -> bool:
    """CI (and ``TARS_E2E=1``) never skips the suite: a missing tool is a failure."""
    return os.environ.get("CI") == "true" or os.environ.get("TARS_E2E") == "1"


def versions() -> dict[str, Any]:
    """tools/e2e/versions.toml."""
    return tomllib.loads((TOOLS / "versions.toml").read_text(encoding="utf-8"))


def toolchain(build: bool) -> dict[str, str] | str:
    """NAME to path from tools/e2e/toolchain; without ``build``, only what is already cached
    or on PATH (the reason why not as a string otherwise)."""
    args = [sys.executable, str(TOOLS / "toolchain")]
    if not build:
        args.append("--cached")
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode == 3 and not build:
        return "the e2e toolchain is not built (run tools/e2e/toolchain, or set TARS_E2E=1)"
    if done.returncode != 0:
        raise RuntimeError(f"tools/e2e/toolchain failed:\n{done.stderr}")
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


@dataclass
class Cluster:
    """One loopback cluster of ``tools/e2e/cluster up``."""

    dir: Path
    name: str
    kubectl_bin: str

    @property
    def kubeconfig(self) -> Path:
        return self.dir / self.name / "kubeconfig"

    @property
    def api_server(self) -> str:
        """Its API server's URL, as its kubeconfig gives it."""
        config = yaml.safe_load(self.kubeconfig.read_text(encoding="utf-8"))
        return str(config["clusters"][0]["cluster"]["server"])

    def kubectl(
        self, *args: str, check: bool = True, stdin: str | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [self.kubectl_bin, f"--kubeconfig={self.kubeconfig}", *args],
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed:\n{done.stderr}")
        return done

    def get(self, *args: str) -> dict[str, Any]:
        """``kubectl get ... -o json``."""
        found: dict[str, Any] = json.loads(self.kubectl("get", *args, "-o", "json").stdout)
        return found

    def exists(self, kind: str, name: str, namespace: str | None = None) -> bool:
        ns = [f"--namespace={namespace}"] if namespace else []
        done = self.kubectl("get", kind, name, *ns, "--ignore-not-found", "-o", "name", check=False)
        return done.returncode == 0 and done.stdout.strip() != ""

    def restart_api_server(self) -> None:
        """Start its stopped kube-apiserver again, then restart its kube-controller-manager:
        after an API server was away for a minute, the controller manager's watches can stay
        stale (a StatefulSet's status no longer follows its pods), which a real control plane's
        liveness probes would restart it for."""
        self.component("start", "kube-apiserver")
        self.component("stop", "kube-controller-manager")
        self.component("start", "kube-controller-manager")

    def component(self, verb: str, component: str) -> None:
        """``tools/e2e/cluster stop|start DIR COMPONENT --cluster NAME``."""
        subprocess.run(
            [
                sys.executable,
                str(TOOLS / "cluster"),
                verb,
                str(self.dir),
                component,
                "--cluster",
                self.name,
            ],
            check=True,
            capture_output=True,
            text=True,
        )


@contextlib.contextmanager
def namespace_with_node(cluster: Cluster, namespace: str) -> Iterator[str]:
    """``namespace`` with a fake node of its own (``tars.io/node.<namespace>``), as
    ``tools/e2e/cluster`` prepares the environments' namespaces; both deleted afterwards."""
    node_name = f"{cluster.name}-{namespace}-0"
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": node_name,
            "annotations": {"kwok.x-k8s.io/node": "fake"},
            "labels": {
                f"tars.io/node.{namespace}": "",
                "tars.io/SupportLocalVolume": "",
                "kubernetes.io/hostname": node_name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
            },
        },
        "status": {
            "capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"},
            "allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
        },
    }
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    objects = json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, ns]})
    cluster.kubectl("apply", "-f", "-", stdin=objects)
    cluster.kubectl("wait", "--for=condition=Ready", f"node/{node_name}", "--timeout=120s")
    try:
        yield namespace
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)
        cluster.kubectl("delete", "node", node_name, check=False)


def cluster_up(
    dir: Path,
    names: Sequence[str] = ("local",),
    namespaces: Sequence[str] | None = None,
    nodes: int | None = None,
) -> None:
    args = ["--clusters", ",".join(names)]
    if namespaces is not None:
        args.append(f"--namespaces={','.join(namespaces)}")
    if nodes is not None:
        args.append(f"--nodes={nodes}")
    done = subprocess.run(
        [sys.executable, str(TOOLS / "cluster"), "up", str(dir), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"tools/e2e/cluster up failed:\n{done.stderr}")


def cluster_down(dir: Path) -> None:
    subprocess.run(
        [sys.executable, str(TOOLS / "cluster"), "down", str(dir)],
        capture_output=True,
        text=True,
        check=False,
    )


@dataclass
class Karmada:
    """A Karmada control plane of ``tools/e2e/karmada up`` and its member clusters."""

    plane: Cluster  # karmada-apiserver: DIR/karmada/kubeconfig
    members: dict[str, Cluster]


def karmada_up(dir: Path, members: Sequence[str], crds: Sequence[Path] = ()) -> None:
    """``tools/e2e/karmada up DIR --members ... --crds ...`` over clusters already up in
    ``dir``."""
    crd_paths = ",".join(str(p) for p in crds)
    done = subprocess.run(
        [
            *(sys.executable, str(TOOLS / "karmada"), "up", str(dir)),
            *(f"--members={','.join(members)}", f"--crds={crd_paths}"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"tools/e2e/karmada up failed:\n{done.stderr}")


def tarsk8s_crd(kind: str, version: str) -> dict[str, Any]:
    """TarsK8S v1.4.1's CRD of ``kind`` (the shared upstream data: the test is skipped without
    it) as its installer sets it: ``version`` served and stored (the upstream file leaves both
    to the installer), no conversion webhook (none runs here)."""
    from support.assertions.upstream import shared

    text = shared("tarsk8s", "crds", f"{kind}.yaml").read_text(encoding="utf-8")
    crd: dict[str, Any] = yaml.safe_load(text)
    crd["metadata"].pop("annotations", None)
    crd["spec"]["conversion"] = {"strategy": "None"}
    for each in crd["spec"]["versions"]:
        each["served"] = each["storage"] = each["name"] == version
    return crd


@dataclass
class Result:
    """One pulumi command's exit code and output."""

    args: list[str]
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def ok(self) -> Result:
        assert self.code == 0, f"pulumi {' '.join(self.args)} exited {self.code}:\n{self.output}"
        return self


@dataclass
class Pulumi:
    """The real ``pulumi`` CLI with a private PULUMI_HOME and a file backend."""

    tools: dict[str, str]
    home: Path
    state: Path
    kubeconfig: Path | None = None
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        bin_dir = str(Path(self.tools["pulumi"]).parent)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
        env.update(
            PATH=os.pathsep.join([bin_dir, env.get("PATH", "")]),
            PULUMI_HOME=str(self.home),
            PULUMI_BACKEND_URL=f"file://{self.state}",
            PULUMI_CONFIG_PASSPHRASE=PASSPHRASE,
            PULUMI_SKIP_UPDATE_CHECK="true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
            PULUMI_DISABLE_REGISTRY_RESOLVE="true",
            PULUMI_SKIP_CONFIRMATIONS="true",
            NO_COLOR="1",
        )
        env.pop("VIRTUAL_ENV", None)
        if self.kubeconfig is not None:
            env["KUBECONFIG"] = str(self.kubeconfig)
        env.update(self.extra_env)
        return env

    def __call__(
        self, *args: str, cwd: Path, timeout: float = 900, stdin: str | None = None
    ) -> Result:
        cmd = [self.tools["pulumi"], *args, "--non-interactive"]
        if args and args[0] in {"up", "preview", "destroy", "refresh"}:
            cmd += ["--color", "never"]
        done = subprocess.run(
            cmd,
            cwd=cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
            input=stdin,
        )
        return Result(list(args), done.returncode, done.stdout, done.stderr)

    def install_kubernetes_plugin(self) -> None:
        """The built provider into this PULUMI_HOME's plugin cache, at the version the e2e
        venv's pulumi-kubernetes asks for (the engine takes only that exact version)."""
        version = versions()["pulumi-resource-kubernetes"]["version"]
        binary = Path(self.tools["pulumi-resource-kubernetes"])
        self(
            "plugin",
            "install",
            "resource",
            "kubernetes",
            f"v{version}",
            "--file",
            str(binary),
            cwd=self.home,
        ).ok()


def up_in_background(pulumi: Pulumi, stack: str, cwd: Path) -> subprocess.Popen[str]:
    """``pulumi up --yes --skip-preview`` of ``stack``, started and left running (its output,
    stderr included, on the process's stdout)."""
    return subprocess.Popen(
        [
            pulumi.tools["pulumi"],
            *("up", "--yes", "--skip-preview", "--stack", stack),
            *("--non-interactive", "--color", "never"),
        ],
        cwd=cwd,
        env=pulumi.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def up_with_apiserver_restart(
    pulumi: Pulumi, cluster: Cluster, stack: str, cwd: Path, when: str, check: Any
) -> str:
    """``pulumi up`` of ``stack`` with the cluster's API server stopped for 5 s and started
    again once ``check()`` holds (``when`` says what it waits for); the up's output."""
    up = up_in_background(pulumi, stack, cwd)
    try:
        wait_for(when, check, seconds=300)
        cluster.component("stop", "kube-apiserver")
        time.sleep(5)
        cluster.component("start", "kube-apiserver")
        output, _ = up.communicate(timeout=900)
    finally:
        if up.poll() is None:
            up.kill()
    return output


def program_venv(dest: Path) -> Path:
    """A virtualenv with this repository (and its platform extra: ``tars-components
    controller`` makes the webhook CA) and the pinned pulumi-kubernetes installed."""
    if (dest / "bin" / "python").exists():
        return dest
    pin = versions()["pulumi-resource-kubernetes"]["python_sdk"]
    subprocess.run([sys.executable, "-m", "venv", str(dest)], check=True)
    subprocess.run(
        [
            str(dest / "bin" / "pip"),
            "install",
            "-q",
            "--disable-pip-version-check",
            f"{ROOT}[platform]",
            pin,
        ],
        check=True,
    )
    return dest


@contextlib.contextmanager
def fleet_up(
    root: Path, names: Sequence[str], kubectl: str, namespaces: Sequence[str]
) -> Iterator[dict[str, Cluster]]:
    """Loopback clusters ``names`` in ``root`` (``namespaces``, one fake node each), by name;
    stopped afterwards."""
    cluster_up(root, names, namespaces=namespaces, nodes=1)
    try:
        yield {m: Cluster(root, m, kubectl) for m in names}
    finally:
        cluster_down(root)


def fleet_stack(
    project: Path,
    pulumi: Pulumi,
    stack: str,
    namespace: str,
    config: Mapping[str, Any],
    secrets: Mapping[str, str] = {},
) -> None:
    """Stack ``stack`` of ``project`` in expand mode applying to clusters (``stacks/<stack>``,
    ``namespace``), the ``tars:*`` ``config`` on top, and each of ``secrets`` (config key to
    text) set as a Pulumi secret."""
    values = {
        "tars:namespace": namespace,
        "tars:stackDir": f"stacks/{stack}",
        "tars:mode": "expand",
        "tars:renderDir": "",
        **config,
    }
    text = yaml.safe_dump({"config": values})
    (project / f"Pulumi.{stack}.yaml").write_text(text, encoding="utf-8")
    pulumi("stack", "init", stack, cwd=project).ok()
    for key, value in secrets.items():
        pulumi("config", "set", "--secret", key, value, "--stack", stack, cwd=project).ok()


def clusters_config(fleet: Mapping[str, Cluster]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """``tars:clusters`` for ``fleet`` (waves in its order, each cluster's kubeconfig the
    secret ``kubeconfig-<name>``) and those secrets."""
    clusters = [
        {"name": m, "apiServer": c.api_server, "credentials": f"kubeconfig-{m}", "wave": i}
        for i, (m, c) in enumerate(fleet.items())
    ]
    secrets = {
        f"kubeconfig-{m}": c.kubeconfig.read_text(encoding="utf-8") for m, c in fleet.items()
    }
    return clusters, secrets


def project_copy(dest: Path, venv: Path) -> Path:
    """The project's Pulumi program (Pulumi.yaml, the stack configs, __main__.py, stacks/,
    platform/) in ``dest``, its ``venv`` (Pulumi.yaml's virtualenv) linked to ``venv``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        else:
            shutil.copy2(src, dest / name)
    (dest / "venv").symlink_to(venv)
    return dest


def stack_project(
    dest: Path, venv: Path, pulumi: Pulumi, stack: str, namespace: str, mode: str
) -> Path:
    """:func:`project_copy` in ``dest`` with a stack ``stack`` of its own: its empty directory
    ``stacks/<stack>``, its config (:func:`stack_config`) and ``pulumi stack init``."""
    project = project_copy(dest, venv)
    (project / "stacks" / stack).mkdir()
    stack_config(project, stack, namespace, f"stacks/{stack}", mode)
    pulumi("stack", "init", stack, cwd=project).ok()
    return project


def write_documents(project: Path, stack: str, namespace: str, *documents: dict[str, Any]) -> None:
    """``stacks/<stack>/stack.yaml`` of ``project``: the framework config and the usual
    templates, then ``documents``, all moved from the builders' ``tars-dev`` to ``namespace``."""
    from support.builders.documents import stack_text
    from support.builders.rollouts import base

    text = stack_text(*base(), *documents).replace("tars-dev", namespace)
    (project / "stacks" / stack / "stack.yaml").write_text(text, encoding="utf-8")


@contextlib.contextmanager
def crd_stack(
    dest: Path,
    venv: Path,
    pulumi: Pulumi,
    cluster: Cluster,
    stack: str,
    namespace: str,
    *documents: dict[str, Any],
) -> Iterator[Path]:
    """A crd-mode :func:`stack_project` in ``dest`` whose stack holds ``documents`` in a
    namespace of its own, the TarsK8S CRDs installed; the namespace deleted afterwards."""
    project = stack_project(dest, venv, pulumi, stack, namespace, "crd")
    install_crds(cluster, venv, project)
    cluster.kubectl("create", "namespace", namespace)
    write_documents(project, stack, namespace, *documents)
    try:
        yield project
    finally:
        cluster.kubectl("delete", "namespace", namespace, "--wait=false", check=False)


def apply_list(cluster: Cluster, objects: list[dict[str, Any]]) -> None:
    """``kubectl apply`` of ``objects`` as one ``kind: List``."""
    items = {"apiVersion": "v1", "kind": "List", "items": objects}
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(items))


def stack_config(project: Path, stack: str, namespace: str, stack_dir: str, mode: str) -> None:
    """``Pulumi.<stack>.yaml`` of the project's program: the namespace, the stack directory and
    the mode, applied to the cluster (``tars:renderDir`` off)."""
    (project / f"Pulumi.{stack}.yaml").write_text(
        "config:\n"
        f"  tars:namespace: {namespace}\n"
        f"  tars:stackDir: {stack_dir}\n"
        f"  tars:mode: {mode}\n"
        '  tars:renderDir: ""\n',
        encoding="utf-8",
    )


def install_crds(cluster: Cluster, venv: Path, project: Path) -> None:
    """The TarsK8S CRDs as ``tars-components controller`` renders them for the project's
    ``platform/controller.values.yaml`` (crd mode's stacks need them)."""
    out = project.parent / "controller"
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(
        [
            str(venv / "bin" / "tars-components"),
            "controller",
            "--values",
            "platform/controller.values.yaml",
            "--out",
            str(out),
        ],
        cwd=project,
        check=True,
        capture_output=True,
    )
    cluster.kubectl("apply", "--server-side", "-f", str(out / "0-crd"))
    cluster.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")


def render_stack(project: Path, venv: Path, stack: str) -> list[dict[str, Any]]:
    """The objects ``tars-components render --stack STACK`` writes for ``project`` (what the
    product predicts the cluster will hold)."""
    out = project.parent / f"render-{stack}"
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(
        [str(venv / "bin" / "tars-components"), "render", "--stack", stack, "--out", str(out)],
        cwd=project,
        check=True,
        capture_output=True,
    )
    return list(objects_of(out))


def owners_of(obj: dict[str, Any], *path: str) -> list[str]:
    """The field managers whose ``fieldsV1`` hold ``path`` (``spec``, ``release``, ...) of a
    live object read with ``--show-managed-fields``."""
    found = []
    for entry in obj["metadata"].get("managedFields", []):
        node = entry.get("fieldsV1", {})
        for part in path:
            node = node.get(f"f:{part}")
            if node is None:
                break
        else:
            found.append(entry["manager"])
    return found


def resource_of(obj: dict[str, Any]) -> str:
    """The ``kubectl`` resource of an object: ``kind.group``, or the kind of the core group."""
    version = obj["apiVersion"]
    return (
        f"{obj['kind'].lower()}.{version.split('/')[0]}" if "/" in version else obj["kind"].lower()
    )


def live(cluster: Cluster, obj: dict[str, Any]) -> dict[str, Any]:
    """What the API server stores for ``obj`` (its kind, namespace and name), managed fields
    included."""
    meta = obj["metadata"]
    return cluster.get(
        resource_of(obj),
        meta["name"],
        f"--namespace={meta.get('namespace', '')}",
        "--show-managed-fields",
    )


def preview_steps(result: Result) -> list[dict[str, Any]]:
    """The steps of ``pulumi preview --json``."""
    return list(json.loads(result.stdout).get("steps", []))


def wait_for(what: str, check: Any, seconds: float = 120) -> None:
    """Poll ``check()`` until it is true."""
    deadline = time.monotonic() + seconds
    last: object = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return
        time.sleep(0.5)
    raise AssertionError(f"{what}: not true after {seconds:.0f} s (last: {last!r})")


def objects_of(render_dir: Path) -> Iterator[dict[str, Any]]:
    """Every object ``tars-components render`` wrote under ``render_dir``."""
    for path in sorted(render_dir.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                yield doc


# --- a Stellaris management cluster ----------------------------------------------------------

STELLARIS_SECRETS = "stellaris-system"
"""The namespace of the management cluster that holds the clusters' credentials."""

STELLARIS_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "clusters.stellaris.harmonycloud.cn"},
    "spec": {
        "group": "stellaris.harmonycloud.cn",
        "scope": "Cluster",
        "names": {"kind": "Cluster", "plural": "clusters", "singular": "cluster"},
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            }
        ],
    },
}
"""Stellaris's Cluster kind as a management cluster serves it (a CRD written for these tests:
cluster-scoped, any spec and status)."""


def stellaris_cluster(name: str, cluster: Cluster, wave: int, env: str) -> dict[str, Any]:
    """The Stellaris Cluster of ``cluster``, healthy, labelled ``env=<env>``, in ``wave``, its
    credentials in the Secret :func:`stellaris_secret` writes."""
    return {
        "apiVersion": "stellaris.harmonycloud.cn/v1alpha1",
        "kind": "Cluster",
        "metadata": {
            "name": name,
            "labels": {"env": env},
            "annotations": {"tars-components.io/wave": str(wave)},
        },
        "spec": {
            "apiserver": cluster.api_server,
            "secretRef": {
                "type": "kubeconfig",
                "name": f"cluster-{name}-secret",
                "namespace": STELLARIS_SECRETS,
                "field": "admin.conf",
            },
        },
        "status": {"healthy": True, "status": "online"},
    }


def stellaris_secret(management: Cluster, name: str, cluster: Cluster) -> None:
    """The Secret holding ``cluster``'s kubeconfig in ``management``."""
    text = cluster.kubeconfig.read_text(encoding="utf-8")
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": f"cluster-{name}-secret", "namespace": STELLARIS_SECRETS},
        "data": {"admin.conf": base64.b64encode(text.encode()).decode()},
    }
    management.kubectl("apply", "-f", "-", stdin=json.dumps(secret))


def stellaris_inventory(management: Cluster, fleet: Mapping[str, Cluster], env: str) -> None:
    """``management`` serving the Stellaris Cluster kind, with a Cluster and a credentials
    Secret (in :data:`STELLARIS_SECRETS`, which must exist) for each of ``fleet``, in waves in
    its order."""
    management.kubectl("apply", "-f", "-", stdin=json.dumps(STELLARIS_CRD))
    management.kubectl(
        "wait", "--for=condition=Established", "crd/clusters.stellaris.harmonycloud.cn"
    )
    for wave, (name, cluster) in enumerate(fleet.items()):
        stellaris_secret(management, name, cluster)
        body = stellaris_cluster(name, cluster, wave, env)
        management.kubectl("apply", "-f", "-", stdin=json.dumps(body))
