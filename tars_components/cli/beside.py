"""Work run beside the main process: on a machine with a second CPU, a forked child computes a
pure function while the parent does its own share (``diff --live`` builds the stack while
it parses the export); elsewhere the function runs in the parent when its result is asked
for. Either way the result is the same: the child hands over only a successful result
(pickled through a pipe, never a file: a build may hold secrets); when the function raises,
or the child fails in any way, the parent runs the function itself, so an error is raised
exactly as without a child.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_OK = b"k"


def cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Beside(Generic[T]):
    """``fn()``, computed in a forked child when this machine has a second CPU and the
    platform forks safely (Linux), else in the parent by :meth:`result`. Use as a context
    manager: leaving it stops a child whose result was not asked for."""

    def __init__(self, fn: Callable[[], T]) -> None:
        self._fn = fn
        self._pid = 0
        self._reader = -1
        self._done: tuple[T] | None = None
        if sys.platform.startswith("linux") and cpus() >= 2:
            self._fork()

    def _fork(self) -> None:
        # what the parent has buffered would otherwise be written by the child too
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            reader, writer = os.pipe()
        except OSError:
            return  # no pipe: computed in the parent
        try:
            pid = os.fork()
        except OSError:  # no process to spare: computed in the parent
            os.close(reader)
            os.close(writer)
            return
        if pid == 0:  # the child: never returns, never runs the parent's exit handlers
            os.close(reader)
            try:
                payload = _OK + pickle.dumps(self._fn(), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException:  # the parent runs fn again and raises what it raises
                payload = b""
            try:
                with os.fdopen(writer, "wb") as pipe:
                    pipe.write(payload)
            finally:
                os._exit(0)
        os.close(writer)
        self._pid, self._reader = pid, reader

    def result(self) -> T:
        """The value of ``fn()`` (computed once); what ``fn()`` raises, raised here."""
        if self._done is not None:
            return self._done[0]
        if self._pid:
            reader, self._reader = self._reader, -1
            try:
                with os.fdopen(reader, "rb") as pipe:
                    payload = pipe.read()
            finally:
                self.close()  # reaped, or stopped when the wait was interrupted
            # a value that does not unpickle is computed here instead
            with contextlib.suppress(Exception):
                if payload.startswith(_OK):
                    self._done = (pickle.loads(memoryview(payload)[len(_OK) :]),)
        if self._done is None:
            self._done = (self._fn(),)
        return self._done[0]

    def close(self) -> None:
        """Stop the child if it still runs, and reap it."""
        pid, self._pid = self._pid, 0
        if self._reader >= 0:
            os.close(self._reader)
            self._reader = -1
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # an exited child is only reaped
            with contextlib.suppress(ChildProcessError):  # SIGCHLD ignored: nothing to reap
                os.waitpid(pid, 0)

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Beside", "cpus"]
