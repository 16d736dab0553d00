"""Arguments of :class:`~tars_components.components.TFramework`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ...models import FRAMEWORK_CONFIG_NAME, V1BETA2, V1BETA3, Document, TFrameworkConfigDocument
from ...options import Options
from ..failure import ArgumentProblems
from ..shapes import TFrameworkConfigArgsDict, TFrameworkConfigV1beta2ArgsDict
from .common import in_namespace, parse_built


@dataclass
class TFrameworkArgs:
    """Arguments of a :class:`~tars_components.components.TFramework`: one TarsK8S framework,
    i.e. one namespace with its ``tars-framework`` config and the options of its servers."""

    namespace: str | None = None
    """Namespace of the framework and of every TServer and TTemplate that belongs to it.
    Defaults to ``options.namespace`` (``default``)."""

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
