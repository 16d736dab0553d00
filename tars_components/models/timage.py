"""The TImage custom resource (docs/concepts/namespace.md): a catalogue of releases of a server, a
base image or the tarsnode image. Fields sit at the top level.

A TImage belongs to a TServer only through its labels ``tars.io/ServerApp`` and
``tars.io/ServerName``; releases are appended by tarsimage/TarsWeb as well as by users.
"""

from enum import Enum
from typing import Annotated, ClassVar

from pydantic import Field

from .base import P_IMAGE_OR_EMPTY, P_RELEASE_ID, ImageReferenceCheck, TarsModel, pattern
from .document import Document
from .kube import Lax

P_IMAGE_SECRET = r"^([0-9a-z][-0-9a-z]*)?[0-9a-z]?(\.([0-9a-z][-0-9a-z]*)?[0-9a-z])*$"
MAX_RELEASES = 120


class ImageType(str, Enum):
    """``imageType``: a server's releases, a base image, or the tarsnode image."""

    BASE = "base"
    SERVER = "server"
    NODE = "node"


class ServerType(str, Enum):
    """A server language/runtime (``supportedType``, ``build.*.serverType``)."""

    CPP = "cpp"
    NODEJS = "nodejs"
    NODEJS_PKG = "nodejs-pkg"
    JAVA_WAR = "java-war"
    JAVA_JAR = "java-jar"
    GO = "go"
    PHP = "php"


class ImageRelease(TarsModel):
    """One release: an id (what ``TServer.spec.release.id`` names) and its image. The CRD
    gives the image no pattern, but a TServer's release takes it as it is, so a non-empty one
    must be an image reference a runtime can pull."""

    id: Annotated[str, pattern(P_RELEASE_ID, 63)]
    """The release id. Required."""
    image: Annotated[str, Field(max_length=500), ImageReferenceCheck]
    """The image. Required."""
    secret: Annotated[str, pattern(P_IMAGE_SECRET, 253)] | None = None
    """The image pull secret's name. Defaults to none."""
    create_person: Annotated[str, Field(max_length=100)] | None = None
    """Who made the release. Defaults to none."""
    create_time: str | None = None
    """When (RFC 3339). Defaults to none."""
    mark: Annotated[str, Field(max_length=1600)] | None = None
    """A note. Defaults to none."""


class ImageBuildState(TarsModel):
    """``build.last`` / ``build.running``: written by tarsimage, kept as exported."""

    id: Annotated[str, pattern(P_RELEASE_ID, 63)]
    base_image: Annotated[str, Field(max_length=500)]
    base_image_secret: Annotated[str, pattern(P_IMAGE_SECRET, 253)] | None = None
    image: Annotated[str, pattern(P_IMAGE_OR_EMPTY, 500)]
    secret: Annotated[str, pattern(P_IMAGE_SECRET, 253)] | None = None
    server_type: Annotated[ServerType, Lax] | None = None
    create_person: Annotated[str, Field(max_length=800)] | None = None
    create_time: str | None = None
    mark: Annotated[str, Field(max_length=1600)] | None = None
    phase: str | None = None
    message: Annotated[str, Field(max_length=1600)] | None = None
    handler: Annotated[str, Field(max_length=253)] | None = None


class ImageBuild(TarsModel):
    """``build``: the last and the running image build."""

    last: ImageBuildState | None = None
    running: ImageBuildState | None = None


class TImageDocument(Document):
    """A catalogue of releases (``kind: TImage``)."""

    KIND: ClassVar[str] = "TImage"

    image_type: Annotated[ImageType, Lax] | None = None
    supported_type: Annotated[list[Annotated[ServerType, Lax]], Field(min_length=1)] | None = None
    releases: Annotated[list[ImageRelease], Field(max_length=MAX_RELEASES)] | None = None
    default: Annotated[str, pattern(P_RELEASE_ID)] | None = None
    build: ImageBuild | None = None
    mark: Annotated[str, Field(max_length=1600)] | None = None
