"""What goes wrong, on the real engine: a bad spec refused by ``pulumi preview`` before
anything is created, and an API server that dies in the middle of ``pulumi up``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from support.engines import e2e

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def project(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return e2e.project_copy(tmp_path_factory.mktemp("failures") / "tars", venv)


def new_stack(pulumi: e2e.Pulumi, project: Path, name: str, stack_dir: str) -> None:
    """A stack of the project with the dev settings, applying to the cluster."""
    shutil.copy(project / "Pulumi.dev.yaml", project / f"Pulumi.{name}.yaml")
    pulumi("stack", "init", name, cwd=project).ok()
    pulumi("config", "set", "tars:renderDir", "", "--stack", name, cwd=project).ok()
    pulumi("config", "set", "tars:stackDir", stack_dir, "--stack", name, cwd=project).ok()


def resources(pulumi: e2e.Pulumi, project: Path, stack: str) -> list[dict[str, object]]:
    state = json.loads(pulumi("stack", "export", "--stack", stack, cwd=project).ok().stdout)
    return list(state["deployment"].get("resources") or [])


def test_bad_spec_fails_the_preview_with_its_code_and_creates_nothing(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    bad = project / "stacks" / "bad"
    shutil.copytree(project / "stacks" / "dev", bad)
    order = bad / "20-shop-order.yaml"
    order.write_text(
        order.read_text(encoding="utf-8").replace("template: shop.cpp", "template: shop.missing"),
        encoding="utf-8",
    )
    new_stack(pulumi, project, "bad", "stacks/bad")
    for command in ("preview", "up"):
        args = [command, "--stack", "bad"] + (["--yes"] if command == "up" else [])
        result = pulumi(*args, cwd=project)
        assert result.code != 0, result.output
        line = re.search(
            r"stacks/bad/20-shop-order\.yaml:(\d+): TS010 error TServer tars-dev/shop-orderserver "
            r"spec\.tars\.template: TTemplate shop\.missing does not exist in namespace tars-dev",
            result.output,
        )
        assert line, result.output
        lines = order.read_text(encoding="utf-8").splitlines()
        assert "template: shop.missing" in lines[int(line.group(1)) - 1]
        assert "1 rule error(s) in stacks/bad: nothing is applied" in result.output
        assert "Program exited with non-zero exit code: 1" in result.output
        assert "{<nil>}" not in result.output
        assert "Traceback" not in result.output
    assert not [r for r in resources(pulumi, project, "bad") if r["type"] != "pulumi:pulumi:Stack"]
    assert not cluster.get("statefulsets", "--namespace=tars-dev")["items"]


def test_api_server_restart_in_the_middle_of_up_is_survived(
    project: Path, venv: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    new_stack(pulumi, project, "fault", "stacks/dev")
    first = e2e.up_with_apiserver_restart(
        pulumi,
        cluster,
        "fault",
        project,
        "the first StatefulSet created",
        lambda: cluster.kubectl(
            "get", "statefulsets", "-n", "tars-dev", "-o", "name", check=False
        ).stdout.strip(),
    )
    # whatever the interrupted up did, a refresh and an up converge
    pulumi(
        "refresh",
        "--yes",
        "--skip-preview",
        "--clear-pending-creates",
        "--stack",
        "fault",
        cwd=project,
    ).ok()
    pulumi("up", "--yes", "--skip-preview", "--stack", "fault", cwd=project).ok()
    pulumi("preview", "--expect-no-changes", "--stack", "fault", cwd=project).ok()
    state = resources(pulumi, project, "fault")
    urns = [r["urn"] for r in state]
    assert len(urns) == len(set(urns)), "duplicated resources in the state"
    names = sorted(
        s["metadata"]["name"] for s in cluster.get("statefulsets", "--namespace=tars-dev")["items"]
    )
    assert names == [
        "shop-gatewayserver",
        "shop-orderserver",
        "shop-paymentserver",
        "web-portal",
    ], (names, first)
    pulumi("destroy", "--yes", "--skip-preview", "--stack", "fault", cwd=project).ok()
