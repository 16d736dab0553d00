"""A loaded stack: the typed documents of one environment, in load order."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from .errors import Severity, Violation
from .models import (
    FRAMEWORK_CONFIG_NAME,
    Document,
    Source,
    TFrameworkConfig,
    TServer,
    TTemplate,
)
from .paths import Segment, format_path


@dataclass(frozen=True)
class Rejected:
    """A document the CRD schema rejects: kept by identity so other rules still know its name."""

    kind: str
    namespace: str
    name: str
    source: Source | None = None


@dataclass(frozen=True)
class Stack:
    """Typed documents of one environment plus what the schema rejected while loading.

    ``documents`` keep load order (sorted files, then document order), which is the order of
    every output.
    """

    namespace: str = "default"
    documents: tuple[Document, ...] = ()
    violations: tuple[Violation, ...] = ()
    rejected: tuple[Rejected, ...] = field(default=())

    @classmethod
    def of(cls, documents: Iterable[Document], namespace: str = "default") -> Stack:
        """A stack built in code (no files); documents without a namespace get ``namespace``."""
        docs = []
        for doc in documents:
            if doc.metadata.namespace is None:
                meta = doc.metadata.model_copy(update={"namespace": namespace})
                doc = doc.model_copy(update={"metadata": meta}).with_source(doc.source)
            docs.append(doc)
        return cls(namespace=namespace, documents=tuple(docs))

    @property
    def servers(self) -> list[TServer]:
        """The TServers, in load order."""
        return [d for d in self.documents if isinstance(d, TServer)]

    @property
    def templates(self) -> list[TTemplate]:
        """The TTemplates, in load order."""
        return [d for d in self.documents if isinstance(d, TTemplate)]

    @property
    def frameworks(self) -> list[TFrameworkConfig]:
        """The TFrameworkConfigs, in load order."""
        return [d for d in self.documents if isinstance(d, TFrameworkConfig)]

    def framework(self, namespace: str) -> TFrameworkConfig | None:
        """The ``tars-framework`` config of a namespace (the only one TarsK8S reads)."""
        for doc in self.frameworks:
            if doc.name == FRAMEWORK_CONFIG_NAME and doc.namespace == namespace:
                return doc
        return None

    def template_names(self, namespace: str) -> set[str]:
        """Names of the templates of a namespace, including schema-rejected ones."""
        names = {t.name for t in self.templates if t.namespace == namespace}
        names.update(
            r.name for r in self.rejected if r.kind == TTemplate.KIND and r.namespace == namespace
        )
        return names

    def with_documents(self, documents: Sequence[Document]) -> Stack:
        """The same stack with other documents (mutation returns such a copy)."""
        return replace(self, documents=tuple(documents))


def violation(
    doc: Document | Rejected,
    code: str,
    path: str | Sequence[Segment],
    message: str,
    severity: Severity = Severity.ERROR,
) -> Violation:
    """A violation about ``doc`` at a field path, located in the source file when known."""
    field_path = path if isinstance(path, str) else format_path(path)
    source = doc.source
    return Violation(
        code=code,
        severity=severity,
        kind=doc.kind,
        namespace=doc.namespace,
        name=doc.name,
        field=field_path,
        message=message,
        file=source.file if source else None,
        line=source.line(field_path) if source else None,
    )
