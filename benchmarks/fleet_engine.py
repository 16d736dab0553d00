"""What the fleet's own machinery costs on real clusters (a script, not a test;
docs/pulumi/clusters.md, docs/cli/diff.md).

On three loopback clusters of ``tools/e2e/cluster`` (``a``, ``b``, ``c``; ``a`` also the
Stellaris management cluster holding the inventory and the credentials), for each size
(default 30 TServers: ``engine_scale.py``'s mixed servers, at 0 replicas), three pairs, each
against a floor measured in the same run, interleaved ``--repeat`` times, medians:

* **management read**: ``pulumi preview`` of a stack whose inventory is read from the
  management cluster (``tars:managementCluster``: LIST the Clusters, read each Secret) over
  the same stack with the inventory in ``tars:clusters``;
* **wave gates**: ``pulumi up`` of a change to every server on every cluster with ``tars:waves``
  (a ``WaveGate`` after each wave polls the clusters) over the same change awaited by
  pulumi-kubernetes (no ``tars:waves``);
* **live diff of every cluster**: ``tars-components diff --stack ENV --live-from-clusters``
  (each cluster's namespace read through the kubeconfig context of its name) over
  ``tars-components render --stack ENV`` of the same stack (which the diff does too).

Targets: management read at most 1.3x, wave gates at most 1.5x, the live diff at most 3x
(three clusters read, each about as costly as a render). Exit code 1 when missed.

Usage::

    python benchmarks/fleet_engine.py
    python benchmarks/fleet_engine.py --sizes 30 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "benchmarks", REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import engine_scale  # noqa: E402  (benchmarks/ is the script's directory)
import yaml  # noqa: E402
from support.builders.clusters import override  # noqa: E402
from support.builders.documents import stack_text  # noqa: E402
from support.engines import e2e  # noqa: E402

MEMBERS = ("a", "b", "c")
ENV = "bench"
TARGETS = {"management read": 1.3, "wave gates": 1.5, "live diff": 3.0}


class Fleet:
    """The toolchain, three loopback clusters (the inventory in ``a``), a Pulumi home and a
    kubeconfig whose contexts are named after the clusters."""

    def __init__(self, root: Path) -> None:
        self.root = root
        found = e2e.toolchain(build=True)
        assert isinstance(found, dict)
        namespaces = (engine_scale.NAMESPACE, e2e.STELLARIS_SECRETS)
        e2e.cluster_up(root / "fleet", MEMBERS, namespaces=namespaces, nodes=1)
        self.clusters = {m: e2e.Cluster(root / "fleet", m, found["kubectl"]) for m in MEMBERS}
        e2e.stellaris_inventory(self.clusters["a"], self.clusters, ENV)
        self.venv = e2e.program_venv(root / "venv")
        self.kubeconfig = root / "contexts.yaml"
        self.kubeconfig.write_text(yaml.safe_dump(self._contexts()), encoding="utf-8")
        self.pulumi = e2e.Pulumi(
            found, home=root / "home", state=root / "state", kubeconfig=self.kubeconfig
        )
        self.pulumi.home.mkdir()
        self.pulumi.state.mkdir()
        self.pulumi.install_kubernetes_plugin()
        self.project = e2e.project_copy(root / "project", self.venv)

    def _contexts(self) -> dict[str, object]:
        """One kubeconfig with a context per cluster, named after it."""
        merged: dict[str, list[dict[str, object]]] = {"clusters": [], "users": [], "contexts": []}
        for name, cluster in self.clusters.items():
            config = yaml.safe_load(cluster.kubeconfig.read_text(encoding="utf-8"))
            merged["clusters"].append({"name": name, "cluster": config["clusters"][0]["cluster"]})
            merged["users"].append({"name": name, "user": config["users"][0]["user"]})
            merged["contexts"].append({"name": name, "context": {"cluster": name, "user": name}})
        return {"apiVersion": "v1", "kind": "Config", "current-context": "a", **merged}

    def close(self) -> None:
        e2e.cluster_down(self.root / "fleet")

    def stack(self, name: str, stack_dir: Path, management: bool) -> None:
        """Stack ``name`` of ``stack_dir`` on the three clusters: its inventory read from the
        management cluster, or listed in ``tars:clusters`` (credentials as Pulumi secrets)."""
        config: dict[str, object] = {
            "tars:namespace": engine_scale.NAMESPACE,
            "tars:stackDir": str(stack_dir),
            "tars:mode": "expand",
            "tars:renderDir": "",
        }
        secrets = {}
        if management:
            config["tars:managementCluster"] = {"kubeconfig": "mgmt", "labelSelector": f"env={ENV}"}
            secrets["mgmt"] = self.clusters["a"].kubeconfig.read_text(encoding="utf-8")
        else:
            clusters, secrets = e2e.clusters_config(self.clusters)
            config["tars:clusters"] = clusters
        (self.project / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))
        self.pulumi("stack", "init", name, cwd=self.project).ok()
        for key, value in secrets.items():
            self.pulumi(
                "config", "set", "--secret", key, value, "--stack", name, cwd=self.project
            ).ok()

    def timed(self, *args: str) -> float:
        start = time.perf_counter()
        self.pulumi(*args, cwd=self.project, timeout=3600).ok()
        return time.perf_counter() - start

    def cli(self, *args: str, says: tuple[str, ...] = ()) -> float:
        """Seconds of ``tars-components ARGS`` in the project, which must exit 0 and print
        each of ``says``."""
        env = {**self.pulumi.env(), "KUBECONFIG": str(self.kubeconfig)}
        start = time.perf_counter()
        done = subprocess.run(
            [str(self.venv / "bin" / "tars-components"), *args],
            cwd=self.project,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - start
        missing = [text for text in says if text not in done.stdout]
        if done.returncode != 0 or missing:
            raise RuntimeError(f"tars-components {' '.join(args)}: {done.stdout}{done.stderr}")
        return seconds


def interleaved(pair: dict[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """The median seconds of each of ``pair``, run in turn ``repeat`` times."""
    times: dict[str, list[float]] = {name: [] for name in pair}
    for _ in range(repeat):
        for name, run in pair.items():
            times[name].append(run())
    return {name: statistics.median(values) for name, values in times.items()}


def measure(fleet: Fleet, servers: int, repeat: int) -> dict[str, dict[str, float]]:
    """Each pair's medians at ``servers`` servers."""
    stack_dir = fleet.root / f"stack-{servers}"
    shutil.rmtree(stack_dir, ignore_errors=True)
    engine_scale.generate_stack(stack_dir, servers)
    fleet.stack("files", stack_dir, management=False)
    fleet.stack("mgmt", stack_dir, management=True)
    found: dict[str, dict[str, float]] = {}
    found["management read"] = interleaved(
        {
            "management": lambda: fleet.timed("preview", "--stack", "mgmt"),
            "files": lambda: fleet.timed("preview", "--stack", "files"),
        },
        repeat,
    )
    fleet.timed("up", "--yes", "--skip-preview", "--stack", "files")
    rounds = iter(range(1, 1000))
    waves = json.dumps({"timeoutSeconds": 600})

    def up(gated: bool) -> float:
        # a new env value for every server on every cluster: every workload changes
        value = str(next(rounds))
        env = [{"name": "BENCH_ROUND", "value": value}]
        change = override("round", clusters=list(MEMBERS), targets=[{"kind": "TServer"}], env=env)
        (stack_dir / "zz-round.yaml").write_text(stack_text(change), encoding="utf-8")
        key = ("config", "set", "tars:waves", waves) if gated else ("config", "rm", "tars:waves")
        fleet.pulumi(*key, "--stack", "files", cwd=fleet.project).ok()
        return fleet.timed("up", "--yes", "--skip-preview", "--stack", "files")

    found["wave gates"] = interleaved(
        {"gates": lambda: up(True), "awaits": lambda: up(False)}, repeat
    )
    out = fleet.root / "render-out"
    found["live diff"] = interleaved(
        {
            "live diff": lambda: fleet.cli(
                "diff",
                "--stack",
                "files",
                "--live-from-clusters",
                says=tuple(f"=== cluster {m} ===" for m in MEMBERS),
            ),
            "render": lambda: fleet.cli("render", "--stack", "files", "--out", str(out)),
        },
        repeat,
    )
    for name in ("files", "mgmt"):
        fleet.pulumi("stack", "rm", "--yes", "--force", name, cwd=fleet.project).ok()
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    ok = True
    print("| servers | pair | measured s | floor s | ratio | target |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="fleet-engine-") as tmp:
        fleet = Fleet(Path(tmp))
        try:
            for size in args.sizes:
                for pair, times in measure(fleet, size, args.repeat).items():
                    measured, floor = times.values()
                    ratio = measured / floor
                    target = TARGETS[pair]
                    print(
                        f"| {size:,} | {pair} | {measured:.1f} | {floor:.1f} | {ratio:.2f} "
                        f"| {target} |",
                        flush=True,
                    )
                    if ratio > target:
                        ok = False
                        print(f"MISSED: {pair} at {size} servers, {ratio:.2f} > {target}")
        finally:
            fleet.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
