"""The command line as a user runs it: ``python -m tars_components ARGS`` in a subprocess,
with the checkout first on ``PYTHONPATH`` and ``NO_COLOR`` unset (colour is the command's own
decision, whatever the environment of the test run)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m tars_components ARGS`` in ``cwd``: exit code, stdout and stderr as text."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "tars_components", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=timeout,
    )


def timed_run(
    *args: str, cwd: Path, timeout: float = 30
) -> tuple[subprocess.CompletedProcess[str], float]:
    """:func:`run` with a tighter timeout; the result and its wall time in seconds."""
    started = time.monotonic()
    result = run(*args, cwd=cwd, timeout=timeout)
    return result, time.monotonic() - started
