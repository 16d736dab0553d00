"""Work run beside the main process: on a machine with a second CPU, a forked child computes a
pure function while the parent does its own share (``diff --live`` builds the stack while
it parses the export); elsewhere the function runs in the parent when its result is asked
for. Either way the result is the same: the child hands over only a successful result
(pickled through a pipe, never a file: a build may hold secrets); when the function raises,
or the child fails in any way, the parent runs the function itself, so an error is raised
exactly as without a child.
"""

from __future__ import annotations

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
        if sys.platform.startswith("linux") and cpus() >= 2:
            self._fork()

    def _fork(self) -> None:
        reader, writer = os.pipe()
        pid = os.fork()
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
        """The value of ``fn()``; what ``fn()`` raises, raised here."""
        if self._pid:
            with os.fdopen(self._reader, "rb") as pipe:
                payload = pipe.read()
            self._reap()
            if payload.startswith(_OK):
                try:
                    value: T = pickle.loads(payload[len(_OK) :])
                    return value
                except Exception:  # a value that does not unpickle: computed here instead
                    pass
        return self._fn()

    def _reap(self) -> None:
        pid, self._pid = self._pid, 0
        os.waitpid(pid, 0)

    def close(self) -> None:
        """Stop the child, if it still runs."""
        if self._pid:
            os.kill(self._pid, signal.SIGKILL)
            os.close(self._reader)
            self._reap()

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Beside", "cpus"]
