"""A 4-replica TServer on v1.5.0 and its Rollout from v1.4.0, as documents and stack
directories (docs/concepts/rollout.md)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from support.builders.documents import FRAMEWORK, NAMESPACE, stack_text, tars_server, template

NEW_ID = "v1.5.0"
NEW_IMAGE = "registry/shop.orderserver:v1.5.0"
STABLE_ID = "v1.4.0"
STABLE_IMAGE = "registry/shop.orderserver:v1.4.0"


def server(replicas: int = 4, **k8s: Any) -> dict[str, Any]:
    """``shop-orderserver``: ``replicas`` instances, release v1.5.0."""
    doc = tars_server("Shop", "OrderServer", replicas=replicas, **k8s)
    doc["spec"]["release"] = {"id": NEW_ID, "image": NEW_IMAGE}
    return doc


def rollout(step: int = 0, **spec: Any) -> dict[str, Any]:
    """The Rollout of the issue: steps [1, "50%", "100%"], stable v1.4.0."""
    body: dict[str, Any] = {
        "steps": [1, "50%", "100%"],
        "step": step,
        "stable": {"id": STABLE_ID, "image": STABLE_IMAGE},
        "abort": False,
    }
    body.update(spec)
    return {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": "shop-orderserver", "namespace": NAMESPACE},
        "spec": body,
    }


def base() -> list[dict[str, Any]]:
    """The framework config and the templates every stack here needs."""
    return [
        copy.deepcopy(FRAMEWORK),
        template("tars.default"),
        template("tars.cpp", "tars.default"),
    ]


def write_stack(directory: Path, *documents: dict[str, Any]) -> Path:
    """A stack directory holding the base documents and ``documents``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "stack.yaml").write_text(stack_text(*base(), *documents), encoding="utf-8")
    return directory
