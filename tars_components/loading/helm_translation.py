"""Recognising a helm-lib values file and translating it: documents with their sources (the values
file's lines), TH001 warnings, and what helm could not render as load problems."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from ..kernel.errors import LoadProblem, Violation
from ..kernel.paths import FileIndex, Segment, format_path, parse_path
from ..kernel.yaml_reader import YamlLoader
from ..models.document import Source
from .helm_chart import (
    CHART,
    IGNORED_HINTS,
    MARKER_KEYS,
    READ_KEYS,
    Origins,
    Produced,
    Unrenderable,
    render_values,
)
from .schema_rules import ignored_values_key

if TYPE_CHECKING:
    from ..settings.options import ReleaseTag


@dataclass(frozen=True)
class ValuesSource(Source):
    """Where a document made from a values file came from: the values file, and for each
    field path of the document the values path that produced it (longest prefix wins), so
    :meth:`line` gives the line of the value, not of a document that exists nowhere."""

    origins: Origins = field(default=(), compare=False, repr=False)

    def line(self, path: str | tuple[Segment, ...] = ()) -> int | None:
        """1-based line, in the values file, of the value that produced this field."""
        if self.file_index is None:
            return None
        return self.file_index.line(0, self.values_path(path))

    def values_path(self, path: str | Sequence[Segment] = ()) -> tuple[Segment, ...]:
        """The values path that produced a document field path."""
        segments = tuple(parse_path(path) if isinstance(path, str) else path)
        best: tuple[Segment, ...] = ()
        best_len = -1
        for prefix, target in self.origins:
            n = len(prefix)
            if n > best_len and segments[:n] == prefix:
                best, best_len = (*target, *segments[n:]), n
        return best


@dataclass(frozen=True)
class Translation:
    """What one values file becomes: documents (chart order), warnings, and the reasons
    helm could not render it (then no documents)."""

    file: str
    documents: tuple[Produced, ...] = ()
    warnings: tuple[Violation, ...] = ()
    problems: tuple[LoadProblem, ...] = ()

    def sources(self, index: FileIndex) -> list[ValuesSource]:
        """One source per document, reading lines from the values file's ``index``."""
        return [
            ValuesSource(self.file, position, index, (), produced.origins)
            for position, produced in enumerate(self.documents)
        ]


def values_mapping(documents: Sequence[Any]) -> dict[str, Any] | None:
    """The values mapping when a file's parsed documents are a helm-lib values file (see the
    module docstring), else None."""
    present = [d for d in documents if d is not None]
    if len(present) != 1 or not isinstance(present[0], dict):
        return None
    values = present[0]
    if "apiVersion" in values or "kind" in values:
        return None
    if not any(key in values for key in MARKER_KEYS):
        return None
    return values


def with_release(values: Mapping[str, Any], release: ReleaseTag | None) -> Mapping[str, Any]:
    """``values`` as ``exec-helm.sh VALUES TAG`` packages it: ``repo.id`` set to ``DATE-TAG``
    and ``repo.image`` to ``IMAGE:TAG`` (whatever they held; an image that is not a text is
    left for the chart's own check). ``values`` itself when ``release`` is None or there is no
    ``repo`` mapping."""
    repo = values.get("repo")
    if release is None or not isinstance(repo, Mapping):
        return values
    image = repo.get("image")
    tagged = {**repo, "id": release.id}
    if isinstance(image, str) and image:
        tagged["image"] = release.image(image)
    return {**values, "repo": tagged}


def is_values_text(text: str) -> bool:
    """True when a file's text is a helm-lib values file (unreadable YAML is not)."""
    try:
        return values_mapping(list(yaml.load_all(text, Loader=YamlLoader))) is not None
    except yaml.YAMLError:
        return False


def translate(
    file: str,
    values: Mapping[str, Any],
    namespace: str = "default",
    index: FileIndex | None = None,
) -> Translation:
    """The documents ``helm template`` renders from ``values`` through the v1.4.1 chart (first
    install: no ``lookup`` results), plus TH001 warnings for keys the chart does not read.
    Lines are those of ``index`` (the values file's text) when given."""

    def line(path: Sequence[Segment]) -> int | None:
        return index.line(0, path) if index is not None else None

    try:
        produced = list(render_values(values))
    except Unrenderable as exc:
        message = f"helm-lib values {format_path(exc.path) or '(file)'}: {exc.message}"
        return Translation(file, problems=(LoadProblem(file, line(exc.path) or 1, message),))
    name = produced[0].body["metadata"]["name"] if produced else ""
    warnings = []
    for key in values:
        if key in READ_KEYS:
            continue
        hint = IGNORED_HINTS.get(key, f"{CHART} does not read it (a typo?)")
        warnings.append(
            ignored_values_key(
                namespace=namespace,
                name=name,
                field=format_path((key,)),
                hint=hint,
                file=file,
                line=line((key,)),
            )
        )
    return Translation(file, tuple(produced), tuple(warnings))


def translate_file(
    file: str,
    documents: Sequence[Any],
    index: FileIndex,
    namespace: str = "default",
    release: ReleaseTag | None = None,
) -> tuple[Translation, list[ValuesSource]] | None:
    """The loader's hook: None when the file is not a values file; otherwise its translation
    (problems and warnings located in the values file; ``release`` written into it, see
    :func:`with_release`) and one source per document."""
    values = values_mapping(documents)
    if values is None:
        return None
    translation = translate(file, with_release(values, release), namespace, index)
    return translation, translation.sources(index)
