"""Arguments of :class:`~tars_components.components.TTemplate`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..models import V1BETA3, TTemplateDocument
from .args_common import build_metadata, in_namespace, no_fields, parse_built
from .scope import HasScope


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
            no_fields("TTemplateArgs", fields)
            return in_namespace(self.document, namespace)
        if not self.template_name:
            raise TypeError("TTemplateArgs needs a document or a template_name")
        raw = {
            "apiVersion": self.api_version,
            "kind": TTemplateDocument.KIND,
            "metadata": build_metadata(
                self.template_name, namespace, self.labels, self.annotations
            ),
            "spec": {
                "content": self.content or "",
                "parent": self.template_name if self.parent is None else self.parent,
            },
        }
        return parse_built(raw, namespace, TTemplateDocument)


__all__ = ["TTemplateArgs"]
