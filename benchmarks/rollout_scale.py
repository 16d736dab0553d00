"""Scale benchmark of Rollouts (a script, not a test; docs/concepts/rollout.md).

It generates the mixed stack of ``render_scale.py`` (default 1,000 TServers, one file each)
twice: as it is (the floor), and with a Rollout beside every released StatefulSet TServer
in the same file (steps ``[1, "50%", "100%"]`` at step 0, so each carries a partition and a
wait condition).
Both are rendered in-process exactly as ``tars-components render`` does (load, validate,
expand, YAML, write the tree) in expand and in crd mode, best of ``--repeat`` renders each,
interleaved one by one. That is one run; the script makes ``--runs`` of them, each in a fresh
process (on a shared machine a process's speed varies by up to 15 % from one process to the
next, and not always alike for the two stacks), and prints each run's times and ratio, then
the median ratio per mode.

Target: the median ratio is at most 1.1 (the Rollouts cost linear work: one pass to check
them, one to apply them). The exit code is 1 when it is missed.

Usage::

    python benchmarks/rollout_scale.py
    python benchmarks/rollout_scale.py --servers 1000 --runs 3 --repeat 15 --tmpdir /dev/shm
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import yaml  # noqa: E402
from render_scale import _DUMPER, _dump_all, generate_stack, server_document  # noqa: E402
from timing import best_wall_time  # noqa: E402

from tars_components.jobs.render import render_stack  # noqa: E402
from tars_components.kernel.yaml_reader import load_documents  # noqa: E402
from tars_components.settings.options import Mode, Options  # noqa: E402

NAMESPACE = "tars-bench"
TARGET_RATIO = 1.1


def rollout_document(server: dict[str, Any]) -> dict[str, Any] | None:
    """A Rollout at step 0 for a released StatefulSet TServer (None for the others)."""
    spec = server["spec"]
    if spec["k8s"].get("daemonSet") or "release" not in spec:
        return None
    release = spec["release"]
    return {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": server["metadata"]["name"]},
        "spec": {
            "steps": [1, "50%", "100%"],
            "step": 0,
            "stable": {"id": f"{release['id']}-stable", "image": f"{release['image']}-stable"},
        },
    }


def _issue_style(rollout: dict[str, Any]) -> str:
    """A Rollout as the docs write it: flow style for the small mappings and the steps."""
    return yaml.dump(rollout, Dumper=_DUMPER, sort_keys=False, default_flow_style=None)


def rollout_texts(servers: int) -> list[str]:
    """The Rollout documents of :func:`generate_rollouts`, as text."""
    found = (rollout_document(server_document(index)) for index in range(servers))
    return [_issue_style(rollout) for rollout in found if rollout is not None]


def generate_rollouts(directory: Path, servers: int) -> int:
    """Each server file of the stack in ``directory`` with its Rollout after its TServer (a
    release and its canary steps reviewed together)."""
    count = 0
    for index in range(servers):
        server = server_document(index)
        rollout = rollout_document(server)
        if rollout is not None:
            text = _dump_all([server]) + "---\n" + _issue_style(rollout)
            (directory / f"srv-{index:05d}.yaml").write_text(text, encoding="utf-8")
            count += 1
    return count


def render_time(stack: Path, out: Path, mode: Mode, repeat: int) -> float:
    options = Options(namespace=NAMESPACE, mode=mode)

    def once() -> None:
        if out.exists():
            shutil.rmtree(out)
        result = render_stack(stack, out, options)
        if not result.build.ok:
            raise SystemExit(f"{stack}: {result.build.violations[:3]}")

    return best_wall_time(once, repeat)


def measure_run(servers: int, repeat: int, tmpdir: str | None) -> dict[str, tuple[float, float]]:
    """One run (one process): per mode, the best time without and with Rollouts."""
    times: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(dir=tmpdir) as tmp:
        root = Path(tmp)
        plain, with_rollouts = root / "plain", root / "rollouts"
        generate_stack(plain, servers)
        generate_stack(with_rollouts, servers)
        generate_rollouts(with_rollouts, servers)
        for mode in (Mode.EXPAND, Mode.CRD):
            floor = with_time = float("inf")
            for _ in range(repeat):  # interleaved, so that a noisy neighbour hits both
                floor = min(floor, render_time(plain, root / "out-plain", mode, 1))
                with_time = min(
                    with_time, render_time(with_rollouts, root / "out-rollouts", mode, 1)
                )
            times[mode.value] = (floor, with_time)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15, help="renders of each stack per run")
    parser.add_argument("--runs", type=int, default=3, help="runs, each in a fresh process")
    parser.add_argument("--tmpdir", default=None, help="where to write the stacks and renders")
    parser.add_argument("--one-run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_run:  # a run of the parent below: its times as JSON
        print(json.dumps(measure_run(args.servers, args.repeat, args.tmpdir)))
        return 0
    count = sum(
        rollout_document(server_document(index)) is not None for index in range(args.servers)
    )
    print(f"{args.servers} servers, {count} Rollouts, {args.runs} runs of best of {args.repeat}")
    print("| run | mode | without s | with Rollouts s | ratio |")
    print("|---|---|---:|---:|---:|")
    ratios: dict[str, list[float]] = {mode.value: [] for mode in (Mode.EXPAND, Mode.CRD)}
    for run in range(1, args.runs + 1):
        command = [sys.executable, __file__, "--one-run", "--servers", str(args.servers)]
        command += ["--repeat", str(args.repeat)]
        command += ["--tmpdir", args.tmpdir] if args.tmpdir else []
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        for mode, (floor, with_time) in json.loads(done.stdout).items():
            ratios[mode].append(with_time / floor)
            print(f"| {run} | {mode} | {floor:.3f} | {with_time:.3f} | {with_time / floor:.3f} |")
    ok = True
    for mode, found in ratios.items():
        median = statistics.median(found)
        ok = ok and median <= TARGET_RATIO
        print(f"{mode}: median ratio {median:.3f} (runs {min(found):.3f}-{max(found):.3f})")
    texts = rollout_texts(args.servers)
    parse = best_wall_time(lambda: [load_documents(text) for text in texts], args.repeat)
    print(
        f"parsing the {len(texts)} Rollout documents alone (the YAML reader): {parse:.3f} s; "
        "the rest of the difference is reading, checking and applying them"
    )
    started = time.strftime("%H:%M:%S")
    print(f"target: median ratio <= {TARGET_RATIO}: {'met' if ok else 'MISSED'} ({started})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
