"""The framework's TFrameworkConfig, TTree and TTemplates."""

from __future__ import annotations

from typing import Any

from . import chart_text
from .framework_common import FRAMEWORK_CONFIG, HOOK, HOOK_WEIGHT, TARS_API, TREE_NAME
from .values import FrameworkValues


def object_meta(
    name: str,
    namespace: str | None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return meta


def _hook(weight: str) -> dict[str, str]:
    # Kept for parity with the chart (helm's install order); nothing else reads them.
    return {HOOK: "pre-install,pre-upgrade", HOOK_WEIGHT: weight}


def framework_config(values: FrameworkValues, namespace: str) -> dict[str, Any]:
    """``tars-framework``: the chart's first-install content (maxBuildTime 600, empty upChain,
    ...). The fields the chart keeps from the live object on upgrade are left to the live
    object by the Pulumi component (ignore_changes)."""
    fw = values.framework
    return {
        "apiVersion": TARS_API,
        "kind": "TFrameworkConfig",
        "metadata": object_meta(FRAMEWORK_CONFIG, namespace, annotations=_hook("-9")),
        "imageUpload": {"registry": values.upload.registry, "secret": values.upload.secret},
        "imageBuild": {
            "maxBuildTime": 600,
            "idFormat": "",
            "executor": {"image": fw.image("tars.tarskaniko"), "secret": fw.secret},
        },
        "nodeImage": {"image": fw.image("tars.tarsnode"), "secret": fw.secret},
        "recordLimit": {"timageRelease": 60, "texitedPod": 32, "tconfigHistory": 32},
        "upChain": {},
        "expand": {"nativeDBConfig": "", "nativeFrameworkConfig": ""},
    }


def ttree(namespace: str) -> dict[str, Any]:
    """``tars-tree``: the TarsFramework business with apps ``tars`` and ``base``."""
    return {
        "apiVersion": TARS_API,
        "kind": "TTree",
        "metadata": object_meta(TREE_NAME, namespace, annotations=_hook("-10")),
        "apps": [
            {"businessRef": "TarsFramework", "name": "tars"},
            {"businessRef": "TarsFramework", "name": "base"},
        ],
        "businesses": [{"name": "TarsFramework", "show": "tars框架服务", "weight": 5}],
    }


def es_template_content(nodes: tuple[str, ...], namespace: str) -> str:
    """tars.es: Elasticsearch nodes (one line each) and the namespace's index names."""
    lines = "".join(f"      {node}\n" for node in nodes)
    return (
        "<tars>\n   protocol = http\n  <elk>\n    <nodes>\n"
        f"{lines}"
        "    </nodes>\n    <index>\n"
        f"      notify= {namespace}_notify_\n      kevent = {namespace}_kevent_\n"
        "    </index>\n    <indexpre>\n"
        f"      stat = {namespace}_stat_\n      property = {namespace}_property_\n"
        "    </indexpre>\n    <age>\n      notify = 3d\n      kevent = 3d\n      stat = 15d\n"
        "      property = 15d\n    </age>\n  </elk>\n</tars>\n"
    )


def ttemplates(values: FrameworkValues, namespace: str) -> list[dict[str, Any]]:
    """The six default TTemplates (tars.default is its own parent, the root)."""
    contents = [
        ("tars.cpp", chart_text.TEMPLATE_CPP, "-9"),
        ("tars.default", chart_text.TEMPLATE_DEFAULT, "-10"),
        ("tars.es", es_template_content(values.elk.nodes, namespace), "-9"),
        ("tars.java", chart_text.TEMPLATE_JAVA, "-9"),
        ("tars.nodejs", chart_text.TEMPLATE_NODEJS, "-9"),
        ("tars.php", chart_text.TEMPLATE_PHP, "-9"),
    ]
    return [
        {
            "apiVersion": TARS_API,
            "kind": "TTemplate",
            "metadata": object_meta(name, namespace, annotations=_hook(weight)),
            "spec": {"content": content, "parent": "tars.default"},
        }
        for name, content, weight in contents
    ]


def tarslog_profile(nodes: tuple[str, ...]) -> str:
    """tarslog's profile; ``<elk><nodes>`` lists ``elk.nodes`` (tarslog reads
    ``/tars/elk/nodes`` line by line)."""
    lines = "".join(f"{chart_text.TARSLOG_NODE_INDENT}{node}\n" for node in nodes)
    return chart_text.TARSLOG_PROFILE_HEAD + lines + chart_text.TARSLOG_PROFILE_TAIL
