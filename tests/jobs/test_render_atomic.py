"""``--out`` is never lost: a render killed at any instant leaves the previous tree or the new
one, complete, and ``--out`` exists at every instant (issue #9, item 8)."""

from __future__ import annotations

import errno
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.engines.render import NEW, OLD, loop_writing

from tars_components.jobs import tree_writer
from tars_components.jobs.tree_writer import staging_dirs, write_tree
from tars_components.kernel.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from render_scale import generate_stack  # noqa: E402


def tree(root: Path) -> dict[str, str]:
    """``{relative path: text}`` of every file under ``root``."""
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_write_tree_killed_at_random_instants_leaves_a_whole_tree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, OLD)
    rng = random.Random(9)
    missing = 0
    for _ in range(40):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            loop_writing(out)
        deadline = time.monotonic() + rng.uniform(0.0, 0.4)
        while time.monotonic() < deadline:  # watch --out while the child swaps trees
            if not out.is_dir():
                missing += 1
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert out.is_dir()
        found = tree(out)
        assert found in (OLD, NEW), f"{len(found)} files, neither the old nor the new tree"
    assert missing == 0, f"--out was missing at {missing} observed instants"
    write_tree(out, NEW)
    assert tree(out) == NEW
    assert staging_dirs(out) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def _render(stack: Path, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tars_components", "render", str(stack), "--out", str(out)]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=stack.parent
    )


def test_cli_render_killed_at_random_instants(tmp_path: Path) -> None:
    old_stack, new_stack, out = tmp_path / "old", tmp_path / "new", tmp_path / "out"
    generate_stack(old_stack, 60)
    generate_stack(new_stack, 120)
    for stack in (new_stack, old_stack):  # the new tree for reference, then the old in place
        started = time.monotonic()
        process = _render(stack, out)
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr.decode()
        duration = time.monotonic() - started
        if stack is new_stack:
            new_tree = tree(out)
    old_tree = tree(out)
    assert old_tree != new_tree
    rng = random.Random(8)
    outcomes = set()
    for _ in range(8):
        process = _render(new_stack, out)
        time.sleep(rng.uniform(0.0, duration * 1.2))
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        assert out.is_dir()
        found = tree(out)
        assert found in (old_tree, new_tree)
        outcomes.add("new" if found == new_tree else "old")
        if found == new_tree:  # start again from the old tree
            process = _render(old_stack, out)
            assert process.wait(timeout=120) == 0
    process = _render(new_stack, out)
    assert process.wait(timeout=120) == 0
    assert tree(out) == new_tree
    assert staging_dirs(out) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "old", "out"]


def test_stale_staging_dirs_of_killed_renders_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, OLD)
    for suffix in ("abc12345", "zz_9"):
        stale = tmp_path / f".out.tars-render-{suffix}" / "1-manifest"
        stale.mkdir(parents=True)
        (stale / "half.yaml").write_text("a: 1\n")
    for legacy in (".out.k2j_x9a0", ".out.old.abcdefgh"):  # names of earlier releases
        (tmp_path / legacy / "1-manifest").mkdir(parents=True)
    other = tmp_path / ".other.tars-render-abc12345"
    other.mkdir()
    kept = tmp_path / ".out.notmine1"
    (kept / "data").mkdir(parents=True)
    assert len(staging_dirs(out)) == 4
    write_tree(out, NEW)
    assert tree(out) == NEW
    assert staging_dirs(out) == []
    assert other.is_dir()  # another output's staging is not this render's business
    assert kept.is_dir()  # nor a directory with something else in it


def test_first_render_is_a_plain_rename(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out"
    write_tree(out, NEW)
    assert tree(out) == NEW
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]


def test_file_system_without_exchange_refuses_to_replace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unsupported(a: object, b: object) -> None:
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

    out = tmp_path / "out"
    write_tree(out, OLD)
    monkeypatch.setattr(tree_writer, "exchange_paths", unsupported)
    with pytest.raises(UsageError, match="cannot replace a directory atomically"):
        write_tree(out, NEW)
    assert tree(out) == OLD
    assert staging_dirs(out) == []
    fresh = tmp_path / "fresh"
    write_tree(fresh, NEW)  # a new directory needs no exchange
    assert tree(fresh) == NEW


def test_exchange_swaps_two_directories(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_text("a")
    (tmp_path / "b").mkdir()
    tree_writer.exchange_paths(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "b" / "f").read_text() == "a"
    assert list((tmp_path / "a").iterdir()) == []
    with pytest.raises(OSError) as raised:
        tree_writer.exchange_paths(tmp_path / "a", tmp_path / "missing")
    assert raised.value.errno == errno.ENOENT
