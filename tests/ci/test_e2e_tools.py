"""The real-engine test bed's scripts, checked without building or starting anything: their
command lines, the pins they read, and the objects and stages they would create."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import tomllib
import yaml

TOOLS = Path(__file__).resolve().parents[2] / "tools" / "e2e"


def script(name: str) -> ModuleType:
    loader = importlib.machinery.SourceFileLoader(f"e2e_{name}", str(TOOLS / name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


def test_every_tool_has_a_pinned_version() -> None:
    toolchain = script("toolchain")
    pins = tomllib.loads((TOOLS / "versions.toml").read_text(encoding="utf-8"))
    provided = {name for tool in toolchain.TOOLS for name in tool.names}
    assert provided == set(toolchain.NAMES)
    for tool in toolchain.TOOLS:
        spec = pins[toolchain.SPEC_OF.get(tool.key, tool.key)]
        assert tool.version_of(spec), tool.key


def test_toolchain_refuses_an_unknown_tool() -> None:
    done = subprocess.run(
        [sys.executable, str(TOOLS / "toolchain"), "--only", "helm"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown tool(s): helm" in done.stderr
    assert done.stdout == ""


def test_cluster_refuses_bad_cluster_names(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(TOOLS / "cluster"), "up", str(tmp_path), "--clusters", "a,A_b"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "--clusters" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_cluster_commands_on_an_empty_directory(tmp_path: Path) -> None:
    down = subprocess.run(
        [sys.executable, str(TOOLS / "cluster"), "down", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert down.returncode == 0
    stop = subprocess.run(
        [sys.executable, str(TOOLS / "cluster"), "stop", str(tmp_path), "etcd"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert stop.returncode == 1
    assert "no cluster in" in stop.stderr


def test_karmada_refuses_bad_members_and_needs_running_members(tmp_path: Path) -> None:
    def karmada(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(TOOLS / "karmada"), *args],
            capture_output=True,
            text=True,
            check=False,
        )

    for members in ("a,karmada", "a,a", ","):
        refused = karmada("up", str(tmp_path), "--members", members)
        assert refused.returncode == 2, members
        assert "--members" in refused.stderr
    alone = karmada("up", str(tmp_path), "--members", "a,b")
    assert alone.returncode == 1
    assert "no cluster a, b in" in alone.stderr
    assert karmada("down", str(tmp_path)).returncode == 0
    assert list(tmp_path.iterdir()) == []


def test_stages_and_bootstrap_objects_are_what_the_docs_say() -> None:
    cluster = script("cluster")
    stages = [s for s in yaml.safe_load_all(cluster.stages()) if s]
    assert [s["metadata"]["name"] for s in stages] == [
        "node-ready",
        "pod-running",
        "tars-active",
        "tars-hold",
        "pod-delete",
    ]
    items = yaml.safe_load(cluster.bootstrap_objects("c", 2, ("tars-dev", "tars-prod")))["items"]
    nodes = [i for i in items if i["kind"] == "Node"]
    assert [n["metadata"]["name"] for n in nodes] == [
        "c-tars-dev-0",
        "c-tars-dev-1",
        "c-tars-prod-0",
        "c-tars-prod-1",
    ]
    for node in nodes:
        ns = node["metadata"]["name"][2:-2]
        labels = node["metadata"]["labels"]
        for want in (
            f"tars.io/node.{ns}",
            "tars.io/SupportLocalVolume",
            "node-role.kubernetes.io/edge",
            f"tars.io/ability.{ns}.Shop-GatewayServer",
        ):
            assert want in labels
        assert len([k for k in labels if k.startswith("tars.io/node.")]) == 1
    accounts = sorted(
        (i["metadata"]["namespace"], i["metadata"]["name"])
        for i in items
        if i["kind"] == "ServiceAccount"
    )
    assert accounts == [("tars-dev", "shop-orderserver"), ("tars-prod", "shop-orderserver")]
    classes = {i["metadata"]["name"]: i for i in items if i["kind"] == "StorageClass"}
    assert set(classes) == {"tars-storage-class", "standard"}
    assert all(c["provisioner"] == cluster.PROVISIONER for c in classes.values())


def test_the_scripts_type_check_strictly(tmp_path: Path) -> None:
    """mypy --strict, as for the package (the scripts have no .py suffix: copies are checked)."""
    copies = []
    for name in ("toolchain", "cluster", "karmada"):
        copy = tmp_path / f"e2e_{name}.py"
        copy.write_text((TOOLS / name).read_text(encoding="utf-8"), encoding="utf-8")
        copies.append(str(copy))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--python-version",
            "3.11",
            "--no-incremental",
            *copies,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
