"""Work run beside the main process (``diff --live`` builds the stack while it parses the
export): the same value or the same error as running the function in the process, whether a
child computed it or not, and no child left behind."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tars_components.cli import beside
from tars_components.cli.beside import Beside
from tars_components.kernel.errors import LoadError, LoadProblem

FORKS = sys.platform.startswith("linux") and beside.cpus() >= 2


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.skipif(not FORKS, reason="a child is forked only on Linux with a second CPU")
def test_a_second_cpu_computes_in_a_child_and_hands_over_the_value() -> None:
    parent = os.getpid()
    with Beside(lambda: (os.getpid(), {"objects": [1, "two", None]})) as job:
        child = job._pid
        assert child
        pid, value = job.result()
    assert pid != parent and value == {"objects": [1, "two", None]}
    assert _gone(child)


def test_one_cpu_computes_in_the_process_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "cpus", lambda: 1)
    calls: list[int] = []

    def work() -> int:
        calls.append(os.getpid())
        return 7

    job = Beside(work)
    assert calls == []  # nothing runs before the result is asked for
    assert job.result() == 7 and calls == [os.getpid()]


@pytest.mark.parametrize("cpus", [1, 2])
def test_an_error_is_raised_as_in_the_process(monkeypatch: pytest.MonkeyPatch, cpus: int) -> None:
    """A LoadError does not survive pickling (its problems would be lost): the parent runs
    the function again and raises exactly what it raises."""
    monkeypatch.setattr(beside, "cpus", lambda: cpus)

    def broken() -> None:
        raise LoadError([LoadProblem("stack/a.yaml", 3, "invalid YAML: here")])

    with pytest.raises(LoadError) as raised, Beside(broken) as job:
        job.result()
    assert [p.format() for p in raised.value.problems] == ["stack/a.yaml:3: invalid YAML: here"]


@pytest.mark.skipif(not FORKS, reason="a child is forked only on Linux with a second CPU")
def test_a_child_that_dies_leaves_the_work_to_the_parent() -> None:
    parent = os.getpid()

    def work() -> str:
        if os.getpid() != parent:
            os._exit(9)  # the child dies without a word
        return "computed by the parent"

    with Beside(work) as job:
        assert job.result() == "computed by the parent"


@pytest.mark.skipif(not FORKS, reason="a child is forked only on Linux with a second CPU")
def test_leaving_without_the_result_stops_the_child(tmp_path: Path) -> None:
    flag = tmp_path / "finished"

    def slow() -> None:
        import time

        time.sleep(30)
        flag.write_text("late")

    with Beside(slow) as job:
        child = job._pid
    assert _gone(child) and not flag.exists()


def test_no_process_to_spare_computes_in_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "cpus", lambda: 2)
    monkeypatch.setattr(beside.sys, "platform", "linux")
    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(beside.os, "fork", no_fork)
    with Beside(lambda: os.getpid()) as job:
        assert job.result() == os.getpid()
    if before:  # both ends of the pipe closed again
        assert set(os.listdir("/proc/self/fd")) <= before


def test_the_result_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "cpus", lambda: 1)
    calls: list[int] = []
    job = Beside(lambda: calls.append(1) or len(calls))
    assert (job.result(), job.result(), calls) == (1, 1, [1])


@pytest.mark.skipif(not FORKS, reason="a child is forked only on Linux with a second CPU")
def test_an_interrupted_wait_stops_the_child_and_keeps_the_interrupt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ctrl-C while the parent waits: the KeyboardInterrupt comes out (not an error about a
    closed pipe), and the child is stopped and reaped."""
    flag = tmp_path / "finished"

    def slow() -> None:
        import time

        time.sleep(30)
        flag.write_text("late")

    real_fdopen = os.fdopen

    class Interrupted:
        """The pipe, interrupted while the parent reads it."""

        def __init__(self, fd: int, mode: str) -> None:
            self.pipe = real_fdopen(fd, mode)

        def __enter__(self) -> Interrupted:
            return self

        def __exit__(self, *exc: object) -> None:
            self.pipe.close()

        def read(self) -> bytes:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), Beside(slow) as job:
        child = job._pid
        monkeypatch.setattr(beside.os, "fdopen", Interrupted)
        job.result()
    assert _gone(child) and not flag.exists()


@pytest.mark.skipif(not FORKS, reason="a child is forked only on Linux with a second CPU")
def test_what_the_parent_buffered_is_written_once(tmp_path: Path) -> None:
    """The child inherits the parent's buffers: they are flushed before the fork, so a child
    that writes never repeats them."""
    script = tmp_path / "buffered.py"
    script.write_text(
        "import sys\n"
        "from tars_components.cli.beside import Beside\n"
        "print('parent line')\n"
        "with Beside(lambda: print('child line', flush=True) or 1) as job:\n"
        "    assert job.result() == 1\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    import subprocess

    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.count("parent line") == 1, done.stdout
