"""The TFrameworkConfig custom resource (docs/rules/index.md#codes). Fields sit at the top level.

v1beta3 (storage) calls the upload registry ``imageUpload`` and requires
``imageBuild.executor``; v1beta2 calls it ``imageRegistry``. Both names are declared here and
the loader rejects the one the document's apiVersion does not have.
"""

from typing import Annotated, ClassVar

from pydantic import Field

from .base import (
    P_IMAGE,
    P_IMAGE_OR_EMPTY,
    P_SECRET,
    ImageReferenceCheck,
    RegistryCheck,
    TarsModel,
    new_dict,
    pattern,
)
from .credential import Credential
from .document import Document

FRAMEWORK_CONFIG_NAME = "tars-framework"


class ImageRef(TarsModel):
    """The tarsnode image and its pull secret. ``secret`` defaults to ``""``.

    The CRD admits an empty image; it is refused here, since every Tars server's tarsnode
    container would get no image. Besides the CRD's pattern the image must be an image
    reference a runtime can pull (``repo:v1.4.:0`` is not).
    """

    image: Annotated[str, pattern(P_IMAGE, 500), ImageReferenceCheck]
    """The image. Required."""
    secret: Annotated[str, pattern(P_SECRET, 253)] = ""
    """The image pull secret's name. Defaults to none."""


class ExecutorRef(TarsModel):
    """``imageBuild.executor``: the image builder and its pull secret (both may be empty, as
    the CRD admits); a non-empty image must be an image reference."""

    image: Annotated[str, pattern(P_IMAGE_OR_EMPTY, 500), ImageReferenceCheck]
    secret: Annotated[str, pattern(P_SECRET)] = ""


class RegistryRef(TarsModel):
    """A registry and its push secret. ``secret`` defaults to ``""``. The registry is a
    repository name without tag or digest, or a registry host alone (or empty, as the CRD
    admits)."""

    registry: Annotated[str, pattern(P_IMAGE_OR_EMPTY, 500), RegistryCheck]
    """The registry (``reg.example.com/shop``). Required."""
    secret: Annotated[str, pattern(P_SECRET)] = ""
    """The secret's name. Defaults to none."""


class ImageBuild(TarsModel):
    """``imageBuild``: tarsimage build settings. ``maxBuildTime`` defaults to 300 s."""

    max_build_time: Annotated[int, Field(ge=180, le=900)] = 300
    """Seconds a build may take. Defaults to the CRD's."""
    id_format: str | None = None
    """The format of build ids. Defaults to the CRD's."""
    executor: ExecutorRef | None = None
    """The image builder (kaniko) image. Required.

    In ``k8s.tars.io/v1beta3``; v1beta2 has none."""


class RecordLimit(TarsModel):
    """``recordLimit``: history sizes, each 10..100, default 48."""

    texited_pod: Annotated[int, Field(ge=10, le=100)] = 48
    """Exited pods recorded per server. Defaults to 48."""
    tconfig_history: Annotated[int, Field(ge=10, le=100)] = 48
    """Versions kept per config file. Defaults to 48."""
    timage_release: Annotated[int, Field(ge=10, le=100)] = 48
    """Releases kept per TImage. Defaults to 48."""


class UpChainEndpoint(TarsModel):
    """An endpoint outside the cluster. Defaults: timeout 6000 ms, TCP."""

    host: Annotated[str, pattern(P_IMAGE_OR_EMPTY, 500)]
    """The host. Required."""
    port: Annotated[int, Field(ge=1, le=65535)]
    """The port (1 to 65535). Required."""
    timeout: int = 6000
    """Milliseconds. Defaults to 6000."""
    is_tcp: bool = True
    """TCP (true) or UDP. Defaults to true."""


class TFrameworkConfigDocument(Document):
    """Framework-wide settings (``kind: TFrameworkConfig``); only ``tars-framework`` is read.

    Its ``nodeImage`` is the default tarsnode image of every Tars server in the namespace.
    """

    KIND: ClassVar[str] = "TFrameworkConfig"

    image_build: ImageBuild | None = None
    """How server images are built. Required.

    In ``k8s.tars.io/v1beta3``; optional in v1beta2."""
    image_upload: RegistryRef | None = None
    """Where built images are pushed. Required.

    In ``k8s.tars.io/v1beta3``; v1beta2 calls it ``imageRegistry``."""
    image_registry: RegistryRef | None = None
    """Where built images are pushed, in v1beta2 (v1beta3 calls it ``imageUpload``), which
    requires it."""
    record_limit: RecordLimit = Field(default_factory=RecordLimit)
    """How much history the framework keeps. Defaults to 48 of each."""
    node_image: ImageRef
    """The default tarsnode image of Tars servers. Required."""
    up_chain: dict[str, Annotated[list[UpChainEndpoint], Field(min_length=1)]] = Field(
        default_factory=new_dict
    )
    """Endpoints outside the cluster, by name. Defaults to none."""
    expand: dict[str, Credential] = Field(default_factory=new_dict)
    """Free-form settings of the framework for TarsWeb (``expand`` of the CRD:
    ``nativeDBConfig``, ``nativeFrameworkConfig``); a secret value stays a secret in the
    state (the cluster keeps it in this object, where TarsWeb reads it). Defaults to none.

    A value may be ``{configSecret: KEY}`` (the Pulumi config secret ``tars:KEY``) or a
    deferred value: TarsWeb reads them from this object, so the cluster holds them in
    plaintext, while the Pulumi state and output keep them secret."""

    @property
    def registry(self) -> RegistryRef | None:
        """The upload registry, whatever the version calls it."""
        return self.image_upload or self.image_registry
