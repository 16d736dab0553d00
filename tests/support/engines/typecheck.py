"""``mypy --strict`` over user programs, the library seen as an installed package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def mypy_strict(tmp_path: Path, programs: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` over user programs (one run: mypy's startup dominates). The runs of
    one test session share mypy's cache (``<basetemp>/mypy-cache``): the library is analysed
    once, not once per test."""
    for name, text in programs.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    cache = tmp_path.parent / "mypy-cache"  # pytest's basetemp: this session's own
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(cache),
            *(f"{name}.py" for name in programs),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        # a guard against a hang, not a measure: a first analysis of pulumi's stubs takes a
        # minute alone, and much longer while .ci/run's other leg and Go builds share the cores
        timeout=1800,
        check=False,
    )
