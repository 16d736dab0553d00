"""The webhook for TImages: M-TI* (docs/concepts/webhooks.md#taccount). A release's ``createTime``
(M-TI4) is left as written."""

from __future__ import annotations

from typing import Any

from ..models import (
    TImageDocument,
)
from ..models.timage import ImageType
from ..models.vocabulary import LABEL_IMAGE_TYPE, SUPPORTED_PREFIX
from .common import with_labels


def mutate_image(image: TImageDocument) -> TImageDocument:
    """M-TI1…M-TI3: ``tars.io/ImageType``, the ``tars.io/Supported.<type>`` labels of a base
    image (others removed), duplicate release ids removed (the first is kept)."""
    image_type = image.image_type or ""
    labels = dict(image.labels)
    labels[LABEL_IMAGE_TYPE] = str(image_type)  # M-TI1
    wanted: dict[str, str] = {}
    if image_type == ImageType.BASE.value and image.supported_type:  # M-TI2
        wanted = {f"{SUPPORTED_PREFIX}{t}": str(t) for t in image.supported_type}
    for key in [k for k in labels if k.startswith(SUPPORTED_PREFIX) and k not in wanted]:
        del labels[key]
    for key, value in wanted.items():
        labels.setdefault(key, value)
    update: dict[str, Any] = {}
    if image.releases:
        seen: set[str] = set()
        unique = []
        for release in image.releases:  # M-TI3
            if release.id not in seen:
                seen.add(release.id)
                unique.append(release)
        if len(unique) != len(image.releases):
            update["releases"] = unique
    result: TImageDocument = with_labels(image, labels, **update)
    return result
