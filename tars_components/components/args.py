"""Arguments of the components: one class per component, every field documented with its
default, and the one place where a document is built from fields.

Every leaf of the ``tars``, ``normal``, ``k8s`` and ``release`` sections, ``app``, ``server``,
``sub_type`` and ``important`` accept ``pulumi.Input`` values (another stack's output, a
config secret). Fields that TarsK8S only places in the output (release id and image, node
image, env values, resource quantities) are placed as they are; an Output in a structural
field (a name, a port, replicas, …) makes the component expand the document once its values
are known (see :class:`~tars_components.components.TServer`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import pulumi

from ..errors import LoadError
from ..loading.documents import SchemaError, parse_document
from ..models import (
    FRAMEWORK_CONFIG_NAME,
    V1BETA2,
    V1BETA3,
    Document,
    K8sSpec,
    NormalSpec,
    Release,
    SubType,
    TarsModel,
    TarsSpec,
    TFrameworkConfig,
    is_deferred,
)
from ..models import TServer as TServerDocument
from ..models import TTemplate as TTemplateDocument
from ..options import Options
from ..stack import Stack
from .failure import ArgumentProblems
from .scope import HasScope
from .shapes import (
    K8sSpecArgsDict,
    NormalSpecArgsDict,
    ReleaseArgsDict,
    SubTypeValue,
    TarsSpecArgsDict,
    TFrameworkConfigArgsDict,
)

Section = Mapping[str, Any]
"""A part of a document given as a mapping (camelCase keys, as in YAML)."""


@dataclass
class TFrameworkArgs:
    """Arguments of a :class:`~tars_components.components.TFramework`: one TarsK8S framework,
    i.e. one namespace with its ``tars-framework`` config and the options of its servers."""

    namespace: str | None = None
    """Namespace of the framework and of every TServer and TTemplate that belongs to it.
    Defaults to ``options.namespace`` (``default``)."""

    config: TFrameworkConfig | TFrameworkConfigArgsDict | None = None
    """The namespace's ``tars-framework`` TFrameworkConfig: a document, or its fields as a
    :class:`~tars_components.components.TFrameworkConfigArgsDict` (camelCase keys as in YAML,
    ``nodeImage`` required; ``k8s.tars.io/v1beta3``, or ``v1beta2`` when it has
    ``imageRegistry``). Its ``nodeImage`` is the default tarsnode image of Tars servers
    (webhook M-TS13); in crd mode it is applied as a custom resource. Without it, Tars servers
    with a release need their own ``release.nodeImage`` (TS020). Defaults to the
    ``tars-framework`` among ``documents``, if any."""

    options: Options = field(default_factory=Options)
    """Output options of design §4 (mode, tLocalVolume storage class, ``delay-bind``,
    ``tars.io/active`` readiness gate, crd apiVersion). Defaults to ``Options()``: expand mode
    and the defaults of the ``render`` command."""

    templates: Mapping[str, str] = field(default_factory=dict)
    """Templates that exist in the namespace besides the TTemplate components declared with this
    framework, as ``{name: parent}``: the ones the TarsK8S framework chart installed, or ones
    declared later in the program. Rules use them to check ``spec.tars.template`` and parents.
    Defaults to none."""

    documents: Sequence[Document] = ()
    """Documents of the namespace known in advance, e.g. those of a loaded stack directory.
    The rules then see every template and server whatever order the components are declared
    in (TS010, TS017, TT002, TT004, and TT003/TT005 when a template is removed later).
    Defaults to none: the framework knows the TTemplates and TServers declared with it so
    far."""

    skip_await: bool | None = None
    """Annotate StatefulSets and DaemonSets ``pulumi.com/skipAwait: "true"``, so that
    ``pulumi up`` does not wait for their pods to become ready; useful where nothing sets the
    ``tars.io/active`` readiness gate. Servers may override it. Defaults to
    ``options.skip_await`` (``tars:skipAwait`` in the project's program)."""

    existing_config: bool | None = None
    """crd mode on a live TarsK8S cluster: the namespace already has its ``tars-framework``
    TFrameworkConfig (the framework chart installs it). The framework reads it with a lookup
    (``TFrameworkConfig.get``), never creates or owns it, and the rules count it as present
    (TS020); the cluster's webhook fills the servers' default node image. A ``config`` given
    as well only feeds the rules. Defaults to ``options.existing_framework_config``
    (``tars:frameworkConfig: existing``)."""

    external_replicas: bool = False
    """Replicas belong to another field manager (an HPA, ``kubectl scale``, TarsWeb): Pulumi
    ignores changes to ``spec.replicas`` of StatefulSets (``spec.k8s.replicas`` of TServers in
    crd mode) instead of resetting them (``tars:externalReplicas``). Servers may override it.
    Defaults to false."""

    def resolved_options(self) -> Options:
        """``options`` with the framework's namespace and ``skip_await`` (when given).

        Raises :class:`~tars_components.components.failure.ArgumentProblems` (a ValueError)
        when ``namespace`` and ``options.namespace`` disagree.
        """
        options = self.options
        if self.skip_await is not None:
            options = replace(options, skip_await=self.skip_await)
        if self.namespace is None:
            return options
        if options.namespace not in ("default", self.namespace):
            raise ArgumentProblems(
                [
                    f"namespace: {self.namespace!r} differs from options.namespace "
                    f"{options.namespace!r}"
                ]
            )
        return replace(options, namespace=self.namespace)

    def config_document(self, namespace: str) -> TFrameworkConfig | None:
        """``config`` as a document in ``namespace`` (None without one). Raises
        :class:`~tars_components.components.failure.ArgumentProblems` for one the CRD would
        reject."""
        if self.config is None:
            return None
        if isinstance(self.config, TFrameworkConfig):
            config: TFrameworkConfig = _in_namespace(self.config, namespace)
            return config
        body = dict(self.config)
        raw = {
            "apiVersion": V1BETA2 if "imageRegistry" in body else V1BETA3,
            "kind": TFrameworkConfig.KIND,
            "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
            **body,
        }
        parsed: TFrameworkConfig = _parse(raw, namespace, TFrameworkConfig)
        return parsed


@dataclass
class TTemplateArgs:
    """Arguments of a :class:`~tars_components.components.TTemplate`: a TTemplate document, or
    its fields (``template_name``, ``content``, ``parent``)."""

    framework: HasScope
    """The framework (namespace) the template belongs to. Required."""

    document: TTemplateDocument | None = None
    """A whole TTemplate document (e.g. from :func:`tars_components.load_stack`). Give either
    this or the fields below. Defaults to None."""

    template_name: str | None = None
    """``metadata.name``: the name servers use in ``spec.tars.template``. Required without
    ``document``. Defaults to None."""

    content: str | None = None
    """``spec.content``: the Tars config text. Defaults to ``""``."""

    parent: str | None = None
    """``spec.parent``: the parent template; a root template names itself. Defaults to
    ``template_name`` (a root)."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels``. Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document (``k8s.tars.io/v1beta2`` or ``v1beta3``). Defaults to
    ``k8s.tars.io/v1beta3``."""

    def to_document(self, namespace: str) -> TTemplateDocument:
        """The TTemplate document, in ``namespace``.

        Raises TypeError for contradicting arguments and
        :class:`~tars_components.components.failure.ArgumentProblems` (a ValueError listing
        the schema violations) for a document the CRD would reject.
        """
        fields = {
            "template_name": self.template_name,
            "content": self.content,
            "parent": self.parent,
            "labels": self.labels,
            "annotations": self.annotations,
        }
        if self.document is not None:
            _no_fields("TTemplateArgs", fields)
            return _in_namespace(self.document, namespace)
        if not self.template_name:
            raise TypeError("TTemplateArgs needs a document or a template_name")
        raw = {
            "apiVersion": self.api_version,
            "kind": TTemplateDocument.KIND,
            "metadata": _metadata(self.template_name, namespace, self.labels, self.annotations),
            "spec": {
                "content": self.content or "",
                "parent": self.template_name if self.parent is None else self.parent,
            },
        }
        return _parse(raw, namespace, TTemplateDocument)


@dataclass
class TServerArgs:
    """Arguments of a :class:`~tars_components.components.TServer`: a TServer document, or its
    fields (``app``, ``server``, ``sub_type``, one of ``tars``/``normal``, ``k8s``,
    ``release``)."""

    framework: HasScope
    """The framework the server belongs to: namespace, default node image, known templates and
    options. Required."""

    document: TServerDocument | None = None
    """A whole TServer document (e.g. from :func:`tars_components.load_stack`). Give either this
    or the fields below. Defaults to None."""

    app: pulumi.Input[str] | None = None
    """``spec.app``: letters and digits; with ``server`` it names the objects
    (``lower(app)-lower(server)``), which are Outputs then when it is one (the resources' logical
    names come from the component's name). Required without ``document``. Defaults to None."""

    server: pulumi.Input[str] | None = None
    """``spec.server``: letters and digits. Required without ``document``. Defaults to None."""

    sub_type: SubTypeValue | SubType | pulumi.Output[str] | None = None
    """``spec.subType``: ``tars`` or ``normal``. Defaults to ``tars`` when ``tars`` is given,
    else ``normal``."""

    important: pulumi.Input[int] | None = None
    """``spec.important`` (1..20). Defaults to 3 (CRD default)."""

    tars: TarsSpec | TarsSpecArgsDict | None = None
    """``spec.tars`` (template, profile, servants, ports) of a Tars server. Defaults to None."""

    normal: NormalSpec | NormalSpecArgsDict | None = None
    """``spec.normal`` (ports) of a normal server. Defaults to None."""

    k8s: K8sSpec | K8sSpecArgsDict | None = None
    """``spec.k8s``: replicas, env, mounts, affinity, … Defaults to ``{}`` (CRD defaults)."""

    release: Release | ReleaseArgsDict | None = None
    """``spec.release`` (digest-pinned images included). Defaults to None (not released: no
    pods)."""

    labels: Mapping[str, pulumi.Input[str]] | None = None
    """``metadata.labels``; values may be Outputs (placed in the TServer custom resource of
    crd mode). Defaults to none."""

    annotations: Mapping[str, pulumi.Input[str]] | None = None
    """``metadata.annotations`` (e.g. ``tars.io/MinReplicas``); values may be Outputs (the
    server then expands once they are known, as for any Output that rules read). Defaults to
    none."""

    api_version: str = V1BETA3
    """apiVersion of the document (``k8s.tars.io/v1beta2`` or ``v1beta3``). Defaults to
    ``k8s.tars.io/v1beta3``."""

    previous: TServerDocument | None = None
    """The server as last deployed. When given, a change that would replace the server's
    StatefulSet (volumeClaimTemplates, serviceName, podManagementPolicy or selector) is
    reported with ``pulumi.log.warn``. Defaults to None (no comparison)."""

    skip_await: bool | None = None
    """Override of the framework's ``skip_await``. Defaults to the framework's value."""

    external_replicas: bool | None = None
    """Override of the framework's ``external_replicas``. Defaults to the framework's value."""

    def to_document(self, namespace: str) -> TServerDocument:
        """The TServer document, in ``namespace``; ``metadata.name`` defaults to
        ``lower(app)-lower(server)``.

        Raises TypeError for contradicting arguments and
        :class:`~tars_components.components.failure.ArgumentProblems` (a ValueError listing
        the schema violations) for a document the CRD would reject, or one with an Output in
        a structural field (see :meth:`raw_document`).
        """
        if self.document is not None:
            _no_fields("TServerArgs", self._fields())
            return _in_namespace(self.document, namespace)
        return _parse(self.raw_document(namespace), namespace, TServerDocument)

    def raw_document(self, namespace: str) -> dict[str, Any]:
        """The TServer as a camelCase mapping (``document`` or the fields), ``pulumi.Input``
        leaves kept as they are; ``metadata.name`` is an Output when ``app`` or ``server``
        is one. Nothing is checked but the arguments' combination (TypeError)."""
        if self.document is not None:
            _no_fields("TServerArgs", self._fields())
            document: TServerDocument = _in_namespace(self.document, namespace)
            return document.to_dict()
        if self.app is None or self.server is None or self.app == "" or self.server == "":
            raise TypeError("TServerArgs needs a document or both app and server")
        sub_type: Any = self.sub_type or (SubType.TARS if self.tars is not None else SubType.NORMAL)
        spec: dict[str, Any] = {
            "app": self.app,
            "server": self.server,
            "subType": (
                sub_type.apply(_sub_type_text)
                if is_deferred(sub_type)
                else _sub_type_text(sub_type)
            ),
            "k8s": _plain(self.k8s) or {},
        }
        for key, value in (
            ("important", self.important),
            ("tars", self.tars),
            ("normal", self.normal),
            ("release", self.release),
        ):
            if value is not None:
                spec[key] = _plain(value)
        return {
            "apiVersion": self.api_version,
            "kind": TServerDocument.KIND,
            "metadata": _metadata(
                _object_name(self.app, self.server), namespace, self.labels, self.annotations
            ),
            "spec": spec,
        }

    def _fields(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "server": self.server,
            "sub_type": self.sub_type,
            "important": self.important,
            "tars": self.tars,
            "normal": self.normal,
            "k8s": self.k8s,
            "release": self.release,
            "labels": self.labels,
            "annotations": self.annotations,
        }


def _sub_type_text(value: Any) -> Any:
    """``spec.subType`` as text; a value naming no subType stays as it is, for the schema to
    report at its field."""
    try:
        return SubType(value).value
    except ValueError:
        return value


def _object_name(app: pulumi.Input[str], server: pulumi.Input[str]) -> pulumi.Input[str]:
    """``lower(app)-lower(server)``: an Output when either is deferred."""
    if is_deferred(app) or is_deferred(server):
        return pulumi.Output.all(app, server).apply(
            lambda names: f"{str(names[0]).lower()}-{str(names[1]).lower()}"
        )
    return f"{str(app).lower()}-{str(server).lower()}"


A = TypeVar("A")


def split_args(
    kind: type[A], owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[A, pulumi.ResourceOptions | None]:
    """The arguments object and the resource options of a component constructor called either
    as ``C(name, CArgs(...), opts)`` or as ``C(name, opts, field=..., ...)`` (the two forms of
    pulumi-kubernetes resources). Unknown keywords raise TypeError."""
    given = kwargs.pop("args", None)
    if given is None and args and isinstance(args[0], kind):
        given, args = args[0], args[1:]
    opts = kwargs.pop("opts", None)
    if args:
        if opts is not None or len(args) > 1:
            raise TypeError(f"{owner}() takes (name, args, opts) or (name, opts, **fields)")
        opts = args[0]
    if opts is not None and not isinstance(opts, pulumi.ResourceOptions):
        raise TypeError(f"{owner}(): opts must be a pulumi.ResourceOptions, got {opts!r}")
    if given is not None:
        if kwargs:
            raise TypeError(f"{owner}(): give args or fields, not both ({', '.join(kwargs)})")
        if not isinstance(given, kind):
            raise TypeError(f"{owner}(): args must be a {kind.__name__}")
        return given, opts
    return kind(**kwargs), opts


def _no_fields(owner: str, fields: Mapping[str, Any]) -> None:
    given = [name for name, value in fields.items() if value is not None]
    if given:
        raise TypeError(f"{owner}: give either document or fields, not both ({', '.join(given)})")


D = TypeVar("D", bound=Document)


def _in_namespace(document: D, namespace: str) -> D:
    """The document in the framework's namespace (set when it has none)."""
    own = document.metadata.namespace
    if own is not None and own != namespace:
        raise ArgumentProblems(
            [
                f"metadata.namespace: {document.kind} {own}/{document.name} is not in the "
                f"framework's namespace {namespace!r}"
            ]
        )
    placed = Stack.of([document], namespace).documents[0]
    assert isinstance(placed, type(document))
    return placed


def _metadata(
    name: pulumi.Input[str],
    namespace: str,
    labels: Mapping[str, pulumi.Input[str]] | None,
    annotations: Mapping[str, pulumi.Input[str]] | None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def _plain(value: Any) -> Any:
    """A model as its camelCase mapping (placed ``pulumi.Input`` values kept as they are)."""
    return value.to_dict() if isinstance(value, TarsModel) else value


def _parse(raw: dict[str, Any], namespace: str, kind: type[D]) -> D:
    """The document of ``raw``; :class:`ArgumentProblems` with one ``field: CODE: message``
    line per schema error (as the validation resource reports rule errors) otherwise."""
    try:
        doc = parse_document(raw, namespace)
    except LoadError as exc:
        raise ArgumentProblems([p.message for p in exc.problems]) from None
    except SchemaError as exc:
        errors = [v for v in exc.violations if v.is_error]
        raise ArgumentProblems([f"{v.field}: {v.code}: {v.message}" for v in errors]) from None
    if not isinstance(doc, kind):  # pragma: no cover - the kind is fixed above
        raise TypeError(f"expected a {kind.KIND}, got {doc.kind}")
    return doc


__all__ = ["TFrameworkArgs", "TServerArgs", "TTemplateArgs", "split_args"]
