"""What the workload seeds cost a real ``pulumi preview`` (a script, not a test;
docs/concepts/live.md, docs/concepts/rollout.md).

For each size (default 100 and 300 TServers: ``engine_scale.py``'s mixed servers, at 0
replicas) the project's program is brought ``up`` once on a loopback cluster of
``tools/e2e/cluster`` with the real ``pulumi`` CLI, so that every object exists with its
``managedFields``; then three previews of that deployed stack, interleaved ``--repeat`` times:

* **floor**: the stack as it is, ``tars:liveChecks: false`` (the stack alone decides);
* **live**: the same with ``tars:liveChecks: true``: the namespace read from the API server
  (workloads, HPAs, claims, StorageClasses), the replicas that run, the previous version of
  the storage rules taken from the cluster, and the conflict forecast over every object's
  ``managedFields``;
* **rollout**: a Rollout beside every released StatefulSet TServer (step 0 of ``[1, "50%",
  "100%"]``), live checks off. At 0 replicas a step's partition is 0, so the objects, and the
  engine's work on them, are the floor's: the difference is the Rollouts' own.

It prints the median wall time of each ``pulumi preview`` and the ratios live/floor and
rollout/floor, and the per-server time of each at the largest size over the smallest.
Targets: each ratio <= 1.2, per-server time growing at most 1.3x. Exit code 1 when missed.

Usage::

    python benchmarks/seeds_engine.py
    python benchmarks/seeds_engine.py --sizes 100 300 --repeat 3
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
import rollout_scale

TARGET_RATIO = 1.2
TARGET_SCALING = 1.3
VARIANTS = ("floor", "live", "rollout")


def with_rollouts(plain: Path, directory: Path, servers: int) -> None:
    """``plain`` with a Rollout after every released StatefulSet TServer, in ``directory``."""
    shutil.copytree(plain, directory)
    for index in range(servers):
        path = directory / f"srv-{index:05d}.yaml"
        server = engine_scale.bench_document(index)
        rollout = rollout_scale.rollout_document(server)
        if rollout is not None:
            text = path.read_text(encoding="utf-8")
            path.write_text(text + "---\n" + rollout_scale._issue_style(rollout), encoding="utf-8")


def measure(bench: engine_scale.Bench, servers: int, repeat: int) -> dict[str, float]:
    """The median seconds of each variant's preview at ``servers`` servers."""
    root = bench.root
    for name in ("components", "stack", "rollout-stack"):
        shutil.rmtree(root / name, ignore_errors=True)
    plain, rolled = root / "stack", root / "rollout-stack"
    engine_scale.generate_stack(plain, servers)
    with_rollouts(plain, rolled, servers)
    project = bench.components_project(plain)
    pulumi = bench.pulumi
    pulumi.extra_env["BENCH_RSS_FILE"] = str(root / "rss")  # the program's prologue writes it

    def config(stack_dir: Path, live: bool) -> None:
        for key, value in (("tars:stackDir", str(stack_dir)), ("tars:liveChecks", str(live))):
            pulumi(
                "config", "set", key, value.lower(), "--stack", engine_scale.STACK, cwd=project
            ).ok()

    pulumi("stack", "init", engine_scale.STACK, cwd=project).ok()
    config(plain, False)
    pulumi(
        "up", "--yes", "--skip-preview", "--stack", engine_scale.STACK, cwd=project, timeout=3600
    ).ok()
    settings = {"floor": (plain, False), "live": (plain, True), "rollout": (rolled, False)}
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(repeat):
        for name in VARIANTS:
            config(*settings[name])
            start = time.perf_counter()
            pulumi("preview", "--stack", engine_scale.STACK, cwd=project, timeout=3600).ok()
            times[name].append(time.perf_counter() - start)
    bench.clear()
    pulumi("stack", "rm", "--yes", "--force", engine_scale.STACK, cwd=project).ok()
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    rows: dict[int, dict[str, float]] = {}
    ok = True
    print("| servers | floor s | live s | ratio | rollout s | ratio |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="seeds-engine-") as tmp:
        bench = engine_scale.Bench(Path(tmp))
        try:
            for size in args.sizes:
                row = rows[size] = measure(bench, size, args.repeat)
                live, rollout = row["live"] / row["floor"], row["rollout"] / row["floor"]
                print(
                    f"| {size:,} | {row['floor']:.1f} | {row['live']:.1f} | {live:.2f} | "
                    f"{row['rollout']:.1f} | {rollout:.2f} |",
                    flush=True,
                )
                for name, ratio in (("live", live), ("rollout", rollout)):
                    if ratio > TARGET_RATIO:
                        ok = False
                        print(f"MISSED: {size} servers, {name}/floor {ratio:.2f}")
        finally:
            bench.close()
    if len(rows) > 1:
        small, large = min(rows), max(rows)
        for name in VARIANTS:
            growth = (rows[large][name] / large) / (rows[small][name] / small)
            print(f"{name}: per-server time at {large} / at {small}: {growth:.2f}")
            if growth > TARGET_SCALING:
                ok = False
                print(f"MISSED: {name} per-server time grows {growth:.2f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
