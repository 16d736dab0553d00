"""Object metadata and the base class of every TarsK8S document."""

from typing import Annotated, Any, ClassVar

from pydantic import PrivateAttr

from ..kernel.paths import Source as Source
from .base import P_LABEL_KEY, P_LABEL_VALUE, TarsModel, pattern

GROUP = "k8s.tars.io"
V1BETA2 = "k8s.tars.io/v1beta2"
V1BETA3 = "k8s.tars.io/v1beta3"
API_VERSIONS = (V1BETA2, V1BETA3)


LabelKey = Annotated[str, pattern(P_LABEL_KEY, 317)]
"""A label or annotation key: ``[prefix/]name``, a DNS subdomain prefix and a name of at most 63
characters (:data:`P_LABEL_KEY`)."""


class ObjectMeta(TarsModel):
    """``metadata`` of a TarsK8S document.

    What a live cluster adds (uid, resourceVersion, managedFields, …) is removed by the loader
    before validation, so exported objects load as they are. Label and annotation keys are
    qualified names and label values label values, as the API server requires of any object.
    """

    name: str | None = None
    namespace: str | None = None
    labels: dict[LabelKey, Annotated[str, pattern(P_LABEL_VALUE, 63)]] | None = None
    annotations: dict[LabelKey, str] | None = None
    finalizers: list[str] | None = None


class Document(TarsModel):
    """A TarsK8S object: apiVersion, kind, metadata and the kind's own fields."""

    KIND: ClassVar[str] = ""

    api_version: str = V1BETA3
    kind: str = ""
    metadata: ObjectMeta = ObjectMeta()

    _source: Source | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        if not self.kind:
            self.kind = self.KIND

    @property
    def name(self) -> str:
        """``metadata.name``."""
        return self.metadata.name or ""

    @property
    def namespace(self) -> str:
        """``metadata.namespace`` (the loader fills it from the stack namespace)."""
        return self.metadata.namespace or "default"

    @property
    def source(self) -> Source | None:
        """The file and document index this object was loaded from, if any."""
        private = self.__pydantic_private__  # read directly: pydantic's __getattr__ is slow
        return private.get("_source") if private is not None else None

    def with_source(self, source: Source | None) -> "Document":
        """Attach a source location (used by the loader and by copies)."""
        private = self.__pydantic_private__
        if private is None:
            self._source = source
        else:
            private["_source"] = source
        return self

    @property
    def labels(self) -> dict[str, str]:
        """``metadata.labels`` (empty when unset)."""
        return self.metadata.labels or {}

    @property
    def annotations(self) -> dict[str, str]:
        """``metadata.annotations`` (empty when unset)."""
        return self.metadata.annotations or {}
