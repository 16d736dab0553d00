"""Scale benchmark of TServers whose structural fields are Outputs (a script, not a test).

For each size (default 100 and 400 TServers) it runs, in the same process and under the same
mocks (:class:`tars_components.components.testing.RecordingMocks`, values known as at
``pulumi up``, the validation provider run for real):

* **outputs**: one TFramework and N TServers whose ``app``, ``server``, a servant name, its
  port and ``replicas`` are ``pulumi.Output`` values (the expansion runs in one ``apply`` per
  server);
* **floor**: the same servers with plain values (the expansion runs when they are declared).

It prints, per size, both times (CPU seconds, best of ``--repeat`` interleaved runs), the ratio
outputs/floor and the per-server time of the outputs program; then the per-server time at the
largest size over that at the smallest (cost linear in the stack size: about 1).

Usage::

    python benchmarks/inputs_scale.py
    python benchmarks/inputs_scale.py --sizes 100 400 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import pulumi  # noqa: E402

from tars_components.components import TFramework, TServer  # noqa: E402
from tars_components.components.testing import RecordingMocks, record  # noqa: E402

DEFAULT_SIZES = (100, 400)
NAMESPACE = "bench"


def program(size: int, lifted: bool) -> Callable[[], None]:
    """N tars servers, their names, a port and replicas given plainly or as Outputs."""

    def wrap(value: Any) -> Any:
        return pulumi.Output.from_input(value) if lifted else value

    def body() -> None:
        fw = TFramework("fw", namespace=NAMESPACE, templates={"tars.cpp": "tars.cpp"})
        for i in range(size):
            TServer(
                f"s{i}",
                framework=fw,
                app=wrap("Bench"),
                server=wrap(f"Server{i}"),
                tars={
                    "template": "tars.cpp",
                    "servants": [{"name": wrap("MainObj"), "port": wrap(10000)}],
                },
                k8s={"replicas": wrap(2)},
                release={"id": "v1", "image": "reg.example.com/bench:v1", "nodeImage": "n:v1"},
            )

    return body


def timed(body: Callable[[], None]) -> float:
    """CPU seconds of one run under fresh mocks."""
    gc.collect()
    start = time.process_time()
    recording = record(body, mock=RecordingMocks())
    elapsed = time.process_time() - start
    if not recording.kubernetes():
        raise SystemExit("nothing registered")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    """Print the figures; exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    per_server: dict[int, float] = {}
    for size in args.sizes:
        floor = outputs = float("inf")
        for _ in range(args.repeat):
            floor = min(floor, timed(program(size, False)))
            outputs = min(outputs, timed(program(size, True)))
        per_server[size] = outputs / size
        print(
            f"{size:>6} servers: floor {floor:7.2f} s  outputs {outputs:7.2f} s  "
            f"ratio {outputs / floor:5.2f}  {1000 * outputs / size:6.2f} ms/server"
        )
    small, large = min(per_server), max(per_server)
    if small != large:
        print(f"per-server time {large} vs {small}: {per_server[large] / per_server[small]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
