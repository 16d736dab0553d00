"""Dependencies by need: cryptography and pulumi-tls make the webhook CA of the TarsK8S install
only, so they come with ``tars-components[platform]``; without them a stack renders, and the
install says which extra to add (exit 2 on the command line, never a traceback)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

import pytest
from support.builders.platform_values import CONTROLLER_VALUES

from tars_components.components.platform import TarsController, TarsControllerArgs
from tars_components.components.testing import record
from tars_components.kernel.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "platform"
INSTALL = "pip install 'tars-components[platform]'"


def _without(modules: list[str], *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``tars-components ARGV`` in a Python where ``modules`` cannot be imported, as after a
    plain ``pip install tars-components``."""
    hide = "".join(f"sys.modules[{m!r}] = None; " for m in modules)
    program = f"import sys; {hide}from tars_components.cli import console; console()"
    return subprocess.run(
        [sys.executable, "-c", program, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_the_platform_dependencies_are_an_extra() -> None:
    """The installed distribution's metadata: neither is required without the extra."""
    wanted: dict[str, set[str]] = {}
    for requirement in requires("tars-components") or []:
        name = re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower()
        extra = re.search(r"extra == ['\"]([\w-]+)['\"]", requirement)
        wanted.setdefault(name, set()).add(extra.group(1) if extra else "")
    assert wanted["cryptography"] == wanted["pulumi-tls"] == {"platform"}


def test_a_stack_renders_without_them(tmp_path: Path) -> None:
    done = _without(["cryptography", "pulumi_tls"], "render", "stacks/dev", "-o", "yaml", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "kind: StatefulSet" in done.stdout


@pytest.mark.parametrize("with_ca", [False, True])
def test_the_controller_install_names_the_extra(tmp_path: Path, with_ca: bool) -> None:
    argv = ["controller", "--values", str(FIXTURES / "controller-minimal.values.yaml")]
    argv += ["--out", str(tmp_path / "out")]
    if with_ca:
        (tmp_path / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\n")
        (tmp_path / "ca.key").write_text("-----BEGIN PRIVATE KEY-----\n")
        argv += ["--ca-cert", str(tmp_path / "ca.crt"), "--ca-key", str(tmp_path / "ca.key")]
    done = _without(["cryptography"], *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert INSTALL in done.stderr and "cryptography" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_controller_component_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pulumi_tls", None)
    with pytest.raises(UsageError, match=r"pulumi_tls.*pip install 'tars-components\[platform\]'"):
        record(lambda: TarsController("tars", TarsControllerArgs(values=CONTROLLER_VALUES)))
