"""The ``pulumi import --file`` plan that ``import`` writes beside the stack, so that the next
``pulumi up`` adopts a live namespace's objects instead of recreating them
(docs/cli/import.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..models import API_VERSIONS, FRAMEWORK_CONFIG_NAME, KINDS, V1BETA3
from ..models.kind_facts import CLUSTER_SCOPED_KINDS


def pulumi_import_plan(objects: list[dict[str, Any]], crd_api_version: str = V1BETA3) -> str:
    """The ``pulumi import --file`` JSON, named exactly as
    :func:`tars_components.components.components_from_stack` registers the stack in crd mode
    (the program of ``tars:mode: crd``), so that the next ``pulumi up`` adopts every object
    instead of recreating it:

    * one empty component per framework (``tars:index:TFramework``, named ``<namespace>``)
      and per TarsK8S document (``tars:index:<Kind>``, named ``<namespace>/<name>``), created
      by the import (``component: true``; the entry's ``name`` is unique in the file,
      ``logicalName`` is the resource's name);
    * per object its resource type (``kubernetes:<apiVersion>:<Kind>``, TarsK8S kinds at
      ``crd_api_version``, ``core`` for the core group), its logical name (the component's
      name and ``-<kind>``; ``<namespace>-tframeworkconfig`` for the ``tars-framework``
      config, a child of the framework; ``<namespace>/<name>-<kind>`` for a plain object, a
      child of its namespace's framework) and its id (``<namespace>/<name>``, or the name of a
      cluster-scoped object).

    The validation resources are not imported: they hold no cluster object and are created by
    the next ``pulumi up``."""
    frameworks: list[str] = []
    for obj in objects:
        if is_tars_document(obj):
            namespace = str(obj["metadata"].get("namespace") or "default")
            if namespace not in frameworks:
                frameworks.append(namespace)
    resources: list[dict[str, Any]] = [
        {"type": "tars:index:TFramework", "name": namespace, "component": True}
        for namespace in frameworks
    ]
    for obj in objects:
        api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
        meta = obj["metadata"]
        name = str(meta["name"])
        own = meta.get("namespace") if kind not in CLUSTER_SCOPED_KINDS else None
        namespace = str(own) if own else ""
        object_id = f"{namespace}/{name}" if namespace else name
        if not is_tars_document(obj):
            group_version = api_version if "/" in api_version else f"core/{api_version}"
            logical = (
                f"{namespace}/{name}-{kind.lower()}" if namespace else f"{name}-{kind.lower()}"
            )
            entry = {"type": f"kubernetes:{group_version}:{kind}", "name": logical, "id": object_id}
            parent = namespace if namespace in frameworks else next(iter(frameworks), None)
            if parent is not None:
                entry["parent"] = parent
            resources.append(entry)
            continue
        object_type = f"kubernetes:{crd_api_version}:{kind}"
        if kind == "TFrameworkConfig" and name == FRAMEWORK_CONFIG_NAME:
            resources.append(
                {
                    "type": object_type,
                    "name": f"{namespace}-{kind.lower()}",
                    "id": object_id,
                    "parent": namespace,
                }
            )
            continue
        component = f"{namespace}/{name}"
        key = f"{kind}:{component}"
        resources.append(
            {
                "type": f"tars:index:{kind}",
                "name": key,
                "logicalName": component,
                "component": True,
                "parent": namespace,
            }
        )
        resources.append(
            {
                "type": object_type,
                "name": f"{component}-{kind.lower()}",
                "id": object_id,
                "parent": key,
            }
        )
    return json.dumps({"resources": resources}, indent=2, ensure_ascii=False) + "\n"


def is_tars_document(obj: Mapping[str, Any]) -> bool:
    """True for a document of a TarsK8S kind in a served ``k8s.tars.io`` version."""
    return str(obj.get("apiVersion")) in API_VERSIONS and obj.get("kind") in KINDS
