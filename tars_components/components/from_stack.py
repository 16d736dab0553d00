"""A loaded stack directory as components: one TFramework per namespace, its TTemplates and its
TServers, named so that logical names stay unique across namespaces."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pulumi

from ..models import TServer as TServerDocument
from ..options import Options
from ..stack import Stack
from .args import TFrameworkArgs, TServerArgs, TTemplateArgs
from .framework import TFramework
from .server import TServer
from .template import TTemplate


@dataclass
class StackComponents:
    """The components of a stack, keyed by namespace (frameworks) and ``namespace/name``."""

    frameworks: dict[str, TFramework] = field(default_factory=dict)
    templates: dict[str, TTemplate] = field(default_factory=dict)
    servers: dict[str, TServer] = field(default_factory=dict)

    def all(self) -> Iterator[TFramework | TTemplate | TServer]:
        """Every component: frameworks, then templates, then servers."""
        yield from self.frameworks.values()
        yield from self.templates.values()
        yield from self.servers.values()

    def objects(self) -> pulumi.Output[list[str]]:
        """Every Kubernetes object applied (``apiVersion/kind:namespace/name``), in order."""
        return pulumi.Output.all(*(c.objects for c in self.all())).apply(
            lambda lists: [item for items in lists for item in items]
        )

    def manifests(self) -> pulumi.Output[list[dict[str, Any]]]:
        """Every object as applied, in the same order as :meth:`objects`."""
        return pulumi.Output.all(*(c.manifests for c in self.all())).apply(
            lambda lists: [item for items in lists for item in items]
        )


def components_from_stack(
    stack: Stack,
    options: Options | None = None,
    opts: pulumi.ResourceOptions | None = None,
    previous: Stack | None = None,
    skip_await: bool | None = None,
    external_replicas: bool = False,
    prefix: str = "",
) -> StackComponents:
    """Declare the components of a loaded stack (documents in load order).

    * ``options``: output options; their namespace is replaced per framework. Defaults to
      ``Options()`` with the stack's namespace.
    * ``opts``: resource options of every framework (e.g. the Kubernetes provider, protect).
    * ``previous``: the stack as last deployed, to warn about StatefulSet replacements.
    * ``skip_await``: see :class:`TFrameworkArgs`. Defaults to ``options.skip_await``.
    * ``external_replicas``: see :class:`TFrameworkArgs`. Defaults to false.
    * ``prefix``: prepended to every logical name (e.g. ``eu/``) when one program deploys the
      same namespaces to several clusters.

    Components are named ``<prefix><namespace>`` (frameworks) and
    ``<prefix><namespace>/<name>`` (templates and servers). The caller validates the stack
    first (:func:`tars_components.rules.validate`); each component validates its own document
    again at deployment time.
    """
    options = options or Options(namespace=stack.namespace)
    namespaces = list(dict.fromkeys(doc.namespace for doc in stack.documents))
    before = {(d.kind, d.namespace, d.name): d for d in previous.documents} if previous else {}
    built = StackComponents()
    for namespace in namespaces:
        documents = [d for d in stack.documents if d.namespace == namespace]
        framework = TFramework(
            f"{prefix}{namespace}",
            TFrameworkArgs(
                namespace=namespace,
                options=replace(options, namespace=namespace),
                documents=documents,
                skip_await=skip_await,
                external_replicas=external_replicas,
            ),
            opts,
        )
        built.frameworks[namespace] = framework
        for template in stack.templates:
            if template.namespace == namespace:
                key = f"{namespace}/{template.name}"
                built.templates[key] = TTemplate(
                    f"{prefix}{key}", TTemplateArgs(framework, document=template)
                )
        for server in stack.servers:
            if server.namespace == namespace:
                key = f"{namespace}/{server.name}"
                old = before.get((server.kind, namespace, server.name))
                built.servers[key] = TServer(
                    f"{prefix}{key}",
                    TServerArgs(
                        framework,
                        document=server,
                        previous=old if isinstance(old, TServerDocument) else None,
                    ),
                )
    return built


__all__ = ["StackComponents", "components_from_stack"]
