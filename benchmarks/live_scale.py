"""Scale benchmark of ``tars-components diff --live`` (a script, not a test).

For each size (default 5,000 live objects) it generates a stack directory of mixed servers as
``benchmarks/render_scale.py`` does, renders it, and writes the export a live cluster would
give after ``pulumi up``: every object of the build as one ``kind: List`` with what the API
server adds (uid, resourceVersion, creationTimestamp, status, a webhook label, ``release.time``)
and ``managedFields`` naming the stack's field manager for every field
(``tests/support/builders/live.py`` builds the same shape). One StatefulSet's image is changed in
the export, and another manager takes one TServer's release in crd mode. It measures in the same
process:

* ``render`` of the stack (``render_stack``, the call behind ``tars-components render``), the
  floor: ``diff --live`` has to build the stack too;
* ``diff --live EXPORT STACK --format json`` as the CLI runs it (read and parse the export,
  load, check and build the stack, compare, print).

and prints the best of ``--repeat`` runs (alternated) and the ratio diff --live / render,
checking that exactly the changed object drifts (and, in crd mode, that exactly one conflict
is found).

Target (2-core machine): the ratio at most 2 at 5,000 objects. The exit code is 1 when it is
missed. ``diff --live`` builds the stack on the second CPU while it parses the export
(``tars_components.cli.beside``); on one CPU it does both in turn, about 2.3x.

Usage::

    python benchmarks/live_scale.py
    python benchmarks/live_scale.py --objects 1000 5000 --repeat 3
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "benchmarks", REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import yaml  # noqa: E402
from render_scale import NAMESPACE, generate_stack  # noqa: E402
from support.builders.live import as_list, live_object, owned_by  # noqa: E402
from timing import best_wall_time  # noqa: E402

TARGET = 2.0
DEFAULT_OBJECTS = (5000,)
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def build_objects(stack: Path, mode: str) -> list[dict[str, Any]]:
    """The objects ``render`` writes for the stack."""
    from tars_components.loading.load import load_stack
    from tars_components.pipeline import build
    from tars_components.settings.options import Mode, Options

    options = Options(namespace=NAMESPACE, mode=Mode(mode))
    built = build(load_stack(stack, NAMESPACE), options)
    if not built.ok:
        raise SystemExit(f"{stack}: benchmark stack has rule errors")
    return built.objects


def write_export(objects: list[dict[str, Any]], target: Path, mode: str) -> str:
    """The export of ``objects``, one changed; the name of the changed object."""
    live = [live_object(o) for o in objects]
    kind = "TServer" if mode == "crd" else "StatefulSet"
    changed = next(o for o in live[len(live) // 2 :] if o["kind"] == kind)
    if mode == "crd":
        changed["spec"]["release"]["image"] += "-tarsweb"
        owned_by(changed, "tarsweb", {"f:spec": {"f:release": {"f:image": {}}}})
    else:
        container = changed["spec"]["template"]["spec"]["containers"][0]
        container["image"] += "-hotfix"
    text = yaml.dump(as_list(live), Dumper=_DUMPER, sort_keys=False, default_flow_style=False)
    target.write_text(text, encoding="utf-8")
    return str(changed["metadata"]["name"])


def render(stack: Path, out: Path, mode: str) -> None:
    """``render_stack`` of the stack."""
    from tars_components.jobs.render import render_stack
    from tars_components.settings.options import Mode, Options

    result = render_stack(stack, out, Options(namespace=NAMESPACE, mode=Mode(mode)))
    if not result.build.ok:
        raise SystemExit(f"{stack}: benchmark stack has rule errors")


def live_like_the_cli(stack: Path, export: Path, mode: str) -> dict[str, Any]:
    """``tars-components diff --live EXPORT STACK --mode MODE --format json``, in-process."""
    from tars_components.cli import main

    out = io.StringIO()
    saved, saved_err = sys.stdout, sys.stderr
    err = io.StringIO()
    sys.stdout, sys.stderr = out, err  # the stack's warnings
    try:
        code = main(
            [
                *("diff", "--live", str(export), str(stack), "--namespace", NAMESPACE),
                *("--mode", mode, "--format", "json", "--field-manager", "tars-components-dev"),
                *("--max-file-size", "1Gi", "--max-stack-size", "1Gi"),  # a big export
            ]
        )
    finally:
        sys.stdout, sys.stderr = saved, saved_err
    if code != 0:
        raise SystemExit(f"diff --live exited {code}: {err.getvalue()[-2000:]}")
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


def servers_for(objects: int, root: Path, mode: str) -> tuple[Path, list[dict[str, Any]]]:
    """A stack whose build has at least ``objects`` objects (cut to that many)."""
    servers = max(1, objects // (2 if mode == "expand" else 1))
    stack = root / f"stack-{mode}"
    generate_stack(stack, servers)
    built = build_objects(stack, mode)
    while len(built) < objects:
        servers += max(1, (objects - len(built)) // 2 + 1)
        generate_stack(stack, servers)
        built = build_objects(stack, mode)
    return stack, built


def measure(objects: int, mode: str, repeat: int, root: Path) -> tuple[float, float, int]:
    """Best render time, best diff --live time and the number of exported objects."""
    stack, built = servers_for(objects, root, mode)
    export = root / f"export-{mode}.yaml"
    name = write_export(built, export, mode)
    document = live_like_the_cli(stack, export, mode)
    drifted = [(c["kind"], c["name"]) for c in document["changes"]]
    expected_kind = "TServer" if mode == "crd" else "StatefulSet"
    assert drifted == [(expected_kind, name)], drifted
    if mode == "crd":
        assert [(c["manager"], c["name"]) for c in document["conflicts"]] == [("tarsweb", name)]
    floor = live = float("inf")
    for _ in range(repeat):  # alternated, so that a change of the machine's load hits both
        floor = min(floor, best_wall_time(lambda: render(stack, root / f"out-{mode}", mode), 1))
        live = min(live, best_wall_time(lambda: live_like_the_cli(stack, export, mode), 1))
    return floor, live, len(built)


def main() -> int:
    """Run the sizes, print the table and the target check."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--objects", type=int, nargs="+", default=list(DEFAULT_OBJECTS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--modes", nargs="+", default=["expand", "crd"])
    args = parser.parse_args()
    ok = True
    print(f"{'objects':>7} {'mode':>6} {'render s':>9} {'diff --live s':>13} {'ratio':>6}")
    with tempfile.TemporaryDirectory(prefix="tars-live-bench-") as tmp:
        for size in args.objects:
            for mode in args.modes:
                floor, live, count = measure(size, mode, args.repeat, Path(tmp) / f"{size}")
                ratio = live / floor
                print(f"{count:>7} {mode:>6} {floor:>9.3f} {live:>13.3f} {ratio:>6.2f}")
                if size >= 5000 and ratio > TARGET:
                    ok = False
    print(
        f"target: diff --live at most {TARGET}x the render of the stack at 5,000 objects: "
        + ("PASS" if ok else "FAIL")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
