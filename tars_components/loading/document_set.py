"""A loaded stack: the typed documents of one environment, in load order."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from ..kernel.errors import Severity, Violation
from ..kernel.paths import Segment, format_path
from ..models import (
    FRAMEWORK_CONFIG_NAME,
    Document,
    Source,
    TAccountDocument,
    TConfigDocument,
    TFrameworkConfigDocument,
    TImageDocument,
    TServerDocument,
    TTemplateDocument,
    TTreeDocument,
)
from ..models.rollout import Rollout
from ..models.tdeploy import Request


@dataclass(frozen=True)
class Rejected:
    """A document the CRD schema rejects: kept by identity so other rules still know its name."""

    kind: str
    namespace: str
    name: str
    source: Source | None = None
    identity: Mapping[str, str] = field(default_factory=dict)
    """The identity fields of a TConfig or TServer that are strings as written (``app``,
    ``server``, ``configName``, ``podSeq``; a TServer's from ``spec``), so that rules about
    other documents do not report a follow-on of the schema error."""


@dataclass(frozen=True)
class KubeObject:
    """A plain Kubernetes object of a stack (ServiceAccount, Secret, ConfigMap, Ingress, …) or
    a TarsK8S kind without a model (TFrameworkKey, TPlugin): passed through to the output
    unchanged in both modes, except for the fields a live cluster writes."""

    body: Mapping[str, Any]
    source: Source | None = None

    @property
    def kind(self) -> str:
        """``kind``."""
        return str(self.body.get("kind", ""))

    @property
    def api_version(self) -> str:
        """``apiVersion``."""
        return str(self.body.get("apiVersion", ""))

    @property
    def name(self) -> str:
        """``metadata.name``."""
        return str((self.body.get("metadata") or {}).get("name", ""))

    @property
    def namespace(self) -> str:
        """``metadata.namespace`` (empty for cluster-scoped objects)."""
        return str((self.body.get("metadata") or {}).get("namespace") or "")

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the object."""
        return copy.deepcopy(dict(self.body))


@dataclass(frozen=True)
class DocumentSet:
    """Typed documents of one environment plus what the schema rejected while loading.

    ``documents`` keep load order (sorted files, then document order), which is the order of
    every output.
    """

    namespace: str = "default"
    documents: tuple[Document, ...] = ()
    violations: tuple[Violation, ...] = ()
    rejected: tuple[Rejected, ...] = field(default=())
    objects: tuple[KubeObject, ...] = field(default=())
    """Plain Kubernetes objects, passed through unchanged (load order)."""
    notes: tuple[str, ...] = field(default=())
    """What the loader ignored on purpose (fields a live cluster writes), for the summary."""
    requests: tuple[Request, ...] = field(default=())
    """The TDeploy requests, whatever their state (an approved one's TServer is in
    ``documents``)."""
    rollouts: tuple[Rollout, ...] = field(default=())
    """The valid Rollout documents (docs/concepts/rollout.md), in load order: applied to
    their TServers before expansion, never emitted."""

    @classmethod
    def of(cls, documents: Iterable[Document], namespace: str = "default") -> DocumentSet:
        """A stack built in code (no files); documents without a namespace get ``namespace``."""
        docs = []
        for doc in documents:
            if doc.metadata.namespace is None:
                meta = doc.metadata.model_copy(update={"namespace": namespace})
                doc = doc.model_copy(update={"metadata": meta}).with_source(doc.source)
            docs.append(doc)
        return cls(namespace=namespace, documents=tuple(docs))

    @cached_property
    def servers(self) -> list[TServerDocument]:
        """The TServers, in load order."""
        return [d for d in self.documents if isinstance(d, TServerDocument)]

    @cached_property
    def templates(self) -> list[TTemplateDocument]:
        """The TTemplates, in load order."""
        return [d for d in self.documents if isinstance(d, TTemplateDocument)]

    @cached_property
    def frameworks(self) -> list[TFrameworkConfigDocument]:
        """The TFrameworkConfigs, in load order."""
        return [d for d in self.documents if isinstance(d, TFrameworkConfigDocument)]

    @cached_property
    def configs(self) -> list[TConfigDocument]:
        """The TConfigs, in load order."""
        return [d for d in self.documents if isinstance(d, TConfigDocument)]

    @cached_property
    def images(self) -> list[TImageDocument]:
        """The TImages, in load order."""
        return [d for d in self.documents if isinstance(d, TImageDocument)]

    @cached_property
    def trees(self) -> list[TTreeDocument]:
        """The TTrees, in load order."""
        return [d for d in self.documents if isinstance(d, TTreeDocument)]

    @cached_property
    def accounts(self) -> list[TAccountDocument]:
        """The TAccounts, in load order."""
        return [d for d in self.documents if isinstance(d, TAccountDocument)]

    @cached_property
    def server_index(self) -> dict[tuple[str, str], TServerDocument]:
        """The first TServer of each ``(namespace, name)``, in load order (the Rollout rules
        and the Rollouts' application find their TServer here instead of walking them all)."""
        return {(s.namespace, s.name): s for s in reversed(self.servers)}

    @cached_property
    def server_keys(self) -> frozenset[tuple[str, str, str]]:
        """``(namespace, app, server)`` of every TServer, including schema-rejected ones
        (whose app and server are not known: they count by name only, see
        :meth:`server_names`)."""
        return frozenset((s.namespace, s.spec.app, s.spec.server) for s in self.servers)

    @cached_property
    def server_apps(self) -> frozenset[tuple[str, str]]:
        """``(namespace, app)`` of every TServer."""
        return frozenset((s.namespace, s.spec.app) for s in self.servers)

    @cached_property
    def activated_versions(self) -> dict[tuple[str, str, str, str, str], frozenset[str]]:
        """Names of the activated TConfigs of each ``TConfig.activation_key`` (file and
        podSeq)."""
        names: dict[tuple[str, str, str, str, str], set[str]] = {}
        for config in self.configs:
            if config.activated:
                names.setdefault(config.activation_key, set()).add(config.name)
        return {key: frozenset(found) for key, found in names.items()}

    def server_names(self, namespace: str) -> frozenset[str]:
        """Names of the TServers of a namespace, including schema-rejected ones."""
        return self._server_names.get(namespace, frozenset())

    @cached_property
    def _server_names(self) -> dict[str, frozenset[str]]:
        names: dict[str, set[str]] = {}
        for s in self.servers:
            names.setdefault(s.namespace, set()).add(s.name)
        for r in self.rejected:
            if r.kind == TServerDocument.KIND:
                names.setdefault(r.namespace, set()).add(r.name)
        return {ns: frozenset(found) for ns, found in names.items()}

    @cached_property
    def _framework_by_namespace(self) -> dict[str, TFrameworkConfigDocument]:
        found: dict[str, TFrameworkConfigDocument] = {}
        for doc in self.frameworks:
            if doc.name == FRAMEWORK_CONFIG_NAME:
                found.setdefault(doc.namespace, doc)
        return found

    @cached_property
    def _template_names(self) -> dict[str, frozenset[str]]:
        names: dict[str, set[str]] = {}
        for t in self.templates:
            names.setdefault(t.namespace, set()).add(t.name)
        for r in self.rejected:
            if r.kind == TTemplateDocument.KIND:
                names.setdefault(r.namespace, set()).add(r.name)
        return {ns: frozenset(found) for ns, found in names.items()}

    def framework(self, namespace: str) -> TFrameworkConfigDocument | None:
        """The ``tars-framework`` config of a namespace (the only one TarsK8S reads)."""
        return self._framework_by_namespace.get(namespace)

    def template_names(self, namespace: str) -> frozenset[str]:
        """Names of the templates of a namespace, including schema-rejected ones."""
        return self._template_names.get(namespace, frozenset())

    def template_children(self, namespace: str, name: str) -> list[str]:
        """Names of the other TTemplates of a namespace whose parent is ``name``."""
        return [
            t.name
            for t in self.templates
            if t.namespace == namespace and t.spec.parent == name and t.name != name
        ]

    def template_servers(self, namespace: str, name: str) -> list[str]:
        """Names of the TServers of a namespace whose ``spec.tars.template`` is ``name``."""
        return [
            s.name
            for s in self.servers
            if s.namespace == namespace and s.spec.tars is not None and s.spec.tars.template == name
        ]

    def with_documents(self, documents: Sequence[Document]) -> DocumentSet:
        """The same stack with other documents (mutation returns such a copy)."""
        return replace(self, documents=tuple(documents))


def violation(
    doc: Document | Rejected | KubeObject,
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
