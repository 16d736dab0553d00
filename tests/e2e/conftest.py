"""Fixtures of the real-engine suite (``python -m pytest -m e2e tests/e2e``).

Every module marks itself ``pytestmark = pytest.mark.e2e`` (the default run deselects the
marker). The suite needs the toolchain of ``tools/e2e/toolchain``. Without it, every e2e test is
skipped with one line saying so; in CI (``CI=true``) or with ``TARS_E2E=1`` the toolchain is
built (or taken from its cache) and a tool that cannot be had fails the suite instead.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from support.engines import e2e


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    """A SIGTERM (a CI time-out, ``kill``) ends the run as Ctrl-C does, so the session's
    finalizers still stop the loopback clusters."""
    signal.signal(signal.SIGTERM, _interrupted)


@pytest.fixture(scope="session")
def tools() -> dict[str, str]:
    """The toolchain's NAME to path lines."""
    found = e2e.toolchain(build=e2e.required())
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="session")
def cluster(
    tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[e2e.Cluster]:
    """One loopback cluster, ``local``, for the whole session."""
    root = tmp_path_factory.mktemp("clusters")
    e2e.cluster_up(root)
    try:
        yield e2e.Cluster(root, "local", tools["kubectl"])
    finally:
        e2e.cluster_down(root)


@pytest.fixture(scope="module")
def karmada(
    tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[e2e.Karmada]:
    """Two loopback clusters, ``a`` and ``b`` (one namespace and one fake node each: Karmada
    places objects, not pods), joined to a Karmada control plane for the module that asks for
    them (then stopped: the machine has two cores), which has TarsK8S's TServer CRD (v1beta3)
    from its start (Karmada's detector looks for new kinds only every 30 s);
    ``tools/e2e/cluster down`` stops Karmada with the clusters."""
    root = tmp_path_factory.mktemp("karmada")
    crd = root / "tserver-crd.json"
    crd.write_text(json.dumps(e2e.tarsk8s_crd("TServer", "v1beta3")), encoding="utf-8")
    members = ("a", "b")
    e2e.cluster_up(root, members, namespaces=("tars-dev",), nodes=1)
    try:
        e2e.karmada_up(root, members, crds=[crd])
        yield e2e.Karmada(
            e2e.Cluster(root, "karmada", tools["kubectl"]),
            {m: e2e.Cluster(root, m, tools["kubectl"]) for m in members},
        )
    finally:
        e2e.cluster_down(root)


@pytest.fixture(scope="session")
def venv(tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The program's virtualenv: this repository and the pinned pulumi-kubernetes."""
    return e2e.program_venv(tmp_path_factory.getbasetemp() / "program-venv")


@pytest.fixture(scope="session")
def pulumi(
    tools: dict[str, str], cluster: e2e.Cluster, tmp_path_factory: pytest.TempPathFactory
) -> e2e.Pulumi:
    """The real CLI: its own PULUMI_HOME (the built Kubernetes provider installed), a file
    backend, KUBECONFIG the session's cluster."""
    base = tmp_path_factory.mktemp("pulumi")
    cli = e2e.Pulumi(tools, home=base / "home", state=base / "state", kubeconfig=cluster.kubeconfig)
    cli.state.mkdir(parents=True)
    cli.home.mkdir(parents=True)
    cli.install_kubernetes_plugin()
    return cli
