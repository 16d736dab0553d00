"""The ``tarsframework`` 1.4.1 chart as a pure builder: values and a namespace → documents.

The framework's TServers, TTemplates and its TFrameworkConfig are TarsK8S documents like any
user stack's: they are parsed into the models, validated by the admission rules and emitted as
the crd-mode custom resources :func:`~tars_components.pipeline.build` produces (with the
mutating webhook's additions). TImages and the TTree have no model yet and are emitted as the
chart writes them. The Kubernetes objects (ServiceAccounts, RBAC, Ingress) are plain dicts.

Chart bugs fixed here (each also in docs/install-tarsk8s.md):

* the ``tars-tarsstat`` and ``tars-tarsweb`` TImages carry ``framework.secret`` like the others;
* the tarsweb Role names real resources only (no ``tdeploys``, ``treleases``, ``tgateways``;
  ``tframeworkkey`` stays, it is that CRD's plural);
* tarslog's profile lists ``elk.nodes``, one per line, not a hard-coded
  ``tars-elasticsearch:9200``;
* release ids are strings whatever the tag looks like (the chart leaves four unquoted, so a
  tag ``1.10`` became the number 1.1);
* every RoleBinding subject and the Ingress carry their namespace (the chart leaves them out of
  tarsregistry's subject and of the Ingress);
* with ``web`` empty the Ingress rule has no ``host`` (the chart writes ``host: null``), i.e. it
  matches every host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..kernel.errors import UsageError, Violation
from ..loading.document_set import DocumentSet
from ..loading.documents import parse_document
from ..models import Document
from ..pipeline import build
from ..settings.options import Mode, Options
from .framework_common import TARSWEB
from .framework_documents import framework_config, ttemplates, ttree
from .framework_images import timages
from .framework_objects import kubernetes_objects
from .framework_servers import SERVERS, tserver
from .values import FrameworkValues


@dataclass(frozen=True)
class FrameworkBuild:
    """The framework install of one namespace: every object (in apply order: TTree, the
    TTemplates and TFrameworkConfig, then TImages, TServers, then the Kubernetes objects) and
    the rule violations of its TarsK8S documents (warnings only when ``ok``)."""

    namespace: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no violation is an error (objects are empty otherwise)."""
        return not any(v.is_error for v in self.violations)


def build_framework(values: FrameworkValues, namespace: str) -> FrameworkBuild:
    """Every object of the ``tarsframework`` chart for ``namespace``, bugs fixed."""
    documents = tarsk8s_documents(values, namespace)
    result = build(
        DocumentSet.of(documents, namespace), Options(namespace=namespace, mode=Mode.CRD)
    )
    if not result.ok:
        return FrameworkBuild(namespace, [], list(result.violations))
    frameworks = [o for o in result.objects if o["kind"] == "TFrameworkConfig"]
    templates = [o for o in result.objects if o["kind"] == "TTemplate"]
    servers = [o for o in result.objects if o["kind"] == "TServer"]
    objects = [
        ttree(namespace),
        *templates,
        *frameworks,
        *timages(values, namespace),
        *servers,
        *kubernetes_objects(values, namespace),
    ]
    return FrameworkBuild(namespace, objects, list(result.violations))


def tarsk8s_documents(values: FrameworkValues, namespace: str) -> list[Document]:
    """The TFrameworkConfig, the default TTemplates and the framework TServers, as models.

    Raises :class:`UsageError` when the values make a document the CRD schema rejects (e.g.
    an uppercase tag: TarsK8S image patterns allow lowercase only)."""
    raws = [framework_config(values, namespace), *ttemplates(values, namespace)]
    raws.extend(tserver(values, namespace, spec) for spec in SERVERS)
    try:
        return [parse_document(raw, namespace) for raw in raws]
    except ValueError as exc:  # the CRD schema rejects what these values make
        raise UsageError(
            f"these values make framework documents the TarsK8S CRDs reject: {exc}"
        ) from None


__all__ = ["TARSWEB", "FrameworkBuild", "build_framework", "tarsk8s_documents"]
