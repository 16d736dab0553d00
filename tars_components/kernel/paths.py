"""Field paths (``spec.tars.servants[1].port``) and their source lines.

Line numbers are only needed when something is wrong, so they are found lazily: the first
lookup in a file composes its YAML node tree (with marks) and later lookups reuse it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..secrets.redaction import MASK, REFERENCE_KEYS, names_secret
from ..secrets.redaction import Segment as Segment
from .text import printable
from .yaml_reader import YamlLoader


def error_path(location: Iterable[object]) -> tuple[Segment, ...]:
    """The field path of a pydantic error's ``loc``: its names and indexes, without the
    validator names pydantic appends to a constrained type's location (``str[...]``,
    ``function-after[...]``)."""
    return tuple(
        seg for seg in location if isinstance(seg, int) or (isinstance(seg, str) and "[" not in seg)
    )


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SEGMENT = re.compile(r'\.?([^.\[\]"]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


def format_path(segments: Iterable[Segment]) -> str:
    """``("spec", "tars", "servants", 1, "port")`` → ``spec.tars.servants[1].port``; a key
    that is not an identifier is quoted as a JSON string (``labels["tars.io/ServerID"]``), with
    control characters escaped (``["a\\u001b"]``). Below a key that names a secret
    (:func:`~tars_components.secrets.redaction.names_secret`) every key prints as ``[secret]``: a
    secret written as a mapping key (``password: {hunter2: x}``) never shows in a path."""
    out: list[str] = []
    hidden = False
    for seg in segments:
        if hidden and isinstance(seg, str) and seg not in REFERENCE_KEYS:
            out.append(f".{MASK}")
        elif isinstance(seg, int):
            out.append(f"[{seg}]")
        elif _IDENT.fullmatch(seg):
            out.append(f".{seg}" if out else seg)
        else:
            out.append(f"[{printable(json.dumps(seg, ensure_ascii=False))}]")
        hidden = hidden or names_secret(seg)
    return "".join(out)


def parse_path(path: str) -> list[Segment]:
    """The inverse of :func:`format_path`."""
    segments: list[Segment] = []
    for name, index, quoted in _SEGMENT.findall(path):
        if index:
            segments.append(int(index))
        elif quoted:
            segments.append(_unquote(quoted))
        else:
            segments.append(name)
    return segments


MISSING: Any = object()
"""What :func:`lookup` returns, unless told otherwise, for a path that is not there."""


def lookup(document: Any, path: Sequence[str], missing: Any = MISSING) -> Any:
    """The value at ``path`` in nested mappings, or ``missing`` when a key is absent or a node
    on the way is not a mapping."""
    node = document
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return missing
        node = node[key]
    return node


def _unquote(quoted: str) -> str:
    try:
        text = json.loads(f'"{quoted}"', strict=False)
    except ValueError:
        return quoted.replace('\\"', '"').replace("\\\\", "\\")
    return text if isinstance(text, str) else quoted


class FileIndex:
    """The text of one file, and the line of any field path in any of its documents."""

    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.text = text
        self._composed: list[yaml.Node | None] = []
        self._loader: Any = None
        self._complete = False

    def _document(self, index: int) -> yaml.Node | None:
        """The node tree of document ``index``, composing the file only as far as that
        document (a TServer's line never composes the Rollout after it); None when the file
        has no such document, or none at all once its YAML turned out invalid (the loader
        reads only files that parse, so no line was asked before that)."""
        while len(self._composed) <= index and not self._complete:
            if self._loader is None:
                self._loader = YamlLoader(self.text)
            try:
                if self._loader.check_node():
                    self._composed.append(self._loader.get_node())
                    continue
            except yaml.YAMLError:
                self._composed = []
            self._complete = True
            self._loader.dispose()
        return self._composed[index] if index < len(self._composed) else None

    def document_line(self, index: int) -> int:
        """1-based line where document ``index`` starts."""
        return self.line(index, ())

    def line(self, index: int, path: str | Sequence[Segment]) -> int:
        """1-based line of ``path`` in document ``index``: the key of the deepest field of the
        path that exists in the file (a missing field points at its parent)."""
        document = self._document(index)
        if document is None:
            return 1
        segments = parse_path(path) if isinstance(path, str) else list(path)
        node: yaml.Node = document
        line = node.start_mark.line
        for seg in segments:
            if isinstance(node, yaml.MappingNode) and isinstance(seg, str):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == seg:
                        line, node = key.start_mark.line, value
                        break
                else:
                    break
            elif isinstance(node, yaml.SequenceNode) and isinstance(seg, int):
                if seg >= len(node.value):
                    break
                node = node.value[seg]
                line = node.start_mark.line
            else:
                break
        return line + 1


@dataclass(frozen=True)
class Source:
    """Where a document came from: a file and the document's index inside it (0-based).

    ``prefix`` is the path of the object inside that YAML document when it is an item of a
    ``kind: List`` (``("items", 3)``); empty otherwise.
    """

    file: str
    index: int
    file_index: FileIndex | None = field(default=None, compare=False, repr=False)
    prefix: tuple[Segment, ...] = ()

    def line(self, path: str | tuple[Segment, ...] = ()) -> int | None:
        """1-based line of a field path in this document (None when the text is not known)."""
        if self.file_index is None:
            return None
        if self.prefix:
            segments = parse_path(path) if isinstance(path, str) else list(path)
            return self.file_index.line(self.index, [*self.prefix, *segments])
        return self.file_index.line(self.index, path)
