"""Construct cost of the multi-language components over the real gRPC path (a script, not a
test).

Starts the component provider as the engine does (``plugin/__main__.py``, with the recording
engine of ``tests/support/engines/component_provider.py``), constructs one TFramework, then 10, 100
and 300 TServers (default) from plain JSON arguments, as a TypeScript or YAML program sends
them. It prints, per size, the median ``Construct`` time of a server and the ratio to the
floor measured in the same run: the median ``Construct`` of a TTemplate (the smallest
component: one validation resource). Target: the median per server over the floor is flat
as the framework fills up (the ratio at the largest size within 1.3x of the smallest). Exit
code 1 when missed.

Usage::

    python benchmarks/polyglot_scale.py
    python benchmarks/polyglot_scale.py --sizes 10 300
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from support.engines.component_provider import ComponentProviderProcess, RecordingEngine  # noqa: E402

DEFAULT_SIZES = (10, 100, 300)
TARGET_FLATNESS = 1.3
FLOOR_RUNS = 20
CONFIG = {
    "nodeImage": {"image": "reg.example.com/tars/tarsnode:v1.4.0"},
    "imageBuild": {"executor": {"image": "reg.example.com/tars/kaniko:v1.4.0"}},
    "imageUpload": {"registry": "reg.example.com/shop"},
}


def server(namespace: str, index: int) -> dict[str, Any]:
    """The plain JSON arguments of the ``index``-th server."""
    return {
        "framework": namespace,
        "app": "Bench",
        "server": f"S{index}",
        "tars": {
            "template": "tars.cpp",
            "servants": [{"name": "MainObj", "port": 10000}, {"name": "AdminObj", "port": 10001}],
        },
        "k8s": {"replicas": 2, "env": [{"name": "LOG_LEVEL", "value": "info"}]},
        "release": {"id": "v1", "image": f"reg.example.com/bench/s{index}:v1"},
    }


def timed(plugin: ComponentProviderProcess, type_: str, name: str, args: dict[str, Any]) -> float:
    """Wall time of one ``Construct``."""
    start = time.perf_counter()
    plugin.construct(type_, name, args)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when the per-server Construct time is not flat."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    args = parser.parse_args(argv)
    ratios: dict[int, float] = {}
    print(f"{'servers':>8} {'median ms':>10} {'total s':>8} {'floor ms':>9} {'median/floor':>13}")
    engine = RecordingEngine()
    try:
        with ComponentProviderProcess(engine) as plugin:
            for size in args.sizes:
                namespace = f"bench-{size}"
                templates = {"tars.cpp": "tars.default", "tars.default": "tars.default"}
                plugin.construct(
                    "tars:index:TFramework",
                    f"fw-{size}",
                    {"namespace": namespace, "config": CONFIG, "templates": templates},
                )
                times = [
                    timed(plugin, "tars:index:TServer", f"{namespace}-s{i}", server(namespace, i))
                    for i in range(size)
                ]
                floors = [
                    timed(
                        plugin,
                        "tars:index:TTemplate",
                        f"{namespace}-t{i}",
                        {
                            "framework": namespace,
                            "templateName": f"tars.floor{i}",
                            "parent": "tars.default",
                            "content": "<tars></tars>",
                        },
                    )
                    for i in range(FLOOR_RUNS)
                ]
                median, floor = statistics.median(times), statistics.median(floors)
                ratios[size] = median / floor
                print(
                    f"{size:>8} {1000 * median:>10.2f} {sum(times):>8.2f} "
                    f"{1000 * floor:>9.2f} {median / floor:>13.2f}"
                )
    finally:
        engine.stop()
    small, large = min(ratios), max(ratios)
    flatness = ratios[large] / ratios[small]
    print(f"median Construct per server over the floor, at {large} / at {small}: {flatness:.2f}x")
    return 0 if flatness <= TARGET_FLATNESS else 1


if __name__ == "__main__":
    sys.exit(main())
