"""The stack a verdict is computed on: the document of a property bag, loaded like a stack
file, next to stand-ins for the facts of its namespace (:mod:`.standins`: templates by name and
parent, the servers whose names it collides with, the framework's node image); values a preview
does not know yet stand in as :mod:`.preview` describes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..fileio.yaml_writer import dump
from ..kernel.errors import LoadError, LoadProblem
from ..kernel.paths import parse_path
from ..loading.document_set import DocumentSet, Rejected
from ..loading.load import load_texts
from ..loading.tdeploy import KIND as REQUEST_KIND
from ..models import (
    FRAMEWORK_CONFIG_NAME,
    MASTER,
    Document,
    TConfigDocument,
    TFrameworkConfigDocument,
    TTemplateDocument,
)
from ..models.tdeploy import Request
from .editing import leaf_texts
from .preview import (
    PLACEHOLDER,
    deferred_rules,
    stand_in_texts,
    with_pending,
    with_stand_in_numbers,
)
from .standins import build_documents, stub_framework, stub_master, stub_server, stub_template
from .wire import (
    CONFIG_MASTER,
    DOCUMENT,
    FRAMEWORK_NODE_IMAGE,
    NAMESPACE,
    SECRET_FIELDS,
    SERVER_NAMES,
    TEMPLATES,
    Path,
    plain,
)

DOCUMENT_FILE = "document.yaml"
"""Where the document is loaded from inside the provider; violations about it carry this file,
which tells them apart from violations about the stand-ins."""


@dataclass(frozen=True)
class Subject:
    """A document and its facts, parsed from a property bag, with unknown values replaced
    by :data:`~.wire.PENDING` and their paths recorded."""

    document: dict[str, Any]
    namespace: str
    templates: dict[str, str]
    framework_node_image: dict[str, Any] | None
    server_names: list[str]
    secret_fields: tuple[str, ...] = ()
    config_master: bool = False
    unknown_fields: tuple[Path, ...] = ()
    unknown_context: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, props: Mapping[str, Any]) -> Subject:
        """Read the input properties (numbers normalized, secrets unwrapped).

        Raises ``ValueError`` when the document or the namespace is missing or not known.
        """
        unknown_fields: list[Path] = []
        document = plain(props.get(DOCUMENT), (), unknown_fields)
        if not isinstance(document, dict) or () in unknown_fields:
            raise ValueError("the document is missing or not known yet")
        namespace = plain(props.get(NAMESPACE) or "default", (), [])
        if not isinstance(namespace, str):
            raise ValueError("the namespace is not known yet")
        unknown_context: set[str] = set()

        def context(key: str, kind: type) -> Any:
            found: list[Path] = []
            value = plain(props.get(key), (), found, placeholder=PLACEHOLDER)
            if found:
                unknown_context.add(key)
            return value if isinstance(value, kind) else kind()

        node_image = context(FRAMEWORK_NODE_IMAGE, dict)
        if FRAMEWORK_NODE_IMAGE in props and not node_image:
            # ``{}``: the cluster's existing tars-framework, whose node image the program does
            # not know (crd mode); it exists (no TS020), and its webhook fills the default.
            unknown_context.add(FRAMEWORK_NODE_IMAGE)
        return cls(
            document=document,
            namespace=namespace,
            templates={str(k): str(v) for k, v in context(TEMPLATES, dict).items()},
            framework_node_image=node_image or None,
            server_names=[str(n) for n in context(SERVER_NAMES, list)],
            secret_fields=tuple(str(p) for p in context(SECRET_FIELDS, list)),
            config_master=context(CONFIG_MASTER, bool),
            unknown_fields=tuple(unknown_fields),
            unknown_context=frozenset(unknown_context),
        )

    def load(self) -> tuple[DocumentSet, Document | Rejected | Request]:
        """The document loaded like a stack file, next to stand-ins for its facts; a TDeploy
        request alone (the TServer an approved one deploys is validated as its server's
        document).

        Raises :class:`~tars_components.kernel.errors.LoadError` when the document cannot be read as
        a TarsK8S document.
        """
        raw = plain(self.document, (), [], placeholder=PLACEHOLDER)
        stand_in_texts(raw, self.unknown_fields)

        def load(raw: dict[str, Any]) -> DocumentSet:
            return load_texts({DOCUMENT_FILE: dump(raw)}, self.namespace)

        loaded, numbers = with_stand_in_numbers(raw, self.unknown_fields, load, DOCUMENT_FILE)
        if loaded.requests:  # a TDeploy: its own rules; an approved one's TServer has its own
            request = loaded.requests[0]
            own = tuple(v for v in loaded.violations if v.kind == request.kind)
            return DocumentSet(loaded.namespace, violations=own, requests=(request,)), request
        if not loaded.documents and not loaded.rejected:  # a plain object, or a skipped kind
            kinds = [o.kind for o in loaded.objects] or ["a kind written by the controller"]
            raise LoadError([LoadProblem(DOCUMENT_FILE, 1, f"{kinds[0]} is not validated here")])
        target: Document | Rejected = (
            with_pending(loaded.documents[0], self.unknown_fields, numbers)
            if loaded.documents
            else loaded.rejected[0]
        )
        documents, rejected = self._context(target)
        if isinstance(target, Document):
            documents.append(target)
        else:
            rejected.append(target)
        stack = DocumentSet(
            namespace=loaded.namespace,
            documents=tuple(documents),
            violations=loaded.violations,
            rejected=tuple(rejected),
        )
        return stack, target

    @property
    def is_request(self) -> bool:
        """True for a TDeploy request (whose change rules also apply to its creation)."""
        return self.document.get("kind") == REQUEST_KIND

    def deferred_rules(self) -> frozenset[str]:
        """The rules that relate an unknown field of the document to another field
        (:data:`~.wire.FIELD_RULES`): left out until the field is known."""
        return deferred_rules(self.unknown_fields)

    def _context(self, target: Document | Rejected) -> tuple[list[Document], list[Rejected]]:
        """Stand-ins for the facts: templates with their parents, the servers holding the
        names of :attr:`server_names`, the framework config."""
        ns = target.namespace
        raws: list[dict[str, Any]] = []
        for name, parent in self.templates.items():
            if not (target.kind == TTemplateDocument.KIND and name == target.name):
                raws.append(stub_template(name, parent, ns))
        raws.extend(stub_server(name, ns) for name in self.server_names)
        if self.framework_node_image is not None and not (
            target.kind == TFrameworkConfigDocument.KIND and target.name == FRAMEWORK_CONFIG_NAME
        ):
            raws.append(stub_framework(self.framework_node_image, ns))
        if self.config_master and isinstance(target, TConfigDocument) and target.pod_seq != MASTER:
            raws.append(stub_master(target))
        return build_documents(raws)

    def secret_values(self) -> list[str]:
        """The texts of the secret values of the document (every leaf at or below a secret
        field; longest first), for redaction."""
        values: set[str] = set()
        for path in self.secret_fields:
            node: Any = self.document
            for seg in parse_path(path):
                try:
                    node = node[seg]
                except (KeyError, IndexError, TypeError):
                    node = None
                    break
            values.update(text for text in leaf_texts(node) if text)
        return sorted(values, key=lambda text: (-len(text), text))

    def secret_paths(self) -> list[Path]:
        """The field paths of the secret values of the document."""
        return [tuple(parse_path(path)) for path in self.secret_fields]


def is_target(doc: Document) -> bool:
    """True for the document of the property bag (not a stand-in)."""
    return doc.source is not None and doc.source.file == DOCUMENT_FILE


__all__ = ["DOCUMENT_FILE", "Subject", "is_target"]
