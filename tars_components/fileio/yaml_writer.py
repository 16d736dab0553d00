"""The YAML writer: :func:`dump`, a small block-style emitter for plain data (mappings with
string keys, lists, strings, numbers, booleans, None).

For such data it writes the same text as
``yaml.dump(obj, default_flow_style=False, sort_keys=False, allow_unicode=True)``, several times
faster: PyYAML represents and resolves every node in Python, while here each distinct string's
quoting is decided once (by PyYAML itself for anything unusual) and cached. Multi-line strings
are written double-quoted on one line.

PyYAML quotes by YAML 1.1's rules only, and kubectl, helm and client-go read with go-yaml
(YAML 1.2-ish, Go's number syntax): so a string that such a reader would take for a number,
boolean or null (``1e6``, ``1.5e3``, ``0o22``, ``+inf``, ``y``; :func:`looks_typed`) is
single-quoted too, and a string holding a line break YAML 1.1 knows but 1.2 does not (NEL,
LS, PS) is double-quoted with it escaped. Every reader then gets the same strings back.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Strings made of these characters, starting with a letter, are plain scalars for PyYAML unless
# they are one of YAML 1.1's booleans or nulls.
_SIMPLE = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*\Z")
_RESERVED_WORDS = frozenset(
    w
    for word in ("yes", "no", "true", "false", "on", "off", "null", "y", "n")
    for w in (word, word.capitalize(), word.upper())
)
_scalars: dict[str, str] = {}

# What a reader other than PyYAML (YAML 1.1) may take for another type when written plain:
# YAML 1.2's core schema as ruamel.yaml reads it (underscores admitted), and the Go readers
# kubectl, helm and client-go use (go-yaml v2/v3 through sigs.k8s.io/yaml), which drop every
# ``_`` and then try Go's own integer (base prefixes 0x, 0o, 0b, a leading 0) and float syntax
# (exponent without a dot, hex floats, ``+inf``) on anything that starts with a digit, a
# sign or a dot, and read ``y``/``n`` as booleans. (No two parts of a pattern can match the
# same digits, so a long value costs linear time.)
_GO_NUMBER = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+"
    r"|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
    r"|0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)[pP][-+]?[0-9]+)"
    r"|[-+](?i:inf|infinity)|\.(?:inf|Inf|INF|nan|NaN|NAN)"
)
_YAML12_NUMBER = re.compile(
    r"[-+]?(?:0b[01_]+|0o?[0-7_]+|[0-9_]+|0x[0-9a-fA-F_]+)"
    r"|[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
)
_OTHER_READERS_WORDS = frozenset(("y", "Y", "n", "N"))
_BREAKS_BEYOND_LF = ("\x85", "\u2028", "\u2029")


def looks_typed(value: str) -> bool:
    """True when a YAML 1.2 or Go reader may resolve ``value``, written plain, to a number, a
    boolean or null (``1e6``, ``0o22``, ``+inf``, ``y``), although PyYAML reads it as a
    string: :func:`dump` quotes it."""
    if value in _OTHER_READERS_WORDS:
        return True
    if not value or value[0] not in "-+.0123456789":
        return False
    return (
        _YAML12_NUMBER.fullmatch(value) is not None
        or _GO_NUMBER.fullmatch(value.replace("_", "")) is not None
    )


_DOUBLE_QUOTED_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def _double_quoted(value: str) -> str:
    """``value`` double-quoted on one line, as ``json.dumps`` writes it, and with every
    character that is not printable in YAML or that a YAML 1.1 reader takes for a line break
    (NEL, LS, PS) escaped too, so that every reader gets the same string back."""
    out = []
    for ch in value:
        escape = _DOUBLE_QUOTED_ESCAPES.get(ch)
        if escape is not None:
            out.append(escape)
        elif _yaml_printable(ch):
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _yaml_printable(ch: str) -> bool:
    return (
        "\x20" <= ch <= "\x7e"
        or "\xa0" <= ch <= "\ud7ff"
        or ("\ue000" <= ch <= "\ufffd" and ch != "\ufeff")
        or ch >= "\U00010000"
    ) and ch not in _BREAKS_BEYOND_LF


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
        if text == value and looks_typed(value):
            text = f"'{value}'"
        elif "\n" in text or any(mark in text for mark in _BREAKS_BEYOND_LF):
            text = _double_quoted(value)
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


class _BlockDumper(_BaseDumper):  # type: ignore[misc, valid-type, unused-ignore]
    """Multi-line strings (config contents, templates) as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str)


def dump_all_literal(docs: list[dict[str, Any]]) -> str:
    """Several documents for people to edit (``import``'s stack files): PyYAML's block style,
    keys in insertion order, and multi-line strings (config contents, templates) as literal
    blocks, where :func:`dump` writes them double-quoted on one line."""
    return yaml.dump_all(docs, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)
