"""Arguments of :class:`~tars_components.components.TFramework`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import pulumi

from ..models import (
    FRAMEWORK_CONFIG_NAME,
    V1BETA2,
    V1BETA3,
    Document,
    TFrameworkConfigDocument,
    is_deferred,
)
from ..settings.options import Options
from .args_common import in_namespace, parse_built
from .failure import ArgumentProblems
from .namespace_input import STAND_IN
from .shapes import TFrameworkConfigArgsDict, TFrameworkConfigV1beta2ArgsDict


@dataclass
class TFrameworkArgs:
    """Arguments of a :class:`~tars_components.components.TFramework`: one TarsK8S framework,
    i.e. one namespace with its ``tars-framework`` config and the options of its servers."""

    namespace: pulumi.Input[str] | None = None
    """Namespace of the framework and of every TServer and TTemplate that belongs to it: a
    name, or a ``pulumi.Input`` such as another stack's output
    (:class:`~tars_components.components.PlatformStack`). Every object is still registered
    at once, its ``metadata.namespace`` (and the node affinity's label keys) an Output of it;
    ``options.namespace`` must then be left at its default. Defaults to ``options.namespace``
    (``default``)."""

    config: (
        TFrameworkConfigDocument | TFrameworkConfigArgsDict | TFrameworkConfigV1beta2ArgsDict | None
    ) = None
    """The namespace's ``tars-framework`` TFrameworkConfig: a document, or its fields as a
    :class:`~tars_components.components.TFrameworkConfigArgsDict` (camelCase keys as in YAML;
    ``k8s.tars.io/v1beta3``: ``nodeImage``, ``imageBuild`` and ``imageUpload`` required) or
    :class:`~tars_components.components.TFrameworkConfigV1beta2ArgsDict` (``v1beta2``, read as
    such when it has ``imageRegistry``). Its ``nodeImage`` is the default tarsnode image of
    Tars servers (webhook M-TS13); in crd mode it is applied as a custom resource. Without it,
    Tars servers with a release need their own ``release.nodeImage`` (TS020). Defaults to the
    ``tars-framework`` among ``documents``, if any."""

    options: Options = field(default_factory=Options)
    """Output options of docs/cli/render.md (mode, tLocalVolume storage class, ``delay-bind``,
    ``tars.io/active`` readiness gate, crd apiVersion). Defaults to ``Options()``: expand mode
    and the defaults of the ``render`` command."""

    templates: pulumi.Input[Mapping[str, pulumi.Input[str]]] = field(default_factory=dict)
    """Templates that exist in the namespace besides the TTemplate components declared with this
    framework, as ``{name: parent}``: the ones the TarsK8S framework chart installed, ones
    another stack declares (a ``pulumi.Input``, e.g. ``PlatformStack(...).templates``), or
    ones declared later in the program. Rules use them to check ``spec.tars.template`` and
    parents (given as an Output, once it is known: in the validation resources). Defaults to
    none."""

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

        A namespace given as an Output gives the options the stand-in namespace that the
        components replace by its value (:mod:`~tars_components.components.namespace_input`).

        Raises :class:`~tars_components.components.failure.ArgumentProblems` (a ValueError)
        when ``namespace`` and ``options.namespace`` disagree, or when ``namespace`` is an
        Output and ``options.namespace`` is set.
        """
        options = self.options
        if self.skip_await is not None:
            options = replace(options, skip_await=self.skip_await)
        namespace = self.namespace
        if namespace is None:
            return options
        if not isinstance(namespace, str):
            if not is_deferred(namespace):
                raise ArgumentProblems(
                    [f"namespace: expected a name or an Output, not {type(namespace).__name__}"]
                )
            if options.namespace != "default":
                raise ArgumentProblems(
                    [
                        f"namespace: an Output, and options.namespace is "
                        f"{options.namespace!r}: leave options.namespace at its default"
                    ]
                )
            return replace(options, namespace=STAND_IN)
        if options.namespace not in ("default", namespace):
            raise ArgumentProblems(
                [f"namespace: {namespace!r} differs from options.namespace {options.namespace!r}"]
            )
        return replace(options, namespace=namespace)

    def config_document(self, namespace: str) -> TFrameworkConfigDocument | None:
        """``config`` as a document in ``namespace`` (None without one). Raises
        :class:`~tars_components.components.failure.ArgumentProblems` for one the CRD would
        reject."""
        if self.config is None:
            return None
        if isinstance(self.config, TFrameworkConfigDocument):
            config: TFrameworkConfigDocument = in_namespace(self.config, namespace)
            return config
        body = dict(self.config)
        raw = {
            "apiVersion": V1BETA2 if "imageRegistry" in body else V1BETA3,
            "kind": TFrameworkConfigDocument.KIND,
            "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
            **body,
        }
        parsed: TFrameworkConfigDocument = parse_built(raw, namespace, TFrameworkConfigDocument)
        return parsed


__all__ = ["TFrameworkArgs"]
