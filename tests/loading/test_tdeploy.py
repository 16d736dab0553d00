"""TDeploy requests: an approved request deploys its apply as a TServer; pending and rejected
ones deploy nothing; the approval is bound to the approved apply (issue 20)."""

from __future__ import annotations

import copy
import runpy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tars_components.cli import main as cli
from tars_components.components.testing import record
from tars_components.loading.load import load_texts
from tars_components.options import Options
from tars_components.pipeline import build
from tars_components.rules import validate_change
from tars_components.yaml_writer import dump

ROOT = Path(__file__).resolve().parents[2]
NS = "tars-dev"
APPROVE = {
    "person": "alice",
    "reason": "reviewed in PR 12",
    "result": True,
    "time": "2026-11-25T01:00:00Z",
}


def request(api_version: str = "k8s.tars.io/v1beta2", **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": "TDeploy",
        "metadata": {"name": "test-demotest"},
        "apply": {
            "app": "Test",
            "server": "DemoTest",
            "subType": "tars",
            "tars": {
                "template": "tars.nodejs",
                "servants": [{"name": "DemoTest1Obj", "port": 13333}],
            },
            "k8s": {"replicas": 1},
            "release": {"id": "v1", "image": "example.com/test/demotest:v1"},
        },
    }
    doc.update(fields)
    return doc


def server_of(req: dict[str, Any]) -> dict[str, Any]:
    """The TServer document an approved request stands for."""
    return {
        "apiVersion": req["apiVersion"],
        "kind": "TServer",
        "metadata": {"name": "test-demotest"},
        "spec": copy.deepcopy(req["apply"]),
    }


def dev_files() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "stacks" / "dev").glob("[01]*")}


def stack_dir(tmp_path: Path, name: str, *docs: dict[str, Any]) -> Path:
    directory = tmp_path / name
    directory.mkdir()
    for file, text in dev_files().items():
        (directory / file).write_text(text, encoding="utf-8")
    (directory / "50-request.yaml").write_text(
        "".join(f"---\n{dump(d)}" for d in docs), encoding="utf-8"
    )
    return directory


def built(*docs: dict[str, Any], options: Options | None = None) -> Any:
    texts = {**dev_files(), "50-request.yaml": "".join(f"---\n{dump(d)}" for d in docs)}
    return build(load_texts(texts, NS), options or Options(namespace=NS))


def names(result: Any) -> set[str]:
    return {o["metadata"]["name"] for o in result.objects}


def test_pending_request_deploys_nothing_and_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = built(request())
    assert result.ok
    assert "test-demotest" not in names(result)
    [pending] = [v for v in result.violations if v.code == "TD005"]
    assert not pending.is_error and pending.kind == "TDeploy"
    assert (pending.file, pending.line) == ("50-request.yaml", 5)  # metadata.name (after ---)
    pending_dir = stack_dir(tmp_path, "pending", request())
    assert cli(["validate", str(pending_dir), "--namespace", NS]) == 0
    assert "TD005 warning TDeploy tars-dev/test-demotest" in capsys.readouterr().out
    out = tmp_path / "out"
    assert cli(["render", str(pending_dir), "--namespace", NS, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "TD005 warning" in printed and "1 warning(s)" in printed
    assert not any("test-demotest" in p.name for p in out.rglob("*.yaml"))
    approved_dir = stack_dir(tmp_path, "approved", request(approve=APPROVE))
    assert cli(["diff", str(pending_dir), str(approved_dir), "--namespace", NS]) == 0
    captured = capsys.readouterr()
    assert "test-demotest" in captured.out
    assert cli(["diff", str(approved_dir), str(pending_dir), "--namespace", NS]) == 0
    assert "TD005 warning" in capsys.readouterr().err


@pytest.mark.parametrize("api_version", ["k8s.tars.io/v1beta2", "k8s.tars.io/v1beta3"])
def test_approved_request_deploys_its_apply_as_that_tserver(api_version: str) -> None:
    req = request(api_version, approve=APPROVE)
    from_request = built(req)
    from_server = built(server_of(req))
    assert from_request.ok
    assert "test-demotest" in names(from_request)
    assert from_request.objects == from_server.objects
    assert not [v for v in from_request.violations if v.code.startswith("TD")]


def test_rejected_request_deploys_nothing() -> None:
    result = built(request(approve={**APPROVE, "result": False}))
    assert result.ok
    assert "test-demotest" not in names(result)
    assert not [v for v in result.violations if v.code.startswith("TD")]


def test_apply_goes_through_every_tserver_rule_at_the_request_line() -> None:
    req = request(approve=APPROVE)
    req["apply"]["tars"]["servants"].append({"name": "NodeObj", "port": 13333})
    errors = [v for v in built(req).violations if v.is_error]
    assert {v.code for v in errors} >= {"TS004", "TS005"}
    text = dump(req)
    for v in errors:
        assert v.file == "50-request.yaml" and v.line is not None
    ts005 = next(v for v in errors if v.code == "TS005")
    # the second servant's name, in the request's apply (line + 1: the file starts with ---)
    assert text.splitlines()[ts005.line - 2].strip() == "- name: NodeObj"


def test_binding_approval_to_the_approved_apply(tmp_path: Path) -> None:
    pending = request()
    approved = request(approve=APPROVE)
    changed = request(approve=APPROVE)
    changed["apply"]["release"]["image"] = "example.com/test/demotest:v2"
    reapproved = request(approve={**APPROVE, "time": "2026-11-26T09:00:00Z"})
    reapproved["apply"] = changed["apply"]
    dirs = {
        name: stack_dir(tmp_path, name, doc)
        for name, doc in (
            ("pending", pending),
            ("approved", approved),
            ("changed", changed),
            ("reapproved", reapproved),
        )
    }

    def validate(new: str, old: str) -> int:
        return cli(["validate", str(dirs[new]), "--namespace", NS, "--previous", str(dirs[old])])

    assert validate("approved", "pending") == 0  # approving is a reviewed change
    assert validate("changed", "approved") == 1  # TD002
    assert validate("reapproved", "approved") == 0  # a new approval for the new apply
    assert validate("approved", "approved") == 0
    previous = load_texts({"r.yaml": dump(approved)}, NS)
    current = load_texts({"r.yaml": dump(changed)}, NS)
    [td002] = [v for v in validate_change(previous, current) if v.code == "TD002"]
    assert (td002.field, td002.line) == ("apply", 5)


def test_new_request_with_its_own_approval_is_refused_on_change() -> None:
    previous = load_texts({"other.yaml": dump(request(metadata={"name": "other"}))}, NS)
    current = load_texts({"r.yaml": dump(request(approve=APPROVE))}, NS)
    [td001] = [v for v in validate_change(previous, current) if v.code.startswith("TD")]
    assert (td001.code, td001.field) == ("TD001", "approve")


def test_tdeploy_and_tserver_of_the_same_name_is_an_error() -> None:
    server = server_of(request())
    server["spec"]["release"] = {"id": "v0", "image": "example.com/test/demotest:v0"}
    for req in (request(), request(approve=APPROVE)):
        result = built(server, req)
        assert "TD003" in {v.code for v in result.violations if v.is_error}
        assert not result.ok


def test_approvers_from_the_flag_and_the_stack_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = stack_dir(tmp_path, "s", request(approve=APPROVE))
    assert cli(["validate", str(directory), "--namespace", NS, "--approvers", "bob"]) == 1
    assert "TD006 error TDeploy" in capsys.readouterr().out
    assert cli(["validate", str(directory), "--namespace", NS, "--approvers", "bob,alice"]) == 0
    project = tmp_path / "project"
    project.mkdir()
    config = {
        "config": {
            "tars:namespace": NS,
            "tars:stackDir": str(directory),
            "tars:approvers": "bob, carol",
        }
    }
    (project / "Pulumi.x.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    assert cli(["validate", "--stack", "x", "--project-dir", str(project)]) == 1
    assert "'alice' is not an approver" in capsys.readouterr().out
    assert cli(["validate", str(directory), "--approvers", "not valid"]) == 2


def test_request_schema_and_deployed(capsys: pytest.CaptureFixture[str]) -> None:
    bad = request(approve={"person": "9lives", "result": True, "reason": "x"}, deployed=True)
    result = built(bad)
    codes = {(v.code, v.field) for v in result.violations}
    assert ("TD007", "approve.person") in codes
    assert ("TD007", "approve.time") in codes
    assert ("TD004", "deployed") in codes
    assert "test-demotest" not in names(result)
    assert not result.ok


def test_pulumi_program_warns_about_pending_requests(tmp_path: Path) -> None:
    directory = stack_dir(tmp_path, "s", request())
    recording = record(
        lambda: runpy.run_path(str(ROOT / "__main__.py")),
        config={"tars:namespace": NS, "tars:stackDir": str(directory), "tars:mode": "expand"},
        stack="dev",
    )
    warnings = [m for level, m in recording.log if level == "WARNING"]
    assert any("TD005" in m and "test-demotest" in m for m in warnings)
    assert not any("test-demotest" in str(r.inputs) for r in recording.kubernetes())
    shutil.rmtree(directory)


def test_the_seeds_old_spelling_of_is_tars_says_what_to_write() -> None:
    """The seed's and TarsDocs' TDeploy example writes ``isTaf`` (TAF's name): refused, with
    the field the CRD reads."""
    req = request(approve=APPROVE)
    req["apply"]["tars"]["servants"][0]["isTaf"] = True
    for result in (built(req), built(server_of(req))):
        [old] = [v for v in result.violations if v.field.endswith("isTaf")]
        assert old.is_error and old.field.endswith("tars.servants[0].isTaf")
        assert old.message == "unknown field (an old spelling: write isTars)"
    req["apply"]["tars"]["servants"][0]["isTars"] = req["apply"]["tars"]["servants"][0].pop("isTaf")
    assert built(req).ok
