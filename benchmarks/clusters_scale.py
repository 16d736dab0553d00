"""Scale benchmark of a render on several clusters (a script, not a test).

For each size (default 100 and 1,000 TServers) it generates the mixed stack of
``render_scale.py``, then renders it as ``tars-components render`` does twice: once for one
cluster (the stack as it is: the floor, measured in the same run) and once with three Stellaris
Cluster documents (``sh``, ``bj``, ``gz``) and two ClusterOverrides (replicas for every
server of the clusters labelled ``region: north``, an env variable for ``gz``), writing
``OUT/<cluster>/`` per cluster. It prints the wall times (best of ``--repeat``) and the ratio
of the three-cluster render to the one-cluster floor.

Target (2-core machine): three clusters within 3.3x of one cluster at 1,000 servers (the
stack is loaded once; each cluster's documents are built and written). The exit code is 1
when the target is missed.

Usage::

    python benchmarks/clusters_scale.py
    python benchmarks/clusters_scale.py --sizes 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
for entry in (REPO, REPO / "benchmarks"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from render_scale import NAMESPACE, generate_stack  # noqa: E402
from timing import best_wall_time  # noqa: E402

TARGET_RATIO = 3.3
DEFAULT_SIZES = (100, 1000)

CLUSTER_DOCS = [
    {
        "apiVersion": "stellaris.harmonycloud.cn/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": {"region": region}},
        "spec": {
            "apiserver": f"https://{name}.example.com:6443",
            "secretRef": {
                "type": "kubeconfig",
                "name": f"kubeconfig-{name}",
                "namespace": "stellaris-system",
                "field": "admin.conf",
            },
        },
    }
    for name, region in (("sh", "east"), ("bj", "north"), ("gz", "north"))
]
OVERRIDES = [
    {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "ClusterOverride",
        "metadata": {"name": "north-replicas"},
        "spec": {"clusterSelector": {"matchLabels": {"region": "north"}}, "replicas": 3},
    },
    {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "ClusterOverride",
        "metadata": {"name": "gz-env"},
        "spec": {"clusters": ["gz"], "env": [{"name": "REGION", "value": "gz"}]},
    },
]


def one_cluster(stack_dir: Path, out_dir: Path) -> None:
    """``render`` of the stack as it is (no inventory)."""
    from tars_components.jobs.render import render_stack
    from tars_components.settings.options import Options

    result = render_stack(stack_dir, out_dir, Options(namespace=NAMESPACE))
    if not result.build.ok:
        raise SystemExit("benchmark stack has rule errors")


def three_clusters(stack_dir: Path, out_dir: Path) -> None:
    """``render`` of the stack with its three clusters, as the CLI runs it."""
    from tars_components.jobs.multicluster import render_clusters
    from tars_components.loading.load import load_stack
    from tars_components.settings.options import Options

    options = Options(namespace=NAMESPACE)
    stack = load_stack(stack_dir, NAMESPACE)
    result = render_clusters(stack, stack_dir, out_dir, options)
    if not result.build.ok or len(result.build.results) != 3:
        errors = [v.format() for v in result.build.all_violations if v.is_error][:5]
        raise SystemExit("benchmark stack has rule errors:\n" + "\n".join(errors))


def measure(servers: int, repeat: int, tmpdir: str | None) -> tuple[float, float]:
    """(one cluster, three clusters) best wall times for ``servers``."""
    with tempfile.TemporaryDirectory(dir=tmpdir) as scratch:
        root = Path(scratch)
        single, multi = root / "single", root / "multi"
        generate_stack(single, servers)
        generate_stack(multi, servers)
        text = yaml.safe_dump_all([*CLUSTER_DOCS, *OVERRIDES], sort_keys=False)
        (multi / "zz-clusters.yaml").write_text(text, encoding="utf-8")
        floor = best_wall_time(lambda: one_cluster(single, root / "out-1"), repeat)
        total = best_wall_time(lambda: three_clusters(multi, root / "out-3"), repeat)
    return floor, total


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when the 1,000-server ratio misses the target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (best is kept)")
    parser.add_argument("--tmpdir", metavar="DIR", help="where stacks and output are written")
    args = parser.parse_args(argv)
    print(f"{'servers':>8} {'1 cluster s':>12} {'3 clusters s':>13} {'ratio':>6}")
    ok = True
    for size in args.sizes:
        floor, total = measure(size, args.repeat, args.tmpdir)
        ratio = total / floor
        print(f"{size:>8} {floor:>12.3f} {total:>13.3f} {ratio:>6.2f}")
        if size >= 1000 and ratio > TARGET_RATIO:
            ok = False
    print(f"target: 3 clusters within {TARGET_RATIO}x of one cluster (1,000 servers)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
