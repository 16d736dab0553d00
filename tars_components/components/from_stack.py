"""A loaded stack directory as components: one TFramework per namespace, its TTemplates, its
TServers, its TTrees, TImages, TConfigs and TAccounts, and the stack's plain Kubernetes
objects, named so that logical names stay unique across namespaces. Under mocks, the program
registers exactly the objects that ``render`` writes for the same options."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pulumi

from ..expansion.resources import plain_objects
from ..expansion.tconfig import config_maps
from ..loading.document_set import DocumentSet
from ..loading.tdeploy import request_of
from ..models import MASTER, SecretRef, TConfigDocument, TFrameworkConfigDocument, TServerDocument
from ..models.tdeploy import Request
from ..mutation.tframework import resolve_expand
from ..settings.options import Mode, Options
from ..stages.rollouts import drivers
from .args import (
    TAccountArgs,
    TConfigArgs,
    TFrameworkArgs,
    TImageArgs,
    TServerArgs,
    TTemplateArgs,
    TTreeArgs,
)
from .framework import TFramework
from .kube import object_id
from .plain import KubernetesObject, plain_name
from .server import TServer
from .taccount import TAccount
from .tconfig import TConfig
from .tdeploy import TDeploy
from .template import TTemplate
from .timage import TImage
from .ttree import TTree


@dataclass
class StackComponents:
    """The components of a stack, keyed by namespace (frameworks) and ``namespace/name``."""

    frameworks: dict[str, TFramework] = field(default_factory=dict)
    templates: dict[str, TTemplate] = field(default_factory=dict)
    servers: dict[str, TServer] = field(default_factory=dict)
    trees: dict[str, TTree] = field(default_factory=dict)
    images: dict[str, TImage] = field(default_factory=dict)
    configs: dict[str, TConfig] = field(default_factory=dict)
    accounts: dict[str, TAccount] = field(default_factory=dict)
    requests: dict[str, TDeploy] = field(default_factory=dict)
    """The TDeploy requests, whatever their state (an approved one's server is in
    :attr:`servers`)."""
    plain: dict[str, KubernetesObject] = field(default_factory=dict)
    """The plain Kubernetes objects (and, in expand mode with ``tconfig_config_maps``, the
    TConfig ConfigMaps) by logical name."""
    plain_manifests: list[dict[str, Any]] = field(default_factory=list)
    """The plain objects as registered, in the order of :attr:`plain`."""

    def all(
        self,
    ) -> Iterator[TFramework | TTemplate | TServer | TTree | TImage | TConfig | TAccount]:
        """Every component: frameworks, templates, servers, trees, images, configs, then
        accounts."""
        yield from self.frameworks.values()
        yield from self.templates.values()
        yield from self.servers.values()
        yield from self.trees.values()
        yield from self.images.values()
        yield from self.configs.values()
        yield from self.accounts.values()

    def objects(self) -> pulumi.Output[list[str]]:
        """Every Kubernetes object applied (``apiVersion/kind:namespace/name``), in order
        (the plain objects last)."""
        plain = [object_id(m) for m in self.plain_manifests]
        return pulumi.Output.all(*(c.objects for c in self.all())).apply(
            lambda lists: [item for items in lists for item in items] + plain
        )

    def manifests(self) -> pulumi.Output[list[dict[str, Any]]]:
        """Every object as applied, in the same order as :meth:`objects`."""
        plain = list(self.plain_manifests)
        return pulumi.Output.all(*(c.manifests for c in self.all())).apply(
            lambda lists: [item for items in lists for item in items] + plain
        )


def referenced_secrets(stack: DocumentSet) -> list[str]:
    """The config keys (``KEY`` of ``{configSecret: KEY}``) the stack's TAccounts and its
    TFrameworkConfigs' ``expand`` reference, sorted."""
    keys = set()
    for account in stack.accounts:
        auth = account.spec.authentication
        for value in (auth.password, auth.bcrypt_password):
            if isinstance(value, SecretRef):
                keys.add(value.config_secret)
    for framework in stack.frameworks:
        keys.update(v.config_secret for v in framework.expand.values() if isinstance(v, SecretRef))
    return sorted(keys)


def config_secrets(stack: DocumentSet, config: pulumi.Config) -> dict[str, pulumi.Output[str]]:
    """The Pulumi config secrets ``tars:KEY`` that the stack references and that are set, as
    secret Outputs (a key that is not set stays a placeholder, warned as TA006)."""
    found: dict[str, pulumi.Output[str]] = {}
    for key in referenced_secrets(stack):
        value = config.get_secret(key)
        if value is None:
            pulumi.log.warn(
                f"{config.name}:{key} is not set: a TAccount referencing it gets the placeholder "
                f"hash, which no password verifies against, and a TFrameworkConfig's expand "
                f"value the placeholder (pulumi config set --secret {config.name}:{key})"
            )
        else:
            found[key] = value
    return found


def components_from_stack(
    stack: DocumentSet,
    options: Options | None = None,
    opts: pulumi.ResourceOptions | None = None,
    previous: DocumentSet | None = None,
    skip_await: bool | None = None,
    external_replicas: bool = False,
    prefix: str = "",
    secrets: Mapping[str, pulumi.Input[str]] | None = None,
    salt_key: pulumi.Input[str] | None = None,
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
    * ``secrets``: values of the ``{configSecret: KEY}`` references of the TAccounts and of
      the TFrameworkConfigs' ``expand`` (:func:`config_secrets` reads them from the Pulumi
      config).
    * ``salt_key``: the secret key that salts the TAccounts' password hashes
      (``tars:accountSaltKey``; see :class:`TAccountArgs`). Defaults to None: a random salt
      per account, kept in the state.

    Components are named ``<prefix><namespace>`` (frameworks) and
    ``<prefix><namespace>/<name>`` (templates, servers, trees, images, configs and accounts);
    plain objects ``<prefix><namespace>/<name>-<kind>`` under the framework of their namespace
    (cluster-scoped ones, and those of a namespace without TarsK8S documents, under the first
    framework). TServers a Rollout drives are declared at its step, each logging its plan
    (docs/concepts/rollout.md). The caller validates the stack
    first (:func:`tars_components.rules.validate`); each component validates its own document
    again at deployment time.
    """
    options = options or Options(namespace=stack.namespace)
    rollouts = drivers(stack)  # each server a Rollout drives is declared at its step
    namespaces = list(dict.fromkeys(doc.namespace for doc in stack.documents))
    before = {(d.kind, d.namespace, d.name): d for d in previous.documents} if previous else {}
    built = StackComponents()
    for namespace in namespaces:
        documents = [
            resolve_expand(d, secrets) if isinstance(d, TFrameworkConfigDocument) else d
            for d in stack.documents
            if d.namespace == namespace
        ]
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
        requests = {
            id(request): _request(built, request, prefix, framework)
            for request in stack.requests
            if request.namespace == namespace
        }
        for server in stack.servers:
            if server.namespace == namespace:
                key = f"{namespace}/{server.name}"
                old = before.get((server.kind, namespace, server.name))
                deploy = requests.get(id(request_of(server.source)))
                built.servers[key] = TServer(
                    f"{prefix}{key}",
                    TServerArgs(
                        framework,
                        document=server,
                        previous=old if isinstance(old, TServerDocument) else None,
                        rollout=rollouts.get((namespace, server.name)),
                    ),
                    # nothing of an approved request's server before its request passed
                    pulumi.ResourceOptions(depends_on=[deploy.validation]) if deploy else None,
                )
                if deploy is not None:
                    deploy.deploys(built.servers[key])
        _declare_kinds(built, stack, framework, namespace, prefix, before, secrets or {}, salt_key)
    first = next(iter(built.frameworks.values()), None)
    for pending in stack.requests:  # pending or rejected, in a namespace without documents
        if f"{pending.namespace}/{pending.name}" not in built.requests:
            _request(built, pending, prefix, first)
    _declare_plain(built, stack, options, opts, prefix)
    return built


def _request(
    built: StackComponents, request: Request, prefix: str, parent: TFramework | None
) -> TDeploy:
    """The TDeploy component of ``request``, under ``parent`` (its framework)."""
    key = f"{request.namespace}/{request.name}"
    component = TDeploy(f"{prefix}{key}", request, pulumi.ResourceOptions(parent=parent))
    built.requests[key] = component
    return component


def _declare_kinds(
    built: StackComponents,
    stack: DocumentSet,
    framework: TFramework,
    namespace: str,
    prefix: str,
    before: Mapping[tuple[str, str, str], Any],
    secrets: Mapping[str, pulumi.Input[str]],
    salt_key: pulumi.Input[str] | None = None,
) -> None:
    """The TTrees, TImages, TConfigs and TAccounts of one namespace (render's order)."""
    for tree in stack.trees:
        if tree.namespace == namespace:
            key = f"{namespace}/{tree.name}"
            built.trees[key] = TTree(f"{prefix}{key}", TTreeArgs(framework, document=tree))
    for image in stack.images:
        if image.namespace == namespace:
            key = f"{namespace}/{image.name}"
            built.images[key] = TImage(f"{prefix}{key}", TImageArgs(framework, document=image))
    # A node config is admitted only while an activated master of its file exists (TC002):
    # masters first, and each node config waits for the activated master of its file.
    configs = [c for c in stack.configs if c.namespace == namespace]
    masters: dict[tuple[str, str, str], TConfig] = {}
    for config in sorted(configs, key=lambda c: c.pod_seq != MASTER):
        key = f"{namespace}/{config.name}"
        old = before.get((config.kind, namespace, config.name))
        file = (config.app, config.server, config.config_name)
        master = masters.get(file) if config.pod_seq != MASTER else None
        built.configs[key] = TConfig(
            f"{prefix}{key}",
            TConfigArgs(
                framework,
                document=config,
                previous=old if isinstance(old, TConfigDocument) else None,
            ),
            pulumi.ResourceOptions(depends_on=[master]) if master is not None else None,
        )
        if config.pod_seq == MASTER and config.activated:
            masters[file] = built.configs[key]
    for account in stack.accounts:
        if account.namespace == namespace:
            key = f"{namespace}/{account.name}"
            built.accounts[key] = TAccount(
                f"{prefix}{key}",
                TAccountArgs(framework, document=account, secrets=secrets, salt_key=salt_key),
            )


def _declare_plain(
    built: StackComponents,
    stack: DocumentSet,
    options: Options,
    opts: pulumi.ResourceOptions | None,
    prefix: str,
) -> None:
    """The plain objects (both modes) and, in expand mode with ``tconfig_config_maps``, the
    TConfig ConfigMaps, as ``render`` writes them."""
    objects = plain_objects(stack)
    if options.mode == Mode.EXPAND and options.tconfig_config_maps:
        objects += config_maps(stack)
    first = next(iter(built.frameworks.values()), None)
    for obj in objects:
        namespace = (obj.get("metadata") or {}).get("namespace")
        parent = built.frameworks.get(str(namespace), first) if namespace else first
        name = plain_name(obj, prefix)
        if parent is None:
            built.plain[name] = KubernetesObject(name, obj, opts)
        else:
            built.plain[name] = KubernetesObject(
                name,
                obj,
                pulumi.ResourceOptions(retain_on_delete=parent.retain_on_delete),
                framework=parent,
            )
        built.plain_manifests.append(obj)


__all__ = [
    "StackComponents",
    "components_from_stack",
    "config_secrets",
    "referenced_secrets",
]
