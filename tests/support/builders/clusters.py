"""Projects with a cluster inventory (docs/concepts/clusters.md): the dev stack on two clusters,
``sh`` and ``bj``, listed either in ``tars:clusters`` or as Stellaris Cluster documents, with
ClusterOverride documents added per test."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from support.builders.documents import stack_text
from support.engines.cli import run

ROOT = Path(__file__).resolve().parents[3]
DEV = ROOT / "stacks" / "dev"
ORDER = "shop-orderserver"
"""The dev stack's TServer with two replicas (bounds 1 to 4)."""

CONFIG_CLUSTERS = """\
config:
  tars:namespace: tars-dev
  tars:stackDir: stacks/dev
  tars:clusters:
    - name: sh
      apiServer: https://sh.example.com:6443
      credentials: kubeconfig-sh
      labels: {region: east}
    - name: bj
      apiServer: https://bj.example.com:6443
      credentials: kubeconfig-bj
      labels: {region: north}
      wave: 1
"""


def stellaris_cluster(name: str, region: str, wave: int = 0, **spec: Any) -> dict[str, Any]:
    """A Stellaris Cluster document as the seed writes it (credentials in a management
    cluster Secret, read here from Pulumi config ``tars:kubeconfig-<name>``)."""
    meta: dict[str, Any] = {"name": name, "labels": {"region": region}}
    if wave:
        meta["annotations"] = {"tars-components.io/wave": str(wave)}
    return {
        "apiVersion": "stellaris.harmonycloud.cn/v1alpha1",
        "kind": "Cluster",
        "metadata": meta,
        "spec": {
            "apiserver": f"https://{name}.example.com:6443",
            "secretRef": {
                "type": "kubeconfig",
                "name": f"kubeconfig-{name}",
                "namespace": "stellaris-system",
                "field": "admin.conf",
            },
            "addons": [{"type": "in-tree", "name": "kube-apiserver-healthy"}],
            **spec,
        },
    }


UNHEALTHY = {
    "healthy": False,
    "status": "offline",
    "conditions": [
        {
            "type": "KubernetesUnavailable",
            "reason": "ApiserverIsDown",
            "message": "Apiserver cannot provider service in this cluster",
        }
    ],
}
"""A Stellaris Cluster's status while its API server is down, as the seed writes it."""


def override(name: str, **spec: Any) -> dict[str, Any]:
    """A ClusterOverride document."""
    return {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "ClusterOverride",
        "metadata": {"name": name},
        "spec": spec,
    }


BJ_REPLICAS = override(
    "bj-replicas", clusters=["bj"], targets=[{"kind": "TServer", "name": ORDER}], replicas=3
)


def project(root: Path, *documents: dict[str, Any], stellaris: bool = False) -> Path:
    """The dev stack in ``root`` with ``documents`` added (``90-clusters.yaml``) and a
    Pulumi.mc.yaml: its clusters in ``tars:clusters``, or (``stellaris``) as Cluster documents
    of the stack."""
    shutil.copytree(DEV, root / "stacks" / "dev")
    extra = list(documents)
    if stellaris:
        extra = [stellaris_cluster("sh", "east"), stellaris_cluster("bj", "north", 1), *extra]
        config = "config:\n  tars:namespace: tars-dev\n  tars:stackDir: stacks/dev\n"
    else:
        config = CONFIG_CLUSTERS
    if extra:
        (root / "stacks" / "dev" / "90-clusters.yaml").write_text(stack_text(*extra))
    (root / "Pulumi.mc.yaml").write_text(config)
    return root


def tree(root: Path) -> dict[str, str]:
    """``{relative path: text}`` of every file under ``root``."""
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def live_diff(root: Path, export: Path, cluster: str, *extra: str) -> Any:
    """``tars-components diff --live EXPORT --stack mc --cluster CLUSTER`` in ``root``."""
    return run(
        "diff", "--live", str(export), "--stack", "mc", "--cluster", cluster, *extra, cwd=root
    )
