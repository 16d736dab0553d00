"""What keeps ``tars-components`` quick to start (issue #12): the packages import their public
names on first use, and ``main`` leaves the garbage collector as it found it."""

from __future__ import annotations

import gc
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tars_components.cli import main

ROOT = Path(__file__).resolve().parents[2]
VALUES = ROOT / "tests" / "data" / "platform" / "framework-full.values.yaml"

LAZY_PACKAGES = ("tars_components", "tars_components.platform", "tars_components.diff")


def _modules_after(code: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    return set(done.stdout.split())


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_public_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_public_names_are_the_defining_modules_objects() -> None:
    import tars_components
    from tars_components import diff, platform
    from tars_components.diff.stacks import diff_stacks
    from tars_components.loading.load import load_stack
    from tars_components.models import TServerDocument
    from tars_components.platform.framework import build_framework
    from tars_components.rules import validate

    assert tars_components.load is load_stack
    assert tars_components.load_stack is load_stack
    assert tars_components.TServerDocument is TServerDocument
    assert tars_components.validate is validate
    assert platform.build_framework is build_framework
    assert diff.diff_stacks is diff_stacks


def test_importing_the_cli_loads_neither_pydantic_nor_yaml_nor_pulumi() -> None:
    loaded = _modules_after("import tars_components.cli")
    assert not {"pydantic", "yaml", "pulumi", "pulumi_kubernetes"} & loaded


def test_the_framework_command_loads_no_pulumi_and_no_other_command(tmp_path: Path) -> None:
    loaded = _modules_after(
        "from tars_components.cli import main\n"
        f"assert main(['framework', '--values', {str(VALUES)!r}, '--namespace', 'x', "
        f"'--out', {str(tmp_path / 'out')!r}]) == 0"
    )
    assert "tars_components.models.tserver" in loaded  # validated like a stack's documents
    assert (
        not {
            "pulumi",
            "tars_components.components",
            "tars_components.diff.stacks",
            "tars_components.crds.editor_schema",
            "tars_components.platform.controller",
        }
        & loaded
    )


@pytest.mark.parametrize("collecting", [True, False])
def test_main_leaves_the_garbage_collector_as_it_found_it(
    collecting: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        code = main(
            ["framework", "--values", str(VALUES), "--namespace", "x", "--out", str(tmp_path / "o")]
        )
        assert code == 0
        assert gc.isenabled() is collecting
        with pytest.raises(SystemExit):
            main(["framework", "--no-such-flag"])
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()
    assert "63 objects" in capsys.readouterr().out
