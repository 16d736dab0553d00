"""``tars_components/polyglot/types.py``, from which Pulumi's analyzer infers the package schema,
is what ``tools/gen_polyglot_types.py`` writes from the models and the components' arguments
dataclasses (run it again after changing either, then ``tools/gen_plugin_schema.py``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "gen_polyglot_types.py"
TYPES = REPO / "tars_components" / "polyglot" / "types.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_polyglot_types", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tool  # its dataclasses look their module up
    spec.loader.exec_module(tool)
    return tool


def test_the_types_are_generated() -> None:
    checked = subprocess.run(
        [sys.executable, str(TOOL), "--check"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=600,  # a hang guard: slow while the other CI leg shares the cores
    )
    assert checked.returncode == 0, checked.stderr


def test_the_check_names_a_stale_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = _tool()
    committed = TYPES.read_text("utf-8")
    stale = tmp_path / "types.py"
    stale.write_text(
        committed.replace("Worker threads. Defaults to 3.", "Worker threads."), "utf-8"
    )
    assert stale.read_text("utf-8") != committed
    monkeypatch.setattr(tool, "REPO", tmp_path)
    monkeypatch.setattr(tool, "TYPES", stale)
    assert tool.main(["--check"]) == 1
    assert capsys.readouterr().err == (
        "types.py is not up to date: run python tools/gen_polyglot_types.py\n"
    )
    assert tool.main([]) == 0
    assert stale.read_text("utf-8") == committed
    assert tool.main(["--check"]) == 0
