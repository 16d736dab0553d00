"""What the benchmarks time by: the best wall time of a few runs, measured as the CLI runs."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from tars_components.kernel.batch import suspended_gc


def best_wall_time(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` runs of ``fn``, with the cyclic collector paused as the CLI
    does (:func:`tars_components.kernel.batch.suspended_gc`; floors are measured the same way)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        with suspended_gc():
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
    return best
