"""``.github/workflows/``: structure checked as data, and the shell steps that need no cloud run
for real (the workflows need GitHub and the Pulumi CLI to run as a whole). PyYAML reads the key
``on`` as True."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
ENVIRONMENTS = ("dev", "prod", "staging")

ACTION_INPUTS: dict[str, frozenset[str]] = {
    # action.yml of each action at the pinned major version.
    "pulumi/actions@v7": frozenset(
        {
            "always-include-summary",
            "cloud-url",
            "color",
            "command",
            "comment-on-pr",
            "comment-on-pr-number",
            "comment-on-summary",
            "config-map",
            "continue-on-error",
            "debug",
            "diff",
            "edit-pr-comment",
            "exclude",
            "exclude-dependents",
            "exclude-protected",
            "expect-no-changes",
            "github-token",
            "log-flow",
            "log-verbosity",
            "message",
            "parallel",
            "plan",
            "policyPackConfigs",
            "policyPacks",
            "pulumi-version",
            "pulumi-version-file",
            "refresh",
            "remove",
            "replace",
            "secrets-provider",
            "stack-name",
            "suppress-outputs",
            "suppress-progress",
            "target",
            "target-dependents",
            "upsert",
            "work-dir",
        }
    ),
    "actions/checkout@v4": frozenset(
        {
            "repository",
            "ref",
            "token",
            "ssh-key",
            "ssh-known-hosts",
            "ssh-strict",
            "ssh-user",
            "persist-credentials",
            "path",
            "clean",
            "filter",
            "sparse-checkout",
            "sparse-checkout-cone-mode",
            "fetch-depth",
            "fetch-tags",
            "show-progress",
            "lfs",
            "submodules",
            "set-safe-directory",
            "github-server-url",
        }
    ),
    "actions/setup-python@v5": frozenset(
        {
            "python-version",
            "python-version-file",
            "cache",
            "architecture",
            "check-latest",
            "token",
            "cache-dependency-path",
            "update-environment",
            "allow-prereleases",
        }
    ),
    "actions/upload-artifact@v4": frozenset(
        {
            "name",
            "path",
            "if-no-files-found",
            "retention-days",
            "compression-level",
            "overwrite",
            "include-hidden-files",
        }
    ),
    "actions/download-artifact@v4": frozenset(
        {
            "artifact-ids",
            "github-token",
            "merge-multiple",
            "name",
            "path",
            "pattern",
            "repository",
            "run-id",
        }
    ),
    "actions/github-script@v7": frozenset(
        {
            "base-url",
            "debug",
            "github-token",
            "previews",
            "result-encoding",
            "retries",
            "retry-exempt-status-codes",
            "script",
            "user-agent",
        }
    ),
    "aws-actions/configure-aws-credentials@v4": frozenset(
        {
            "audience",
            "aws-access-key-id",
            "aws-region",
            "aws-secret-access-key",
            "aws-session-token",
            "disable-retry",
            "http-proxy",
            "inline-session-policy",
            "managed-session-policies",
            "mask-aws-account-id",
            "output-credentials",
            "output-env-credentials",
            "retry-max-attempts",
            "role-chaining",
            "role-duration-seconds",
            "role-external-id",
            "role-session-name",
            "role-skip-session-tagging",
            "role-to-assume",
            "special-characters-workaround",
            "unset-current-credentials",
            "use-existing-credentials",
            "web-identity-token-file",
        }
    ),
}
"""The documented inputs (``action.yml``) of every action the workflows use. GitHub only
warns about an unknown ``with:`` key, and the action then runs without it."""

MAJOR_PIN = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@v\d+$")
LOCAL_WORKFLOW = re.compile(r"^\./\.github/workflows/[\w.-]+\.ya?ml$")
WRITE = "write"


def load(name: str) -> dict[Any, Any]:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def workflows() -> dict[str, dict[Any, Any]]:
    return {p.name: load(p.name) for p in sorted(WORKFLOWS.glob("*.y*ml"))}


def all_steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def uses(step: dict[str, Any]) -> str:
    return step.get("uses", "")


def script(workflow: dict[Any, Any], job: str, name_part: str) -> str:
    [step] = [s for s in workflow["jobs"][job]["steps"] if name_part in s.get("name", "")]
    return step["run"]


# --- every workflow --------------------------------------------------------------------------


def test_the_workflows_parse_and_are_the_expected_set(workflows: dict[str, Any]) -> None:
    assert set(workflows) == {"preview.yml", "pr-comment.yml", "deploy.yml", "pulumi-up.yml"}
    for name, workflow in workflows.items():
        assert workflow["name"] and workflow[True] and workflow["jobs"], name


def test_every_action_is_pinned_to_a_major_version(workflows: dict[str, Any]) -> None:
    for name, workflow in workflows.items():
        for job in workflow["jobs"].values():
            refs = [uses(s) for s in job.get("steps", []) if uses(s)]
            if "uses" in job:
                refs.append(job["uses"])
            for ref in refs:
                assert MAJOR_PIN.match(ref) or LOCAL_WORKFLOW.match(ref), f"{name}: {ref}"


def test_every_action_gets_only_its_documented_inputs(workflows: dict[str, Any]) -> None:
    used = [s for w in workflows.values() for s in all_steps(w) if uses(s)]
    assert used
    for step in used:
        action = uses(step)
        assert action in ACTION_INPUTS, f"inputs of {action} are not listed in ACTION_INPUTS"
        unknown = set(step.get("with") or {}) - ACTION_INPUTS[action]
        assert not unknown, f"{step.get('name', action)}: {action} has no input {sorted(unknown)}"


EXPECTED_PERMISSIONS = {
    ("preview.yml", "diff"): {"contents": "read"},
    ("preview.yml", "credentials"): {},
    ("preview.yml", "pulumi-preview"): {
        "contents": "read",
        "pull-requests": "write",
        "id-token": "write",
    },
    ("pr-comment.yml", "comment"): {"actions": "read", "pull-requests": "write"},
    ("deploy.yml", "dev"): {"contents": "read", "id-token": "write"},
    ("deploy.yml", "staging"): {"contents": "read", "id-token": "write"},
    ("deploy.yml", "prod"): {"contents": "read", "id-token": "write"},
    ("pulumi-up.yml", "up"): {"contents": "read", "id-token": "write"},
}


def test_permissions_are_minimal_and_granted_per_job(workflows: dict[str, Any]) -> None:
    seen = set()
    for name, workflow in workflows.items():
        assert workflow["permissions"] == {}, f"{name}: the default token must have nothing"
        for job_id, job in workflow["jobs"].items():
            assert "permissions" in job, f"{name} {job_id}: no explicit permissions"
            assert job["permissions"] == EXPECTED_PERMISSIONS[(name, job_id)], (name, job_id)
            seen.add((name, job_id))
    assert seen == set(EXPECTED_PERMISSIONS)


def test_checkouts_never_keep_the_token_in_git_config(workflows: dict[str, Any]) -> None:
    checkouts = [
        s for w in workflows.values() for s in all_steps(w) if uses(s) == "actions/checkout@v4"
    ]
    assert checkouts
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)


# --- fork safety -----------------------------------------------------------------------------


def _fork_guarded(workflow: dict[Any, Any], job_id: str) -> bool:
    """The job cannot run for a fork PR: its own ``if`` requires a same-repository head, or it
    needs a job that does (a job whose needs were skipped is skipped)."""
    job = workflow["jobs"][job_id]
    guard = "github.event.pull_request.head.repo.full_name == github.repository"
    if guard in str(job.get("if", "")):
        return True
    needs = job.get("needs", [])
    needs = [needs] if isinstance(needs, str) else needs
    return any(_fork_guarded(workflow, other) for other in needs)


def test_pull_request_code_never_runs_with_a_write_token(workflows: dict[str, Any]) -> None:
    for name, workflow in workflows.items():
        triggers = workflow[True]
        assert "pull_request_target" not in triggers, f"{name}: pull_request_target runs privileged"
        if "pull_request" not in triggers:
            continue
        for job_id, job in workflow["jobs"].items():
            writes = {k for k, v in job["permissions"].items() if v == WRITE}
            if writes:  # may only run for same-repository PRs, which get secrets anyway
                assert _fork_guarded(workflow, job_id), f"{name} {job_id} writes {writes}"


def test_the_privileged_comment_workflow_runs_no_pull_request_code(
    workflows: dict[str, Any],
) -> None:
    comment = workflows["pr-comment.yml"]
    assert comment[True] == {
        "workflow_run": {"workflows": [workflows["preview.yml"]["name"]], "types": ["completed"]}
    }
    job = comment["jobs"]["comment"]
    assert job["if"] == "github.event.workflow_run.event == 'pull_request'"
    steps = job["steps"]
    assert [uses(s) for s in steps] == ["actions/download-artifact@v4", "actions/github-script@v7"]
    assert not any("run" in s for s in steps)  # no shell, no checkout, no install
    download = steps[0]["with"]
    assert download["run-id"] == "${{ github.event.workflow_run.id }}"
    assert download["name"] == "pr-comment"
    code = steps[1]["with"]["script"]
    assert "require('child_process')" not in code and "eval(" not in code
    assert "HEAD_SHA" in code and "pr.data.head.sha" in code  # the artifact names its own PR
    assert "/^[0-9]+$/" in code
    assert "updateComment" in code and "<!-- tars-components-diff -->" in code


# --- preview.yml -----------------------------------------------------------------------------


def test_the_diff_job_uploads_what_the_comment_workflow_downloads(
    workflows: dict[str, Any],
) -> None:
    preview = workflows["preview.yml"]
    assert set(preview[True]) == {"pull_request"}
    steps = preview["jobs"]["diff"]["steps"]
    [upload] = [s for s in steps if uses(s) == "actions/upload-artifact@v4"]
    assert upload["with"]["name"] == "pr-comment" and upload["with"]["path"] == "pr-comment/"
    assert upload["if"].startswith("always()")
    diff_step = next(s for s in steps if "Diff every environment" in s.get("name", ""))
    assert diff_step["if"].startswith("always()")  # runs when validation failed too
    assert "tars-components diff" in diff_step["run"] and "--format markdown" in diff_step["run"]


def test_pulumi_preview_per_environment_with_field_diffs(workflows: dict[str, Any]) -> None:
    job = workflows["preview.yml"]["jobs"]["pulumi-preview"]
    assert job["strategy"]["fail-fast"] is False
    assert sorted(e["env"] for e in job["strategy"]["matrix"]["include"]) == sorted(ENVIRONMENTS)
    [preview] = [s for s in job["steps"] if uses(s) == "pulumi/actions@v7"]
    inputs = preview["with"]
    assert inputs["command"] == "preview"
    assert inputs["stack-name"] == "${{ matrix.env }}"
    assert inputs["diff"] is True and inputs["comment-on-pr"] is True
    assert inputs["edit-pr-comment"] is True
    assert set(yaml.safe_load(inputs["config-map"])) == {"tars:previousStackDir"}
    [report] = [s for s in job["steps"] if s.get("if") == "failure()"]
    assert uses(report) == "actions/github-script@v7"
    assert "core.summary" in report["with"]["script"]
    assert "createComment" in report["with"]["script"]
    assert job["needs"] == "credentials"
    assert job["if"] == "needs.credentials.outputs.present == 'true'"


def test_backend_credentials_come_from_secrets(workflows: dict[str, Any]) -> None:
    for name, job_id in (("preview.yml", "pulumi-preview"), ("pulumi-up.yml", "up")):
        env = workflows[name]["jobs"][job_id]["env"]
        for key in ("PULUMI_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE"):
            assert env[key] == f"${{{{ secrets.{key} }}}}", (name, key)


def test_the_package_is_installed_into_the_programs_virtualenv(
    workflows: dict[str, Any],
) -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text(encoding="utf-8"))
    venv = project["runtime"]["options"]["virtualenv"]
    for name, job_id in (("preview.yml", "pulumi-preview"), ("pulumi-up.yml", "up")):
        steps = workflows[name]["jobs"][job_id]["steps"]
        install = next(
            i for i, s in enumerate(steps) if f"{venv}/bin/pip install ." in s.get("run", "")
        )
        first = next(i for i, s in enumerate(steps) if uses(s) == "pulumi/actions@v7")
        assert f"python -m venv {venv}" in steps[install]["run"]
        assert install < first


# --- deploy.yml ------------------------------------------------------------------------------


def test_push_to_main_runs_pulumi_up_in_order_dev_staging_prod(workflows: dict[str, Any]) -> None:
    deploy = workflows["deploy.yml"]
    assert deploy[True] == {"push": {"branches": ["main"]}}
    assert deploy["concurrency"]["cancel-in-progress"] is False
    jobs = deploy["jobs"]
    assert "needs" not in jobs["dev"]
    assert jobs["staging"]["needs"] == "dev" and jobs["prod"]["needs"] == "staging"
    for env, job in jobs.items():
        assert job["uses"] == "./.github/workflows/pulumi-up.yml"
        assert job["with"] == {"environment": env}
    up = workflows["pulumi-up.yml"]
    assert "workflow_call" in up[True]
    job = up["jobs"]["up"]
    assert job["environment"] == "${{ inputs.environment }}"  # approvals on prod
    [action] = [s for s in job["steps"] if uses(s) == "pulumi/actions@v7"]
    assert action["with"]["command"] == "up"
    assert action["with"]["stack-name"] == "${{ inputs.environment }}"
    validate = next(i for i, s in enumerate(job["steps"]) if "validate" in s.get("run", ""))
    assert validate < job["steps"].index(action)


# --- the shell steps, run for real -----------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The repository's stacks and Pulumi.<env>.yaml files as a pull request (cwd) with the
    base branch checked out in ``base/``, and ``tars-components`` on the PATH."""
    work = tmp_path / "work"
    for env in ENVIRONMENTS:
        shutil.copytree(ROOT / "stacks" / env, work / "stacks" / env)
        shutil.copy(ROOT / f"Pulumi.{env}.yaml", work / f"Pulumi.{env}.yaml")
        shutil.copytree(ROOT / "stacks" / env, work / "base" / "stacks" / env)
    shutil.rmtree(work / "base" / "stacks" / "staging")  # a new environment in this PR
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "tars-components"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tars_components "$@"\n')
    shim.chmod(0o755)
    return work


def run_step(project: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    runner = project.parent / "runner"
    runner.mkdir(exist_ok=True)
    full_env = {
        **os.environ,
        "PATH": f"{project.parent / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary"),
        **env,
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", code],
        cwd=project,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_environment_list_is_every_pulumi_stack_file(
    workflows: dict[str, Any], project: Path
) -> None:
    code = script(workflows["preview.yml"], "diff", "Environments")
    result = run_step(project, code)
    assert result.returncode == 0, result.stderr
    output = (project.parent / "runner" / "output").read_text()
    assert output.strip() == "list=dev prod staging"


def test_validation_reports_every_environment_even_when_one_fails(
    workflows: dict[str, Any], project: Path
) -> None:
    code = script(workflows["preview.yml"], "diff", "Validate every environment")
    broken = project / "stacks" / "dev" / "20-shop-order.yaml"
    broken.write_text(broken.read_text().replace("port: 10001", "port: 0"))  # TS rule error
    result = run_step(project, code, ENVS="dev prod staging")
    assert result.returncode == 1
    assert "::group::validate dev" in result.stdout
    assert "::group::validate prod" in result.stdout  # the loop went on after dev failed
    assert "::group::validate staging" in result.stdout
    assert "::error::validation failed for: dev" in result.stdout
    ok = run_step(project, code, ENVS="prod staging")
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_the_diff_step_writes_one_comment_for_every_environment(
    workflows: dict[str, Any], project: Path
) -> None:
    order = project / "stacks" / "dev" / "20-shop-order.yaml"
    order.write_text(order.read_text().replace("replicas: 2", "replicas: 3"))
    portal = project / "stacks" / "prod" / "40-web-portal.yaml"
    doc = yaml.safe_load(portal.read_text())
    doc["spec"]["subType"] = "tars"
    portal.write_text(yaml.safe_dump(doc))  # prod: a change rule refuses it
    code = script(workflows["preview.yml"], "diff", "Diff every environment")
    result = run_step(
        project,
        code,
        ENVS="dev prod staging",
        PR_NUMBER="42",
        BASE_SHA="a" * 40,
        HEAD_SHA="b" * 40,
    )
    assert result.returncode == 0, result.stderr
    comment = (project / "pr-comment" / "comment.md").read_text()
    assert (project / "pr-comment" / "pr-number").read_text() == "42\n"
    assert comment.startswith("<!-- tars-components-diff -->\n## tars-components diff\n")
    dev, prod, staging = (comment.index(f"### `{env}`") for env in ("dev", "prod", "staging"))
    assert dev < prod < staging
    assert "| update | StatefulSet | `tars-dev/shop-orderserver` | 1 |" in comment[dev:prod]
    assert "**The change rules refuse this change**" in comment[prod:staging]
    assert "TS001 error TServer tars-prod/web-portal spec.subType" in comment[prod:staging]
    assert "| create | StatefulSet | `tars-staging/shop-orderserver` |" in comment[staging:]
    assert len(comment) < 65536
    assert (project.parent / "runner" / "summary").read_text() == comment


# --- environments ----------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_environment_validates_and_renders(env: str, tmp_path: Path) -> None:
    config = yaml.safe_load((ROOT / f"Pulumi.{env}.yaml").read_text(encoding="utf-8"))
    assert (ROOT / config["config"]["tars:stackDir"]).is_dir()
    command = [sys.executable, "-m", "tars_components"]
    environ = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args in (
        ["validate", "--stack", env],
        ["render", "--stack", env, "--out", str(tmp_path / "out")],
    ):
        result = subprocess.run(
            [*command, *args], cwd=ROOT, env=environ, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert " error " not in result.stdout
