"""Per-cluster config as a user renders and diffs it (docs/pulumi/clusters.md#config-per-cluster):
a ConfigMap's data and a Secret's stringData overridden for bj; the Secret's value written only
where a Secret's are (its own 0600 file), never printed by render or diff, and refused by the
Karmada hand-over (TM010), whose OverridePolicy would hold it in plain text."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import yaml
from support.builders.clusters import live_diff, override, project
from support.builders.documents import stack_text
from support.builders.live import as_list, live_object
from support.engines.cli import run

BJ_PASSWORD = "bj-Only-Passw0rd-7f3a"
COMMON = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "shop-common"},
    "data": {"region": "any"},
}
DB = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "shop-db"},
    "type": "Opaque",
    "stringData": {"password": "base-Passw0rd"},
}
BJ_CONFIG = override(
    "bj-config",
    clusterSelector={
        "matchExpressions": [{"key": "region", "operator": "In", "values": ["north"]}]
    },
    targets=[{"kind": "ConfigMap", "name": "shop-common"}],
    data={"region": "north"},
)
BJ_SECRET = override(
    "bj-secret",
    clusters=["bj"],
    targets=[{"kind": "Secret", "name": "shop-db"}],
    stringData={"password": BJ_PASSWORD},
)
SECRET_FILE = "1-manifest/v1-secret-tars-dev-shop-db.yaml"
CONFIG_FILE = "1-manifest/v1-configmap-tars-dev-shop-common.yaml"


def _project(root: Path, *overrides: dict[str, object]) -> Path:
    done = project(root, *overrides, stellaris=True)
    (done / "stacks" / "dev" / "80-config.yaml").write_text(stack_text(COMMON, DB))
    return done


def test_render_writes_each_cluster_its_config_and_keeps_the_secret_in_its_file(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, BJ_CONFIG, BJ_SECRET)
    done = run("render", "--stack", "mc", "--out", str(root / "out"), cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert BJ_PASSWORD not in done.stdout + done.stderr
    bj, sh = root / "out" / "bj", root / "out" / "sh"
    assert yaml.safe_load((bj / CONFIG_FILE).read_text())["data"] == {"region": "north"}
    assert yaml.safe_load((sh / CONFIG_FILE).read_text())["data"] == {"region": "any"}
    secret = yaml.safe_load((bj / SECRET_FILE).read_text())
    assert secret["stringData"] == {"password": BJ_PASSWORD}
    assert stat.S_IMODE((bj / SECRET_FILE).stat().st_mode) == 0o600
    assert BJ_PASSWORD not in (sh / SECRET_FILE).read_text()
    others = [p for p in bj.rglob("*.yaml") if p.name != Path(SECRET_FILE).name]
    assert not any(BJ_PASSWORD in p.read_text() for p in others)


def test_diff_shows_the_secret_change_without_its_value(tmp_path: Path) -> None:
    root = _project(tmp_path)
    new = tmp_path / "new"
    shutil.copytree(root / "stacks" / "dev", new)
    (new / "95-secret.yaml").write_text(stack_text(BJ_SECRET))
    for fmt in ("text", "json", "markdown"):
        done = run("diff", "stacks/dev", str(new), "--stack", "mc", "--format", fmt, cwd=root)
        assert done.returncode == 0, done.stdout + done.stderr
        assert BJ_PASSWORD not in done.stdout + done.stderr
    document = json.loads(
        run("diff", "stacks/dev", str(new), "--stack", "mc", "--format", "json", cwd=root).stdout
    )
    assert "sh" not in document["clusters"] or not document["clusters"]["sh"]["changes"]
    [change] = document["clusters"]["bj"]["changes"]
    assert (change["kind"], change["name"]) == ("Secret", "shop-db")


def test_live_drift_of_a_secret_override_is_masked(tmp_path: Path) -> None:
    root = _project(tmp_path, BJ_SECRET)
    out = root / "rendered"
    assert (
        run("render", "--stack", "mc", "--cluster", "bj", "--out", str(out), cwd=root).returncode
        == 0
    )
    objects = []
    for path in sorted((out / "bj" / "1-manifest").glob("*.yaml")):
        objects.extend(
            live_object(d, "tars-components-mc") for d in yaml.safe_load_all(path.read_text()) if d
        )
    for obj in objects:
        if obj["kind"] == "Secret":
            obj["stringData"] = {"password": "changed-by-hand-Passw0rd"}
    export = root / "live-bj.yaml"
    export.write_text(yaml.safe_dump(as_list(objects), sort_keys=False))
    done = live_diff(root, export, "bj", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert BJ_PASSWORD not in done.stdout and "changed-by-hand" not in done.stdout
    [change] = json.loads(done.stdout)["changes"]
    assert (change["kind"], change["name"]) == ("Secret", "shop-db")


def test_karmada_refuses_a_secret_per_cluster_and_hands_config_over(tmp_path: Path) -> None:
    root = _project(tmp_path, BJ_CONFIG, BJ_SECRET)
    done = run("render", "--stack", "mc", "--target", "karmada", "--out", str(root / "k"), cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    [line] = [line for line in done.stdout.splitlines() if " TM010 " in line]
    assert line.startswith("stacks/dev/90-clusters.yaml:")
    assert "ClusterOverride tars-dev/bj-secret spec.stringData" in line
    assert BJ_PASSWORD not in done.stdout + done.stderr and not (root / "k").exists()
    config_only = _project(tmp_path / "config", BJ_CONFIG)
    handed = run(
        "render",
        "--stack",
        "mc",
        "--target",
        "karmada",
        "--out",
        str(config_only / "k"),
        cwd=config_only,
    )
    assert handed.returncode == 0, handed.stdout + handed.stderr
    policies = [
        d
        for p in (config_only / "k").rglob("*.yaml")
        for d in yaml.safe_load_all(p.read_text())
        if d and d["kind"] == "OverridePolicy"
    ]
    [policy] = [p for p in policies if p["spec"]["resourceSelectors"][0]["kind"] == "ConfigMap"]
    rules = {r["targetCluster"]["clusterNames"][0] for r in policy["spec"]["overrideRules"]}
    assert rules == {"bj"}
