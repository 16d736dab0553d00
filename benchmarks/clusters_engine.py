"""What a fleet costs a real ``pulumi preview`` (a script, not a test; docs/pulumi/clusters.md).

For each size (default 50 and 150 TServers: ``engine_scale.py``'s mixed servers, at 0
replicas), the project's program previews the same stack as a new Pulumi stack on three
loopback clusters of ``tools/e2e/cluster`` (``a``, ``b``, ``c`` in ``tars:clusters``, their
kubeconfigs as Pulumi secrets, waves 0, 1, 2) and, as the floor measured in the same run, on
one of them (``a`` alone, the same inventory code path), interleaved ``--repeat`` times. It
prints the median wall time of each and the ratio three/one, and the time per server and
cluster at the largest size over the smallest.

Targets: three clusters at most 3.3x one cluster; the time per server and cluster growing at
most 1.3x. Exit code 1 when missed.

Usage::

    python benchmarks/clusters_engine.py
    python benchmarks/clusters_engine.py --sizes 50 150 --repeat 3
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import engine_scale
import yaml
from support.engines import e2e

TARGET_RATIO = 3.3
TARGET_SCALING = 1.3
MEMBERS = ("a", "b", "c")
VARIANTS = {"one": MEMBERS[:1], "three": MEMBERS}


class Fleet:
    """The toolchain, three loopback clusters and a Pulumi home for both stacks."""

    def __init__(self, root: Path) -> None:
        self.root = root
        found = e2e.toolchain(build=True)
        assert isinstance(found, dict)
        e2e.cluster_up(root / "fleet", MEMBERS, namespaces=(engine_scale.NAMESPACE,), nodes=1)
        self.clusters = {m: e2e.Cluster(root / "fleet", m, found["kubectl"]) for m in MEMBERS}
        self.venv = e2e.program_venv(root / "venv")
        self.pulumi = e2e.Pulumi(found, home=root / "home", state=root / "state")
        self.pulumi.home.mkdir()
        self.pulumi.state.mkdir()
        self.pulumi.install_kubernetes_plugin()
        self.project = e2e.project_copy(root / "project", self.venv)

    def close(self) -> None:
        e2e.cluster_down(self.root / "fleet")

    def stack(self, name: str, members: tuple[str, ...], stack_dir: Path) -> None:
        """A Pulumi stack ``name`` of the stack directory on ``members``."""
        clusters = []
        for wave, member in enumerate(members):
            config = yaml.safe_load(self.clusters[member].kubeconfig.read_text(encoding="utf-8"))
            server = config["clusters"][0]["cluster"]["server"]
            clusters.append(
                {"name": member, "apiServer": server, "credentials": f"kc-{member}", "wave": wave}
            )
        config = {
            "config": {
                "tars:namespace": engine_scale.NAMESPACE,
                "tars:stackDir": str(stack_dir),
                "tars:mode": "expand",
                "tars:renderDir": "",
                "tars:clusters": clusters,
            }
        }
        (self.project / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(config))
        self.pulumi("stack", "init", name, cwd=self.project).ok()
        for member in members:
            text = self.clusters[member].kubeconfig.read_text(encoding="utf-8")
            self.pulumi(
                "config",
                "set",
                "--secret",
                f"kc-{member}",
                text,
                "--stack",
                name,
                cwd=self.project,
            ).ok()

    def preview(self, name: str) -> float:
        start = time.perf_counter()
        self.pulumi("preview", "--stack", name, cwd=self.project, timeout=3600).ok()
        return time.perf_counter() - start

    def remove(self, name: str) -> None:
        self.pulumi("stack", "rm", "--yes", "--force", name, cwd=self.project).ok()


def measure(fleet: Fleet, servers: int, repeat: int) -> dict[str, float]:
    """The median seconds of each variant's preview at ``servers`` servers."""
    stack_dir = fleet.root / f"stack-{servers}"
    shutil.rmtree(stack_dir, ignore_errors=True)
    engine_scale.generate_stack(stack_dir, servers)
    for name, members in VARIANTS.items():
        fleet.stack(name, members, stack_dir)
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(repeat):
        for name in VARIANTS:
            times[name].append(fleet.preview(name))
    for name in VARIANTS:
        fleet.remove(name)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 150])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    rows: dict[int, dict[str, float]] = {}
    ok = True
    print("| servers | one cluster s | three clusters s | ratio |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="clusters-engine-") as tmp:
        fleet = Fleet(Path(tmp))
        try:
            for size in args.sizes:
                row = rows[size] = measure(fleet, size, args.repeat)
                ratio = row["three"] / row["one"]
                print(
                    f"| {size:,} | {row['one']:.1f} | {row['three']:.1f} | {ratio:.2f} |",
                    flush=True,
                )
                if ratio > TARGET_RATIO:
                    ok = False
                    print(f"MISSED: {size} servers, three/one {ratio:.2f}")
        finally:
            fleet.close()
    if len(rows) > 1:
        small, large = min(rows), max(rows)
        for name, members in VARIANTS.items():
            per = {s: rows[s][name] / (s * len(members)) for s in (small, large)}
            growth = per[large] / per[small]
            print(f"{name}: time per server and cluster at {large} / at {small}: {growth:.2f}")
            if growth > TARGET_SCALING:
                ok = False
                print(f"MISSED: {name} per-server time grows {growth:.2f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
