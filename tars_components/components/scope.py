"""What the components of one framework share, as a plain object: the namespace's options,
its ``tars-framework`` config, the cross-document facts the rules need
(:class:`~tars_components.provider.NamespaceFacts`) and the defaults of the servers' resource
options. A :class:`~tars_components.components.TFramework` owns one
(:attr:`~tars_components.components.TFramework.scope`); TServer and TTemplate components use
it through their ``framework`` argument.

Every operation is O(1) per document: documents are found by ``(kind, name)`` in a dict, never
by scanning the namespace. (With ``templates`` given as an Output, a TServer's or TTemplate's
templates fact is looked up among them and the declared ones once they are known: O(number
of templates) for each.)

The namespace and the templates may be ``pulumi.Input`` values (another stack's outputs):
the components run the pure core on a stand-in namespace and put the namespace's Output where
the stand-in lands (:meth:`FrameworkScope.placed`, :mod:`.namespace_input`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Protocol, cast

import pulumi

from ..models import (
    FRAMEWORK_CONFIG_NAME,
    Document,
    TConfigDocument,
    TFrameworkConfigDocument,
    TServerDocument,
    TTemplateDocument,
)
from ..models.names import is_dns_label
from ..provider import DOCUMENT, NAMESPACE, NamespaceFacts, ValidationInputs
from ..settings.options import Options
from .namespace_input import STAND_IN, placed
from .outputs import deferred_leaves, known


class FrameworkScope:
    """The shared state of one framework (namespace)."""

    def __init__(
        self,
        options: Options,
        resource: pulumi.Resource,
        documents: Iterable[Document] = (),
        templates: pulumi.Input[Mapping[str, pulumi.Input[str]]] | None = None,
        external_replicas: bool = False,
        retain_on_delete: bool | None = None,
        namespace: pulumi.Input[str] | None = None,
    ) -> None:
        self.options = options
        """The output options, with the framework's namespace and ``skip_await``
        (:data:`~.namespace_input.STAND_IN` when the namespace is an Output)."""
        self.namespace_output: pulumi.Output[str] | None = None
        """The namespace when it was given as a ``pulumi.Input`` (``options.namespace`` is
        then the stand-in that :meth:`placed` replaces); None for a plain namespace."""
        if namespace is not None and not isinstance(namespace, str):
            if options.namespace != STAND_IN:
                raise ValueError("a namespace Output needs options with the stand-in namespace")
            given: pulumi.Output[Any] = pulumi.Output.from_input(cast(Any, namespace))
            self.namespace_output = given.apply(namespace_name)
        self.templates_output: pulumi.Output[dict[str, str]] | None = None
        """``{name: parent}`` of the templates given as a ``pulumi.Input`` (another stack's
        output), once known; None when they were given as plain values (known from the
        start, in :attr:`facts`)."""
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
        if isinstance(templates, Mapping) and not deferred_leaves(templates):
            plain: Mapping[str, str] = cast(Mapping[str, str], templates)  # no Input among them
            for name, parent in plain.items():
                self.facts.add_template(name, parent)
        elif templates is not None:
            self.templates_output = pulumi.Output.from_input(templates).apply(template_parents)
        self._next = 0
        for document in documents:
            self._known.setdefault((document.kind, document.name), self._next)
            self._learn(document, self._next)
            self._next += 1

    @property
    def namespace(self) -> str:
        """The framework's namespace as the pure core sees it: the namespace, or the stand-in
        of a namespace given as an Output (:attr:`namespace_input` is the namespace itself)."""
        return self.options.namespace

    @property
    def namespace_input(self) -> pulumi.Input[str]:
        """The framework's namespace: the plain value, or the Output it was given as."""
        if self.namespace_output is not None:
            return self.namespace_output
        return self.options.namespace

    def namespace_of(self) -> pulumi.Output[str]:
        """The framework's namespace as an Output (a known one for a plain namespace)."""
        if self.namespace_output is not None:
            return self.namespace_output
        return known(self.options.namespace)

    def placed(self, value: Any) -> Any:
        """``value`` (an object, an object id, a list of them, or an Output of one) with the
        framework's namespace where the core put the stand-in
        (:func:`~.namespace_input.placed`); ``value`` itself for a plain namespace."""
        if self.namespace_output is None:
            return value
        return placed(value, self.namespace_output)

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
        """The validation inputs of a registered document. With :attr:`templates_output`, the
        templates fact of a TServer or TTemplate is an Output over those templates and the
        ones known now (the latter win, as a declared TTemplate wins over ``templates``)."""
        inputs = self.facts.inputs(document, position, raw, secret_fields)
        external = self.templates_output
        if external is not None and isinstance(document, (TServerDocument, TTemplateDocument)):
            declared = dict(self.facts.parents)
            inputs = replace(
                inputs,
                templates=external.apply(
                    lambda given: self.templates_of(document, {**given, **declared})
                ),
            )
        return inputs

    def templates_of(self, document: Document, parents: Mapping[str, str]) -> dict[str, str]:
        """The templates fact of ``document`` (its template, or a template's ancestors) among
        ``parents`` (``{name: parent}``)."""
        facts = NamespaceFacts(self.facts.namespace)
        facts.parents = dict(parents)
        return dict(facts.inputs(document, raw={}).templates)

    def validation_props(self, inputs: ValidationInputs) -> ValidationInputs | dict[str, Any]:
        """What the validation resource of ``inputs`` is given: ``inputs`` as they are, or,
        when the namespace is an Output, their properties with that Output as the namespace
        and put in the document (an Output of its JSON text, or Outputs at the places of a
        mapping): once known, the inputs of the plain namespace."""
        if self.namespace_output is None:
            return inputs
        props = inputs.to_props()
        props[NAMESPACE] = self.namespace_output
        props[DOCUMENT] = self.placed(props[DOCUMENT])
        return props

    def parent_chain(self, template: str, parents: Mapping[str, str] | None = None) -> list[str]:
        """``template``, its parent, … up to a root (a template that is its own parent) or the
        first unknown or repeated name: the order in which tarsregistry merges configs.
        ``parents`` defaults to the templates known now (those given as an Output are not)."""
        parents = self.facts.parents if parents is None else parents
        chain = [template]
        parent = parents.get(template)
        while parent is not None and parent not in chain:
            chain.append(parent)
            parent = parents.get(parent)
        return chain

    def parent_chain_of(self, template: str) -> pulumi.Output[list[str]]:
        """:meth:`parent_chain` as an Output: known at once, or, with
        :attr:`templates_output`, once those templates are (the templates known now win)."""
        external = self.templates_output
        if external is None:
            return known(self.parent_chain(template))
        declared = dict(self.facts.parents)
        return external.apply(lambda given: self.parent_chain(template, {**given, **declared}))


def namespace_name(value: Any) -> str:
    """A namespace given as an Input, once known: a DNS-1123 label, as Kubernetes requires.

    Raises ValueError (the program fails, naming the argument, not the value: it may be a
    secret) for anything else."""
    if not isinstance(value, str) or not is_dns_label(value):
        shown = f"text of {len(value)} characters" if isinstance(value, str) else "not text"
        raise ValueError(
            f"TFramework namespace: the value given ({shown}) is not a namespace name (a "
            "DNS-1123 label: at most 63 lowercase letters, digits and '-')"
        )
    return value


def template_parents(value: Any) -> dict[str, str]:
    """``templates`` given as an Input, once known: ``{name: parent}`` with text names.

    Raises ValueError (the program fails, naming the argument) for anything else."""
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(
            "TFramework templates: expected {template name: parent name} (text), got "
            f"{type(value).__name__}"
        )
    return dict(value)


class HasScope(Protocol):
    """Anything with a :class:`FrameworkScope`: a
    :class:`~tars_components.components.TFramework`."""

    @property
    def scope(self) -> FrameworkScope:
        """The framework's shared state."""
        ...


__all__ = ["FrameworkScope", "HasScope", "namespace_name", "template_parents"]
