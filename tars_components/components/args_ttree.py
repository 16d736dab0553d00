"""Arguments of :class:`~tars_components.components.TTree`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..models import V1BETA3, TTreeDocument
from ..models.ttree import TREE_NAME
from .args_common import build_metadata, given_or_built, parse_built
from .scope import HasScope
from .shapes import BusinessArgsDict, TreeAppArgsDict


@dataclass
class TTreeArgs:
    """Arguments of a :class:`~tars_components.components.TTree`: the namespace's business
    tree (one object, named ``tars-tree``)."""

    framework: HasScope
    """The framework (namespace). Required."""

    document: TTreeDocument | None = None
    """A whole TTree document. Give either this or the fields below. Defaults to None."""

    businesses: Sequence[BusinessArgsDict] | None = None
    """``businesses``: ``{name, show, weight?, mark?}`` each. Defaults to ``[]``."""

    apps: Sequence[TreeAppArgsDict] | None = None
    """``apps``: ``{name, businessRef}`` each. Defaults to ``[]``."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels``. Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document. Defaults to ``k8s.tars.io/v1beta3``."""

    def to_document(self, namespace: str) -> TTreeDocument:
        """The TTree document in ``namespace`` (errors as
        :meth:`~tars_components.components.TConfigArgs.to_document`)."""
        fields = {
            "businesses": self.businesses,
            "apps": self.apps,
            "labels": self.labels,
            "annotations": self.annotations,
        }

        def build() -> TTreeDocument:
            raw = {
                "apiVersion": self.api_version,
                "kind": TTreeDocument.KIND,
                "metadata": build_metadata(TREE_NAME, namespace, self.labels, self.annotations),
                "businesses": [dict(b) for b in self.businesses or ()],
                "apps": [dict(a) for a in self.apps or ()],
            }
            return parse_built(raw, namespace, TTreeDocument)

        return given_or_built("TTreeArgs", self.document, fields, namespace, build)


__all__ = ["TTreeArgs"]
