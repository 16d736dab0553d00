"""Benchmark of the framework install render (a script, not a test).

In one run, on the same values file (default tests/fixtures/platform/framework-full.values.yaml):

* ``tars-components framework --values V --namespace NS --out DIR`` as a user runs it (a fresh
  ``python -m tars_components`` process, start-up included), best of ``--repeat``;
* ``helm template tars CHART -f V --namespace NS --kube-version 1.24 --output-dir DIR`` (the
  tarsframework 1.4.1 chart, Chart.yaml placeholders filled as the K8SFramework build does),
  best of ``--repeat`` — the floor;
* the parts of our time: the interpreter alone (``python -c pass``), importing the CLI, and the
  in-process build + write of one namespace;
* linearity: the in-process build of 1, 10 and 50 namespaces (time per namespace).

Prints the ratio ours / helm; target: within 3x, start-up included. Exits 1 when missed, 0
when met, and 0 with a message when helm or the chart is absent (nothing to compare with).

Usage::

    python benchmarks/platform_scale.py --helm /work/ref/bin/helm \\
        --chart /work/ref/k8sfw-1.4.1/helm/tarsframework
    TARS_HELM=... TARS_FRAMEWORK_CHART=... python benchmarks/platform_scale.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DEFAULT_VALUES = REPO / "tests" / "fixtures" / "platform" / "framework-full.values.yaml"
DEFAULT_HELM = "/work/ref/bin/helm"
DEFAULT_CHART = "/work/ref/k8sfw-1.4.1/helm/tarsframework"
NAMESPACE = "tars-bench"
TARGET_RATIO = 3.0


def best_of(repeat: int, command: list[str], env: dict[str, str] | None = None) -> float:
    """Best wall time of ``repeat`` runs of a command (it must succeed)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
        best = min(best, elapsed)
    return best


def prepared_chart(chart: Path, into: Path) -> Path:
    """A copy of the chart with ``_CHART_VERSION_``/``_CHART_APPVERSION_`` filled."""
    target = into / chart.name
    shutil.copytree(chart, target)
    meta = target / "Chart.yaml"
    text = meta.read_text(encoding="utf-8")
    meta.write_text(
        text.replace("_CHART_VERSION_", "1.4.1").replace("_CHART_APPVERSION_", "v1beta3"),
        encoding="utf-8",
    )
    return target


def in_process(values: Path, namespaces: int, out: Path) -> float:
    """Build and write ``namespaces`` framework installs in this process; wall time."""
    from tars_components.platform.job import render_framework

    start = time.perf_counter()
    for index in range(namespaces):
        result = render_framework(values, f"{NAMESPACE}-{index}", out / f"ns{index}")
        assert result.ok
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helm", default=os.environ.get("TARS_HELM", DEFAULT_HELM))
    parser.add_argument("--chart", default=os.environ.get("TARS_FRAMEWORK_CHART", DEFAULT_CHART))
    parser.add_argument("--values", default=str(DEFAULT_VALUES))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    helm = shutil.which(args.helm) or (args.helm if Path(args.helm).is_file() else None)
    if helm is None or not Path(args.chart, "Chart.yaml").is_file():
        print(
            f"skipped: no helm binary at {args.helm!r} or no tarsframework chart at "
            f"{args.chart!r} (set --helm/--chart or TARS_HELM/TARS_FRAMEWORK_CHART)"
        )
        return 0

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    values = Path(args.values)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        chart = prepared_chart(Path(args.chart), work)
        helm_cmd = [
            helm, "template", "tars", str(chart), "-f", str(values), "--namespace", NAMESPACE,
            "--kube-version", "1.24", "--output-dir", str(work / "helm-out"),
        ]  # fmt: skip
        ours_cmd = [
            sys.executable, "-m", "tars_components", "framework", "--values", str(values),
            "--namespace", NAMESPACE, "--out", str(work / "ours-out"),
        ]  # fmt: skip
        helm_s = best_of(args.repeat, helm_cmd)
        ours_s = best_of(args.repeat, ours_cmd, env)
        python_s = best_of(args.repeat, [sys.executable, "-c", "pass"], env)
        import_s = best_of(args.repeat, [sys.executable, "-c", "import tars_components.cli"], env)
        objects = len(list((work / "ours-out").rglob("*.yaml")))
        in_process(values, 1, work / "warm")  # imports, caches
        per_ns = {n: in_process(values, n, work / f"lin{n}") / n for n in (1, 10, 50)}

    ratio = ours_s / helm_s
    print(f"framework install, {objects} objects, values {values.name} (best of {args.repeat})")
    print(f"  helm template (floor)           {helm_s * 1000:8.1f} ms")
    print(f"  tars-components framework       {ours_s * 1000:8.1f} ms   ratio {ratio:.1f}x")
    print(f"    python -c pass                {python_s * 1000:8.1f} ms   {python_s / helm_s:.1f}x")
    print(f"    import tars_components.cli    {import_s * 1000:8.1f} ms   {import_s / helm_s:.1f}x")
    print(
        f"    build + write, in process     {per_ns[1] * 1000:8.1f} ms   {per_ns[1] / helm_s:.1f}x"
    )
    print(
        "  linearity, ms per namespace:    "
        + ", ".join(f"{n} ns: {t * 1000:.1f}" for n, t in per_ns.items())
    )
    met = ratio <= TARGET_RATIO
    print(
        f"target: within {TARGET_RATIO:.0f}x of helm, start-up included: "
        f"{'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
