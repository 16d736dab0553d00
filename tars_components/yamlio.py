"""YAML reading and writing.

Reading uses the libyaml C loader when present and keeps timestamps as strings
(``release.time`` is a string in the CRD, and a datetime would not round-trip).

Writing goes through :func:`dump`, a small block-style emitter for plain data (mappings with
string keys, lists, strings, numbers, booleans, None). For such data it writes the same text as
``yaml.dump(obj, default_flow_style=False, sort_keys=False, allow_unicode=True)``, several times
faster: PyYAML represents and resolves every node in Python, while here each distinct string's
quoting is decided once (by PyYAML itself for anything unusual) and cached. Multi-line strings
are written double-quoted on one line.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class YamlLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that keeps YAML timestamps as plain strings."""


YamlLoader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda loader, node: loader.construct_scalar(node),
)


def _construct_unique_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> Any:
    """Mappings reject a key given twice, as kubectl does (PyYAML keeps the last silently)."""
    seen: set[str] = set()
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.tag.endswith(":str"):
            if key_node.value in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"duplicate key {key_node.value!r}",
                    key_node.start_mark,
                )
            seen.add(key_node.value)
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


YamlLoader.construct_mapping = _construct_unique_mapping  # type: ignore[method-assign]


# Strings made of these characters, starting with a letter, are plain scalars for PyYAML unless
# they are one of YAML 1.1's booleans or nulls.
_SIMPLE = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*\Z")
_RESERVED_WORDS = frozenset(
    w
    for word in ("yes", "no", "true", "false", "on", "off", "null", "y", "n")
    for w in (word, word.capitalize(), word.upper())
)
_scalars: dict[str, str] = {}


def _pyyaml_scalar(value: Any) -> str:
    text = yaml.dump(value, Dumper=_BaseDumper, allow_unicode=True, width=1_000_000)
    if text.endswith("\n...\n"):
        text = text[: -len("\n...\n")]
    return text.rstrip("\n")


def _string(value: str) -> str:
    cached = _scalars.get(value)
    if cached is not None:
        return cached
    if _SIMPLE.match(value) and value not in _RESERVED_WORDS:
        text = value
    else:
        text = _pyyaml_scalar(value)
        if "\n" in text:
            text = json.dumps(value, ensure_ascii=False)
    if len(_scalars) < 200_000:
        _scalars[value] = text
    return text


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, (list, tuple)):
        return "[]"
    if isinstance(value, float):
        return _pyyaml_scalar(value)
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


def _mapping(data: dict[str, Any], indent: int, lines: list[str]) -> None:
    pad = " " * indent
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError(f"mapping keys must be strings, got {key!r}")
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{_string(key)}:")
            _mapping(value, indent + 2, lines)
        elif isinstance(value, (list, tuple)) and value:
            lines.append(f"{pad}{_string(key)}:")
            _sequence(value, indent, lines)  # block sequences are not indented under a key
        else:
            lines.append(f"{pad}{_string(key)}: {_scalar(value)}")


def _sequence(items: list[Any] | tuple[Any, ...], indent: int, lines: list[str]) -> None:
    pad = " " * indent
    for item in items:
        if isinstance(item, dict) and item:
            start = len(lines)
            _mapping(item, indent + 2, lines)
            lines[start] = f"{pad}- {lines[start][indent + 2 :]}"
        elif isinstance(item, (list, tuple)) and item:
            start = len(lines)
            _sequence(item, indent + 2, lines)
            lines[start] = f"{pad}- {lines[start][indent + 2 :]}"
        else:
            lines.append(f"{pad}- {_scalar(item)}")


def dump(obj: Any) -> str:
    """One object as a block-style YAML document, keys in insertion order."""
    lines: list[str] = []
    if isinstance(obj, dict) and obj:
        _mapping(obj, 0, lines)
    elif isinstance(obj, (list, tuple)) and obj:
        _sequence(obj, 0, lines)
    else:
        return _pyyaml_scalar(obj) + "\n"
    return "\n".join(lines) + "\n"
