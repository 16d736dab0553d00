"""The TTemplate custom resource (docs/concepts/mapping.md): a Tars config template and its
parent."""

from typing import Annotated, ClassVar

from pydantic import Field

from .base import P_DNS1123SUB, TarsModel, pattern
from .document import Document


class TTemplateSpec(TarsModel):
    """``spec`` of a TTemplate: the config text and the parent (a root names itself)."""

    content: Annotated[str, Field(max_length=1_560_000)]
    parent: Annotated[str, pattern(P_DNS1123SUB, 253)]


class TTemplateDocument(Document):
    """A Tars config template (``kind: TTemplate``); servers name it in ``spec.tars.template``."""

    KIND: ClassVar[str] = "TTemplate"

    spec: TTemplateSpec
