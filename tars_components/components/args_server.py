"""Arguments of :class:`~tars_components.components.TServer`.

Every leaf of the ``tars``, ``normal``, ``k8s`` and ``release`` sections, ``app``, ``server``,
``sub_type`` and ``important`` accept ``pulumi.Input`` values (another stack's output, a
config secret). Fields that TarsK8S only places in the output (release id and image, node
image, env values, resource quantities) are placed as they are; an Output in a structural
field (a name, a port, replicas, …) makes the component expand the document once its values
are known (see :class:`~tars_components.components.TServer`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from ..models import (
    V1BETA3,
    K8sSpec,
    NormalSpec,
    Release,
    SubType,
    TarsSpec,
    TServerDocument,
    is_deferred,
)
from ..models.rollout import Rollout, RolloutSpec
from .args_common import as_mapping, build_metadata, in_namespace, no_fields, parse_built
from .scope import HasScope
from .shapes import (
    K8sSpecArgsDict,
    NormalSpecArgsDict,
    ReleaseArgsDict,
    SubTypeValue,
    TarsSpecArgsDict,
)


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

    field_ownership: Mapping[str, str] | None = None
    """This server's field ownership, on top of the framework's ``options.field_ownership``
    and of the ``tars-components.io/field-ownership`` annotation: ``{"release": "external",
    "replicas": "initial"}`` (docs/concepts/ownership.md). Defaults to none."""
    rollout: Rollout | RolloutSpec | Mapping[str, Any] | None = None
    """Canary steps of this server, as a Rollout document's ``spec`` (``steps``, ``step``,
    ``stable: {id, image}``, ``abort``, ``stopped``; docs/concepts/rollout.md), checked here,
    or a stack's :class:`~tars_components.models.rollout.Rollout` that drives it, checked with
    its stack: the server is declared at the step (its partition, or the stable release on
    abort) and its plan logged. Needs the server's structural fields known (not Outputs).
    Defaults to None."""

    def to_document(self, namespace: str) -> TServerDocument:
        """The TServer document, in ``namespace``; ``metadata.name`` defaults to
        ``lower(app)-lower(server)``.

        Raises TypeError for contradicting arguments and
        :class:`~tars_components.components.failure.ArgumentProblems` (a ValueError listing
        the schema violations) for a document the CRD would reject, or one with an Output in
        a structural field (see :meth:`raw_document`).
        """
        if self.document is not None:
            no_fields("TServerArgs", self._fields())
            return in_namespace(self.document, namespace)
        return parse_built(self.raw_document(namespace), namespace, TServerDocument)

    def raw_document(self, namespace: str) -> dict[str, Any]:
        """The TServer as a camelCase mapping (``document`` or the fields), ``pulumi.Input``
        leaves kept as they are; ``metadata.name`` is an Output when ``app`` or ``server``
        is one. Nothing is checked but the arguments' combination (TypeError)."""
        if self.document is not None:
            no_fields("TServerArgs", self._fields())
            document: TServerDocument = in_namespace(self.document, namespace)
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
            "k8s": as_mapping(self.k8s) or {},
        }
        for key, value in (
            ("important", self.important),
            ("tars", self.tars),
            ("normal", self.normal),
            ("release", self.release),
        ):
            if value is not None:
                spec[key] = as_mapping(value)
        return {
            "apiVersion": self.api_version,
            "kind": TServerDocument.KIND,
            "metadata": build_metadata(
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


__all__ = ["TServerArgs"]
