"""Scale benchmark of helm-lib values files as stack sources and of ``convert`` (a script,
not a test).

For each size (default 100 and 1,000 servers) it writes one helm-lib values file per server
(servants, replicas, env, a server config, a node config and an app config) and times, best of
``--repeat`` runs, with the cyclic collector paused as the CLI does:

* ``floor``: loading and checking the same servers written as the TarsK8S documents the chart
  renders (what ``convert`` writes), so the floor does every rule and mapping the values do;
* ``values validate``: :func:`load_texts` of the values files then :func:`pipeline.check`
  (``validate`` of a stack of values files: the translation on top of the floor);
* ``convert``: :func:`convert_texts` of the values files (the files ``convert`` writes).

It prints each as seconds, as a ratio to the floor, and per server, so that linear cost shows
as a flat per-server figure across sizes.

Usage::

    python benchmarks/values_scale.py
    python benchmarks/values_scale.py --sizes 2000 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from timing import best_wall_time  # noqa: E402

from tars_components.jobs.convert import convert_texts  # noqa: E402
from tars_components.loading.load import load_texts  # noqa: E402
from tars_components.pipeline import check  # noqa: E402
from tars_components.settings.options import Options  # noqa: E402

NAMESPACE = "tars-bench"
FRAMEWORK = """\
apiVersion: k8s.tars.io/v1beta3
kind: TFrameworkConfig
metadata: {name: tars-framework}
imageBuild: {executor: {image: registry.example.com/tarskaniko:v1}}
imageUpload: {registry: registry.example.com/upload}
nodeImage: {image: registry.example.com/tars.tarsnode:v1.4.1}
---
apiVersion: k8s.tars.io/v1beta3
kind: TTemplate
metadata: {name: tars.cpp}
spec: {content: "<tars></tars>", parent: tars.cpp}
"""


def values_file(i: int) -> str:
    """A helm-lib values file of server ``App<i>.Server<i>``."""
    return f"""\
app: App{i}
server: Server{i}
template: tars.cpp
servants:
  - name: Hello{i}Obj
    port: 10000
    isTars: true
    isTcp: true
    thread: 2
    capacity: 10000
    connection: 10000
    timeout: 30000
replicas: {1 + i % 3}
envVars:
  - name: LEVEL
    value: "{i}"
repo:
  id: v{i}-1
  image: registry.example.com/app{i}.server{i}:v{i}-1
  secret: pull-secret
config:
  - name: server.conf
    content: |
      <tars><server>{i}</server></tars>
nodeConfig:
  - name: server.conf
    podSeq: 0
    content: |
      <tars><node>{i}</node></tars>
appConfig:
  - name: app.conf
    content: |
      <tars><app>{i}</app></tars>
"""


def measure(servers: int, repeat: int) -> dict[str, float]:
    """Seconds of each stage for ``servers`` values files."""
    values = {f"{i:05d}.yaml": values_file(i) for i in range(servers)}
    converted = convert_texts(values)
    assert not [v for v in converted.violations if v.is_error]
    documents = {"00-framework.yaml": FRAMEWORK, **converted.files}
    with_framework = {"00-framework.yaml": FRAMEWORK, **values}
    options = Options(namespace=NAMESPACE)

    def checked(texts: dict[str, str]) -> Callable[[], None]:
        def run() -> None:
            stack = load_texts(texts, NAMESPACE)
            assert not [v for v in check(stack, options) if v.is_error]

        return run

    # untimed: both sides describe the same documents
    floor_stack, values_stack = load_texts(documents, NAMESPACE), load_texts(with_framework)
    assert len(floor_stack.documents) == len(values_stack.documents) == 2 + 5 * servers
    return {
        "floor": best_wall_time(checked(documents), repeat),
        "values validate": best_wall_time(checked(with_framework), repeat),
        "convert": best_wall_time(lambda: convert_texts(values), repeat),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'servers':>8} {'stage':<16} {'seconds':>8} {'x floor':>8} {'ms/server':>10}")
    for size in args.sizes:
        figures = measure(size, args.repeat)
        floor = figures["floor"]
        for stage, seconds in figures.items():
            print(
                f"{size:>8} {stage:<16} {seconds:>8.3f} {seconds / floor:>8.2f} "
                f"{seconds / size * 1e3:>10.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
