"""Rollouts on the command line: the plan in validate and render, and diff naming the ordinal
that changes release in its three formats (docs/concepts/rollout.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.builders.rollouts import rollout, server, write_stack
from support.engines.cli import run

PLAN0 = "shop-orderserver: 1/4 on v1.5.0 (ordinal 3), 3/4 on v1.4.0"
PLAN1 = "shop-orderserver: 2/4 on v1.5.0 (ordinals 2-3), 2/4 on v1.4.0"
CHANGE = "shop-orderserver: ordinal 2 v1.4.0 -> v1.5.0"
STEP0 = "shop-orderserver: step 0 of 3 (1)"
STEP1 = 'shop-orderserver: step 1 of 3 ("50%")'


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("rollout")
    return (
        write_stack(root / "step0", server(), rollout(0)),
        write_stack(root / "step1", server(), rollout(1)),
    )


def test_validate_prints_the_plan(stacks: tuple[Path, Path]) -> None:
    result = run("validate", str(stacks[0]), "--namespace", "tars-dev")
    assert result.returncode == 0, result.stderr
    assert f"plan: {PLAN0}" in result.stderr.splitlines()
    assert f"step: {STEP0}" in result.stderr.splitlines()


@pytest.mark.parametrize("mode", ["expand", "crd"])
def test_render_summary_has_the_plan(stacks: tuple[Path, Path], tmp_path: Path, mode: str) -> None:
    out = tmp_path / "out"
    result = run(
        "render", str(stacks[1]), "--namespace", "tars-dev", "--out", str(out), "--mode", mode
    )
    assert result.returncode == 0, result.stderr
    assert f"plan: {PLAN1}" in result.stdout.splitlines()
    assert f"step: {STEP1}" in result.stdout.splitlines()
    assert not [p for p in out.rglob("*.yaml") if "rollout" in p.name]


def test_diff_text_names_the_ordinal(stacks: tuple[Path, Path]) -> None:
    result = run("diff", str(stacks[0]), str(stacks[1]), "--namespace", "tars-dev")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"plan: {PLAN1}" in lines
    assert f"step: {STEP1}" in lines
    assert f"release: {CHANGE}" in lines
    assert "  @@ spec.updateStrategy.rollingUpdate.partition" in lines


def test_diff_markdown_names_the_ordinal(stacks: tuple[Path, Path]) -> None:
    result = run(
        "diff", str(stacks[0]), str(stacks[1]), "--namespace", "tars-dev", "--format", "markdown"
    )
    assert result.returncode == 0, result.stderr
    assert f"- plan: {PLAN1}" in result.stdout.splitlines()
    assert f"- step: {STEP1}" in result.stdout.splitlines()
    assert "- release: shop-orderserver: ordinal 2 v1.4.0 -&gt; v1.5.0" in result.stdout


def test_diff_json_names_the_ordinal(stacks: tuple[Path, Path]) -> None:
    result = run(
        "diff", str(stacks[0]), str(stacks[1]), "--namespace", "tars-dev", "--format", "json"
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["plan"] == [PLAN1]
    assert document["releaseChanges"] == [CHANGE]
    assert document["steps"] == [STEP1]


def test_diff_from_no_rollout_to_step_0(stacks: tuple[Path, Path], tmp_path: Path) -> None:
    before = server()
    before["spec"]["release"] = {"id": "v1.4.0", "image": "registry/shop.orderserver:v1.4.0"}
    old = write_stack(tmp_path / "before", before)
    result = run("diff", str(old), str(stacks[0]), "--namespace", "tars-dev", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["releaseChanges"] == [
        "shop-orderserver: ordinal 3 v1.4.0 -> v1.5.0"
    ]


def test_a_rule_error_exits_1_with_file_line_field(tmp_path: Path) -> None:
    bad = write_stack(tmp_path / "bad", server(), rollout(7))
    result = run("validate", str(bad), "--namespace", "tars-dev")
    assert result.returncode == 1
    (line,) = [x for x in result.stdout.splitlines() if "TP002" in x]
    assert line.startswith(f"{bad / 'stack.yaml'}:") and " spec.step: " in line
    assert "Traceback" not in result.stderr


def test_an_unknown_kind_of_the_group_is_unreadable(tmp_path: Path) -> None:
    doc = rollout(0)
    doc["kind"] = "Rolout"
    bad = write_stack(tmp_path / "bad", server(), doc)
    result = run("validate", str(bad), "--namespace", "tars-dev")
    assert result.returncode == 2
    assert "unknown kind 'Rolout'" in result.stderr


@pytest.mark.parametrize(
    ("workload", "file"),
    [("kruise", "apps.kruise.io_v1beta1-statefulset"), ("tapp", "apps.tkestack.io_v1-tapp")],
)
def test_workload_flag(stacks: tuple[Path, Path], tmp_path: Path, workload: str, file: str) -> None:
    out = tmp_path / "out"
    result = run(
        "render",
        str(stacks[0]),
        "--namespace",
        "tars-dev",
        "--out",
        str(out),
        "--workload",
        workload,
    )
    assert result.returncode == 0, result.stderr
    assert [p.name for p in (out / "1-manifest").glob(f"{file}-*")] == [
        f"{file}-tars-dev-shop-orderserver.yaml"
    ]


def test_workload_from_the_stack_config(stacks: tuple[Path, Path], tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: tars\nruntime: python\n", encoding="utf-8")
    (project / "Pulumi.dev.yaml").write_text(
        f"config:\n  tars:namespace: tars-dev\n  tars:stackDir: {stacks[0]}\n"
        "  tars:workload: tapp\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = run("render", "--stack", "dev", "--project-dir", str(project), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert list((out / "1-manifest").glob("apps.tkestack.io_v1-tapp-*"))
    (project / "Pulumi.dev.yaml").write_text(
        f"config:\n  tars:stackDir: {stacks[0]}\n  tars:workload: deployment\n", encoding="utf-8"
    )
    bad = run("render", "--stack", "dev", "--project-dir", str(project), "--out", str(out))
    assert bad.returncode == 2
    assert "tars:workload must be one of statefulset, kruise, tapp" in bad.stderr


def test_an_unknown_workload_is_a_usage_error(stacks: tuple[Path, Path], tmp_path: Path) -> None:
    result = run("render", str(stacks[0]), "--out", str(tmp_path / "o"), "--workload", "deployment")
    assert result.returncode == 2
    assert "--workload" in result.stderr


def test_crd_diff_effects_keep_the_statefulset_engine(stacks: tuple[Path, Path]) -> None:
    args = ("--namespace", "tars-dev", "--format", "json", "--mode", "crd", "--workload", "kruise")
    result = run("diff", str(stacks[0]), str(stacks[1]), *args)
    assert result.returncode == 0, result.stderr
    (change,) = json.loads(result.stdout)["changes"]
    assert change["kind"] == "TServer"
    assert [(e["apiVersion"], e["kind"]) for e in change["effects"]] == [("apps/v1", "StatefulSet")]
    assert "TP015" in result.stderr
