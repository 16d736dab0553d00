"""Builders for test documents: small valid TServers and templates, changed per test."""

from __future__ import annotations

import copy
from typing import Any

from tars_components.fileio.yaml_writer import dump
from tars_components.loading.load import load_texts
from tars_components.pipeline import expand
from tars_components.settings.options import Options

NAMESPACE = "tars-dev"

FRAMEWORK: dict[str, Any] = {
    "apiVersion": "k8s.tars.io/v1beta3",
    "kind": "TFrameworkConfig",
    "metadata": {"name": "tars-framework", "namespace": NAMESPACE},
    "imageBuild": {"executor": {"image": "reg.example.com/tars.tarskaniko:v1"}},
    "imageUpload": {"registry": "reg.example.com/upload"},
    "nodeImage": {"image": "reg.example.com/tars.tarsnode:v1", "secret": "node-secret"},
}


DROP = object()
"""A value for :func:`edited` that removes the key."""


def edited(doc: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of ``doc`` with dotted-path changes (``spec__k8s__daemonSet=True``); a
    value of ``DROP`` removes the key."""
    out = copy.deepcopy(doc)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = out
        for key in parents:
            node = node.setdefault(key, {})
        if value is DROP:
            node.pop(last, None)
        else:
            node[last] = value
    return out


def plain(value: Any) -> Any:
    """Registered Pulumi inputs as data: numbers cross gRPC as doubles."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def template(name: str, parent: str | None = None) -> dict[str, Any]:
    """A TTemplate; a root when no parent is given."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TTemplate",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"content": "", "parent": parent or name},
    }


def tars_server(
    app: str = "Test",
    server: str = "DemoTest",
    api_version: str = "k8s.tars.io/v1beta3",
    **k8s: Any,
) -> dict[str, Any]:
    """A released Tars server with one servant; ``k8s`` fields are merged into spec.k8s."""
    return {
        "apiVersion": api_version,
        "kind": "TServer",
        "metadata": {"name": f"{app.lower()}-{server.lower()}", "namespace": NAMESPACE},
        "spec": {
            "app": app,
            "server": server,
            "subType": "tars",
            "tars": {
                "template": "tars.cpp",
                "servants": [{"name": "DemoTest1Obj", "port": 10001}],
            },
            "k8s": {"replicas": 1, **k8s},
            "release": {"id": "v1", "image": "reg.example.com/test.demotest:v1"},
        },
    }


def normal_server(app: str = "Web", server: str = "Portal", **k8s: Any) -> dict[str, Any]:
    """A released normal server with one http port."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": f"{app.lower()}-{server.lower()}", "namespace": NAMESPACE},
        "spec": {
            "app": app,
            "server": server,
            "subType": "normal",
            "normal": {"ports": [{"name": "http", "port": 8080}]},
            "k8s": {"replicas": 1, **k8s},
            "release": {"id": "v1", "image": "reg.example.com/web.portal:v1"},
        },
    }


def stack_text(*documents: dict[str, Any]) -> str:
    """Documents as one multi-document YAML text."""
    return "---\n".join(dump(d) for d in documents)


def load(*documents: dict[str, Any], namespace: str = NAMESPACE):
    """A stack of the documents plus the framework config and the usual templates."""
    docs = [
        copy.deepcopy(FRAMEWORK),
        template("tars.default"),
        template("tars.cpp", "tars.default"),
    ]
    docs.extend(documents)
    return load_texts({"stack.yaml": stack_text(*docs)}, namespace)


def objects(*documents: dict[str, Any], options: Options | None = None) -> dict[str, Any]:
    """Expanded objects keyed by ``Kind/name``."""
    stack = load(*documents)
    assert not stack.violations, stack.violations
    result = expand(stack, options or Options(namespace=NAMESPACE))
    return {f"{o['kind']}/{o['metadata']['name']}": o for o in result}


def pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    """``spec.template.spec`` of a workload."""
    return obj["spec"]["template"]["spec"]


def main_container(obj: dict[str, Any]) -> dict[str, Any]:
    """The workload's main container."""
    return pod_spec(obj)["containers"][0]
