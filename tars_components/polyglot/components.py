"""The components served to every Pulumi language (docs/pulumi/multi-language.md).

Each class is a thin wrapper of the Python component of the same name (same type token
``tars:index:<Kind>``, same children, same outputs): its ``__init__`` takes the plain
arguments of :mod:`.types` (what the Pulumi engine sends in a ``Construct`` request, mapped to
Python names by Pulumi's component provider), turns them into the Python API's arguments and
declares the Python component. Before anything is registered, a document whose values are all
known goes through the admission rules; a rule error refuses the component with
:class:`RuleRefusal`, which the provider reports as the ``Construct`` error, one entry per rule
error with the argument's path (``tars.servants[1].port``) and the reason
(``TS004: port 10000 is already used by ...``).

A framework is named by its namespace: the ``TFramework`` components constructed in this
process (one provider process serves a whole deployment) are kept by namespace, and the other
components find theirs there.

This module must not use ``from __future__ import annotations``: Pulumi's analyzer reads the
annotations of ``__init__`` and of the classes as types.
"""

import importlib.util
from collections.abc import Callable, Mapping
from typing import Any, Optional

import pulumi
from pulumi.errors import InputPropertiesError

from .. import components as python
from ..components import platform
from ..components.failure import ArgumentProblems, refuse
from ..models import Document
from ..provider.verdicts import check_failures
from ..settings.options import Mode, Options
from .types import (
    TAccountArgs,
    TarsControllerArgs,
    TarsFrameworkInstallArgs,
    TConfigArgs,
    TFrameworkArgs,
    TImageArgs,
    TServerArgs,
    TTemplateArgs,
    TTreeArgs,
)

_FRAMEWORKS: dict[str, python.TFramework] = {}
"""The frameworks constructed in this process, by resource name."""


class RuleRefusal(InputPropertiesError):
    """A component's document breaks admission rules: one error per rule error, its
    ``property_path`` the argument's path, its ``reason`` ``CODE: message``."""

    def __init__(self, what: str, failures: list[tuple[str, str]]) -> None:
        errors: list[Any] = [
            {"property_path": argument_path(path), "reason": reason} for path, reason in failures
        ]
        lines = [f"{what}: {argument_path(path) or '(document)'}: {r}" for path, r in failures]
        super().__init__("\n".join(lines), errors)


def argument_path(field: str) -> str:
    """The argument path of a document field: ``spec.tars.servants[1].port`` is
    ``tars.servants[1].port``, ``metadata.labels.x`` is ``labels.x``; fields outside
    ``spec`` and ``metadata`` (TConfig, TImage, TTree) are their own argument."""
    for prefix in ("spec.", "metadata."):
        if field.startswith(prefix):
            return field[len(prefix) :]
    return field


def framework_named(reference: str, what: str) -> python.TFramework:
    """The TFramework constructed in this process that ``reference`` names: its resource name,
    else its namespace when one framework has it. Refuses ``what``
    (:class:`~tars_components.components.ComponentError`) when none does, or when several
    frameworks have that namespace (two clusters): name one of them then."""
    found = _FRAMEWORKS.get(reference)
    if found is not None:
        return found
    matches = sorted((name for name, fw in _FRAMEWORKS.items() if fw.scope.namespace == reference))
    if len(matches) == 1:
        return _FRAMEWORKS[matches[0]]
    if matches:
        problem = (
            f"framework: {len(matches)} TFrameworks have namespace {reference!r} "
            f"({', '.join(matches)}): name one by its resource name"
        )
    else:
        known = ", ".join(
            f"{name} ({fw.scope.namespace})" for name, fw in sorted(_FRAMEWORKS.items())
        )
        problem = (
            f"framework: no TFramework named {reference!r} or of namespace {reference!r} was "
            f"declared before it (declared: {known or 'none'}); declare the TFramework first "
            "and make this component depend on it"
        )
    refuse(what, [problem])


def has_outputs(value: Any) -> bool:
    """Whether ``value`` holds a ``pulumi.Output`` anywhere (its rules then run in the
    validation resource once the values are known)."""
    if isinstance(value, pulumi.Output):
        return True
    if isinstance(value, Mapping):
        return any(has_outputs(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_outputs(v) for v in value)
    return False


def plain(value: Any) -> Any:
    """``value`` as a document field: without the None entries the engine leaves for absent
    optional fields, and whole numbers as integers (the engine sends every number as a
    float; no TarsK8S field is fractional)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def enforce(
    what: str, args: Mapping[str, Any], framework: python.TFramework, build: Callable[[], Any]
) -> None:
    """Run the admission rules on the document ``build()`` makes, in ``framework``'s
    namespace and at the place it will take there; raise :class:`RuleRefusal` on a rule error.
    Arguments holding Outputs, and arguments that make no document (the component refuses
    those itself, naming the field), are left to the component."""
    if has_outputs(args):
        return
    try:
        document: Document = build()
    except (ArgumentProblems, TypeError):
        return
    scope = framework.scope
    inputs = scope.inputs(document, scope.position_of(document))
    failures = check_failures({}, inputs.to_props())
    if failures:
        raise RuleRefusal(what, failures)


class TFramework(python.TFramework):
    """A TarsK8S framework: one namespace, its ``tars-framework`` config and the output mode
    of its components. Declare it before the components that name its namespace."""

    namespace: pulumi.Output[str]
    """The framework's namespace (what the other components name in ``framework``)."""
    mode: pulumi.Output[str]
    """``expand`` or ``crd``."""
    objects: pulumi.Output[list[str]]
    """The framework's own objects (the TFrameworkConfig in crd mode)."""
    manifests: pulumi.Output[list[dict[str, Any]]]
    """The framework's own objects, as applied."""

    def __init__(
        self,
        resource_name: str,
        args: TFrameworkArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the framework from plain arguments (docs/pulumi/multi-language.md)."""
        given = plain(args)
        namespace = str(given["namespace"])
        mode = given.get("mode") or Mode.EXPAND
        options = Options(namespace=namespace, mode=Mode(mode))
        super().__init__(
            resource_name,
            python.TFrameworkArgs(
                namespace=namespace,
                config=given.get("config"),
                options=options,
                templates=given.get("templates") or {},
                skip_await=given.get("skip_await"),
                existing_config=given.get("existing_config"),
                external_replicas=bool(given.get("external_replicas", False)),
            ),
            opts,
        )
        _FRAMEWORKS[resource_name] = self


class TServer(python.TServer):
    """A Tars service: validated by the admission rules (a rule error fails the component
    with the rule code and the argument's path), then applied as its Kubernetes objects
    (expand mode) or as a TServer custom resource (crd mode)."""

    object_name: pulumi.Output[str]
    """``lower(app)-lower(server)``: the name of every object of the server."""
    namespace: pulumi.Output[str]
    """The server's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects, ``apiVersion/kind:namespace/name``."""
    mutated: pulumi.Output[dict[str, Any]]
    """The TServer after the mutating webhook's rules."""
    manifests: pulumi.Output[list[dict[str, Any]]]
    """The applied objects, as ``render`` writes them with the same options (secret when an
    input placed in them is)."""
    scale_target_ref: pulumi.Output[Optional[dict[str, str]]]  # type: ignore[assignment]
    """What an ``autoscaling/v2`` HorizontalPodAutoscaler's ``scaleTargetRef`` names to scale
    the server (``apiVersion``, ``kind``, ``name``): the TServer in crd mode, the StatefulSet
    in expand mode; none for a DaemonSet or an unreleased server."""

    def __init__(
        self,
        resource_name: str,
        args: TServerArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the server from plain arguments (docs/pulumi/multi-language.md)."""
        what = f"TServer {resource_name!r}"
        given = plain(args)
        framework = framework_named(str(given.get("framework", "")), what)
        server_args = python.TServerArgs(
            framework=framework,
            app=given.get("app"),
            server=given.get("server"),
            sub_type=given.get("sub_type"),
            important=given.get("important"),
            tars=given.get("tars"),
            normal=given.get("normal"),
            k8s=given.get("k8s"),
            release=given.get("release"),
            labels=given.get("labels"),
            annotations=given.get("annotations"),
            skip_await=given.get("skip_await"),
            external_replicas=given.get("external_replicas"),
        )
        enforce(what, given, framework, lambda: server_args.to_document(framework.scope.namespace))
        super().__init__(resource_name, server_args, opts)


class TTemplate(python.TTemplate):
    """A TTemplate: a config template of Tars servers, checked by the rules TT*."""

    template_name: pulumi.Output[str]
    """``metadata.name`` of the template."""
    parent_template: pulumi.Output[str]
    """``spec.parent``: the parent template's name."""
    parent_chain: pulumi.Output[list[str]]
    """The template and its ancestors up to the root."""
    objects: pulumi.Output[list[str]]
    """The applied objects; empty in expand mode."""
    manifests: pulumi.Output[list[dict[str, Any]]]
    """The applied objects; empty in expand mode."""

    def __init__(
        self,
        resource_name: str,
        args: TTemplateArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the template from plain arguments (docs/pulumi/multi-language.md)."""
        what = f"TTemplate {resource_name!r}"
        given = plain(args)
        framework = framework_named(str(given.get("framework", "")), what)
        template_args = python.TTemplateArgs(
            framework=framework,
            template_name=given.get("template_name"),
            content=given.get("content"),
            parent=given.get("parent"),
            labels=given.get("labels"),
            annotations=given.get("annotations"),
        )
        enforce(
            what, given, framework, lambda: template_args.to_document(framework.scope.namespace)
        )
        super().__init__(resource_name, template_args, opts)


class TConfig(python.TConfig):
    """A TConfig: one version of a server's or an app's config file, checked by the rules
    TC*."""

    object_name: pulumi.Output[str]
    """``metadata.name`` of the document."""
    namespace: pulumi.Output[str]
    """The document's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects; empty in expand mode."""
    mutated: pulumi.Output[dict[str, Any]]
    """The document after the mutating webhook's rules."""

    def __init__(
        self,
        resource_name: str,
        args: TConfigArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the config from plain arguments (docs/pulumi/multi-language.md)."""
        what = f"TConfig {resource_name!r}"
        given = plain(args)
        framework = framework_named(str(given.get("framework", "")), what)
        optional = {
            key: given[key]
            for key in ("name", "version", "update_reason", "labels", "annotations")
            if key in given
        }
        config_args = python.TConfigArgs(
            framework=framework,
            app=given.get("app"),
            server=given.get("server", ""),
            config_name=given.get("config_name"),
            config_content=given.get("config_content", ""),
            pod_seq=given.get("pod_seq", "m"),
            activated=given.get("activated", True),
            **optional,
        )
        enforce(what, given, framework, lambda: config_args.to_document(framework.scope.namespace))
        super().__init__(resource_name, config_args, opts)


class TImage(python.TImage):
    """A TImage: the releases of a server, a base image or the tarsnode image."""

    object_name: pulumi.Output[str]
    """``metadata.name`` of the document."""
    namespace: pulumi.Output[str]
    """The document's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects; empty in expand mode."""
    mutated: pulumi.Output[dict[str, Any]]
    """The document after the mutating webhook's rules."""
    release_ids: pulumi.Output[list[str]]
    """The ids of the declared releases."""

    def __init__(
        self,
        resource_name: str,
        args: TImageArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the image from plain arguments (docs/pulumi/multi-language.md)."""
        what = f"TImage {resource_name!r}"
        given = plain(args)
        framework = framework_named(str(given.get("framework", "")), what)
        image_type = given.get("image_type")
        image_args = python.TImageArgs(
            framework=framework,
            name=given.get("name"),
            image_type=image_type.value if image_type is not None else None,
            supported_type=given.get("supported_type"),
            releases=given.get("releases"),
            default=given.get("default"),
            mark=given.get("mark"),
            labels=given.get("labels"),
            annotations=given.get("annotations"),
            own_releases=bool(given.get("own_releases", False)),
        )
        enforce(what, given, framework, lambda: image_args.to_document(framework.scope.namespace))
        super().__init__(resource_name, image_args, opts)


class TTree(python.TTree):
    """The namespace's TTree: businesses and the apps that belong to them."""

    object_name: pulumi.Output[str]
    """``metadata.name`` of the document."""
    namespace: pulumi.Output[str]
    """The document's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects; empty in expand mode."""
    mutated: pulumi.Output[dict[str, Any]]
    """The document after the mutating webhook's rules."""

    def __init__(
        self,
        resource_name: str,
        args: TTreeArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the tree from plain arguments (docs/pulumi/multi-language.md)."""
        what = f"TTree {resource_name!r}"
        given = plain(args)
        framework = framework_named(str(given.get("framework", "")), what)
        tree_args = python.TTreeArgs(
            framework=framework,
            businesses=given.get("businesses"),
            apps=given.get("apps"),
            labels=given.get("labels"),
            annotations=given.get("annotations"),
        )
        enforce(what, given, framework, lambda: tree_args.to_document(framework.scope.namespace))
        super().__init__(resource_name, tree_args, opts)


class TAccount(python.TAccount):
    """A TAccount: a TarsWeb user, its password hashed as the webhook does (kept secret)."""

    object_name: pulumi.Output[str]
    """``metadata.name`` of the document."""
    namespace: pulumi.Output[str]
    """The document's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects; empty in expand mode."""
    mutated: pulumi.Output[dict[str, Any]]
    """The document after the mutating webhook's rules (secret)."""

    def __init__(
        self,
        resource_name: str,
        args: TAccountArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the account from plain arguments (docs/pulumi/multi-language.md)."""
        what = f"TAccount {resource_name!r}"
        given = plain(args)
        framework = framework_named(str(given.get("framework", "")), what)
        authorization: Any = [
            {**a, "role": a["role"].value if hasattr(a.get("role"), "value") else a.get("role")}
            for a in given.get("authorization") or []
        ]
        account_args = python.TAccountArgs(
            framework=framework,
            username=given.get("username"),
            password=given.get("password"),
            bcrypt_password=given.get("bcrypt_password"),
            activated=given.get("activated", True),
            authorization=authorization,
            extra=given.get("extra"),
            labels=given.get("labels"),
            annotations=given.get("annotations"),
            salt_key=given.get("salt_key"),
        )
        enforce(what, given, framework, lambda: account_args.to_document(framework.scope.namespace))
        super().__init__(resource_name, account_args, opts)


_CONTROLLERS: dict[str, platform.TarsController] = {}
"""The controllers constructed in this process, by resource name."""


def _has_tls() -> bool:
    """Whether ``pulumi_tls`` (the platform extra, which the plugin leaves out) is installed."""
    return importlib.util.find_spec("pulumi_tls") is not None


class TarsController(platform.TarsController):
    """The TarsK8S controller install (the ``tarscontroller`` chart), with a webhook CA of its
    own unless one is given."""

    ca_cert_pem: pulumi.Output[str]
    """The webhook CA certificate (PEM)."""
    objects: list[str]
    """The installed objects, ``kind:namespace/name``."""

    def __init__(
        self,
        resource_name: str,
        args: TarsControllerArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the controller install from plain arguments
        (docs/pulumi/multi-language.md)."""
        given = plain(args)
        if given.get("ca_cert_pem") is None and given.get("ca_key_pem") is None and not _has_tls():
            refuse(
                f"TarsController {resource_name!r}",
                [
                    "caCertPem: required here, with caKeyPem: the plugin does not install "
                    "pulumi-tls, whose provider would be downloaded from get.pulumi.com "
                    "(docs/pulumi/multi-language.md); give the webhook CA"
                ],
            )
        super().__init__(
            resource_name,
            platform.TarsControllerArgs(
                values=given.get("values") or {},
                ca_cert_pem=given.get("ca_cert_pem"),
                ca_key_pem=given.get("ca_key_pem"),
                existing_namespace=bool(given.get("existing_namespace", False)),
            ),
            opts,
        )
        _CONTROLLERS[resource_name] = self


class TarsFrameworkInstall(platform.TarsFrameworkInstall):
    """The TarsK8S framework install of one namespace (the ``tarsframework`` chart)."""

    namespace: str
    """The framework namespace."""
    objects: list[str]
    """The installed objects, ``kind:namespace/name``."""

    def __init__(
        self,
        resource_name: str,
        args: TarsFrameworkInstallArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ) -> None:
        """Declare the framework install from plain arguments
        (docs/pulumi/multi-language.md)."""
        given = plain(args)
        controller = None
        named = given.get("controller")
        if named is not None:
            controller = _CONTROLLERS.get(str(named))
            if controller is None:
                known = ", ".join(sorted(_CONTROLLERS)) or "none"
                refuse(
                    f"TarsFrameworkInstall {resource_name!r}",
                    [
                        f"controller: no TarsController named {named!r} was declared before "
                        f"it (declared: {known}); declare it first and make this install "
                        "depend on it"
                    ],
                )
        super().__init__(
            resource_name,
            platform.TarsFrameworkInstallArgs(
                values=given.get("values") or {},
                namespace=str(given["namespace"]),
                controller=controller,
                nodes=given.get("nodes") or (),
                local_volume_nodes=given.get("local_volume_nodes") or (),
                create_namespace=bool(given.get("create_namespace", True)),
            ),
            opts,
        )


COMPONENTS: list[type[pulumi.ComponentResource]] = [
    TFramework,
    TTemplate,
    TServer,
    TConfig,
    TImage,
    TTree,
    TAccount,
    TarsController,
    TarsFrameworkInstall,
]
"""The components the provider serves, in the order of the schema."""


__all__ = [
    "COMPONENTS",
    "RuleRefusal",
    "TAccount",
    "TConfig",
    "TFramework",
    "TImage",
    "TServer",
    "TTemplate",
    "TTree",
    "TarsController",
    "TarsFrameworkInstall",
    "argument_path",
    "enforce",
    "framework_named",
]
