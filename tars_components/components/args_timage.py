"""Arguments of :class:`~tars_components.components.TImage`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..models import V1BETA3, TImageDocument
from .args_common import build_metadata, drop_none, given_or_built, parse_built
from .scope import HasScope
from .shapes import ImageReleaseArgsDict, ImageTypeValue


@dataclass
class TImageArgs:
    """Arguments of a :class:`~tars_components.components.TImage`: a catalogue of releases."""

    framework: HasScope
    """The framework (namespace) the image belongs to. Required."""

    document: TImageDocument | None = None
    """A whole TImage document. Give either this or the fields below. Defaults to None."""

    name: str | None = None
    """``metadata.name`` (``lower(app)-lower(server)`` for a server's image). Required without
    ``document``."""

    image_type: ImageTypeValue | None = None
    """``imageType``: ``server``, ``base`` or ``node``. Defaults to None."""

    supported_type: Sequence[str] | None = None
    """``supportedType`` of a base image. Defaults to None."""

    releases: Sequence[ImageReleaseArgsDict] | None = None
    """``releases``: ``{id, image, secret?, mark?}`` each. Defaults to None."""

    default: str | None = None
    """``default``: the default release id. Defaults to None."""

    mark: str | None = None
    """``mark``. Defaults to None."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels`` (``tars.io/ServerApp``, ``tars.io/ServerName`` for a server's
    image). Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document. Defaults to ``k8s.tars.io/v1beta3``."""

    own_releases: bool = False
    """False (default): the program's releases are written when the TImage is created and
    ``releases`` is then left to TarsWeb and tarsimage (``ignore_changes``), so releases
    published there are never deleted by ``pulumi up``. True: the program owns the whole list
    (every ``pulumi up`` writes exactly the declared releases)."""

    def to_document(self, namespace: str) -> TImageDocument:
        """The TImage document in ``namespace`` (errors as
        :meth:`~tars_components.components.TConfigArgs.to_document`)."""
        fields = {
            "name": self.name,
            "image_type": self.image_type,
            "supported_type": self.supported_type,
            "releases": self.releases,
            "default": self.default,
            "mark": self.mark,
            "labels": self.labels,
            "annotations": self.annotations,
        }

        def build() -> TImageDocument:
            if not self.name:
                raise TypeError("TImageArgs needs a document or a name")
            raw = {
                "apiVersion": self.api_version,
                "kind": TImageDocument.KIND,
                "metadata": build_metadata(self.name, namespace, self.labels, self.annotations),
                **drop_none(
                    {
                        "imageType": self.image_type,
                        "supportedType": list(self.supported_type)
                        if self.supported_type is not None
                        else None,
                        "releases": [dict(r) for r in self.releases]
                        if self.releases is not None
                        else None,
                        "default": self.default,
                        "mark": self.mark,
                    }
                ),
            }
            return parse_built(raw, namespace, TImageDocument)

        return given_or_built("TImageArgs", self.document, fields, namespace, build)


__all__ = ["TImageArgs"]
