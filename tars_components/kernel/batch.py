"""The commands and the Pulumi program as batch jobs: the cyclic garbage collector paused
while they build (no dependencies, so the CLI can use it before importing anything heavy)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def suspended_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a batch job.

    A render builds hundreds of thousands of small acyclic objects; with the collector on, its
    full collections make the cost grow faster than the stack (2.4x slower at 5,000 servers)
    while freeing nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["suspended_gc"]
