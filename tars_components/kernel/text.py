"""Text shown on a terminal: a stack's own characters never act as control sequences."""

from __future__ import annotations

import unicodedata

_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def printable(text: str) -> str:
    """``text`` with every control, format or line/paragraph separator character but the tab
    written as a JSON ``\\uXXXX`` escape (a surrogate pair beyond the BMP), so that no escape
    sequence or line break of a stack's own text reaches a terminal."""
    if text.isprintable():
        return text
    return "".join(_escaped(ch) for ch in text)


def _escaped(ch: str) -> str:
    if ch == "\t" or unicodedata.category(ch) not in _UNPRINTABLE:
        return ch
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


OLD_SPELLINGS = {"isTaf": "isTars"}
"""Fields under names older TarsK8S texts use (the seed's and TarsDocs' TDeploy example writes
``isTaf``, from the days of TAF), and the names the CRDs read."""


def unknown_field(name: object) -> str:
    """The message of a field no schema has: ``unknown field``, with what to write instead when
    ``name`` is a known old spelling."""
    new = OLD_SPELLINGS.get(name) if isinstance(name, str) else None
    return f"unknown field (an old spelling: write {new})" if new else "unknown field"
