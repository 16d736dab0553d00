"""What the components of one framework share, as a plain object: the namespace's options,
its ``tars-framework`` config, the cross-document facts the rules need
(:class:`~tars_components.provider.NamespaceFacts`) and the defaults of the servers' resource
options. A :class:`~tars_components.components.TFramework` owns one
(:attr:`~tars_components.components.TFramework.scope`); TServer and TTemplate components use
it through their ``framework`` argument.

Every operation is O(1) per document: documents are found by ``(kind, name)`` in a dict, never
by scanning the namespace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import pulumi

from ..models import (
    FRAMEWORK_CONFIG_NAME,
    Document,
    TConfigDocument,
    TFrameworkConfigDocument,
    TServerDocument,
    TTemplateDocument,
)
from ..options import Options
from ..provider import NamespaceFacts, ValidationInputs


class FrameworkScope:
    """The shared state of one framework (namespace)."""

    def __init__(
        self,
        options: Options,
        resource: pulumi.Resource,
        documents: Iterable[Document] = (),
        templates: Mapping[str, str] | None = None,
        external_replicas: bool = False,
        retain_on_delete: bool | None = None,
    ) -> None:
        self.options = options
        """The output options, with the framework's namespace and ``skip_await``."""
        self.resource = resource
        """The framework component: the default parent of its components."""
        self.external_replicas = external_replicas
        """Default of ``TServerArgs.external_replicas``."""
        self.retain_on_delete = retain_on_delete
        """Default ``retain_on_delete`` of the components' objects."""
        self.config: TFrameworkConfigDocument | None = None
        """The namespace's ``tars-framework`` config, if known."""
        self.facts = NamespaceFacts(options.namespace)
        """What the rules need to know across the namespace's documents."""
        self._known: dict[tuple[str, str], int] = {}
        self._declared: set[tuple[str, str]] = set()
        for name, parent in (templates or {}).items():
            self.facts.add_template(name, parent)
        self._next = 0
        for document in documents:
            self._known.setdefault((document.kind, document.name), self._next)
            self._learn(document, self._next)
            self._next += 1

    @property
    def namespace(self) -> str:
        """The framework's namespace."""
        return self.options.namespace

    @property
    def skip_await(self) -> bool:
        """Default of ``TServerArgs.skip_await``."""
        return self.options.skip_await

    def register(self, document: Document) -> int:
        """Make a document of this namespace known to the rules (components call it) and
        return its position in load order.

        The first component with the kind and name of a document known in advance takes that
        document's place; any other document comes after all of them, where a second server of
        the same name meets TS017.
        """
        key = (document.kind, document.name)
        position = self._known.get(key)
        if position is None or key in self._declared:
            position = self._next
            self._next += 1
        self._declared.add(key)
        self._learn(document, position)
        return position

    def position_of(self, document: Document) -> int:
        """The position :meth:`register` would give ``document`` now, without registering it
        (to run its rules before the component declares anything)."""
        key = (document.kind, document.name)
        position = self._known.get(key)
        if position is None or key in self._declared:
            return self._next
        return position

    def reserve(self) -> int:
        """A position in load order for a document whose name is not known yet (a TServer
        whose app or server is an Output); :meth:`learn` it once it is known."""
        position = self._next
        self._next += 1
        return position

    def learn(self, document: Document, position: int) -> None:
        """Make a document known to the rules at a :meth:`reserve` d position."""
        self._learn(document, position)

    def _learn(self, document: Document, position: int) -> None:
        if isinstance(document, TTemplateDocument):
            self.facts.add_template(document.name, document.spec.parent)
        elif isinstance(document, TServerDocument):
            self.facts.add_server(position, document)
        elif isinstance(document, TConfigDocument):
            self.facts.add_config(document)
        elif (
            isinstance(document, TFrameworkConfigDocument)
            and self.config is None
            and document.name == FRAMEWORK_CONFIG_NAME
        ):
            self.set_config(document)

    def set_config(self, config: TFrameworkConfigDocument) -> None:
        """The namespace's ``tars-framework`` config (default node image, TS020)."""
        self.config = config
        self.facts.set_framework(config)

    def inputs(
        self,
        document: Document,
        position: int,
        raw: Mapping[str, Any] | None = None,
        secret_fields: Any = (),
    ) -> ValidationInputs:
        """The validation inputs of a registered document."""
        return self.facts.inputs(document, position, raw, secret_fields)

    def parent_chain(self, template: str) -> list[str]:
        """``template``, its parent, … up to a root (a template that is its own parent) or the
        first unknown or repeated name: the order in which tarsregistry merges configs."""
        parents = self.facts.parents
        chain = [template]
        parent = parents.get(template)
        while parent is not None and parent not in chain:
            chain.append(parent)
            parent = parents.get(parent)
        return chain


class HasScope(Protocol):
    """Anything with a :class:`FrameworkScope`: a
    :class:`~tars_components.components.TFramework`."""

    @property
    def scope(self) -> FrameworkScope:
        """The framework's shared state."""
        ...


__all__ = ["FrameworkScope", "HasScope"]
