"""``tars-components diff`` as a user runs it (issue #10): formats, exit codes, stdout/stderr."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from support.builders.documents import stack_text, tars_server
from support.engines.cli import run

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev"
PROD = ROOT / "stacks" / "prod"
ORDER_IMAGE = "docker.tarsyun.com/tars-dev/shop.orderserver"


def copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """Two copies of the dev stack: ``old`` and ``new`` (change ``new`` in the test)."""
    return copy(DEV, tmp_path / "old"), copy(DEV, tmp_path / "new")


def dev_json(old: Path, new: Path, *extra: str) -> tuple[dict, subprocess.CompletedProcess[str]]:
    result = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", "json", *extra)
    return (json.loads(result.stdout) if result.returncode in (0, 3) else {}), result


def test_identical_stacks_print_no_changes_and_exit_0(pair: tuple[Path, Path]) -> None:
    old, new = pair
    text = run("diff", str(old), str(new), "--namespace", "tars-dev", "--exit-code")
    assert text.returncode == 0, text.stderr
    assert text.stdout == "No changes.\n"
    document, result = dev_json(old, new)
    assert result.returncode == 0
    assert document == {
        "changes": [],
        "summary": {"create": 0, "update": 0, "replace": 0, "delete": 0},
    }
    markdown = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", "markdown")
    assert markdown.stdout == "No changes.\n"


def test_one_changed_field_in_json(pair: tuple[Path, Path]) -> None:
    old, new = pair
    replace_in(new / "20-shop-order.yaml", "orderserver:v20261120-1", "orderserver:v20261121-1")
    document, result = dev_json(old, new)
    assert result.returncode == 0, result.stderr
    assert document["summary"] == {"create": 0, "update": 1, "replace": 0, "delete": 0}
    [change] = document["changes"]
    assert set(change) == {
        "action",
        "apiVersion",
        "kind",
        "namespace",
        "name",
        "fields",
        "reason",
    }
    assert (change["action"], change["apiVersion"], change["kind"]) == (
        "update",
        "apps/v1",
        "StatefulSet",
    )
    assert (change["namespace"], change["name"], change["reason"]) == (
        "tars-dev",
        "shop-orderserver",
        None,
    )
    image = "spec.template.spec.containers[name=shop-orderserver].image"
    assert {
        "path": image,
        "old": f"{ORDER_IMAGE}:v20261120-1",
        "new": f"{ORDER_IMAGE}:v20261121-1",
    } in change["fields"]


def test_exit_code_flag_exits_3_when_the_stacks_differ(pair: tuple[Path, Path]) -> None:
    old, new = pair
    replace_in(new / "20-shop-order.yaml", "replicas: 2", "replicas: 3")
    _, plain = dev_json(old, new)
    assert plain.returncode == 0
    document, flagged = dev_json(old, new, "--exit-code")
    assert flagged.returncode == 3
    assert document["summary"]["update"] == 1


def test_added_removed_and_renamed_servers(pair: tuple[Path, Path]) -> None:
    old, new = pair
    (new / "60-shop-payment.yaml").unlink()
    (new / "70-extra.yaml").write_text(
        stack_text(
            tars_server(app="Shop", server="Extra")
            | {"metadata": {"name": "shop-extra", "namespace": "tars-dev"}}
        ).replace("template: tars.cpp", "template: shop.cpp"),
        encoding="utf-8",
    )
    replace_in(new / "30-shop-gateway.yaml", "GatewayServer", "EdgeServer")
    replace_in(new / "30-shop-gateway.yaml", "shop-gatewayserver", "shop-edgeserver")
    document, result = dev_json(old, new)
    assert result.returncode == 0, result.stderr
    seen = {(c["action"], c["kind"], c["name"]) for c in document["changes"]}
    assert {
        ("delete", "StatefulSet", "shop-paymentserver"),
        ("delete", "Service", "shop-paymentserver"),
        ("create", "StatefulSet", "shop-extra"),
        ("create", "Service", "shop-extra"),
        ("delete", "StatefulSet", "shop-gatewayserver"),
        ("create", "StatefulSet", "shop-edgeserver"),
    } <= seen
    assert all(c["reason"] is None for c in document["changes"])
    assert document["summary"]["update"] == 0


def change_claim_template(stack: Path) -> None:
    """web-portal's claim template gets another storage class, the outage acknowledged (TV001):
    a replace (a growth alone would grow the claims in place)."""
    replace_in(stack / "40-web-portal.yaml", "storageClassName: standard", "storageClassName: ssd")
    replace_in(
        stack / "40-web-portal.yaml",
        "  name: web-portal\n",
        "  name: web-portal\n  annotations:\n    tars-components.io/accept-outage: 'true'\n",
    )


def test_volume_claim_template_change_is_a_replace_with_its_consequence(
    pair: tuple[Path, Path],
) -> None:
    old, new = pair
    change_claim_template(new)
    document, result = dev_json(old, new)
    assert result.returncode == 0, result.stderr
    [change] = document["changes"]
    assert (change["action"], change["kind"], change["name"]) == (
        "replace",
        "StatefulSet",
        "web-portal",
    )
    assert change["fields"] == [
        {
            "path": "spec.volumeClaimTemplates[0].spec.storageClassName",
            "old": "standard",
            "new": "ssd",
        }
    ]
    assert "spec.volumeClaimTemplates is immutable" in change["reason"]
    assert "pod" in change["reason"] and "re-adopted" in change["reason"]


def test_subtype_change_exits_1_with_the_violation_and_no_change_list(
    pair: tuple[Path, Path],
) -> None:
    old, new = pair
    doc = yaml.safe_load((new / "40-web-portal.yaml").read_text())
    doc["spec"]["subType"] = "tars"
    (new / "40-web-portal.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    text = run("diff", str(old), str(new), "--namespace", "tars-dev")
    assert text.returncode == 1
    assert "TS001 error TServer tars-dev/web-portal spec.subType" in text.stdout
    assert "No changes" not in text.stdout and "@@" not in text.stdout
    as_json = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", "json")
    assert as_json.returncode == 1
    document = json.loads(as_json.stdout)
    assert "changes" not in document
    assert "TS001" in {v["code"] for v in document["violations"]}
    assert "TS001" in as_json.stderr


def test_reordered_files_and_documents_change_nothing(tmp_path: Path) -> None:
    old = copy(DEV, tmp_path / "old")
    new = tmp_path / "new"
    new.mkdir()
    files = sorted(old.iterdir())
    for position, file in enumerate(reversed(files)):  # reversed file order
        (new / f"{position:02d}-{file.name}").write_text(file.read_text(), encoding="utf-8")
    templates = next(p for p in new.iterdir() if p.name.endswith("10-templates.yaml"))
    docs = [d for d in yaml.safe_load_all(templates.read_text()) if d]
    templates.write_text(yaml.safe_dump_all(list(reversed(docs))), encoding="utf-8")
    document, result = dev_json(old, new, "--exit-code")
    assert result.returncode == 0, result.stderr
    assert document["changes"] == []


def test_json_stdout_holds_only_the_document_and_warnings_go_to_stderr(
    pair: tuple[Path, Path],
) -> None:
    old, new = pair
    replace_in(new / "20-shop-order.yaml", "replicas: 2", "replicas: 3")
    _, result = dev_json(old, new)
    json.loads(result.stdout)  # nothing else on stdout
    assert "TS015 warning" in result.stderr  # the dev stack's one warning


def test_missing_directory_and_bad_yaml_exit_2(tmp_path: Path) -> None:
    missing = run("diff", str(tmp_path / "nope"), str(DEV), "--format", "json")
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert "nope" in missing.stderr and "no such stack directory" in missing.stderr
    bad = copy(DEV, tmp_path / "bad")
    (bad / "99-broken.yaml").write_text("kind: [unclosed\n", encoding="utf-8")
    broken = run("diff", str(DEV), str(bad))
    assert broken.returncode == 2
    assert "99-broken.yaml" in broken.stderr and "Traceback" not in broken.stderr
    assert run("diff", str(DEV)).returncode == 2  # NEW_STACK is needed without --stack


def test_markdown_has_a_table_and_one_collapsible_diff_per_object(
    pair: tuple[Path, Path],
) -> None:
    old, new = pair
    replace_in(new / "20-shop-order.yaml", "orderserver:v20261120-1", "orderserver:v20261121-1")
    change_claim_template(new)
    result = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", "markdown")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("**2 objects change: 0 create, 1 update, 1 replace, 0 delete**")
    assert "| Action | Kind | Object | Fields |" in text
    assert "| update | StatefulSet | `tars-dev/shop-orderserver` | 1 |" in text
    assert "| **replace** | StatefulSet | `tars-dev/web-portal` | 1 |" in text
    assert text.count("<details>") == 2 and text.count("</details>") == 2
    assert text.count("```diff") == 2
    assert f'- "{ORDER_IMAGE}:v20261120-1"' in text
    assert f'+ "{ORDER_IMAGE}:v20261121-1"' in text
    assert "> **Replace:** spec.volumeClaimTemplates is immutable" in text


def test_markdown_is_truncated_with_a_note_to_fit_a_comment(tmp_path: Path) -> None:
    old = copy(DEV, tmp_path / "old")
    new = copy(DEV, tmp_path / "new")
    for file in new.glob("[2-6]*.yaml"):  # every server deleted: more than 2,500 characters
        file.unlink()
    full = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", "markdown")
    small = run(
        "diff",
        str(old),
        str(new),
        "--namespace",
        "tars-dev",
        "--format",
        "markdown",
        "--max-chars",
        "2500",
    )
    assert full.returncode == small.returncode == 0
    assert len(full.stdout) > 2500 and "Truncated" not in full.stdout
    assert len(small.stdout) <= 2500
    assert "> **Truncated:**" in small.stdout


def test_text_is_plain_when_not_a_terminal_and_coloured_on_request(
    pair: tuple[Path, Path],
) -> None:
    old, new = pair
    replace_in(new / "20-shop-order.yaml", "replicas: 2", "replicas: 3")
    plain = run("diff", str(old), str(new), "--namespace", "tars-dev")
    assert plain.returncode == 0
    assert "\033[" not in plain.stdout
    assert plain.stdout.splitlines() == [
        "~ update apps/v1 StatefulSet tars-dev/shop-orderserver",
        "  @@ spec.replicas",
        "  - 2",
        "  + 3",
        "1 object changes: 0 create, 1 update, 0 replace, 0 delete",
    ]
    coloured = run("diff", str(old), str(new), "--namespace", "tars-dev", "--color", "always")
    assert "\033[31m- 2\033[0m" in coloured.stdout
    assert "\033[32m+ 3\033[0m" in coloured.stdout


def test_output_is_byte_identical_across_runs(pair: tuple[Path, Path]) -> None:
    old, new = pair
    replace_in(new / "20-shop-order.yaml", "orderserver:v20261120-1", "orderserver:v20261121-1")
    (new / "60-shop-payment.yaml").unlink()
    for fmt in ("text", "markdown", "json"):
        first = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", fmt)
        second = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", fmt)
        assert first.stdout == second.stdout and first.returncode == 0


def test_stack_option_takes_the_options_and_the_new_directory_from_pulumi_config(
    tmp_path: Path,
) -> None:
    copy(PROD, tmp_path / "stacks" / "prod")
    copy(PROD, tmp_path / "base")
    (tmp_path / "Pulumi.prod.yaml").write_text(
        "config:\n  tars:namespace: tars-prod\n  tars:stackDir: stacks/prod\n  tars:mode: crd\n"
    )
    replace_in(
        tmp_path / "stacks" / "prod" / "20-shop-order.yaml",
        "orderserver:v20261120-1",
        "orderserver:v20261122-1",
    )
    result = run("diff", "base", "--stack", "prod", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    [change] = json.loads(result.stdout)["changes"]
    assert (change["kind"], change["apiVersion"]) == ("TServer", "k8s.tars.io/v1beta3")
    assert change["fields"][0]["path"] == "spec.release.image"
    [effect] = change["effects"]
    assert (effect["action"], effect["kind"]) == ("update", "StatefulSet")
    assert effect["fields"][0]["path"].endswith(".image")
    # the same with both directories given, and the mode flag instead of the config
    explicit = run(
        "diff",
        "base",
        "stacks/prod",
        "--namespace",
        "tars-prod",
        "--mode",
        "crd",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert explicit.stdout == result.stdout


def test_expand_mode_flags_are_applied_to_both_sides(pair: tuple[Path, Path]) -> None:
    old, new = pair
    document, result = dev_json(old, new, "--skip-await")
    assert result.returncode == 0 and document["changes"] == []
