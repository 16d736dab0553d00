"""Scale benchmark of ``tars-components diff`` (a script, not a test).

For each size (default 100, 1,000 and 5,000 TServers) it generates a stack directory of mixed
servers exactly as ``benchmarks/render_scale.py`` does, a copy with ONE change (one server's
release image), and measures in the same process:

* ``render`` of both stacks (``render_stack``, the call behind ``tars-components render``),
  the floor: a diff has to build both stacks too;
* ``diff`` as the CLI runs it (load both stacks, the change rules, build both, compare,
  print JSON), in expand mode and in crd mode (where the TServers are compared and both stacks
  are also expanded for the ``effects``);

and prints the best of ``--repeat`` runs of each, the ratios diff / render-both, and checks
that exactly one object is reported (expand: the StatefulSet; crd: the TServer, with its
StatefulSet as effect).

Target (2-core machine): diff well under 2x the render of both stacks (ratio < 1.5 in expand
mode, < 2 in crd mode) at 1,000 and 5,000 servers. The exit code is 1 when a target is missed.

Usage::

    python benchmarks/diff_scale.py
    python benchmarks/diff_scale.py --sizes 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from render_scale import NAMESPACE, generate_stack  # noqa: E402

DEFAULT_SIZES = (100, 1000, 5000)
TARGET_EXPAND = 1.5
TARGET_CRD = 2.0
CHANGED_SERVER = 7  # shape 2: a Tars StatefulSet with a tLocalVolume


@dataclass
class Row:
    """One size's figures (seconds)."""

    servers: int
    render_both: float
    diff_expand: float
    diff_crd: float
    render_both_crd: float
    changes_expand: int
    changes_crd: int

    @property
    def ratio_expand(self) -> float:
        """diff (expand) over the render of both stacks (expand)."""
        return self.diff_expand / self.render_both

    @property
    def ratio_crd(self) -> float:
        """diff (crd) over the render of both stacks (crd)."""
        return self.diff_crd / self.render_both_crd


def change_one_server(stack_dir: Path) -> None:
    """Give server CHANGED_SERVER a new release image."""
    file = stack_dir / f"srv-{CHANGED_SERVER:05d}.yaml"
    text = file.read_text(encoding="utf-8")
    old = f":r{CHANGED_SERVER}\n"
    assert old in text, file
    file.write_text(text.replace(old, f":r{CHANGED_SERVER}-hotfix\n"), encoding="utf-8")


def render_both(old: Path, new: Path, out: Path, mode: str) -> float:
    """Wall time of ``render_stack`` on both stacks."""
    from tars_components.jobs.render import render_stack
    from tars_components.settings.options import Mode, Options

    options = Options(namespace=NAMESPACE, mode=Mode(mode))
    start = time.perf_counter()
    for stack_dir, target in ((old, out / "old"), (new, out / "new")):
        result = render_stack(stack_dir, target, options)
        if not result.build.ok:
            raise SystemExit(f"{stack_dir}: benchmark stack has rule errors")
    return time.perf_counter() - start


def diff_like_the_cli(old: Path, new: Path, mode: str) -> tuple[float, dict]:
    """``tars-components diff OLD NEW --mode MODE --format json``, in-process; its wall time
    and the JSON document."""
    from tars_components.cli import main

    out = io.StringIO()
    saved = sys.stdout
    sys.stdout = out
    try:
        start = time.perf_counter()
        code = main(
            [
                "diff",
                str(old),
                str(new),
                "--namespace",
                NAMESPACE,
                "--mode",
                mode,
                "--format",
                "json",
            ]
        )
        elapsed = time.perf_counter() - start
    finally:
        sys.stdout = saved
    if code != 0:
        raise SystemExit(f"diff exited {code}")
    return elapsed, json.loads(out.getvalue())


def measure(servers: int, repeat: int, tmpdir: str | None) -> Row:
    """Best of ``repeat`` runs of each measurement, alternated."""
    with tempfile.TemporaryDirectory(prefix="tars-diff-bench-", dir=tmpdir) as tmp:
        root = Path(tmp)
        generate_stack(root / "warm-old", 20)
        shutil.copytree(root / "warm-old", root / "warm-new")
        change_one_server(root / "warm-new")
        render_both(root / "warm-old", root / "warm-new", root / "warm-out", "expand")
        diff_like_the_cli(root / "warm-old", root / "warm-new", "crd")
        old, new = root / "old", root / "new"
        generate_stack(old, servers)
        shutil.copytree(old, new)
        change_one_server(new)
        times: dict[str, list[float]] = {k: [] for k in ("render", "render_crd", "expand", "crd")}
        documents: dict[str, dict] = {}
        for _ in range(repeat):
            times["render"].append(render_both(old, new, root / "out", "expand"))
            elapsed, documents["expand"] = diff_like_the_cli(old, new, "expand")
            times["expand"].append(elapsed)
            times["render_crd"].append(render_both(old, new, root / "out", "crd"))
            elapsed, documents["crd"] = diff_like_the_cli(old, new, "crd")
            times["crd"].append(elapsed)
    expand_changes = documents["expand"]["changes"]
    crd_changes = documents["crd"]["changes"]
    name = f"bench{CHANGED_SERVER // 100}-srv{CHANGED_SERVER}"
    assert [(c["kind"], c["name"]) for c in expand_changes] == [("StatefulSet", name)]
    assert [(c["kind"], c["name"]) for c in crd_changes] == [("TServer", name)]
    assert [e["kind"] for e in crd_changes[0]["effects"]] == ["StatefulSet"]
    return Row(
        servers=servers,
        render_both=min(times["render"]),
        diff_expand=min(times["expand"]),
        diff_crd=min(times["crd"]),
        render_both_crd=min(times["render_crd"]),
        changes_expand=len(expand_changes),
        changes_crd=len(crd_changes),
    )


def print_table(rows: list[Row]) -> None:
    """The figures, one line per size."""
    header = (
        f"{'servers':>7} {'render both s':>13} {'diff s':>8} {'ratio':>6} {'changes':>7} "
        f"{'render both crd s':>17} {'diff crd s':>10} {'ratio':>6} {'changes':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r.servers:>7} {r.render_both:>13.3f} {r.diff_expand:>8.3f} {r.ratio_expand:>6.2f} "
            f"{r.changes_expand:>7} {r.render_both_crd:>17.3f} {r.diff_crd:>10.3f} "
            f"{r.ratio_crd:>6.2f} {r.changes_crd:>7}"
        )
    print(
        "render both = render_stack of the old and the new stack (expand or crd mode); diff = "
        "`diff OLD NEW --format json` in-process (load, change rules, build both, compare, "
        "print); best of the runs; one server changed, so one object is listed."
    )


def check_targets(rows: list[Row]) -> bool:
    """Print each target with PASS/FAIL; True when all pass."""
    checks: list[tuple[str, bool]] = []
    for r in rows:
        if r.servers < 1000:
            continue
        checks.append(
            (
                f"expand diff at {r.servers:,} servers < {TARGET_EXPAND}x render of both: "
                f"{r.ratio_expand:.2f}",
                r.ratio_expand < TARGET_EXPAND,
            )
        )
        checks.append(
            (
                f"crd diff at {r.servers:,} servers < {TARGET_CRD}x render of both: "
                f"{r.ratio_crd:.2f}",
                r.ratio_crd < TARGET_CRD,
            )
        )
    print()
    for text, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
    return all(ok for _, ok in checks)


def main(argv: list[str] | None = None) -> int:
    """Command line: the table and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (best is kept)")
    parser.add_argument("--tmpdir", metavar="DIR", help="where stacks and renders are written")
    args = parser.parse_args(argv)
    rows = []
    for size in args.sizes:
        rows.append(measure(size, args.repeat, args.tmpdir))
        print(f"measured {size} servers", file=sys.stderr)
    print_table(rows)
    return 0 if check_targets(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
