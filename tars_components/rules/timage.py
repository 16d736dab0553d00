"""TImage rules (docs/rules/index.md; TImage has no validating webhook).

TI001 (the CRD schema) is reported by the loader. TI002 warns about duplicate release ids
(the webhook keeps the first, M-TI3). TI003 warns when a TServer's ``release.id`` is also a
release of the TImage labelled for that server but with another image. TI004 refuses two
TImages with one name.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, check, rule
from ..loading.document_set import DocumentSet
from ..models import TImageDocument
from ..models.vocabulary import LABEL_APP, LABEL_SERVER
from .common import repeats, same_names

TI004 = rule(
    "TI004",
    ERROR,
    "TImage",
    "one TImage per name in a namespace (a second would replace the first)",
    origin="tars-components",
)


@check()
def check_images(stack: DocumentSet) -> Iterator[Violation]:
    """Every TImage rule of one stack (TI002, TI003, TI004)."""
    for image in stack.images:
        yield from _duplicate_releases(image)
    yield from _server_releases(stack)
    yield from same_names(stack.images, TI004)


TI002 = rule(
    "TI002",
    WARNING,
    "TImage",
    "release ids are unique (the webhook keeps the first and removes the others)",
    origin="seed",
)


def _duplicate_releases(image: TImageDocument) -> Iterator[Violation]:
    """TI002."""
    indexed = list(enumerate(image.releases or []))
    for (later, release), (first, _) in repeats(indexed, lambda item: item[1].id):
        yield TI002.at(
            image,
            ("releases", later, "id"),
            f"release id {release.id} is already releases[{first}]: the webhook keeps the "
            "first and removes this one",
        )


TI003 = rule(
    "TI003",
    WARNING,
    "TImage",
    "a TServer's release.id listed by its server's TImage has the same image",
    origin="tars-components",
)


def _server_releases(stack: DocumentSet) -> Iterator[Violation]:
    """TI003: a TServer's release and the TImage of its server agree on the image."""
    catalogue: dict[tuple[str, str, str], list[TImageDocument]] = {}
    for image in stack.images:
        app, server = image.labels.get(LABEL_APP), image.labels.get(LABEL_SERVER)
        if app and server:
            catalogue.setdefault((image.namespace, app, server), []).append(image)
    for tserver in stack.servers:
        release = tserver.spec.release
        if release is None or not isinstance(release.id, str):
            continue
        key = (tserver.namespace, tserver.spec.app, tserver.spec.server)
        for image in catalogue.get(key, []):
            for entry in image.releases or []:
                if entry.id == release.id and isinstance(release.image, str):
                    if entry.image != release.image:
                        yield TI003.at(
                            tserver,
                            "spec.release.image",
                            f"release {release.id} is {entry.image} in TImage {image.name}, "
                            f"not {release.image}",
                        )
                    break
