"""``diff --live EXPORT --cluster NAME`` of a stack with clusters (docs/cli/diff.md): the
live export of one cluster compared with that cluster's render (its ClusterOverrides applied),
never with the base spec, and the inventory documents never offered as creates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.builders.clusters import BJ_REPLICAS, ORDER, live_diff, project
from support.builders.live import as_list, live_object
from support.engines.cli import run


def _five_replicas(root: Path) -> None:
    """The base spec of the order server at 5 replicas (bounds 1 to 6): bj's override says 3."""
    path = root / "stacks" / "dev" / "20-shop-order.yaml"
    text = path.read_text()
    text = text.replace('tars.io/MaxReplicas: "4"', 'tars.io/MaxReplicas: "6"')
    path.write_text(text.replace("replicas: 2", "replicas: 5", 1))


def _live_export(root: Path, cluster: str, replicas: int) -> Path:
    """What runs on ``cluster``: its render (``render --cluster``) as the API server returns it,
    the order server's StatefulSet scaled to ``replicas`` by hand."""
    out = root / "rendered"
    done = run("render", "--stack", "mc", "--cluster", cluster, "--out", str(out), cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    objects: list[dict[str, Any]] = []
    for path in sorted((out / cluster / "1-manifest").glob("*.yaml")):
        objects.extend(
            live_object(d, "tars-components-mc") for d in yaml.safe_load_all(path.read_text()) if d
        )
    for obj in objects:
        if obj["kind"] == "StatefulSet" and obj["metadata"]["name"] == ORDER:
            obj["spec"]["replicas"] = replicas
    export = root / f"live-{cluster}.yaml"
    export.write_text(yaml.safe_dump(as_list(objects), sort_keys=False))
    return export


def test_live_diff_of_one_cluster_is_against_its_own_render(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS, stellaris=True)
    _five_replicas(root)
    export = _live_export(root, "bj", 2)
    done = live_diff(root, export, "bj", "--format", "json", "--exit-code")
    assert done.returncode == 3, done.stdout + done.stderr
    document = json.loads(done.stdout)
    [change] = document["changes"]
    assert (change["action"], change["kind"], change["name"]) == ("update", "StatefulSet", ORDER)
    [field] = change["fields"]
    assert (field["path"], field["old"], field["new"]) == ("spec.replicas", 2, 3)
    text = live_diff(root, export, "bj", "--color", "never")
    assert text.returncode == 0, text.stderr
    assert "Cluster" not in text.stdout and "ClusterOverride" not in text.stdout
    assert "1 object changes" in text.stdout or "1 objects change" in text.stdout


def test_sh_without_override_has_no_drift(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS, stellaris=True)
    _five_replicas(root)
    export = _live_export(root, "sh", 5)
    done = live_diff(root, export, "sh", "--format", "json", "--exit-code")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["changes"] == []


def test_unknown_cluster_names_the_inventory(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    export = _live_export(root, "bj", 2)
    done = run("diff", "--live", str(export), "--stack", "mc", "--cluster", "gz", cwd=root)
    assert done.returncode == 2
    assert "--cluster gz: no such cluster (sh, bj)" in done.stderr
    assert "Traceback" not in done.stderr


def test_live_with_an_inventory_needs_cluster(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS, stellaris=True)
    export = _live_export(root, "bj", 2)
    done = run("diff", "--live", str(export), "--stack", "mc", cwd=root)
    assert done.returncode == 2
    assert "--cluster" in done.stderr and "sh, bj" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_live_from_a_context_is_against_the_cluster_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--live-from CONTEXT --cluster bj``: the objects read from the context (here handed
    over in place of the API server) compared with bj's render."""
    from tars_components.cli import main
    from tars_components.jobs import live as live_job
    from tars_components.models.live import LiveState

    root = project(tmp_path, BJ_REPLICAS)
    _five_replicas(root)
    export = yaml.safe_load(_live_export(root, "bj", 2).read_text())
    read: list[str | None] = []

    def read_live(options: Any, namespaces: Any, context: str | None = None) -> LiveState:
        read.append(context)
        return LiveState(tuple(export["items"]), tuple(namespaces), f"context {context}")

    monkeypatch.setattr(live_job, "read_live", read_live)
    monkeypatch.chdir(root)
    argv = ["diff", "--live-from", "bj-admin", "--stack", "mc", "--format", "json"]
    assert main([*argv, "--cluster", "bj"]) == 0
    [change] = json.loads(capsys.readouterr().out)["changes"]
    assert (change["name"], change["fields"][0]["old"], change["fields"][0]["new"]) == (
        ORDER,
        2,
        3,
    )
    assert read == ["bj-admin"]
    assert main(argv) == 2
    assert "pass --cluster NAME" in capsys.readouterr().err
