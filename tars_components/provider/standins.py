"""Stand-ins for the rest of a namespace: the templates, servers and configs that a document's
rules look at, rebuilt from the few facts its validation inputs carry (a template's name and
parent, a server's name, the framework's node image, an activated master config)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from ..loading.document_set import Rejected
from ..models import (
    FRAMEWORK_CONFIG_NAME,
    KINDS,
    MASTER,
    V1BETA3,
    Document,
    TConfigDocument,
    TFrameworkConfigDocument,
    TServerDocument,
    TTemplateDocument,
)


def stub_template(name: str, parent: str, namespace: str) -> dict[str, Any]:
    """A TTemplate known only by its name and parent."""
    return {
        "apiVersion": V1BETA3,
        "kind": TTemplateDocument.KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"content": "", "parent": parent},
    }


def stub_server(name: str, namespace: str, template: str | None = None) -> dict[str, Any]:
    """A TServer known only by ``<app>-<server>`` (named lowercased, like its objects): a
    normal server, or a tars server of ``template``."""
    app, _, server = name.partition("-")
    spec: dict[str, Any] = {"app": app, "server": server or app, "k8s": {}}
    if template is None:
        spec.update(subType="normal", normal={"ports": []})
    else:
        spec.update(subType="tars", tars={"template": template, "servants": []})
    return {
        "apiVersion": V1BETA3,
        "kind": TServerDocument.KIND,
        "metadata": {"name": name.lower(), "namespace": namespace},
        "spec": spec,
    }


def stub_framework(node_image: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """The namespace's ``tars-framework`` config, known only by its nodeImage."""
    return {
        "apiVersion": V1BETA3,
        "kind": TFrameworkConfigDocument.KIND,
        "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
        "nodeImage": dict(node_image),
    }


def stub_master(config: TConfigDocument) -> dict[str, Any]:
    """The activated master version of a node-level TConfig's file, known only to exist."""
    return {
        "apiVersion": V1BETA3,
        "kind": TConfigDocument.KIND,
        "metadata": {"name": f"{config.name}.master", "namespace": config.namespace},
        "app": config.app,
        "server": config.server,
        "configName": config.config_name,
        "configContent": "",
        "podSeq": MASTER,
        "activated": True,
    }


def build_documents(raws: Iterable[Mapping[str, Any]]) -> tuple[list[Document], list[Rejected]]:
    """Typed stand-ins; one the schema rejects is kept by identity (its name still counts)."""
    documents: list[Document] = []
    rejected: list[Rejected] = []
    for raw in raws:
        cls = KINDS[raw["kind"]]
        meta = raw["metadata"]
        try:
            documents.append(cls.model_validate(raw))
        except ValidationError:
            rejected.append(Rejected(cls.KIND, meta["namespace"], meta["name"]))
    return documents, rejected


__all__ = [
    "build_documents",
    "stub_framework",
    "stub_master",
    "stub_server",
    "stub_template",
]
