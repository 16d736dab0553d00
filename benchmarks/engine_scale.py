"""Scale benchmark of the real engine (a script, not a test).

For each size (default 100 and 500 TServers) it generates a stack directory of
``render_scale.py``'s mixed servers (Tars and normal StatefulSets, hostPorts, tLocalVolume claim
templates, secret and configMap mounts; every server at 0 replicas, so that neither program
waits for pods: scheduling them is the cluster's cost, not the program's) and, on one loopback
cluster of ``tools/e2e/cluster`` with the real ``pulumi`` CLI of ``tools/e2e/toolchain``:

* **components**: the project's own program (``__main__.py``: load, rules, a TFramework, its
  TTemplates and TServers, each with its validation resource) previewed, then ``up``;
* **floor**: a raw pulumi-kubernetes program that declares the very objects ``tars-components
  render`` writes for that stack (``k8s.apps.v1.StatefulSet(name, metadata=..., spec=...)``
  etc., the same logical names), previewed, then ``up``, on the same engine, provider and
  cluster, right after;
* **kubectl**: ``kubectl apply --server-side`` of the rendered YAML (the API server's own cost);
* **same shape** (``--shaped``): the floor's objects in the layer's resource graph with nothing
  in it (per server an empty component, their parent, and a dynamic resource that accepts
  anything, which they depend on): what that graph costs on the engine and its backend, whatever
  the code in it.

Between the programs the objects are deleted with kubectl and the stack removed, so each
``up`` creates every object. The
script prints, per size and step, the wall time of the ``pulumi`` command and the peak
resident memory of the program's process (the Python process that declares the resources,
read with ``getrusage`` when it exits), the ratios components/floor, and the components'
time per server at the largest size over that at the smallest. Targets: ratio <= 1.3 for
preview and for up, in time and in peak memory; per-server time growing at most 1.3x. The
exit code is 1 when a target is missed.

Usage::

    python benchmarks/engine_scale.py                 # builds or reuses the toolchain
    python benchmarks/engine_scale.py --sizes 100 500
    python benchmarks/engine_scale.py --json results.json
    python benchmarks/engine_scale.py --skip-checkpoints  # the state written once, at the end
    python benchmarks/engine_scale.py --sizes 100 --repeat 3 --shaped  # medians of 3 runs
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import render_scale  # noqa: E402  (benchmarks/ is the script's directory)
from support.engines import e2e  # noqa: E402

NAMESPACE = "tars-dev"
STACK = "bench"
DEFAULT_SIZES = (100, 500)
TARGET_RATIO = 1.3
TARGET_SCALING = 1.3

#: The first lines of both programs' ``__main__.py``: the peak RSS of the program's process,
#: written when it exits to the file ``$BENCH_RSS_FILE`` names.
RSS_PROLOGUE = """\
import atexit
import os
import resource


def _peak_rss() -> None:
    with open(os.environ["BENCH_RSS_FILE"], "w", encoding="utf-8") as out:
        out.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


atexit.register(_peak_rss)
"""

FUTURE = "from __future__ import annotations\n"


def components_main(program: str) -> str:
    """The project's ``__main__.py`` with :data:`RSS_PROLOGUE` after its ``__future__`` import.

    Inlined rather than run through ``runpy``: the SDK records the program's call stack in every
    registration (each resource's ``stackTrace`` in the state, which the backend rewrites after
    every step), so a wrapper's frames would be charged to the components and not to the floor.
    """
    if FUTURE not in program:
        raise SystemExit("__main__.py has no `from __future__ import annotations` line")
    return program.replace(FUTURE, FUTURE + "\n" + RSS_PROLOGUE, 1)


OBJECTS_PRELUDE = """
import json
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

CLASSES = {
    "Service": k8s.core.v1.Service,
    "StatefulSet": k8s.apps.v1.StatefulSet,
    "DaemonSet": k8s.apps.v1.DaemonSet,
}
objects = json.loads(Path(pulumi.Config("bench").require("objects")).read_text())
"""
"""The raw programs' start: the rendered objects (config ``bench:objects``) and the
pulumi-kubernetes class of each kind. Each program declares them in its own top-level loop:
a helper function would add its frame to every resource's recorded stack trace."""

FLOOR_MAIN = (
    RSS_PROLOGUE
    + OBJECTS_PRELUDE
    + """
for obj in objects:
    meta = obj["metadata"]
    name = f"{meta['namespace']}/{meta['name']}-{obj['kind'].lower()}"
    CLASSES[obj["kind"]](name, metadata=meta, spec=obj["spec"])
"""
)

SHAPED_MAIN = (
    RSS_PROLOGUE
    + OBJECTS_PRELUDE
    + """
import pulumi.dynamic


class Accept(pulumi.dynamic.ResourceProvider):
    def create(self, props):
        return pulumi.dynamic.CreateResult("accepted", {})


class Check(pulumi.dynamic.Resource, module="bench", name="Check"):
    pass


ACCEPT = Accept()
servers = {}
for obj in objects:
    meta = obj["metadata"]
    servers.setdefault((meta["namespace"], meta["name"]), []).append(obj)
for (namespace, server), members in servers.items():
    parent = pulumi.ComponentResource("bench:index:Server", f"{namespace}/{server}")
    check = Check(
        ACCEPT, f"{namespace}/{server}-check", {}, pulumi.ResourceOptions(parent=parent)
    )
    for obj in members:
        meta = obj["metadata"]
        name = f"{meta['namespace']}/{meta['name']}-{obj['kind'].lower()}"
        options = pulumi.ResourceOptions(parent=parent, depends_on=[check])
        CLASSES[obj["kind"]](name, metadata=meta, spec=obj["spec"], opts=options)
    parent.register_outputs({})
"""
)
"""``--shaped``: the floor's objects in the layer's resource graph, with nothing in it: per
server an empty component (the objects' parent, outputs registered) and a dynamic resource
that accepts anything (the objects depend on it). What any program with a component and a
check resource per server pays on the engine and its backend, whatever the code in them."""


def bench_document(index: int) -> dict[str, Any]:
    """``render_scale``'s server ``index`` at 0 replicas, a StatefulSet (a DaemonSet has no
    replica count: it would put a pod on every node)."""
    doc = render_scale.server_document(index)
    k8s = doc["spec"]["k8s"]
    k8s["replicas"] = 0
    k8s.pop("daemonSet", None)
    doc["metadata"].pop("annotations", None)  # replica bounds would lift 0 to the minimum
    return doc


def generate_stack(directory: Path, servers: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    dump = render_scale._dump_all
    (directory / "00-framework.yaml").write_text(
        dump(render_scale.FRAMEWORK_DOCS), encoding="utf-8"
    )
    for index in range(servers):
        text = dump([bench_document(index)])
        (directory / f"srv-{index:05d}.yaml").write_text(text, encoding="utf-8")


@dataclass
class Step:
    """One ``pulumi`` (or kubectl) command: wall seconds and the program's peak RSS (MiB)."""

    seconds: float
    rss_mib: float


@dataclass
class Row:
    servers: int
    objects: int
    components: dict[str, Step]
    floor: dict[str, Step]
    kubectl: float
    shaped: dict[str, Step] | None = None

    def ratio(self, step: str, what: str) -> float:
        return float(getattr(self.components[step], what) / getattr(self.floor[step], what))

    def shaped_ratio(self, step: str, what: str) -> float:
        """The same-shape program's figure over the floor's (``--shaped`` only)."""
        assert self.shaped is not None
        return float(getattr(self.shaped[step], what) / getattr(self.floor[step], what))


class Bench:
    """The toolchain, one loopback cluster and a Pulumi home shared by both programs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        found = e2e.toolchain(build=True)
        assert isinstance(found, dict)
        self.tools = found
        e2e.cluster_up(root / "clusters")
        self.cluster = e2e.Cluster(root / "clusters", "local", found["kubectl"])
        self.venv = e2e.program_venv(root / "venv")
        self.pulumi = e2e.Pulumi(
            found, home=root / "home", state=root / "state", kubeconfig=self.cluster.kubeconfig
        )
        self.pulumi.home.mkdir()
        self.pulumi.state.mkdir()
        self.pulumi.install_kubernetes_plugin()

    def close(self) -> None:
        e2e.cluster_down(self.root / "clusters")

    def components_project(self, stack_dir: Path) -> Path:
        project = e2e.project_copy(self.root / "components", self.venv)
        main = project / "__main__.py"
        main.write_text(components_main(main.read_text(encoding="utf-8")), encoding="utf-8")
        e2e.stack_config(project, STACK, NAMESPACE, str(stack_dir), "expand")
        return project

    def floor_project(
        self, objects_file: Path, name: str = "floor", main: str = FLOOR_MAIN
    ) -> Path:
        project = self.root / name
        project.mkdir()
        (project / "Pulumi.yaml").write_text(
            f"name: {name}\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
            encoding="utf-8",
        )
        (project / f"Pulumi.{STACK}.yaml").write_text(
            f"config:\n  bench:objects: {objects_file}\n", encoding="utf-8"
        )
        (project / "__main__.py").write_text(main, encoding="utf-8")
        (project / "venv").symlink_to(self.venv)
        return project

    def run(self, project: Path, *args: str) -> Step:
        rss = self.root / "rss"
        rss.unlink(missing_ok=True)
        self.pulumi.extra_env["BENCH_RSS_FILE"] = str(rss)
        start = time.perf_counter()
        self.pulumi(*args, "--stack", STACK, cwd=project, timeout=3600).ok()
        seconds = time.perf_counter() - start
        return Step(seconds, int(rss.read_text()) / 1024)

    def journey(self, project: Path) -> dict[str, Step]:
        """preview and up of a new stack; then the objects deleted with kubectl and the stack
        removed (a ``pulumi destroy`` of every object would take as long as the ``up``)."""
        self.pulumi("stack", "init", STACK, cwd=project).ok()
        steps = {
            "preview": self.run(project, "preview"),
            "up": self.run(project, "up", "--yes", "--skip-preview"),
        }
        self.clear()
        self.pulumi("stack", "rm", "--yes", "--force", "--preserve-config", STACK, cwd=project).ok()
        return steps

    def clear(self) -> None:
        """Every StatefulSet and Service of the namespace deleted (what both programs make)."""
        self.cluster.kubectl(
            "delete",
            "statefulsets,services",
            "--all",
            f"--namespace={NAMESPACE}",
            "--wait=true",
            timeout=3600,
        )

    def kubectl_apply(self, render_dir: Path) -> float:
        start = time.perf_counter()
        self.cluster.kubectl(
            "apply", "--server-side", "--recursive", "-f", str(render_dir), timeout=3600
        )
        seconds = time.perf_counter() - start
        self.clear()
        return seconds

    def measure(self, servers: int, shaped: bool = False, repeat: int = 1) -> Row:
        """Each program's journey ``repeat`` times, interleaved (components, floor, then the
        same-shape program, again and again), and the median of each figure: on a shared
        2-core machine one ``up`` of the very same program varies by a third."""
        for name in ("components", "floor", "shaped", "stack", "render"):
            shutil.rmtree(self.root / name, ignore_errors=True)
        stack_dir = self.root / "stack"
        generate_stack(stack_dir, servers)
        render_dir = self.root / "render"
        subprocess.run(
            [
                str(self.venv / "bin" / "tars-components"),
                *("render", str(stack_dir), "--namespace", NAMESPACE),
                *("--out", str(render_dir)),
            ],
            check=True,
            capture_output=True,
        )
        objects = list(e2e.objects_of(render_dir))
        objects_file = self.root / "objects.json"
        objects_file.write_text(json.dumps(objects), encoding="utf-8")
        projects = {
            "components": self.components_project(stack_dir),
            "floor": self.floor_project(objects_file),
        }
        if shaped:
            projects["shaped"] = self.floor_project(objects_file, "shaped", SHAPED_MAIN)
        runs: dict[str, list[dict[str, Step]]] = {name: [] for name in projects}
        kubectl = []
        for _ in range(repeat):
            for name, project in projects.items():
                runs[name].append(self.journey(project))
            kubectl.append(self.kubectl_apply(render_dir))
        median = {name: median_steps(journeys) for name, journeys in runs.items()}
        return Row(
            servers,
            len(objects),
            median["components"],
            median["floor"],
            statistics.median(kubectl),
            median.get("shaped"),
        )


def median_steps(journeys: list[dict[str, Step]]) -> dict[str, Step]:
    """The median time and the median peak memory of each step over the journeys."""
    return {
        step: Step(
            statistics.median(j[step].seconds for j in journeys),
            statistics.median(j[step].rss_mib for j in journeys),
        )
        for step in journeys[0]
    }


HEADER = (
    "| servers | objects | step | components s | floor s | ratio | components MiB "
    "| floor MiB | ratio | kubectl apply s |\n|---|---|---|---|---|---|---|---|---|---|"
)


def print_row(row: Row) -> None:
    for step in ("preview", "up"):
        c, f = row.components[step], row.floor[step]
        kubectl = f"{row.kubectl:.1f}" if step == "up" else ""
        print(
            f"| {row.servers:,} | {row.objects:,} | {step} | {c.seconds:.1f} | "
            f"{f.seconds:.1f} | {row.ratio(step, 'seconds'):.2f} | {c.rss_mib:.0f} | "
            f"{f.rss_mib:.0f} | {row.ratio(step, 'rss_mib'):.2f} | {kubectl} |",
            flush=True,
        )


SHAPED_HEADER = (
    "| servers | step | same-shape s | floor s | ratio | same-shape MiB | floor MiB | ratio |"
    "\n|---|---|---|---|---|---|---|---|"
)


def print_shaped(rows: list[Row]) -> None:
    """The same-shape program against the floor (``--shaped``)."""
    print("\nThe floor's objects in the layer's resource graph (--shaped):\n" + SHAPED_HEADER)
    for row in rows:
        for step in ("preview", "up"):
            assert row.shaped is not None
            s, f = row.shaped[step], row.floor[step]
            print(
                f"| {row.servers:,} | {step} | {s.seconds:.1f} | {f.seconds:.1f} | "
                f"{row.shaped_ratio(step, 'seconds'):.2f} | {s.rss_mib:.0f} | "
                f"{f.rss_mib:.0f} | {row.shaped_ratio(step, 'rss_mib'):.2f} |",
                flush=True,
            )


def check_targets(rows: list[Row]) -> bool:
    ok = True
    for row in rows:
        for step in ("preview", "up"):
            for what in ("seconds", "rss_mib"):
                ratio = row.ratio(step, what)
                if ratio > TARGET_RATIO:
                    ok = False
                    print(f"MISSED: {row.servers} servers, {step} {what}: ratio {ratio:.2f}")
    if len(rows) > 1:
        small, large = rows[0], rows[-1]
        for step in ("preview", "up"):
            growth = (large.components[step].seconds / large.servers) / (
                small.components[step].seconds / small.servers
            )
            print(f"{step}: per-server time at {large.servers} / at {small.servers}: {growth:.2f}")
            if growth > TARGET_SCALING:
                ok = False
                print(f"MISSED: {step} per-server time grows {growth:.2f}x")
    return ok


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--skip-checkpoints",
        action="store_true",
        help="PULUMI_SKIP_CHECKPOINTS=true: the engine writes the state once at the end, not "
        "after every step (separates the backend's cost from the program's)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each program's journey this many times, interleaved, and report medians",
    )
    parser.add_argument(
        "--shaped",
        action="store_true",
        help="also run the floor's objects in the layer's resource graph (an empty component "
        "and an accept-all dynamic resource per server): the cost of that graph alone",
    )
    args = parser.parse_args(argv)
    # a time-out's SIGTERM ends the run through ``finally``: the cluster is stopped
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="engine-scale-") as tmp:
        bench = Bench(Path(tmp))
        if args.skip_checkpoints:
            bench.pulumi.extra_env["PULUMI_SKIP_CHECKPOINTS"] = "true"
        try:
            print(HEADER, flush=True)
            for size in args.sizes:
                rows.append(bench.measure(size, args.shaped, args.repeat))
                print_row(rows[-1])
            if args.shaped:
                print_shaped(rows)
        finally:
            bench.close()
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=2), encoding="utf-8")
    return 0 if check_targets(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
