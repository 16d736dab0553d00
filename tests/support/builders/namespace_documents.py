"""TConfig, TImage, TTree and TAccount documents as the rule, mutation and component tests build
them."""

from __future__ import annotations

import hashlib
from typing import Any

Doc = dict[str, Any]


def config(
    name: str = "server-conf-v1",
    server: str = "DemoTest",
    pod_seq: str = "m",
    activated: bool = True,
    **fields: Any,
) -> Doc:
    """A TConfig of Test.DemoTest (``server=""``: app-level)."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TConfig",
        "metadata": {"name": name},
        "app": "Test",
        "server": server,
        "configName": "server.conf",
        "configContent": "<tars></tars>",
        "podSeq": pod_seq,
        "activated": activated,
        **fields,
    }


def image(name: str = "test-demotest", releases: list[Doc] | None = None, **fields: Any) -> Doc:
    """A server TImage labelled for Test.DemoTest."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TImage",
        "metadata": {
            "name": name,
            "labels": {"tars.io/ServerApp": "Test", "tars.io/ServerName": "DemoTest"},
        },
        "imageType": "server",
        "releases": releases
        if releases is not None
        else [{"id": "v1", "image": "reg.example.com/test.demotest:v1"}],
        **fields,
    }


def tree(name: str = "tars-tree", apps: list[Doc] | None = None, **fields: Any) -> Doc:
    """A TTree listing app Test under business Shop."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TTree",
        "metadata": {"name": name},
        "businesses": [{"name": "Shop", "show": "Shop"}],
        "apps": apps if apps is not None else [{"name": "Test", "businessRef": "Shop"}],
        **fields,
    }


def account(username: str = "admin", name: str | None = None, **authentication: Any) -> Doc:
    """A TAccount named after the MD5 of its username."""
    auth = authentication or {"bcryptPassword": {"configSecret": "adminHash"}}
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TAccount",
        "metadata": {"name": name or hashlib.md5(username.encode()).hexdigest()},
        "spec": {
            "username": username,
            "authentication": auth,
            "authorization": [{"role": "admin", "flag": "*"}],
        },
    }
