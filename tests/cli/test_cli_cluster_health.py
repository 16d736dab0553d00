"""A Stellaris Cluster whose status says it cannot take a change (TM011): ``validate`` refuses
it, naming the cluster, its file, line and what the status says; under
``tars:unavailableClusters: skip`` it is a warning."""

from __future__ import annotations

from pathlib import Path

from support.builders.clusters import UNHEALTHY, project, stellaris_cluster
from support.builders.documents import stack_text
from support.engines.cli import run


def _stack(root: Path, policy: str | None) -> Path:
    project(root, stellaris=True)
    bj = stellaris_cluster("bj", "north", 1) | {"status": UNHEALTHY}
    sh = stellaris_cluster("sh", "east") | {"status": {"healthy": True, "status": "online"}}
    (root / "stacks" / "dev" / "90-clusters.yaml").write_text(stack_text(sh, bj))
    if policy:
        config = root / "Pulumi.mc.yaml"
        config.write_text(config.read_text() + f"  tars:unavailableClusters: {policy}\n")
    return root


def test_an_unhealthy_cluster_fails_validate_naming_what_its_status_says(tmp_path: Path) -> None:
    root = _stack(tmp_path, None)
    done = run("validate", "--stack", "mc", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    shown = done.stdout + done.stderr
    line = next(line for line in shown.splitlines() if "TM011" in line)
    assert "90-clusters.yaml:" in line and "TM011 error Cluster" in line, line
    assert "cluster bj cannot take the change" in line
    assert "status.healthy is false; status.status is offline" in line
    assert "KubernetesUnavailable/ApiserverIsDown: Apiserver cannot provider service" in line
    assert not any("cluster sh cannot" in line for line in shown.splitlines())


def test_render_warns_but_writes_the_trees(tmp_path: Path) -> None:
    root = _stack(tmp_path, None)
    done = run("render", "--stack", "mc", "--out", str(tmp_path / "out"), cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TM011 warning" in done.stdout + done.stderr
    assert (tmp_path / "out" / "bj").is_dir()


def test_under_skip_it_is_a_warning(tmp_path: Path) -> None:
    root = _stack(tmp_path, "skip")
    done = run("validate", "--stack", "mc", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in (done.stdout + done.stderr).splitlines() if "TM011" in line)
    assert "warning" in line and "skipped: its objects are left as they are" in line


def test_a_bad_policy_is_a_usage_error(tmp_path: Path) -> None:
    root = _stack(tmp_path, "maybe")
    done = run("validate", "--stack", "mc", cwd=root)
    assert done.returncode == 2
    assert "tars:unavailableClusters must be fail or skip, got 'maybe'" in done.stderr


def test_live_from_clusters_needs_a_stack_with_clusters(tmp_path: Path) -> None:
    root = _stack(tmp_path, None)
    both = run("diff", "--stack", "mc", "--live-from-clusters", "--live-from", "x", cwd=root)
    assert both.returncode == 2 and "one of --live EXPORT" in both.stderr
    one = run("diff", "--stack", "mc", "--live-from-clusters", "--cluster", "bj", cwd=root)
    assert one.returncode == 2 and "use --live-from --cluster" in one.stderr
    # the clusters' contexts (named after them) do not exist here: exit 2, nothing printed
    env_less = run("diff", "--stack", "mc", "--live-from-clusters", cwd=root)
    assert env_less.returncode == 2 and env_less.stdout == ""
    assert "--live-from-clusters: cluster " in env_less.stderr
