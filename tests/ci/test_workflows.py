"""``.github/workflows/`` and the preview identity's RBAC (``docs/ci/preview-rbac.yaml``):
structure checked as data, ``zizmor --offline`` run on the workflows, the sticky-comment
scripts run under Node with a fake GitHub API, and the shell steps that need no cloud run for
real (the workflows need GitHub and the Pulumi CLI to run as a whole). PyYAML reads the key
``on`` as True and resolves the YAML aliases of deploy.yml."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import celpy
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from celpy.adapter import json_to_cel

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
RBAC = ROOT / "docs" / "ci" / "preview-rbac.yaml"
ENVIRONMENTS = ("dev", "prod", "staging")

PINS: dict[str, tuple[str, str]] = {
    # The commit of each release tag, read from the action's own repository (`git rev-parse
    # <tag>^{commit}`), and checked there to run on node24 (`runs.using` of its action.yml).
    "actions/checkout": ("3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"),
    "actions/setup-python": ("5fda3b95a4ea91299a34e894583c3862153e4b97", "v7.0.0"),
    "actions/upload-artifact": ("bbbca2ddaa5d8feaa63e36b76fdaad77386f024f", "v7.0.0"),
    "actions/download-artifact": ("3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c", "v8.0.1"),
    "actions/github-script": ("ed597411d8f924073f98dfc5c65a23a2325f34cd", "v8.0.0"),
    "aws-actions/configure-aws-credentials": (
        "e6de054238d6b7531b4efff3b6587d9aade6a06c",
        "v6.2.3",
    ),
    "pulumi/actions": ("8e5e406f4007fca908480587cb9893c07090f58d", "v7.0.0"),
}
"""Every action the workflows may use: its pinned commit and the release tag of that commit."""

ACTION_INPUTS: dict[str, frozenset[str]] = {
    # The inputs of action.yml at the pinned commit.
    "pulumi/actions": frozenset(
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
    "actions/checkout": frozenset(
        {
            "allow-unsafe-pr-checkout",
            "clean",
            "fetch-depth",
            "fetch-tags",
            "filter",
            "github-server-url",
            "lfs",
            "path",
            "persist-credentials",
            "ref",
            "repository",
            "set-safe-directory",
            "show-progress",
            "sparse-checkout",
            "sparse-checkout-cone-mode",
            "ssh-key",
            "ssh-known-hosts",
            "ssh-strict",
            "ssh-user",
            "submodules",
            "token",
        }
    ),
    "actions/setup-python": frozenset(
        {
            "allow-prereleases",
            "architecture",
            "cache",
            "cache-dependency-path",
            "check-latest",
            "freethreaded",
            "pip-version",
            "python-version",
            "python-version-file",
            "token",
            "update-environment",
        }
    ),
    "actions/upload-artifact": frozenset(
        {
            "archive",
            "compression-level",
            "if-no-files-found",
            "include-hidden-files",
            "name",
            "overwrite",
            "path",
            "retention-days",
        }
    ),
    "actions/download-artifact": frozenset(
        {
            "artifact-ids",
            "digest-mismatch",
            "github-token",
            "merge-multiple",
            "name",
            "path",
            "pattern",
            "repository",
            "run-id",
            "skip-decompress",
        }
    ),
    "actions/github-script": frozenset(
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
    "aws-actions/configure-aws-credentials": frozenset(
        {
            "action-timeout-s",
            "allowed-account-ids",
            "audience",
            "aws-access-key-id",
            "aws-profile",
            "aws-region",
            "aws-secret-access-key",
            "aws-session-token",
            "custom-tags",
            "disable-retry",
            "force-skip-oidc",
            "http-proxy",
            "inline-session-policy",
            "managed-session-policies",
            "mask-aws-account-id",
            "no-proxy",
            "output-credentials",
            "output-env-credentials",
            "overwrite-aws-profile",
            "retry-max-attempts",
            "role-chaining",
            "role-duration-seconds",
            "role-external-id",
            "role-session-name",
            "role-skip-session-tagging",
            "role-to-assume",
            "special-characters-workaround",
            "sts-endpoint",
            "transitive-tag-keys",
            "unset-current-credentials",
            "use-existing-credentials",
            "web-identity-token-file",
        }
    ),
}
"""The documented inputs of every action the workflows use. GitHub only warns about an
unknown ``with:`` key, and the action then runs without it."""

SHA_PIN = re.compile(r"^(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)@(?P<sha>[0-9a-f]{40})$")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<comment>.*)$")
SECRET_REF = re.compile(r"\bsecrets\s*[.\[]")
PR_TRIGGERS = frozenset({"pull_request", "pull_request_target", "workflow_run"})
WRITE = "write"
PREVIEW_IDENTITY = "system:serviceaccount:tars-ci:tars-preview"
DRY_RUN_VERBS = frozenset({"get", "list", "create", "patch"})


def load(name: str) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def workflows() -> dict[str, dict[Any, Any]]:
    return {p.name: load(p.name) for p in sorted(WORKFLOWS.glob("*.y*ml"))}


def all_steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def uses(step: dict[str, Any]) -> str:
    ref: str = step.get("uses", "")
    return ref


def action(step: dict[str, Any]) -> str:
    """``owner/name`` of a step's action (without the pinned commit); "" for a shell step."""
    return uses(step).split("@", 1)[0]


def steps_of(job: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if action(s) == name]


def script(workflow: dict[Any, Any], job: str, name_part: str) -> str:
    [step] = [s for s in workflow["jobs"][job]["steps"] if name_part in s.get("name", "")]
    code: str = step["run"]
    return code


def zizmor(*args: str) -> list[dict[str, Any]]:
    """The findings of ``zizmor --offline`` on the workflows, without any configuration file
    (a ``zizmor.yml`` could turn audits off)."""
    beside = Path(sys.executable).parent / "zizmor"
    exe = str(beside) if beside.exists() else shutil.which("zizmor")
    if exe is None:
        pytest.fail("zizmor is not installed: pip install '.[test]'")
    result = subprocess.run(
        [exe, "--offline", "--no-config", "--format", "json", *args, str(WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
    )
    assert result.stdout.strip(), result.stderr
    findings: list[dict[str, Any]] = json.loads(result.stdout)
    return findings


def medium_or_worse(findings: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted(
        (f["ident"], Path(f["locations"][0]["symbolic"]["key"]["Local"]["verbatim_path"]).name)
        for f in findings
        if f["determinations"]["severity"] in {"Medium", "High"}
    )


def triggers(workflow: dict[Any, Any]) -> set[str]:
    on = workflow[True]
    return {on} if isinstance(on, str) else set(on)


def secrets_outside_environment(workflow: dict[Any, Any]) -> list[str]:
    """Where the workflow references a secret outside a job with a job-level ``environment:``
    (the workflow's own keys count as outside every job)."""
    found = []
    outside = {k: v for k, v in workflow.items() if k != "jobs"}
    if SECRET_REF.search(json.dumps(outside)):
        found.append("<workflow>")
    for job_id, job in workflow["jobs"].items():
        if SECRET_REF.search(json.dumps(job)) and not job.get("environment"):
            found.append(job_id)
    return found


# --- every workflow --------------------------------------------------------------------------


def test_the_workflows_parse_and_are_the_expected_set(workflows: dict[str, Any]) -> None:
    assert set(workflows) == {"preview.yml", "pr-comment.yml", "pulumi-preview.yml", "deploy.yml"}
    for name, workflow in workflows.items():
        assert workflow["name"] and workflow[True] and workflow["jobs"], name


def test_zizmor_offline_finds_nothing_of_medium_severity_or_above() -> None:
    assert medium_or_worse(zizmor()) == []


def test_the_only_finding_zizmor_is_told_to_ignore_is_the_reviewed_workflow_run() -> None:
    # Without the ignore comments: exactly the one suppressed finding, and no other.
    assert medium_or_worse(zizmor("--no-ignores")) == [("dangerous-triggers", "pr-comment.yml")]
    ignores = [
        (p.name, line.strip())
        for p in sorted(WORKFLOWS.glob("*.y*ml"))
        for line in p.read_text(encoding="utf-8").splitlines()
        if "zizmor: ignore" in line
    ]
    assert len(ignores) == 1 and ignores[0][0] == "pr-comment.yml", ignores
    assert ignores[0][1].startswith("workflow_run: # zizmor: ignore[dangerous-triggers]")
    assert not list(ROOT.glob("zizmor.y*ml")) and not list(ROOT.glob(".github/zizmor.y*ml"))


def test_every_uses_is_a_known_commit_with_its_release_in_a_comment(
    workflows: dict[str, Any],
) -> None:
    refs: list[str] = []
    for workflow in workflows.values():
        for job in workflow["jobs"].values():
            assert "uses" not in job, "a called workflow is not pinned to a commit"
            refs.extend(uses(s) for s in job.get("steps", []) if uses(s))
    assert refs
    for ref in refs:
        match = SHA_PIN.match(ref)
        assert match, f"not pinned to a full commit SHA: {ref}"
        assert PINS[match["action"]][0] == match["sha"], ref
    lines = [
        (p.name, m)
        for p in sorted(WORKFLOWS.glob("*.y*ml"))
        for line in p.read_text(encoding="utf-8").splitlines()
        if (m := USES_LINE.match(line))
    ]
    assert len(lines) >= len(set(refs))
    for name, m in lines:
        act, sha = m["ref"].split("@")
        assert m["comment"] == f" # {PINS[act][1]}", f"{name}: {m.group(0).strip()}"
        assert PINS[act][0] == sha


def test_every_action_gets_only_its_documented_inputs(workflows: dict[str, Any]) -> None:
    used = [s for w in workflows.values() for s in all_steps(w) if uses(s)]
    assert used
    assert set(ACTION_INPUTS) == set(PINS)
    for step in used:
        name = action(step)
        unknown = set(step.get("with") or {}) - ACTION_INPUTS[name]
        assert not unknown, f"{step.get('name', name)}: {name} has no input {sorted(unknown)}"


def test_no_pull_request_job_references_a_secret_outside_a_job_level_environment(
    workflows: dict[str, Any],
) -> None:
    pr_triggered = [n for n, w in workflows.items() if triggers(w) & PR_TRIGGERS]
    assert set(pr_triggered) == {"preview.yml", "pr-comment.yml", "pulumi-preview.yml"}
    for name in pr_triggered:
        assert secrets_outside_environment(workflows[name]) == [], name
    # deploy.yml (push) keeps the same rule: every secret lives in an environment.
    assert secrets_outside_environment(workflows["deploy.yml"]) == []
    # The only PR-triggered job that holds secrets is the per-stack preview.
    holders = [
        (n, j)
        for n in pr_triggered
        for j, job in workflows[n]["jobs"].items()
        if SECRET_REF.search(json.dumps(job))
    ]
    assert holders == [("pulumi-preview.yml", "preview")]


def test_the_secret_check_finds_a_secret_outside_an_environment() -> None:
    leaky = {
        True: {"pull_request": None},
        "env": {"T": "${{ secrets.T }}"},
        "jobs": {
            "a": {"steps": [{"run": "x", "env": {"K": "${{ secrets[matrix.k] }}"}}]},
            "b": {"environment": "e", "steps": [{"run": "${{ secrets.K }}"}]},
        },
    }
    assert secrets_outside_environment(leaky) == ["<workflow>", "a"]


def test_no_inherited_secrets_and_no_computed_secret_names(workflows: dict[str, Any]) -> None:
    for name, workflow in workflows.items():
        for job_id, job in workflow["jobs"].items():
            assert job.get("secrets") != "inherit", (name, job_id)
        # Values only (comments are not parsed): no secrets[<expression>] lookup anywhere.
        assert not re.search(r"\bsecrets\s*\[", json.dumps(workflow)), name


EXPECTED_PERMISSIONS = {
    ("preview.yml", "diff"): {"contents": "read"},
    ("pulumi-preview.yml", "preview"): {
        "contents": "read",
        "pull-requests": "write",
        "id-token": "write",
    },
    ("pr-comment.yml", "comment"): {"actions": "read", "pull-requests": "write"},
    ("deploy.yml", "dev"): {"contents": "read", "id-token": "write"},
    ("deploy.yml", "staging"): {"contents": "read", "id-token": "write"},
    ("deploy.yml", "prod"): {"contents": "read", "id-token": "write"},
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
        s for w in workflows.values() for s in all_steps(w) if action(s) == "actions/checkout"
    ]
    assert len(checkouts) >= 5
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)
    assert not any("allow-unsafe-pr-checkout" in s["with"] for s in checkouts)


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
        assert "pull_request_target" not in triggers(workflow), f"{name}: runs privileged"
        if "pull_request" not in triggers(workflow):
            continue
        for job_id, job in workflow["jobs"].items():
            writes = {k for k, v in job["permissions"].items() if v == WRITE}
            if writes:  # may only run for same-repository PRs, whose authors can push anyway
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
    assert "environment" not in job and not SECRET_REF.search(json.dumps(job))
    steps = job["steps"]
    assert [action(s) for s in steps] == ["actions/download-artifact", "actions/github-script"]
    assert not any("run" in s for s in steps)  # no shell, no checkout, no install
    download = steps[0]["with"]
    assert download["run-id"] == "${{ github.event.workflow_run.id }}"
    assert download["name"] == "pr-comment"
    code = steps[1]["with"]["script"]
    assert "require('child_process')" not in code and "eval(" not in code


def test_one_comment_job_at_a_time_per_pull_request_branch(workflows: dict[str, Any]) -> None:
    job = workflows["pr-comment.yml"]["jobs"]["comment"]
    group = job["concurrency"]["group"]
    assert "github.event.workflow_run.head_repository.full_name" in group
    assert "github.event.workflow_run.head_branch" in group
    # Not cancelled mid-way: a cancelled run could leave a comment half-written by nobody.
    assert job["concurrency"]["cancel-in-progress"] is False


# --- preview.yml: the offline diff -----------------------------------------------------------


def test_the_diff_job_uploads_what_the_comment_workflow_downloads(
    workflows: dict[str, Any],
) -> None:
    preview = workflows["preview.yml"]
    assert set(preview[True]) == {"pull_request"}
    assert set(preview["jobs"]) == {"diff"}  # nothing waits for an approval in this run
    job = preview["jobs"]["diff"]
    assert "environment" not in job and "if" not in job  # every PR, forks included
    [upload] = steps_of(job, "actions/upload-artifact")
    assert upload["with"]["name"] == "pr-comment" and upload["with"]["path"] == "pr-comment/"
    assert upload["if"].startswith("always()")
    diff_step = next(s for s in job["steps"] if "Diff every environment" in s.get("name", ""))
    assert diff_step["if"].startswith("always()")  # runs when validation failed too
    assert "tars-components diff" in diff_step["run"] and "--format markdown" in diff_step["run"]


# --- pulumi-preview.yml ----------------------------------------------------------------------


def test_pulumi_preview_runs_per_stack_inside_its_own_environment(
    workflows: dict[str, Any],
) -> None:
    workflow = workflows["pulumi-preview.yml"]
    assert set(workflow[True]) == {"pull_request"}
    job = workflow["jobs"]["preview"]
    assert job["strategy"]["fail-fast"] is False
    assert sorted(job["strategy"]["matrix"]["stack"]) == sorted(ENVIRONMENTS)
    # One environment per stack, never a deploy environment (dev, staging, prod).
    assert job["environment"] == "preview-${{ matrix.stack }}"
    assert "vars.PULUMI_PREVIEW == 'true'" in job["if"]
    group = job["concurrency"]["group"]
    assert "github.event.pull_request.number" in group and "matrix.stack" in group
    assert job["concurrency"]["cancel-in-progress"] is True
    [preview] = steps_of(job, "pulumi/actions")
    inputs = preview["with"]
    assert inputs["command"] == "preview"
    assert inputs["stack-name"] == "${{ matrix.stack }}"
    assert inputs["diff"] is True
    assert inputs["comment-on-pr"] is False  # the sticky comment below is the only one
    assert set(yaml.safe_load(inputs["config-map"])) == {"tars:previousStackDir"}
    [comment] = steps_of(job, "actions/github-script")
    assert comment["if"] == "${{ !cancelled() }}"  # on success and on failure
    assert job["steps"].index(comment) == len(job["steps"]) - 1
    assert comment["env"]["OUTCOME"] == "${{ steps.preview.outcome }}"


def test_backend_credentials_come_from_the_environments_secrets(
    workflows: dict[str, Any],
) -> None:
    jobs = [workflows["pulumi-preview.yml"]["jobs"]["preview"]] + [
        workflows["deploy.yml"]["jobs"][env] for env in ENVIRONMENTS
    ]
    for job in jobs:
        assert job["environment"]
        # the backend credentials in the pulumi step only: not in the job's env, so not in
        # the environment of `pip install .` (a package's build code) or of any other step
        [pulumi_step] = [s for s in job["steps"] if action(s) == "pulumi/actions"]
        for key in ("PULUMI_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE"):
            assert key not in job.get("env", {}), key
            assert pulumi_step["env"][key] == f"${{{{ secrets.{key} }}}}", key
            others = [s for s in job["steps"] if s is not pulumi_step]
            assert not any(key in s.get("env", {}) for s in others), key
        [kube] = [s for s in job["steps"] if "KUBECONFIG_DATA" in s.get("env", {})]
        assert kube["env"]["KUBECONFIG_DATA"] == "${{ secrets.KUBECONFIG }}"


def test_the_package_is_installed_into_the_programs_virtualenv(
    workflows: dict[str, Any],
) -> None:
    project = yaml.safe_load((ROOT / "Pulumi.yaml").read_text(encoding="utf-8"))
    venv = project["runtime"]["options"]["virtualenv"]
    for name, job_id in (("pulumi-preview.yml", "preview"), ("deploy.yml", "prod")):
        steps = workflows[name]["jobs"][job_id]["steps"]
        install = next(
            i for i, s in enumerate(steps) if f"{venv}/bin/pip install ." in s.get("run", "")
        )
        first = next(i for i, s in enumerate(steps) if action(s) == "pulumi/actions")
        assert f"python -m venv {venv}" in steps[install]["run"]
        assert install < first


# --- deploy.yml ------------------------------------------------------------------------------


def test_push_to_main_runs_pulumi_up_in_order_dev_staging_prod(workflows: dict[str, Any]) -> None:
    deploy = workflows["deploy.yml"]
    assert deploy[True] == {"push": {"branches": ["main"]}}
    assert deploy["concurrency"]["cancel-in-progress"] is False
    jobs = deploy["jobs"]
    assert set(jobs) == set(ENVIRONMENTS)
    assert "needs" not in jobs["dev"]
    assert jobs["staging"]["needs"] == "dev" and jobs["prod"]["needs"] == "staging"
    for env, job in jobs.items():
        # The shared steps name the stack `github.job`: each job id is its environment.
        assert job["environment"] == env
        assert job["env"]["STACK"] == "${{ github.job }}"
        assert job["steps"] == jobs["dev"]["steps"]
    steps = jobs["prod"]["steps"]
    [up] = [s for s in steps if action(s) == "pulumi/actions"]
    assert up["with"]["command"] == "up"
    assert up["with"]["stack-name"] == "${{ github.job }}"
    validate = next(i for i, s in enumerate(steps) if "validate" in s.get("run", ""))
    assert validate < steps.index(up)


# --- the sticky comments, run under Node with a fake GitHub API ------------------------------

HARNESS = r"""
const fs = require('fs');
const state = JSON.parse(fs.readFileSync(0, 'utf8'));
const calls = [];
let nextId = 1000;
const issues = {
  listComments: async () => ({ data: state.comments }),
  updateComment: async ({ comment_id, body }) => {
    calls.push(['update', comment_id]);
    state.comments.find(c => c.id === comment_id).body = body;
  },
  createComment: async ({ body }) => {
    calls.push(['create']);
    state.comments.push({ id: nextId++, user: { type: 'Bot' }, body });
  },
};
const github = {
  rest: { issues, pulls: { get: async () => ({ data: { head: { sha: state.prHead } } }) } },
  paginate: async (fn, args) => (await fn(args)).data,
};
const summary = [];
const core = {
  failed: null,
  setFailed(m) { this.failed = m; },
  summary: { addRaw(t) { summary.push(t); return this; }, async write() {} },
};
const context = {
  repo: { owner: 'o', repo: 'r' }, serverUrl: 'https://github.test', runId: 7,
  payload: { pull_request: { number: 42, head: { sha: state.prHead } } },
};
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const run = new AsyncFunction('require', 'github', 'context', 'core', process.env.SCRIPT);
run(require, github, context, core).then(() => {
  const failed = core.failed;
  process.stdout.write(JSON.stringify({ comments: state.comments, calls, failed, summary }));
});
"""

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_script(
    code: str, tmp_path: Path, comments: list[dict[str, Any]], pr_head: str, **env: str
) -> dict[str, Any]:
    harness = tmp_path / "harness.js"
    harness.write_text(HARNESS, encoding="utf-8")
    assert NODE is not None
    result = subprocess.run(
        [NODE, str(harness)],
        input=json.dumps({"comments": comments, "prHead": pr_head}),
        env={"PATH": os.environ["PATH"], "SCRIPT": code, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    out: dict[str, Any] = json.loads(result.stdout)
    return out


@pytest.fixture
def preview_script(workflows: dict[str, Any]) -> str:
    [step] = steps_of(workflows["pulumi-preview.yml"]["jobs"]["preview"], "actions/github-script")
    code: str = step["with"]["script"]
    return code


@needs_node
def test_a_failed_preview_comment_is_replaced_in_place_by_the_next_success(
    preview_script: str, tmp_path: Path
) -> None:
    others = [
        {"id": 1, "user": {"type": "User"}, "body": "<!-- tars-pulumi-preview:prod -->\nquoted"},
        {"id": 2, "user": {"type": "Bot"}, "body": "<!-- tars-pulumi-preview:dev -->\ndev ok"},
    ]
    failed = run_script(
        preview_script,
        tmp_path,
        others,
        "a" * 40,
        STACK="prod",
        OUTCOME="failure",
        OUTPUT="\x1b[31merror:\x1b[0m the TServer ``` is refused",
    )
    assert failed["calls"] == [["create"]]
    [posted] = [c for c in failed["comments"] if c["id"] not in (1, 2)]
    assert posted["body"].startswith("<!-- tars-pulumi-preview:prod -->\n### :x: pulumi preview")
    assert "error: the TServer ''' is refused" in posted["body"]  # no escape codes, no fence
    assert failed["summary"] == [posted["body"]]
    passed = run_script(
        preview_script,
        tmp_path,
        failed["comments"],
        "b" * 40,
        STACK="prod",
        OUTCOME="success",
        OUTPUT="Resources: 3 unchanged",
    )
    assert passed["calls"] == [["update", posted["id"]]]  # the same comment, edited
    [after] = [c for c in passed["comments"] if c["id"] == posted["id"]]
    assert ":white_check_mark: pulumi preview `prod` (bbbbbbb)" in after["body"]
    assert ":x:" not in after["body"] and "Resources: 3 unchanged" in after["body"]
    assert passed["comments"][:2] == others  # a human's comment and dev's are untouched
    assert passed["summary"] == []


@needs_node
def test_the_comment_of_the_old_failure_step_is_taken_over(
    preview_script: str, tmp_path: Path
) -> None:
    legacy = [{"id": 5, "user": {"type": "Bot"}, "body": "<!-- tars-pulumi-preview-failed:dev -->"}]
    out = run_script(preview_script, tmp_path, legacy, "c" * 40, STACK="dev", OUTCOME="")
    assert out["calls"] == [["update", 5]]
    assert "Step outcome: not reached" in out["comments"][0]["body"]


@needs_node
def test_the_diff_comment_is_edited_in_place_and_only_for_the_runs_head(
    workflows: dict[str, Any], tmp_path: Path
) -> None:
    [step] = steps_of(workflows["pr-comment.yml"]["jobs"]["comment"], "actions/github-script")
    code = step["with"]["script"]
    art = tmp_path / "art"
    art.mkdir()
    (art / "pr-number").write_text("42\n")
    (art / "comment.md").write_text("<!-- tars-components-diff -->\n## new\n")
    old = [{"id": 9, "user": {"type": "Bot"}, "body": "<!-- tars-components-diff -->\n## old"}]
    env = {"COMMENT_DIR": str(art), "HEAD_SHA": "d" * 40}
    out = run_script(code, tmp_path, old, "d" * 40, **env)
    assert out["calls"] == [["update", 9]] and out["comments"][0]["body"].endswith("## new\n")
    stale = run_script(code, tmp_path, old, "e" * 40, **env)  # the PR moved on: no comment
    assert stale["calls"] == [] and "is at " + "e" * 40 in stale["failed"]
    (art / "pr-number").write_text("42; rm -rf /")
    bad = run_script(code, tmp_path, old, "d" * 40, **env)
    assert bad["calls"] == [] and bad["failed"].startswith("pr-number is not a number")


# --- the preview identity's RBAC -------------------------------------------------------------


def rbac_documents() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(RBAC.read_text(encoding="utf-8")) if d]


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [d for d in rbac_documents() if d["kind"] == kind]


@pytest.mark.parametrize("version", ["1.30.0", "1.37.0"])
def test_the_rbac_document_is_valid_kubernetes(version: str) -> None:
    # ValidatingAdmissionPolicy is admissionregistration.k8s.io/v1 from Kubernetes 1.30.
    for doc in rbac_documents():
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_preview_roles_grant_read_and_the_dry_run_verbs_only() -> None:
    roles = of_kind("Role")
    assert {r["metadata"]["namespace"] for r in roles} == {"tars-staging", "tars-prod"}
    # the one cluster-wide grant: reading StorageClasses (docs/concepts/live.md)
    [cluster_role] = of_kind("ClusterRole")
    assert cluster_role["rules"] == [
        {"apiGroups": ["storage.k8s.io"], "resources": ["storageclasses"], "verbs": ["get", "list"]}
    ]
    [cluster_binding] = of_kind("ClusterRoleBinding")
    assert cluster_binding["roleRef"]["name"] == cluster_role["metadata"]["name"]
    assert [s["name"] for s in cluster_binding["subjects"]] == ["tars-preview"]
    for role in roles:
        for rule in role["rules"]:
            # get: the live object an update is previewed against; create + patch: the
            # server-side apply dry run (PATCH, and create when it would create the object).
            assert "get" in rule["verbs"] and set(rule["verbs"]) <= DRY_RUN_VERBS, rule
            assert "*" not in rule["apiGroups"] and "*" not in rule["resources"]
            assert "secrets" not in rule["resources"] and "resourceNames" not in rule
            if "tconfigs" in rule["resources"]:
                # The TConfig webhook acts on dry runs too (it deactivates the live version).
                assert rule["verbs"] == ["get"], rule
    bindings = of_kind("RoleBinding")
    assert {b["metadata"]["namespace"] for b in bindings} == {"tars-staging", "tars-prod"}
    accounts = {
        (a["metadata"]["namespace"], a["metadata"]["name"]) for a in of_kind("ServiceAccount")
    }
    for binding in bindings:
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": "tars-preview",
        }
        [subject] = binding["subjects"]
        assert (subject["namespace"], subject["name"]) in accounts
        user = f"system:serviceaccount:{subject['namespace']}:{subject['name']}"
        assert user == PREVIEW_IDENTITY


@pytest.mark.parametrize("env", ["staging", "prod"])
def test_each_role_covers_every_object_its_stack_applies(env: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tars_components", "render", "--stack", env, "--out", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    objects = [
        d
        for p in sorted((tmp_path / "1-manifest").glob("*.yaml"))
        for d in yaml.safe_load_all(p.read_text(encoding="utf-8"))
        if d
    ]
    assert objects
    granted = {
        (r["metadata"]["namespace"], group, resource)
        for r in of_kind("Role")
        for rule in r["rules"]
        if set(rule["verbs"]) == DRY_RUN_VERBS
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    for obj in objects:
        group = obj["apiVersion"].rpartition("/")[0]
        need = (obj["metadata"]["namespace"], group, obj["kind"].lower() + "s")
        assert need in granted, need


def vap_allows(request: dict[str, Any]) -> bool:
    """What the ValidatingAdmissionPolicy (and its binding) decides for one admission request,
    its CEL evaluated as the API server would."""
    [policy] = of_kind("ValidatingAdmissionPolicy")
    [binding] = of_kind("ValidatingAdmissionPolicyBinding")
    assert binding["spec"]["policyName"] == policy["metadata"]["name"]
    assert binding["spec"]["validationActions"] == ["Deny"]
    spec = policy["spec"]
    assert spec["failurePolicy"] == "Fail"
    [rule] = spec["matchConstraints"]["resourceRules"]
    if request["operation"] not in rule["operations"]:
        return True
    environment = celpy.Environment()
    activation = {"request": json_to_cel(request)}

    def holds(expression: str) -> bool:
        return bool(environment.program(environment.compile(expression)).evaluate(activation))

    if not all(holds(c["expression"]) for c in spec["matchConditions"]):
        return True
    return all(holds(v["expression"]) for v in spec["validations"])


@pytest.mark.parametrize("operation", ["CREATE", "UPDATE", "DELETE"])
def test_the_preview_identity_can_only_send_dry_runs(operation: str) -> None:
    def request(user: str, dry_run: bool) -> dict[str, Any]:
        return {"operation": operation, "userInfo": {"username": user}, "dryRun": dry_run}

    assert vap_allows(request(PREVIEW_IDENTITY, dry_run=True))
    assert not vap_allows(request(PREVIEW_IDENTITY, dry_run=False))
    assert vap_allows(request("system:serviceaccount:tars-ci:tars-deploy", dry_run=False))


def test_the_docs_document_the_preview_role_and_environments() -> None:
    page = (ROOT / "docs" / "pulumi" / "pr-review.md").read_text(encoding="utf-8")
    assert "docs/ci/preview-rbac.yaml" in page
    for env in ("preview-dev", "preview-staging", "preview-prod"):
        assert env in page


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
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
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


@pytest.mark.parametrize(
    ("name", "job_id"), [("pulumi-preview.yml", "preview"), ("deploy.yml", "prod")]
)
def test_the_kubeconfig_is_private_from_its_first_byte(
    workflows: dict[str, Any], project: Path, name: str, job_id: str
) -> None:
    code = script(workflows[name], job_id, "Kubeconfig")
    home = project.parent / "home"
    home.mkdir()
    config = home / ".kube" / "config"
    none = run_step(project, code, HOME=str(home), KUBECONFIG_DATA="")
    assert none.returncode == 0 and "no KUBECONFIG secret" in none.stdout
    assert not config.exists()
    data = "apiVersion: v1\nkind: Config\ncurrent-context: tars-prod\n"
    result = run_step(project, code, HOME=str(home), KUBECONFIG_DATA=data)
    assert result.returncode == 0, result.stderr
    assert config.read_text() == data
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert "chmod" not in code  # created 0600 (umask), never readable and chmod'ed after


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
