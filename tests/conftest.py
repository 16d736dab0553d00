"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from support.engines.grpc_provider import DynamicProviderProcess


@pytest.fixture(autouse=True)
def _private_state_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """``$XDG_STATE_HOME`` of the test session: ``render`` keeps this machine's TAccount salt
    key there (``account_salts.local_salt_key``), never in the real home of whoever runs the
    tests."""
    state = tmp_path_factory.getbasetemp() / "state-home"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


@pytest.fixture(autouse=True)
def _no_ambient_cluster(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``$KUBECONFIG`` of the test session: a file that does not exist, so that a program run
    under mocks never reads the cluster of whoever runs the tests (docs/concepts/live.md); the
    e2e suite hands its loopback cluster's kubeconfig to each command explicitly."""
    monkeypatch.setenv("KUBECONFIG", str(tmp_path_factory.getbasetemp() / "no-kubeconfig"))


@pytest.fixture(scope="module")
def provider() -> Iterator[DynamicProviderProcess]:
    """One ``python -m pulumi.dynamic`` per test module, configured as the engine configures
    it (``tars:namespace`` of ``support.documents``)."""
    from support.builders.documents import NAMESPACE
    from support.engines.grpc_provider import DynamicProviderProcess

    with DynamicProviderProcess(Path(__file__).resolve().parents[1]) as process:
        process.configure({"tars:namespace": NAMESPACE})
        yield process
