"""TDeploy requests: an approved request deploys its apply as a TServer; pending and rejected
ones deploy nothing; the approval is bound to the approved apply (issue 20)."""

from __future__ import annotations

import copy
import json
import runpy
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tars_components.cli import main as cli
from tars_components.components.testing import ValidationFailed, record
from tars_components.fileio.yaml_writer import dump
from tars_components.loading.load import load_texts
from tars_components.pipeline import build
from tars_components.provider import AdmissionError, TarsValidationProvider
from tars_components.rules import validate_change
from tars_components.settings.options import Options

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
    # taking the approval back is changing approve once set (TD008)
    assert cli(["diff", str(approved_dir), str(pending_dir), "--namespace", NS]) == 1
    assert "TD008 error TDeploy tars-dev/test-demotest approve" in capsys.readouterr().out


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


def test_the_decision_is_final_and_bound_to_its_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seed's webhook: approve is set once ("禁止重复修改 approve 域"), so neither a second
    approval (s2 -> s4, a new approver) nor a rejection of an approved request passes, and the
    apply a decision was made on does not change under it."""
    pending = request()
    approved = request(approve=APPROVE)
    changed = request(approve=APPROVE)
    changed["apply"]["release"]["image"] = "example.com/test/demotest:v2"
    reapproved = request(approve={**APPROVE, "person": "bob", "time": "2026-11-26T09:00:00Z"})
    reapproved["apply"] = changed["apply"]
    rejected = request(approve={**APPROVE, "result": False, "reason": "too early"})
    rejected_changed = request(approve=rejected["approve"])
    rejected_changed["apply"] = changed["apply"]
    docs = {
        "pending": pending,
        "approved": approved,
        "changed": changed,
        "reapproved": reapproved,
        "rejected": rejected,
        "rejected-changed": rejected_changed,
    }
    dirs = {name: stack_dir(tmp_path, name, doc) for name, doc in docs.items()}

    def validate(new: str, old: str) -> str:
        code = cli(["validate", str(dirs[new]), "--namespace", NS, "--previous", str(dirs[old])])
        errors = {
            line.split()[1] for line in capsys.readouterr().out.splitlines() if " error " in line
        }
        return f"{code} {' '.join(sorted(errors))}".strip()

    assert validate("approved", "pending") == "0"  # approving is a reviewed change
    assert validate("rejected", "pending") == "0"
    assert validate("approved", "approved") == "0"
    assert validate("changed", "approved") == "1 TD002"
    assert validate("reapproved", "approved") == "1 TD008"  # no second approval
    assert validate("rejected", "approved") == "1 TD008"  # not a deletion of the server
    assert validate("pending", "approved") == "1 TD008"  # the approval is not taken back
    assert validate("approved", "rejected") == "1 TD008"
    assert validate("rejected-changed", "rejected") == "1 TD002"
    previous = load_texts({"r.yaml": dump(approved)}, NS)
    current = load_texts({"r.yaml": dump(rejected)}, NS)
    [td008] = [v for v in validate_change(previous, current) if v.code.startswith("TD")]
    line = dump(rejected).splitlines().index("approve:") + 1
    assert (td008.code, td008.field, td008.line) == ("TD008", "approve", line)
    assert "would not undo the deployment" in td008.message


def _check(olds: dict[str, Any] | None, news: dict[str, Any]) -> list[tuple[str, str]]:
    """The dynamic provider's check, as the engine calls it: the old inputs from the Pulumi
    state (none for a resource it creates)."""
    provider = TarsValidationProvider()

    def props(doc: dict[str, Any]) -> dict[str, Any]:
        return {"document": json.dumps({**doc, "metadata": {**doc["metadata"], "namespace": NS}})}

    checked = provider.check(props(olds) if olds else {}, props(news))
    return [(f.property, f.reason.split(":")[0]) for f in checked.failures]


def test_a_plain_preview_takes_the_previous_request_from_the_pulumi_state() -> None:
    """No previous stack directory: the request's validation resource holds the request as
    last deployed, and its check compares with it."""
    approved = request(approve=APPROVE)
    assert _check(None, approved) == [("approve", "TD001")]  # created with its own approval
    assert _check(None, request()) == []
    assert _check(request(), approved) == []
    assert _check(approved, approved) == []
    assert _check(approved, request(approve={**APPROVE, "person": "bob"})) == [("approve", "TD008")]
    assert _check(approved, request(approve={**APPROVE, "result": False})) == [("approve", "TD008")]
    changed = request(approve=APPROVE)
    changed["apply"]["k8s"]["replicas"] = 2
    assert _check(approved, changed) == [("apply", "TD002")]
    with pytest.raises(AdmissionError, match="TD001"):  # create refuses it too
        TarsValidationProvider().create({"document": json.dumps(approved), "namespace": NS})


def _program(directory: Path, previous: Any = None) -> Any:
    return record(
        lambda: runpy.run_path(str(ROOT / "__main__.py")),
        config={"tars:namespace": NS, "tars:stackDir": str(directory), "tars:mode": "expand"},
        stack="dev",
        previous=previous,
    )


def test_the_pulumi_program_keeps_requests_in_the_state_and_waits_for_them(
    tmp_path: Path,
) -> None:
    """A request is a ``tars:index:TDeploy`` component; an approved one's server waits for its
    check; approving in the same change as requesting fails the program (no previous stack
    directory needed), approving later deploys, and a second approval fails."""
    pending = _program(stack_dir(tmp_path, "pending", request()))
    [component] = pending.of_type("tars:index:TDeploy")
    assert component.name == "tars-dev/test-demotest"
    assert pending.component_outputs[component.urn]["state"] == "pending"
    assert not any("test-demotest" in r.name for r in pending.kubernetes())

    with pytest.raises(ValidationFailed) as refused:
        _program(stack_dir(tmp_path, "self-approved", request(approve=APPROVE)))
    assert refused.value.resources == ["tars-dev/test-demotest-request-validation"]
    assert "TD001" in str(refused.value)

    approved = _program(stack_dir(tmp_path, "approved", request(approve=APPROVE)), pending)
    [check] = [r for r in approved.validations() if r.name.endswith("-request-validation")]
    server = next(
        r for r in approved.validations() if r.name == "tars-dev/test-demotest-validation"
    )
    assert check.urn in server.dependencies
    [component] = approved.of_type("tars:index:TDeploy")
    assert approved.component_outputs[component.urn]["state"] == "deployed"
    assert {r.name for r in approved.kubernetes()} >= {
        "tars-dev/test-demotest-service",
        "tars-dev/test-demotest-statefulset",
    }
    again = request(approve={**APPROVE, "person": "bob"})
    with pytest.raises(ValidationFailed, match="TD008"):
        _program(stack_dir(tmp_path, "again", again), approved)


def test_a_deployed_request_hands_over_to_its_tserver_without_recreating_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once the decision is final, the server changes through its own document: the
    request's Kubernetes objects and the TServer's are the same resources (same URNs, same
    inputs), and diff says so."""
    req = request(approve=APPROVE)
    pending = _program(stack_dir(tmp_path, "pending", request()))
    from_request = _program(stack_dir(tmp_path, "approved", req), pending)
    from_server = _program(stack_dir(tmp_path, "server", server_of(req)), from_request)

    def objects(recording: Any) -> dict[str, Any]:
        return {r.urn: r.inputs for r in recording.kubernetes()}

    assert objects(from_server) == objects(from_request)
    assert (
        cli(["diff", str(tmp_path / "approved"), str(tmp_path / "server"), "--namespace", NS]) == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        "No changes.",
        "request: tars-dev/test-demotest: deployed -> removed (TServer test-demotest taken over "
        "by its own document: not recreated)",
    ]


def test_request_states_in_render_and_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pending_dir = stack_dir(tmp_path, "pending", request())
    approved_dir = stack_dir(tmp_path, "approved", request(approve=APPROVE))
    assert (
        cli(["render", str(approved_dir), "--namespace", NS, "--out", str(tmp_path / "out")]) == 0
    )
    assert (
        "request: tars-dev/test-demotest: approved (by alice at 2026-11-25T01:00:00Z: deploys "
        "TServer test-demotest)"
    ) in capsys.readouterr().out
    assert cli(["render", str(pending_dir), "--namespace", NS, "-o", "yaml"]) == 0
    assert (
        "request: tars-dev/test-demotest: pending (deploys nothing until approved)"
        in capsys.readouterr().err
    )
    assert (
        cli(["diff", str(pending_dir), str(approved_dir), "--namespace", NS, "--format", "json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["requests"] == [
        "tars-dev/test-demotest: pending -> approved (by alice at 2026-11-25T01:00:00Z: "
        "deploys TServer test-demotest)"
    ]
    assert (
        cli(
            ["diff", str(pending_dir), str(approved_dir), "--namespace", NS, "--format", "markdown"]
        )
        == 0
    )
    assert "TDeploy requests:\n\n- tars-dev/test-demotest: pending -&gt; approved" in (
        capsys.readouterr().out
    )
    assert cli(["diff", str(approved_dir), str(approved_dir), "--namespace", NS]) == 0
    assert capsys.readouterr().out == "No changes.\n"  # deployed stays deployed: no line


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
