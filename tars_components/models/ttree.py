"""The TTree custom resource (docs/concepts/namespace.md): the business/app tree TarsWeb shows.

Fields sit at the top level. Only the object named ``tars-tree`` exists in a namespace; the
controller appends every TServer's app that is missing (docs/concepts/ownership.md).
"""

from typing import Annotated, ClassVar

from pydantic import Field

from .base import P_APP, TarsModel, pattern
from .document import Document

TREE_NAME = "tars-tree"
P_BUSINESS = r"^[\x21-\x7e\p{Han}]{2,32}$"
P_BUSINESS_REF = r"^(|[\x21-\x7e\p{Han}]{2,32})$"


class Business(TarsModel):
    """A business (a group of apps). ``weight`` 1..5, default 3."""

    name: Annotated[str, pattern(P_BUSINESS)]
    """The business's name. Required."""
    show: Annotated[str, Field(min_length=1, max_length=100)]
    """Its display name. Required."""
    weight: Annotated[int, Field(ge=1, le=5)] = 3
    """Display order. Defaults to 0."""
    create_time: str | None = None
    """When it was made (written by TarsWeb)."""
    create_person: Annotated[str, Field(max_length=100)] | None = None
    """Who made it (written by TarsWeb)."""
    mark: Annotated[str, Field(max_length=1600)] | None = None
    """A note. Defaults to none."""


class TreeApp(TarsModel):
    """An app and the business it belongs to (``""`` for none)."""

    name: Annotated[str, pattern(P_APP, 63)]
    """The app's name. Required."""
    business_ref: Annotated[str, pattern(P_BUSINESS_REF)]
    """The business it belongs to (empty for none). Required."""
    create_time: str | None = None
    """When it was added (written by TarsWeb)."""
    create_person: Annotated[str, Field(max_length=100)] | None = None
    """Who added it (written by TarsWeb)."""
    mark: Annotated[str, Field(max_length=1600)] | None = None
    """A note. Defaults to none."""


class TTreeDocument(Document):
    """The business tree of a namespace (``kind: TTree``, named ``tars-tree``)."""

    KIND: ClassVar[str] = "TTree"

    businesses: list[Business]
    apps: list[TreeApp]
