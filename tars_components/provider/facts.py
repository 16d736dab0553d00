"""The cross-document facts of one namespace, kept so that each document's validation inputs
are built in O(1) and have constant size (docs/performance.md).

A :class:`NamespaceFacts` grows as documents become known (all of a loaded stack up front, or
component by component) and answers, for one document, only what that document's rules need:

* a TServer: its own template (TS010), the framework's node image (TS020, M-TS13) and the
  earlier servers whose name it takes too (TS017);
* a TTemplate: its ancestors (TT002, TT004);
* a node-level TConfig: whether the activated master of its file exists (TC002);
* a TFrameworkConfig and the other kinds: nothing (their cross-document rules run in the
  program's whole-stack check before anything is declared).

So adding, removing or changing one document changes no other document's inputs, except
where that other document's verdict depends on it (a server named like it, a template's
parent). Pure: no Pulumi.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..loading.document_set import DocumentSet
from ..models import (
    MASTER,
    Document,
    TConfigDocument,
    TFrameworkConfigDocument,
    TServerDocument,
    TTemplateDocument,
)
from ..models.vocabulary import LABEL_DEACTIVATE, LABEL_DELETING
from .wire import ValidationInputs


class NamespaceFacts:
    """What the rules of one namespace need to know across documents.

    ``position`` orders servers as the loader does (load order): TS017 fires on the later of
    two servers with one name.
    """

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.parents: dict[str, str] = {}
        """Every template of the namespace, ``{name: parent}``."""
        self.node_image: dict[str, Any] | None = None
        """``nodeImage`` of the ``tars-framework`` config, if known."""
        self._names: dict[str, tuple[int, str]] = {}
        self.config_masters: set[tuple[str, str, str]] = set()
        """``(app, server, configName)`` of the activated master TConfigs (TC002)."""

    @classmethod
    def of_stack(cls, stack: DocumentSet, namespace: str) -> NamespaceFacts:
        """The facts of one namespace of a loaded stack, servers in load order."""
        facts = cls(namespace)
        for name in stack.template_names(namespace):
            facts.parents[name] = name
        for template in stack.templates:
            if template.namespace == namespace:
                facts.add_template(template.name, template.spec.parent)
        config = stack.framework(namespace)
        if config is not None:
            facts.set_framework(config)
        for position, server in enumerate(stack.servers):
            if server.namespace == namespace:
                facts.add_server(position, server)
        for tconfig in stack.configs:
            if tconfig.namespace == namespace:
                facts.add_config(tconfig)
        return facts

    def add_config(self, config: TConfigDocument) -> None:
        """A TConfig: an activated master version of a file makes node-level versions of it
        admissible (TC002)."""
        if (
            config.pod_seq == MASTER
            and config.activated
            and LABEL_DEACTIVATE not in config.labels
            and LABEL_DELETING not in config.labels
        ):
            self.config_masters.add((config.app, config.server, config.config_name))

    def add_template(self, name: str, parent: str) -> None:
        """A template and its parent."""
        self.parents[name] = parent

    def set_framework(self, config: TFrameworkConfigDocument) -> None:
        """The namespace's ``tars-framework`` config."""
        self.node_image = config.node_image.to_dict()

    def add_server(self, position: int, server: TServerDocument) -> None:
        """A server at ``position`` in load order: its ``<app>-<server>`` and its
        ``metadata.name`` (when that differs) are taken from now on."""
        display = f"{server.spec.app}-{server.spec.server}"
        self._names.setdefault(display.lower(), (position, display))
        if server.name != server.object_name and "-" in server.name:
            self._names.setdefault(server.name.lower(), (position, server.name))

    def taken(self, position: int, server: TServerDocument) -> list[str]:
        """The names of earlier servers (before ``position``) that this server's name or
        object name collides with, earliest first."""
        hits = {
            found
            for key in (server.name.lower(), server.object_name.lower())
            if (found := self._names.get(key)) is not None and found[0] < position
        }
        return [display for _, display in sorted(hits)]

    def ancestors(self, template: TTemplateDocument) -> dict[str, str]:
        """``{name: parent}`` of the template's ancestors up to a root, an unknown name or a
        repeat (a cycle back to the template included)."""
        chain: dict[str, str] = {}
        name = template.spec.parent
        while name in self.parents and name not in chain and name != template.name:
            chain[name] = self.parents[name]
            if chain[name] == name:
                break
            name = chain[name]
        return chain

    def inputs(
        self,
        document: Document,
        position: int = 0,
        raw: Mapping[str, Any] | None = None,
        secret_fields: Any = (),
    ) -> ValidationInputs:
        """The validation inputs of one document (``raw``: its camelCase mapping when the
        caller has it, e.g. with ``pulumi.Input`` leaves; defaults to ``document.to_dict()``)."""
        templates: dict[str, str] = {}
        node_image = None
        server_names: list[str] = []
        if isinstance(document, TServerDocument):
            tars = document.spec.tars
            if tars is not None and tars.template in self.parents:
                templates[tars.template] = self.parents[tars.template]
            node_image = self.node_image
            server_names = self.taken(position, document)
        elif isinstance(document, TTemplateDocument):
            templates = self.ancestors(document)
        config_master = None
        if isinstance(document, TConfigDocument) and document.pod_seq != MASTER:
            key = (document.app, document.server, document.config_name)
            config_master = key in self.config_masters
        return ValidationInputs(
            document=raw if raw is not None else document.to_dict(),
            namespace=self.namespace,
            templates=templates,
            framework_node_image=node_image,
            server_names=server_names,
            secret_fields=secret_fields,
            config_master=config_master,
        )


def inputs_for_document(stack: DocumentSet, document: Document) -> ValidationInputs:
    """The validation inputs of one document of a loaded stack (what the components register
    for it). Builds the namespace's facts: for many documents, use :class:`NamespaceFacts`."""
    facts = NamespaceFacts.of_stack(stack, document.namespace)
    position = next(
        (i for i, server in enumerate(stack.servers) if server is document), len(stack.servers)
    )
    return facts.inputs(document, position)


__all__ = ["NamespaceFacts", "inputs_for_document"]
