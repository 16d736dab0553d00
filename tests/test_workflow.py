"""``.github/workflows/preview.yml``: its structure, checked as data (the workflow needs the
Pulumi CLI and GitHub to run). PyYAML reads the key ``on`` as True."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "preview.yml"
STACKS = ("dev", "prod")

ACTION_INPUTS: dict[str, frozenset[str]] = {
    # pulumi/actions action.yml (v5 to v7).
    "pulumi/actions@v7": frozenset(
        {
            "command",
            "stack-name",
            "work-dir",
            "cloud-url",
            "github-token",
            "comment-on-pr",
            "comment-on-pr-number",
            "comment-on-summary",
            "edit-pr-comment",
            "always-include-summary",
            "config-map",
            "secrets-provider",
            "parallel",
            "message",
            "expect-no-changes",
            "diff",
            "refresh",
            "upsert",
            "remove",
            "replace",
            "target",
            "target-dependents",
            "exclude-protected",
            "plan",
            "policyPacks",
            "policyPackConfigs",
            "color",
            "suppress-outputs",
            "suppress-progress",
            "pulumi-version",
            "pulumi-version-file",
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
}
"""The documented inputs (``action.yml``) of every action the workflow uses. GitHub only
warns about an unknown ``with:`` key, and the action then runs without it."""


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps(workflow: dict[Any, Any], job: str) -> list[dict[str, Any]]:
    return workflow["jobs"][job]["steps"]


def uses(step: dict[str, Any]) -> str:
    return step.get("uses", "")


def test_every_action_gets_only_its_documented_inputs(workflow: dict[Any, Any]) -> None:
    used = [step for job in workflow["jobs"].values() for step in job["steps"] if uses(step)]
    assert used
    for step in used:
        action = uses(step)
        assert action in ACTION_INPUTS, f"inputs of {action} are not listed in ACTION_INPUTS"
        unknown = set(step.get("with") or {}) - ACTION_INPUTS[action]
        assert not unknown, f"{step.get('name', action)}: {action} has no input {sorted(unknown)}"


def test_runs_on_pull_requests_and_may_comment(workflow: dict[Any, Any]) -> None:
    assert "pull_request" in workflow[True]
    assert workflow["permissions"]["pull-requests"] == "write"


def test_one_pulumi_preview_step_per_stack(workflow: dict[Any, Any]) -> None:
    previews = [s for s in steps(workflow, "preview") if uses(s) == "pulumi/actions@v7"]
    assert [s["with"]["stack-name"] for s in previews] == list(STACKS)
    for step in previews:
        inputs = step["with"]
        assert inputs["command"] == "preview"
        assert inputs["comment-on-pr"] is True
        assert inputs["edit-pr-comment"] is True
        assert inputs["cloud-url"] == "${{ secrets.PULUMI_BACKEND_URL }}"
        config = yaml.safe_load(inputs["config-map"])
        assert set(config) == {"tars:previousStackDir"}


def test_backend_and_passphrase_come_from_secrets(workflow: dict[Any, Any]) -> None:
    env = workflow["jobs"]["preview"]["env"]
    assert env["PULUMI_BACKEND_URL"] == "${{ secrets.PULUMI_BACKEND_URL }}"
    assert env["PULUMI_CONFIG_PASSPHRASE"] == "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}"


def test_the_package_is_installed_into_the_programs_virtualenv(workflow: dict[Any, Any]) -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text(encoding="utf-8"))
    venv = project["runtime"]["options"]["virtualenv"]
    preview = steps(workflow, "preview")
    install = next(
        i for i, s in enumerate(preview) if f"{venv}/bin/pip install ." in s.get("run", "")
    )
    first = next(i for i, s in enumerate(preview) if uses(s) == "pulumi/actions@v7")
    assert f"python -m venv {venv}" in preview[install]["run"]
    assert install < first


def test_offline_job_validates_renders_and_uploads(workflow: dict[Any, Any]) -> None:
    offline = steps(workflow, "offline")
    scripts = "\n".join(s.get("run", "") for s in offline)
    assert "pip install ." in scripts
    assert 'tars-components validate --stack "$env"' in scripts
    for env in STACKS:
        assert f"tars-components render --stack {env} --out rendered/{env}" in scripts
    [upload] = [s for s in offline if uses(s) == "actions/upload-artifact@v4"]
    assert upload["with"]["path"] == "rendered/"
    assert workflow["jobs"]["preview"]["needs"] == "offline"


def test_every_stack_has_a_config_file_and_a_directory() -> None:
    for env in STACKS:
        config = yaml.safe_load((ROOT / f"Pulumi.{env}.yaml").read_text(encoding="utf-8"))
        stack_dir = config["config"]["tars:stackDir"]
        assert (ROOT / stack_dir).is_dir()
