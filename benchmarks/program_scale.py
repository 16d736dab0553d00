"""Scale benchmark of the Pulumi program (a script, not a test).

For each size (default 250 and 1,000 TServers) it generates the stack directory of
``render_scale.py`` (mixed Tars/normal StatefulSets, DaemonSets, hostPorts, tLocalVolumes, a
few unreleased servers; one file per server) and, in the same process and under the same
mocks (:class:`tars_components.components.testing.RecordingMocks`, preview):

* **program**: runs the project's ``__main__.py`` (config ``tars:stackDir`` = the generated
  directory): load, rules, one TFramework, its TTemplates and TServers, each with its
  validation resource (whose ``check`` the mocks run for real, as the engine would);
* **floor**: registers the very objects ``tars-components render`` writes for that stack with
  raw ``pulumi_kubernetes`` classes (``k8s.core.v1.Service(name, metadata=..., spec=...)``
  etc.), nothing else.

It prints, per size, both times (CPU seconds of this process, best of ``--repeat`` interleaved
runs: the machine is shared, and CPU time is what a busy neighbour disturbs least), the ratio
program/floor and the program's time per server; then the per-server time at the largest size
over that at the smallest. ``__main__.py`` runs with the cyclic collector off and freezes its
heap once everything is declared (the SDK keeps every registration alive, so full collections
find next to nothing to free); the raw floor does not, as a plain program would not.
For a like-for-like view the script also prints the ratio against a floor that does the same.
Targets: ratio <= 1.6 at 1,000 servers, per-server time at 1,000 within 1.3x of that at 250.
The exit code is 1 when a target is missed.

Usage::

    python benchmarks/program_scale.py
    python benchmarks/program_scale.py --sizes 250 1000 --repeat 5
    python benchmarks/program_scale.py --profile 1000    # cProfile of one program run
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import runpy
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tars_components.components.testing import (  # noqa: E402
    DYNAMIC_PREFIX,
    Recording,
    RecordingMocks,
    record,
)

PROGRAM = str(REPO / "__main__.py")
import render_scale  # noqa: E402  (benchmarks/ is the script's directory)

DEFAULT_SIZES = (250, 1000)
TARGET_RATIO = 1.6
TARGET_SCALING = 1.3


class EchoMocks(RecordingMocks):
    """The project's mocks with the dynamic provider left out: every resource's outputs are its
    inputs. A real engine runs the validation resources' ``check`` in the provider process,
    not in the program; ``provider_scale.py`` measures it."""

    def new_resource(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        """Id and outputs of one registration: the inputs echoed."""
        if args.typ.startswith(DYNAMIC_PREFIX):
            return None, dict(args.inputs)
        return super().new_resource(args)


class CollectorClock:
    """CPU seconds spent in the garbage collector (all generations), per run: the SDK keeps
    every registration's Outputs alive until the program ends, so full collections scan a heap
    that grows with the stack; this shows how much of each side's time (and of its growth
    from the smaller to the larger stack) is the collector's."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.seconds += time.process_time() - self._start

    def reset(self) -> None:
        """Start counting from zero."""
        self.seconds = 0.0


CLOCK = CollectorClock()


def config(stack_dir: Path, namespace: str) -> dict[str, Any]:
    """The program's config: the generated stack, expand mode, skipAwait."""
    return {
        "tars:stackDir": str(stack_dir),
        "tars:namespace": namespace,
        "tars:renderDir": "out/bench",
        "tars:skipAwait": "true",
    }


def run_program(
    stack_dir: Path, namespace: str, recordings: list[Recording] | None = None
) -> tuple[float, int, float]:
    """``__main__.py`` under the mocks: seconds, number of registrations, seconds of GC (the
    recording is appended to ``recordings`` when given)."""
    CLOCK.reset()
    start = time.process_time()
    recording = record(
        lambda: runpy.run_path(PROGRAM),
        config=config(stack_dir, namespace),
        preview=True,
        mock=EchoMocks(),
    )
    seconds, collector = time.process_time() - start, CLOCK.seconds
    if recordings is not None:
        recordings.append(recording)
    return seconds, len(recording.registrations), collector


def rendered_objects(stack_dir: Path, namespace: str) -> list[dict[str, Any]]:
    """What ``tars-components render`` writes for the stack (same options as the program)."""
    from tars_components.loading.load import load_stack
    from tars_components.pipeline import build
    from tars_components.settings.options import Options

    options = Options(namespace=namespace, skip_await=True)
    result = build(load_stack(stack_dir, namespace), options)
    if not result.ok:
        raise SystemExit("benchmark stack has rule errors")
    return result.objects


def run_floor(
    objects: list[dict[str, Any]], recordings: list[Recording] | None = None, freeze: bool = False
) -> tuple[float, int, float]:
    """The same objects registered with raw pulumi_kubernetes classes under the same mocks
    (with ``freeze``: with the collector off and the heap frozen once they are declared, as
    ``__main__.py`` does)."""
    import pulumi
    import pulumi_kubernetes as k8s

    classes: dict[str, Callable[..., pulumi.CustomResource]] = {
        "Service": k8s.core.v1.Service,
        "StatefulSet": k8s.apps.v1.StatefulSet,
        "DaemonSet": k8s.apps.v1.DaemonSet,
    }

    def declare() -> None:
        provider = k8s.Provider("kubernetes", render_yaml_to_directory="out/bench")
        opts = pulumi.ResourceOptions(provider=provider)
        for obj in objects:
            meta = obj["metadata"]
            name = f"{meta['namespace']}/{meta['name']}-{obj['kind'].lower()}"
            classes[obj["kind"]](name, metadata=meta, spec=obj["spec"], opts=opts)

    def program() -> None:
        if not freeze:
            declare()
            return
        gc.disable()  # record() turns it back on
        declare()
        gc.freeze()

    CLOCK.reset()
    start = time.process_time()
    recording = record(program, preview=True, mock=EchoMocks())
    seconds, collector = time.process_time() - start, CLOCK.seconds
    if recordings is not None:
        recordings.append(recording)
    return seconds, len(recording.registrations), collector


def same_objects(stack_dir: Path, namespace: str, objects: list[dict[str, Any]]) -> None:
    """A first, untimed run of each side (it also pays the one-off imports of both): stop
    unless both registered the very same Kubernetes objects (type, name, inputs)."""
    recordings: list[Recording] = []
    run_program(stack_dir, namespace, recordings)
    run_floor(objects, recordings)
    program, floor = (
        sorted(
            (r.type, r.inputs["metadata"]["name"], json.dumps(r.inputs, sort_keys=True))
            for r in recording.kubernetes()
        )
        for recording in recordings
    )
    if program != floor:
        raise SystemExit("the floor does not register the objects the program registers")


Run = tuple[float, int, float]


def best_of_both(
    program: Callable[[], Run], floor: Callable[[], Run], repeat: int
) -> tuple[Run, Run]:
    """Fastest of ``repeat`` runs of each, interleaved (program, floor, program, …) so that a
    busy neighbour on the machine slows both alike; a full collection before each run."""
    programs, floors = [], []
    for _ in range(repeat):
        gc.collect()
        programs.append(program())
        gc.collect()
        floors.append(floor())
    return min(programs), min(floors)


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, metavar="SERVERS")
    parser.add_argument("--sort", default="cumulative", help="cProfile sort key")
    args = parser.parse_args(argv)
    namespace = render_scale.NAMESPACE

    with tempfile.TemporaryDirectory() as tmp:
        if args.profile:
            stack_dir = Path(tmp) / f"s{args.profile}"
            render_scale.generate_stack(stack_dir, args.profile)
            profiler = cProfile.Profile()
            profiler.runcall(run_program, stack_dir, namespace)
            pstats.Stats(profiler).sort_stats(args.sort).print_stats(45)
            return 0
        print(
            f"{'servers':>8} {'program s':>10} {'floor s':>8} {'ratio':>6} "
            f"{'ms/server':>10} {'registrations':>14} {'floor regs':>11} "
            f"{'program gc s':>13} {'floor gc s':>11}"
        )
        per_server: dict[int, float] = {}
        ratios: dict[int, float] = {}
        floors: dict[int, float] = {}
        mutators: dict[int, float] = {}
        frozen_floor = 0.0
        for size in args.sizes:
            stack_dir = Path(tmp) / f"s{size}"
            render_scale.generate_stack(stack_dir, size)
            objects = rendered_objects(stack_dir, namespace)
            same_objects(stack_dir, namespace, objects)
            (program, registered, program_gc), (floor, floor_registered, floor_gc) = best_of_both(
                lambda d=stack_dir: run_program(d, namespace),
                lambda o=objects: run_floor(o),
                args.repeat,
            )
            ratios[size] = program / floor
            floors[size] = floor
            mutators[size] = (program - program_gc) / (floor - floor_gc)
            per_server[size] = program / size
            print(
                f"{size:>8} {program:>10.2f} {floor:>8.2f} {ratios[size]:>6.2f} "
                f"{1000 * per_server[size]:>10.2f} {registered:>14} {floor_registered:>11} "
                f"{program_gc:>13.2f} {floor_gc:>11.2f}"
            )
            if size == max(args.sizes):
                frozen_floor = min(run_floor(objects, freeze=True)[0] for _ in range(args.repeat))
    small, large = min(per_server), max(per_server)
    scaling = per_server[large] / per_server[small]
    floor_scaling = (floors[large] / large) / (floors[small] / small)
    print(f"per-server time at {large} / at {small}: {scaling:.2f}x (target <= {TARGET_SCALING})")
    print(
        f"the floor's own per-object time at {large} / at {small}: {floor_scaling:.2f}x "
        f"(the SDK's mocks; program relative to it: {scaling / floor_scaling:.2f}x)"
    )
    print(
        f"ratio at {large} without the collector's seconds on either side: {mutators[large]:.2f} "
        f"(the rest is GC over a heap of pending registrations: more resources, more of it)"
    )
    print(
        f"ratio at {large} against a floor that also runs with the collector off: "
        f"{per_server[large] * large / frozen_floor:.2f} (the layer's own cost: about two SDK "
        f"registrations per Kubernetes object, a component and a validation resource per server)"
    )
    print(f"ratio at {large}: {ratios[large]:.2f} (target <= {TARGET_RATIO})")
    return 0 if ratios[large] <= TARGET_RATIO and scaling <= TARGET_SCALING else 1


if __name__ == "__main__":
    sys.exit(main())
