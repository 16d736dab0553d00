"""crd mode on a live TarsK8S cluster (issue #8 item 4): a stack of TServers and TTemplates
only, against the namespace's existing ``tars-framework`` TFrameworkConfig
(``tars:frameworkConfig: existing``), validates, renders and previews; the config is looked up
(``TFrameworkConfig.get``), never created. An input the CRD refuses (a TFrameworkConfig
``nodeImage.secret`` that is not a DNS subdomain) is a rule violation from ``validate`` and
``render`` (exit 1) and registers nothing in Pulumi."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from tars_components.cli import main as cli
from tars_components.components.testing import Recording, record

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = str(ROOT / "__main__.py")


def project(tmp_path: Path, framework: dict[str, Any] | None, **config: str) -> Path:
    """A project dir with stack ``live``: the prod stack's templates and servers, plus
    ``framework`` as its TFrameworkConfig when given."""
    stack = tmp_path / "stacks" / "live"
    stack.mkdir(parents=True)
    for path in sorted((ROOT / "stacks" / "prod").glob("*.yaml")):
        if path.name != "00-framework.yaml":
            shutil.copy(path, stack / path.name)
    if framework is not None:
        (stack / "00-framework.yaml").write_text(yaml.safe_dump(framework), encoding="utf-8")
    values = {
        "tars:namespace": "tars-prod",
        "tars:stackDir": "stacks/live",
        "tars:mode": "crd",
        **{f"tars:{k}": v for k, v in config.items()},
    }
    (tmp_path / "Pulumi.live.yaml").write_text(yaml.safe_dump({"config": values}), "utf-8")
    return tmp_path


def run_program(directory: Path, recording: Recording | None = None) -> Recording:
    config = yaml.safe_load((directory / "Pulumi.live.yaml").read_text(encoding="utf-8"))
    values = dict(config["config"])
    values["tars:stackDir"] = str(directory / values["tars:stackDir"])
    return record(lambda: runpy.run_path(PROGRAM), config=values, stack="live", recording=recording)


def test_without_the_option_a_stack_without_framework_config_fails_ts020(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = project(tmp_path, None)
    assert cli(["validate", "--stack", "live", "--project-dir", str(directory)]) == 1
    assert "TS020" in capsys.readouterr().out


def test_existing_framework_config_validates_renders_and_previews(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = project(tmp_path, None, frameworkConfig="existing")
    assert cli(["validate", "--stack", "live", "--project-dir", str(directory)]) == 0
    out = tmp_path / "out"
    args = ["render", "--stack", "live", "--project-dir", str(directory), "--out", str(out)]
    assert cli(args) == 0
    written = [yaml.safe_load(p.read_text()) for p in sorted(out.rglob("*.yaml"))]
    kinds = {doc["kind"] for doc in written}
    assert kinds == {"TServer", "TTemplate"}  # the config is the cluster's: never written
    for doc in written:
        release = doc.get("spec", {}).get("release") or {}
        assert "nodeImage" not in release  # the cluster's webhook fills it
    capsys.readouterr()

    recording = run_program(directory)
    assert {r.type for r in recording.kubernetes()} == {
        "kubernetes:k8s.tars.io/v1beta3:TServer",
        "kubernetes:k8s.tars.io/v1beta3:TTemplate",
    }
    [lookup] = [r for r in recording.registrations if r.read]
    assert lookup.type == "kubernetes:k8s.tars.io/v1beta3:TFrameworkConfig"
    assert lookup.inputs == {"id": "tars-prod/tars-framework"}
    servers = [r for r in recording.validations() if r.name.endswith("-validation")]
    assert servers and all(not r.outputs.get("violations") for r in servers)


def test_existing_framework_config_needs_crd_mode(tmp_path: Path) -> None:
    directory = project(tmp_path, None, frameworkConfig="existing", mode="expand")
    assert cli(["validate", "--stack", "live", "--project-dir", str(directory)]) == 2


def test_an_invalid_node_image_secret_is_a_violation_and_registers_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    framework = yaml.safe_load((ROOT / "stacks" / "prod" / "00-framework.yaml").read_text())
    framework["nodeImage"]["secret"] = "Tars-Image-Secret"
    directory = project(tmp_path, framework)
    assert cli(["validate", "--stack", "live", "--project-dir", str(directory)]) == 1
    out = capsys.readouterr().out
    assert "TF001" in out and "nodeImage.secret" in out
    target = tmp_path / "out"
    args = ["render", "--stack", "live", "--project-dir", str(directory), "--out", str(target)]
    assert cli(args) == 1
    assert not target.exists() or not any(target.rglob("*.yaml"))
    recording = Recording()
    with pytest.raises(pulumi.RunError):
        run_program(directory, recording)
    assert recording.registrations == []
    assert any("TF001" in message for level, message in recording.log if level == "ERROR")


def test_the_cli_flag_does_what_the_config_key_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = project(tmp_path, None)
    stack = str(directory / "stacks" / "live")
    base = ["validate", stack, "--namespace", "tars-prod"]
    assert cli([*base, "--mode", "crd"]) == 1  # TS020: no TFrameworkConfig in the stack
    assert "TS020" in capsys.readouterr().out
    assert cli([*base, "--mode", "crd", "--existing-framework-config"]) == 0
    assert cli([*base, "--existing-framework-config"]) == 2  # expand mode: a usage error
    assert "--existing-framework-config needs crd mode" in capsys.readouterr().err
