"""YAML reading and writing.

Reading uses the libyaml C loader when present and keeps timestamps as strings
(``release.time`` is a string in the CRD, and a datetime would not round-trip).

Reading hostile text is bounded (:class:`Limits`, :func:`load_documents`): nesting depth and
alias expansion are checked before or right after parsing, file and stack sizes by the loader
before reading. The checks cost nothing measurable on ordinary files: the depth check is a
bracket count and one regular-expression scan proving an upper bound, and only a file whose
bound is above the limit is walked event by event; the alias check runs only on files with
both an anchor and an alias.

Writing goes through :func:`dump`, a small block-style emitter for plain data (mappings with
string keys, lists, strings, numbers, booleans, None). For such data it writes the same text as
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

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.events import CollectionEndEvent, CollectionStartEvent

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


MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Bounds on what a stack may ask of the loader, in the spirit of the Kubernetes API
    server's own (3 MiB requests, etcd's 1.5 MiB objects); each is a CLI flag and a ``tars:*``
    config key.

    * ``max_file_bytes``: size of one file (``--max-file-size``, ``tars:maxFileSize``).
      Defaults to 16 MiB.
    * ``max_stack_bytes``: total size of a stack's files (``--max-stack-size``,
      ``tars:maxStackSize``). Defaults to 64 MiB: a render needs about 40 bytes of memory per
      byte of YAML, so about 2.6 GB at the limit.
    * ``max_depth``: nesting of mappings and lists, aliases expanded (``--max-depth``,
      ``tars:maxDepth``). Defaults to 100 levels; at most :data:`MAX_DEPTH_CEILING`.
    * ``max_alias_expansion``: how many times its own text a file may grow when its aliases are
      expanded (``--max-alias-expansion``, ``tars:maxAliasExpansion``). Defaults to 10.
    """

    max_file_bytes: int = 16 * MIB
    max_stack_bytes: int = 64 * MIB
    max_depth: int = 100
    max_alias_expansion: int = 10


MAX_DEPTH_CEILING = 400
"""The deepest nesting a stack may be allowed: the loader recurses once per level, and
Python's recursion limit (1,000 frames) is reached near 500 levels."""

LIMIT_NAMES = {
    "max_file_bytes": ("--max-file-size", "tars:maxFileSize"),
    "max_stack_bytes": ("--max-stack-size", "tars:maxStackSize"),
    "max_depth": ("--max-depth", "tars:maxDepth"),
    "max_alias_expansion": ("--max-alias-expansion", "tars:maxAliasExpansion"),
}
"""Each limit's CLI flag and config key, as messages name them."""

_SIZE = re.compile(r"(\d+)\s*(Ki|Mi|Gi|KiB|MiB|GiB|k|K|M|G|kB|KB|MB|GB|B)?\Z")
_SIZE_UNITS = {
    None: 1,
    "B": 1,
    "Ki": 1024,
    "KiB": 1024,
    "Mi": MIB,
    "MiB": MIB,
    "Gi": 1024 * MIB,
    "GiB": 1024 * MIB,
    "k": 1000,
    "K": 1000,
    "kB": 1000,
    "KB": 1000,
    "M": 1000**2,
    "MB": 1000**2,
    "G": 1000**3,
    "GB": 1000**3,
}


def parse_size(value: str | int) -> int:
    """A size in bytes: ``16777216``, ``16Mi``, ``16MiB``, ``512Ki``, ``20M`` (decimal).

    Raises ValueError for anything else, and for zero.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a size such as 16Mi, got {value!r}")
    match = _SIZE.match(str(value).strip())
    if match is None:
        raise ValueError(f"expected a size such as 16Mi or 16777216 (bytes), got {value!r}")
    size = int(match.group(1)) * _SIZE_UNITS[match.group(2)]
    if size < 1:
        raise ValueError(f"must be at least 1 byte, got {value!r}")
    return size


def format_size(size: int) -> str:
    """``16 MiB`` for a whole number of units, else exact: ``1,536 bytes``."""
    for unit, factor in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"


class YamlLimitError(Exception):
    """A file beyond one of the :class:`Limits`: ``line`` (1-based) where known, else
    ``document`` (0-based index in the file) where known."""

    def __init__(self, message: str, line: int | None = None, document: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.document = document


# Flow collections open with [ or {; block collections open at a column no larger than the
# run of spaces and indicators (- ? :) starting their line, and each nested block collection
# sits at a larger column than its parent, except a list under a mapping key (same column).
# So a file's nesting is at most 2 * (longest such run + 1) + its count of [ and {.
_ANCHOR = re.compile(r"(?:^|[\s,\[\]{}:])&[^\s,\[\]{}]")
_ALIAS = re.compile(r"(?:^|[\s,\[\]{}:])\*[^\s,\[\]{}]")


def _nesting_bound_within(text: str, limit: int) -> bool:
    """True when the cheap upper bound on the nesting of ``text`` is at most ``limit``."""
    if _has_other_line_breaks(text):  # a lone CR, NEL, LS and PS break lines too; after a BOM
        text = _OTHER_BREAKS.sub("\n", text)  # a line starts afresh
    flow = text.count("[") + text.count("{")
    if flow >= limit:  # a flow collection never spans a document marker: count per document
        flow = max(part.count("[") + part.count("{") for part in _DOCUMENT_MARKER.split(text))
        if flow >= limit:
            return False
    run = (limit - flow) // 2
    if run < 1:
        return False
    first_line, other_lines = _line_starts(run)
    return first_line.match(text) is None and other_lines.search(text) is None


_DOCUMENT_MARKER = re.compile(r"\n(?:---|\.\.\.)(?=[ \t\n]|\Z)")
_OTHER_BREAKS = re.compile("\r\n?|[\x85\u2028\u2029\ufeff]")


def _has_other_line_breaks(text: str) -> bool:
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return True
    return any(mark in text for mark in ("\x85", "\u2028", "\u2029", "\ufeff"))


@functools.lru_cache(maxsize=64)
def _line_starts(run: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns of ``run`` spaces and block indicators at the start of the text, and after a
    line break (a literal first character, so the search is a fast scan for line breaks)."""
    indent = rf"[ \t?:-]{{{run}}}"
    return re.compile(indent), re.compile(rf"\n{indent}")


def check_nesting(text: str, max_depth: int) -> None:
    """Raise :class:`YamlLimitError` (with the line) when ``text`` nests mappings and lists
    deeper than ``max_depth``. Never builds the nodes, so any depth is safe to check; a YAML
    syntax error met on the way is raised as ``yaml.YAMLError``."""
    if _nesting_bound_within(text, max_depth):
        return
    try:
        _walk_nesting(text, max_depth, YamlLoader)
    except yaml.YAMLError as exc:
        if not is_parser_nesting_error(exc):
            raise
        # libyaml's own nesting limit (PyYAML >= 6.0.4: 1,000 levels), met while its scanner
        # looks ahead of the events: the pure-Python parser has none, and finds where the
        # nesting crosses ours.
        _walk_nesting(text, max_depth, yaml.SafeLoader)
        raise _too_deep(max_depth, exc) from None


def _walk_nesting(text: str, max_depth: int, loader: Any) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                raise YamlLimitError(_too_deep_message(max_depth), line=event.start_mark.line + 1)
        elif isinstance(event, CollectionEndEvent):
            depth -= 1


def _too_deep_message(max_depth: int) -> str:
    flag, key = LIMIT_NAMES["max_depth"]
    return f"nesting deeper than {max_depth} levels (limit: {flag}, {key})"


def _too_deep(max_depth: int, exc: yaml.YAMLError) -> YamlLimitError:
    line, _ = describe_yaml_error(exc)
    return YamlLimitError(_too_deep_message(max_depth), line=line)


def is_parser_nesting_error(exc: yaml.YAMLError) -> bool:
    """True for the YAML parser's own nesting limit (libyaml's ``exceeded maximum nesting
    depth``, PyYAML >= 6.0.4), which the product reports as its own ``--max-depth``."""
    return "nesting depth" in str(getattr(exc, "problem", None) or "")


def describe_yaml_error(exc: yaml.YAMLError) -> tuple[int, str]:
    """``(line, message)`` of a YAML syntax error, on one line: where it was noticed (1-based;
    1 when unknown) and what was being parsed (``mapping values are not allowed here (while
    scanning a simple key at line 3)``), without the parser's ``<unicode string>`` marks."""
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    mark = problem_mark or context_mark
    line = mark.line + 1 if mark is not None else 1
    message = getattr(exc, "problem", None) or " ".join(str(exc).split())
    context = getattr(exc, "context", None)
    if context and context_mark is not None and context_mark is not mark:
        message = f"{message} ({context} at line {context_mark.line + 1})"
    return line, message


def may_have_aliases(text: str) -> bool:
    """False when ``text`` certainly has no anchor or no alias (most files: then no check)."""
    if "&" not in text or "*" not in text:
        return False
    return _ANCHOR.search(text) is not None and _ALIAS.search(text) is not None


def _children(node: dict[Any, Any] | list[Any]) -> Iterator[Any]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield value
    else:
        yield from node


def expanded_size(document: Any) -> tuple[int, int]:
    """(size, depth) of a loaded document with its aliases expanded, in time linear in the
    distinct nodes: size counts a scalar's characters (at least 1) plus 1 per node, about the
    length of the expanded text. Raises :class:`YamlLimitError` for a recursive alias."""
    if not isinstance(document, (dict, list)):
        return _scalar_size(document), 0
    done: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()
    work: list[tuple[Any, bool]] = [(document, False)]
    while work:
        node, finished = work.pop()
        key = id(node)
        if finished:
            size, depth = 1, 0
            for child in _children(node):
                if isinstance(child, (dict, list)):
                    child_size, child_depth = done[id(child)]
                    size += child_size
                    depth = max(depth, child_depth)
                else:
                    size += _scalar_size(child)
            done[key] = (size, depth + 1)
            open_nodes.discard(key)
            continue
        if key in done:
            continue
        open_nodes.add(key)
        work.append((node, True))
        for child in _children(node):
            if isinstance(child, (dict, list)):
                if id(child) in open_nodes:
                    raise YamlLimitError("an alias refers to its own ancestor (infinite nesting)")
                if id(child) not in done:
                    work.append((child, False))
    return done[id(document)]


def _scalar_size(value: Any) -> int:
    return 1 + (len(value) if isinstance(value, str) else 1)


def check_aliases(documents: list[Any], text: str, limits: Limits) -> None:
    """Raise :class:`YamlLimitError` (with the document's index) when aliases expand the
    documents of ``text`` beyond ``limits.max_alias_expansion`` times the text's length, or
    nest them deeper than ``limits.max_depth``."""
    budget = limits.max_alias_expansion * max(len(text), 1)
    total = 0
    for index, document in enumerate(documents):
        try:
            size, depth = expanded_size(document)
        except YamlLimitError as exc:
            raise YamlLimitError(exc.message, document=index) from None
        total += size
        if total > budget:
            raise YamlLimitError(
                f"aliases expand the file to more than {limits.max_alias_expansion}x its "
                f"{len(text):,} characters (limit: --max-alias-expansion, tars:maxAliasExpansion)",
                document=index,
            )
        if depth > limits.max_depth:
            raise YamlLimitError(
                f"aliases nest the document deeper than {limits.max_depth} levels (limit: "
                "--max-depth, tars:maxDepth)",
                document=index,
            )


def load_documents(text: str, limits: Limits | None = None) -> list[Any]:
    """Every document of ``text``, parsed with :class:`YamlLoader` within ``limits``.

    Raises :class:`YamlLimitError` beyond a limit (the text is not parsed when too deep) and
    ``yaml.YAMLError`` for invalid YAML.
    """
    limits = limits or Limits()
    check_nesting(text, limits.max_depth)
    try:
        documents = list(yaml.load_all(text, Loader=YamlLoader))
    except yaml.YAMLError as exc:
        if is_parser_nesting_error(exc):  # the parser's limit is above ours: never expected
            raise _too_deep(limits.max_depth, exc) from None
        raise
    if may_have_aliases(text):
        check_aliases(documents, text, limits)
    return documents


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
