"""Where the tests find upstream data (TarsK8S v1.4.1 files, real-world renders), never
committed here.

The folder is ``$TARS_SHARED`` when set, else ``<repo>/../shared``, else ``/work/shared``; a
test that needs it calls :func:`shared` and is skipped, saying so, when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def shared_root() -> Path | None:
    """The shared data folder, or None when none of the candidates exists."""
    env = os.environ.get("TARS_SHARED")
    candidates = [Path(env)] if env else [REPO.parent / "shared", Path("/work/shared")]
    return next((c for c in candidates if c.is_dir()), None)


def shared_path(*parts: str) -> Path:
    """``<shared>/<parts>`` without skipping (for ``skipif`` at import time); a path that does
    not exist when there is no shared folder."""
    root = shared_root()
    return root.joinpath(*parts) if root else Path("/nonexistent/shared").joinpath(*parts)


def shared(*parts: str) -> Path:
    """``<shared>/<parts>``; skips the calling test when it does not exist."""
    root = shared_root()
    path = root.joinpath(*parts) if root else None
    if path is None or not path.exists():
        where = root or "$TARS_SHARED, ../shared or /work/shared"
        pytest.skip(f"upstream data {'/'.join(parts)} not found under {where}")
    return path
