"""Stacks for the storage-change tests: a 3-replica server with a claim template, written as
two stack directories (the previous and the new version)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from support.builders.documents import FRAMEWORK, stack_text, tars_server, template


def data_mount(size: str = "5Gi", storage_class: str | None = "ssd", name: str = "data") -> dict:
    """A persistentVolumeClaimTemplate mount of ``size`` on ``storage_class``."""
    spec: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": size}},
    }
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {
        "name": name,
        "mountPath": f"/{name}",
        "source": {"persistentVolumeClaimTemplate": {"spec": spec}},
    }


def local_mount(name: str = "cache") -> dict:
    """A tLocalVolume mount."""
    return {"name": name, "mountPath": f"/{name}", "source": {"tLocalVolume": {}}}


def db_server(*mounts: dict, replicas: int = 3, annotations: dict | None = None) -> dict:
    """Test/DemoTest with ``replicas`` and the mounts (one 5Gi ``data`` claim by default)."""
    server = tars_server(replicas=replicas, mounts=list(mounts) or [data_mount()])
    if annotations:
        server["metadata"]["annotations"] = dict(annotations)
    return server


def write_stack(directory: Path, *documents: dict) -> Path:
    """The documents, the framework config and the templates as one stack directory."""
    directory.mkdir(parents=True)
    docs = [
        copy.deepcopy(FRAMEWORK),
        template("tars.default"),
        template("tars.cpp", "tars.default"),
    ]
    (directory / "stack.yaml").write_text(stack_text(*docs, *documents), encoding="utf-8")
    return directory


def write_pair(root: Path, old: dict, new: dict) -> tuple[Path, Path]:
    """``root/old`` and ``root/new``, one server each."""
    return write_stack(root / "old", old), write_stack(root / "new", new)
