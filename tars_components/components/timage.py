"""``tars:index:TImage``: a catalogue of releases.

**TImage and TarsWeb.** Releases published through TarsWeb are not the program's: by default
the declared releases are written on create and ``releases`` is then ignored
(``ignore_changes``); ``own_releases`` hands the whole list to the program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import pulumi

from ..models import TImage as TImageDocument
from .args import TImageArgs, split_args
from .document import DocumentComponent
from .failure import refusing
from .outputs import known
from .scope import HasScope
from .shapes import ImageReleaseArgsDict, ImageTypeValue


class TImage(DocumentComponent):
    """A TImage: a catalogue of releases, validated by the rules TI* and, in crd mode,
    applied as a custom resource. Unless ``own_releases``, ``releases`` is written on create
    and then left to TarsWeb and tarsimage (``ignore_changes``). Outputs: ``object_name``,
    ``namespace``, ``objects``, ``manifests``, ``mutated``, ``release_ids``."""

    release_ids: pulumi.Output[list[str]]
    """The ids of the declared releases."""

    @overload
    def __init__(
        self, resource_name: str, args: TImageArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TImageDocument | None = None,
        name: str | None = None,
        image_type: ImageTypeValue | None = None,
        supported_type: Sequence[str] | None = None,
        releases: Sequence[ImageReleaseArgsDict] | None = None,
        default: str | None = None,
        mark: str | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
        own_releases: bool = False,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TImage(name, TImageArgs(...), opts)`` or ``TImage(name, opts, framework=...,
        name=..., releases=[...], ...)``."""
        image_args, opts = split_args(TImageArgs, "TImage", args, kwargs)
        with refusing(f"TImage {resource_name!r}"):
            scope = image_args.framework.scope
            self.document: TImageDocument = image_args.to_document(scope.namespace)
            """The TImage document as given."""
            self.release_ids = known([r.id for r in self.document.releases or ()])
            self._declare_document(
                "tars:index:TImage",
                resource_name,
                self.document,
                image_args.framework,
                opts,
                ignore_changes=None if image_args.own_releases else ["releases"],
            )


__all__ = ["TImage"]
