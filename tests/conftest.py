"""Fixtures for every test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_state_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """``$XDG_STATE_HOME`` of the test session: ``render`` keeps this machine's TAccount salt
    key there (``render.local_salt_key``), never in the real home of whoever runs the tests."""
    state = tmp_path_factory.getbasetemp() / "state-home"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state
