"""Scale benchmark of the render pipeline (a script, not a test).

For each size (default 10, 100, 1,000 and 5,000 TServers) it generates a stack directory of
mixed servers — Tars and normal StatefulSets, hostPorts, tLocalVolumes, DaemonSets, a few
unreleased servers — one YAML file per server, then runs the whole pipeline in-process exactly
as ``tars-components render`` does (load → mutate/validate → expand → YAML → write the tree)
and prints, per size: wall time (best of ``--repeat`` runs, with the time of each stage),
number of objects, peak memory (resident set size of the process, measured in a fresh child
process per size), and the ratio of the whole render time to the floor time of serializing
the same objects with PyYAML's C dumper (``yaml.dump(obj, Dumper=yaml.CSafeDumper)``).
It also times the input-limit checks the loader runs on every file (size, nesting bound, alias
presence; ``tars_components.kernel.limits.Limits``) on their own, and prints their share of the
render.

Targets (2-core machine): 1,000 servers end to end < 2 s; ratio < 3 (1,000 and 5,000
servers); 5,000 servers within 5.5x the 1,000-server time. The exit code is 1 when a target is
missed.

Usage::

    python benchmarks/render_scale.py                  # the table
    python benchmarks/render_scale.py --sizes 1000 --repeat 5
    python benchmarks/render_scale.py --profile 1000   # cProfile of one 1,000-server render
    python benchmarks/render_scale.py --tmpdir /dev/shm  # write to tmpfs: the pipeline alone
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

NAMESPACE = "tars-bench"
REGISTRY = "registry.example.com/bench"
DEFAULT_SIZES = (10, 100, 1000, 5000)
TARGET_SECONDS_1000 = 2.0
TARGET_RATIO = 3.0
TARGET_SCALING = 5.5

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# --- stack generation ---------------------------------------------------------------------

FRAMEWORK_DOCS: list[dict[str, Any]] = [
    {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TFrameworkConfig",
        "metadata": {"name": "tars-framework"},
        "imageUpload": {"registry": f"{REGISTRY}/upload"},
        "imageBuild": {"executor": {"image": f"{REGISTRY}/tars.tarskaniko:v1.4.0"}},
        "nodeImage": {"image": f"{REGISTRY}/tars.tarsnode:v1.4.0", "secret": "node-pull"},
    },
    {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TTemplate",
        "metadata": {"name": "tars.default"},
        "spec": {"parent": "tars.default", "content": "<tars>\n</tars>\n"},
    },
    {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TTemplate",
        "metadata": {"name": "tars.cpp"},
        "spec": {"parent": "tars.default", "content": ""},
    },
]

LOG_ENV = [
    {"name": "Namespace", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
    {"name": "PodName", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
]
LOG_MOUNT = {
    "name": "host-log-dir",
    "source": {"hostPath": {"path": "/usr/local/app/tars/app_log", "type": "DirectoryOrCreate"}},
    "mountPath": "/usr/local/app/tars/app_log",
    "subPathExpr": "$(Namespace)/$(PodName)",
}


def server_document(index: int) -> dict[str, Any]:
    """TServer number ``index``: one of five shapes in turn (Tars with hostPorts, normal with
    replica bounds, Tars with a tLocalVolume, Tars DaemonSet, normal with secret/configMap
    mounts); every tenth Tars StatefulSet is not released yet."""
    app, server = f"bench{index // 100}", f"Srv{index}"
    shape = index % 5
    tars = {
        "template": "tars.cpp",
        "servants": [
            {"name": "MainObj", "port": 10000 + shape},
            {"name": "UdpObj", "port": 11000 + shape, "isTcp": False},
        ],
    }
    k8s: dict[str, Any] = {"replicas": 2, "env": LOG_ENV, "mounts": [LOG_MOUNT]}
    spec: dict[str, Any] = {"app": app, "server": server}
    metadata: dict[str, Any] = {"name": f"{app}-{server.lower()}"}
    if shape == 0:
        spec.update(subType="tars", tars=tars)
        k8s["hostPorts"] = [{"nameRef": "mainobj", "port": 20000 + index % 30000}]
    elif shape == 1:
        spec.update(subType="normal", normal={"ports": [{"name": "http", "port": 8080}]})
        metadata["annotations"] = {"tars.io/MinReplicas": "1", "tars.io/MaxReplicas": "5"}
        k8s["resources"] = {"requests": {"cpu": "100m", "memory": "128Mi"}}
    elif shape == 2:
        spec.update(subType="tars", tars=tars)
        k8s["mounts"] = [
            LOG_MOUNT,
            {"name": "data", "source": {"tLocalVolume": {}}, "mountPath": "/data"},
            {"name": "scratch", "source": {"emptyDir": {}}, "mountPath": "/scratch"},
        ]
        k8s["abilityAffinity"] = "ServerRequired"
        k8s["nodeSelector"] = [{"key": "disk", "operator": "In", "values": ["ssd"]}]
    elif shape == 3:
        spec.update(subType="tars", tars=tars)
        k8s["daemonSet"] = True
        k8s["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}
    else:
        spec.update(subType="normal", normal={"ports": [{"name": "grpc", "port": 9090}]})
        k8s["notStacked"] = True
        k8s["envFrom"] = [{"prefix": "APP_", "configMapRef": {"name": f"{app}-settings"}}]
        k8s["mounts"] = [
            LOG_MOUNT,
            {"name": "tls", "source": {"secret": {"secretName": "tls"}}, "mountPath": "/tls"},
            {"name": "conf", "source": {"configMap": {"name": "conf"}}, "mountPath": "/conf"},
        ]
    spec["k8s"] = k8s
    if not (shape == 0 and index % 10 == 0):
        spec["release"] = {
            "id": f"r{index}",
            "image": f"{REGISTRY}/{app}/{server.lower()}:r{index}",
            "secret": "bench-pull",
        }
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": metadata,
        "spec": spec,
    }


def generate_stack(directory: Path, servers: int) -> None:
    """Write the framework documents and ``servers`` TServer files (one per file)."""
    directory.mkdir(parents=True, exist_ok=True)
    dump = _dump_all
    (directory / "00-framework.yaml").write_text(dump(FRAMEWORK_DOCS), encoding="utf-8")
    for index in range(servers):
        text = dump([server_document(index)])
        (directory / f"srv-{index:05d}.yaml").write_text(text, encoding="utf-8")


def _dump_all(documents: list[dict[str, Any]]) -> str:
    return yaml.dump_all(documents, Dumper=_DUMPER, sort_keys=False, default_flow_style=False)


# --- the pipeline, as the render command runs it -------------------------------------------


@dataclass
class Measurement:
    """One size's figures (seconds, except where named)."""

    servers: int
    objects: int
    total: float
    load: float
    build: float
    dump: float
    write: float
    floor: float
    limits: float
    peak_rss_mib: float
    baseline_rss_mib: float

    @property
    def ratio(self) -> float:
        """Whole render time over the C-dumper floor."""
        return self.total / self.floor if self.floor else float("inf")


def render_like_the_cli(stack_dir: Path, out_dir: Path) -> float:
    """``render_stack``, the very call behind ``tars-components render``; its wall time."""
    from tars_components.jobs.render import render_stack
    from tars_components.settings.options import Options

    start = time.perf_counter()
    result = render_stack(stack_dir, out_dir, Options(namespace=NAMESPACE))
    elapsed = time.perf_counter() - start
    if not result.build.ok:
        errors = [v.format() for v in result.build.violations if v.is_error][:5]
        raise SystemExit("benchmark stack has rule errors:\n" + "\n".join(errors))
    return elapsed


def render_in_stages(
    stack_dir: Path, out_dir: Path
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The same steps as ``render_stack`` (GC paused likewise), timed one by one: load →
    build (mutate, validate, expand) → render_files (YAML text) → write_tree."""
    from tars_components.jobs.render import render_files
    from tars_components.jobs.tree_writer import write_tree
    from tars_components.kernel.batch import suspended_gc
    from tars_components.loading.load import load_stack
    from tars_components.pipeline import build
    from tars_components.settings.options import Options

    options = Options(namespace=NAMESPACE)
    clock = time.perf_counter
    with suspended_gc():
        t0 = clock()
        stack = load_stack(stack_dir, options.namespace)
        t1 = clock()
        result = build(stack, options)
        t2 = clock()
        files = render_files(result.objects)
        t3 = clock()
        write_tree(out_dir, files)
        t4 = clock()
    stages = {"load": t1 - t0, "build": t2 - t1, "dump": t3 - t2, "write": t4 - t3}
    return stages, result.objects


def floor_time(objects: list[dict[str, Any]]) -> float:
    """Time to serialize every object once with PyYAML's C dumper (the floor), with the GC
    paused as during a render (the conservative choice: a smaller floor, a larger ratio)."""
    from tars_components.kernel.batch import suspended_gc

    with suspended_gc():
        start = time.perf_counter()
        for obj in objects:
            yaml.dump(obj, Dumper=_DUMPER)
        return time.perf_counter() - start


def limit_checks_time(stack_dir: Path) -> float:
    """Time of the input-limit checks ``load_stack`` runs on every file of the stack (the
    size ``stat``, the nesting bound, the alias-presence scan), the texts already read."""
    from tars_components.kernel.limits import Limits
    from tars_components.kernel.yaml_reader import check_nesting, may_have_aliases

    limits = Limits()
    files = sorted(stack_dir.iterdir())
    texts = [f.read_text(encoding="utf-8") for f in files]
    start = time.perf_counter()
    total = sum(f.stat().st_size for f in files)
    assert total <= limits.max_stack_bytes
    for text in texts:
        check_nesting(text, limits.max_depth)
        may_have_aliases(text)
    return time.perf_counter() - start


def _rss_mib() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(servers: int, repeat: int, tmpdir: str | None = None) -> Measurement:
    """Generate a stack of ``servers`` TServers; best of ``repeat`` renders as the CLI does
    them, best of ``repeat`` stage-by-stage renders, best of ``repeat`` floors. Stack and
    output live under ``tmpdir`` (default: the system's temporary directory)."""
    with tempfile.TemporaryDirectory(prefix="tars-bench-", dir=tmpdir) as tmp:
        root = Path(tmp)
        generate_stack(root / "warmup", 5)
        render_like_the_cli(root / "warmup", root / "warmup-out")  # imports, lazy set-up
        stack_dir = root / "stack"
        generate_stack(stack_dir, servers)
        baseline_rss = _rss_mib()
        totals: list[float] = []
        stage_runs: list[dict[str, float]] = []
        objects: list[dict[str, Any]] = []
        for _ in range(repeat):  # alternated, so that both see the same file-system state
            objects = []  # one set of objects alive at a time, as in a real render
            totals.append(render_like_the_cli(stack_dir, root / "out"))
            stage_times, objects = render_in_stages(stack_dir, root / "out")
            stage_runs.append(stage_times)
        total = min(totals)
        peak_rss = _rss_mib()
        stages = {k: min(run[k] for run in stage_runs) for k in stage_runs[0]}
        floor = min(floor_time(objects) for _ in range(repeat))
        limits = min(limit_checks_time(stack_dir) for _ in range(repeat))
    return Measurement(
        servers=servers,
        objects=len(objects),
        total=total,
        **stages,
        floor=floor,
        limits=limits,
        peak_rss_mib=peak_rss,
        baseline_rss_mib=baseline_rss,
    )


# --- report --------------------------------------------------------------------------------


def measure_in_child(servers: int, repeat: int, tmpdir: str | None) -> Measurement:
    """Run :func:`measure` in a fresh interpreter, so peak RSS belongs to this size alone."""
    command = [sys.executable, __file__, "--child", str(servers), "--repeat", str(repeat)]
    if tmpdir:
        command += ["--tmpdir", tmpdir]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"{servers} servers: child failed\n{result.stdout}{result.stderr}")
    return Measurement(**json.loads(result.stdout.strip().splitlines()[-1]))


def print_table(rows: list[Measurement]) -> None:
    """The figures, one line per size."""
    header = (
        f"{'servers':>7} {'objects':>7} {'total s':>8} {'load':>7} {'build':>7} {'dump':>7} "
        f"{'write':>7} {'floor s':>8} {'ratio':>6} {'limits':>7} {'share':>6} "
        f"{'peak RSS MiB':>13} {'(before)':>9}"
    )
    print(header)
    print("-" * len(header))
    for m in rows:
        print(
            f"{m.servers:>7} {m.objects:>7} {m.total:>8.3f} {m.load:>7.3f} {m.build:>7.3f} "
            f"{m.dump:>7.3f} {m.write:>7.3f} {m.floor:>8.3f} {m.ratio:>6.2f} "
            f"{m.limits:>7.4f} {m.limits / m.total:>6.2%} "
            f"{m.peak_rss_mib:>13.1f} {m.baseline_rss_mib:>9.1f}"
        )
    print(
        "total = render_stack (what the CLI runs), best of the runs; load, build (mutate, "
        "validate, expand), dump (render_files), write (write_tree) = the same steps timed one "
        "by one, best of the runs;\nfloor = yaml.dump(obj, Dumper=CSafeDumper) per object; "
        "limits = the input-limit checks of every file alone (size, nesting bound, alias scan), "
        "share = limits / total;\npeak RSS = the child process's maximum resident set, "
        "(before) = before the first render."
    )


def check_targets(rows: list[Measurement]) -> bool:
    """Print each target with PASS/FAIL; True when all that can be checked pass."""
    by_size = {m.servers: m for m in rows}
    checks: list[tuple[str, bool]] = []
    one_k, five_k = by_size.get(1000), by_size.get(5000)
    if one_k:
        checks.append(
            (
                f"1,000 servers end to end < {TARGET_SECONDS_1000} s: {one_k.total:.3f} s",
                one_k.total < TARGET_SECONDS_1000,
            )
        )
    for m in (one_k, five_k):
        if m:
            checks.append(
                (
                    f"ratio at {m.servers:,} servers < {TARGET_RATIO}: {m.ratio:.2f}",
                    m.ratio < TARGET_RATIO,
                )
            )
    if one_k and five_k:
        factor = five_k.total / one_k.total
        checks.append(
            (
                f"5,000 servers within {TARGET_SCALING}x the 1,000 time: {factor:.2f}x",
                factor <= TARGET_SCALING,
            )
        )
    print()
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
    return all(ok for _, ok in checks)


def profile(servers: int, top: int, tmpdir: str | None = None) -> None:
    """cProfile of one render of ``servers`` TServers (after a warm-up render)."""
    with tempfile.TemporaryDirectory(prefix="tars-bench-", dir=tmpdir) as tmp:
        root = Path(tmp)
        generate_stack(root / "warmup", 5)
        render_like_the_cli(root / "warmup", root / "warmup-out")
        generate_stack(root / "stack", servers)
        profiler = cProfile.Profile()
        profiler.enable()
        render_like_the_cli(root / "stack", root / "out")
        profiler.disable()
    stats = pstats.Stats(profiler).strip_dirs()
    for key in ("tottime", "cumulative"):
        print(f"\n=== top {top} by {key} ({servers} servers) ===")
        stats.sort_stats(key).print_stats(top)


def main(argv: list[str] | None = None) -> int:
    """Command line: the table (default), ``--profile N``, or ``--child N`` (internal)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (best is kept)")
    parser.add_argument("--profile", type=int, metavar="N", help="cProfile one render of N")
    parser.add_argument("--top", type=int, default=30, help="rows of the profile listing")
    parser.add_argument(
        "--tmpdir",
        metavar="DIR",
        help="where stacks and output are written (default: the system temporary directory); "
        "the write stage depends heavily on this file system",
    )
    parser.add_argument("--child", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(asdict(measure(args.child, args.repeat, args.tmpdir))))
        return 0
    if args.profile is not None:
        profile(args.profile, args.top, args.tmpdir)
        return 0
    rows: list[Measurement] = []
    for size in args.sizes:
        rows.append(measure_in_child(size, args.repeat, args.tmpdir))
        print(f"measured {size} servers", file=sys.stderr)
    print_table(rows)
    return 0 if check_targets(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
