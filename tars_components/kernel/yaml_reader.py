"""The hardened YAML reader.

Reading uses the libyaml C loader when present and keeps timestamps as strings
(``release.time`` is a string in the CRD, and a datetime would not round-trip); a duplicate
key is an error.

Reading hostile text is bounded (:class:`~tars_components.kernel.limits.Limits`,
:func:`load_documents`): nesting depth and alias expansion are checked before or right after
parsing, file and stack sizes by the loader before reading. The checks cost nothing
measurable on ordinary files: the depth check is a bracket count and one regular-expression
scan proving an upper bound, and only a file whose bound is above the limit is walked event
by event; the alias check runs only on files with both an anchor and an alias.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.events import CollectionEndEvent, CollectionStartEvent

from .limits import LIMIT_NAMES, Limits

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that keeps YAML timestamps as plain strings."""


YamlLoader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda loader, node: loader.construct_scalar(node),
)


_KINDS_OF_TAG = {
    "int": "an integer",
    "float": "a number",
    "bool": "a boolean",
    "null": "null",
    "map": "a mapping",
    "seq": "a list",
    "str": "a string",
    "timestamp": "a timestamp",
}


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:")


def _tag_problem(node: yaml.Node) -> yaml.constructor.ConstructorError:
    """The error for a value its tag does not admit (``!!int hunter2``, ``!!map [a]``,
    ``!!int ""``): at the node, naming the tag and never the value (it may be a secret)."""
    tag = str(node.tag)
    name = tag.removeprefix("tag:yaml.org,2002:")
    wanted = _KINDS_OF_TAG.get(name, "a value of that type")
    return yaml.constructor.ConstructorError(
        None, None, f"a value tagged {_short_tag(tag)} is not {wanted}", node.start_mark
    )


def _reported(constructor: Any) -> Any:
    """``constructor``, raising a ConstructorError at the node for a value its tag does not
    admit: PyYAML raises a bare ValueError, KeyError, TypeError or IndexError for ``!!int x``,
    ``!!bool maybe``, ``!!int ""`` or ``!!map [a]`` (in a constructor that yields, while the
    rest of the value is filled in)."""

    def construct(loader: Any, node: yaml.Node) -> Any:
        try:
            made = constructor(loader, node)
        except yaml.YAMLError:
            raise
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            raise _tag_problem(node) from None
        if isinstance(made, Iterator):
            return _reported_steps(made, node)
        return made

    return construct


def _reported_steps(steps: Iterator[Any], node: yaml.Node) -> Iterator[Any]:
    try:
        yield from steps
    except yaml.YAMLError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        raise _tag_problem(node) from None


_REFUSED_TAGS = {
    "tag:yaml.org,2002:binary": "write the base64 text as a plain string",
    "tag:yaml.org,2002:set": "write a list",
    "tag:yaml.org,2002:omap": "write a mapping",
    "tag:yaml.org,2002:pairs": "write a mapping",
}
"""Tags that build what no Kubernetes object holds (bytes, a set, pairs): refused, with what
to write instead."""


def _refused(loader: Any, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"{_short_tag(str(node.tag))} values are not supported: {_REFUSED_TAGS[str(node.tag)]}",
        node.start_mark,
    )


for _tag, _constructor in list(yaml.SafeLoader.yaml_constructors.items()):
    if _tag in _REFUSED_TAGS:
        YamlLoader.add_constructor(_tag, _refused)
    elif _tag is not None and _tag != "tag:yaml.org,2002:timestamp":
        YamlLoader.add_constructor(_tag, _reported(_constructor))


DUPLICATE_KEY = "duplicate key: the key on this line is already in this mapping"
"""The message of a duplicate key. The key itself is not quoted: a key may be a value written
in the wrong place (a password as a key), and the line says which one it is."""
_NOT_A_STRING_KEY = (
    "a mapping key must be a string: YAML reads an unquoted 1, 1.5, yes, no, on, off, true, "
    'false, ~ or null as a number, boolean or null; quote the key ("1")'
)


def _construct_unique_mapping(loader: Any, node: yaml.MappingNode, deep: bool = False) -> Any:
    """Mappings reject a key given twice, as kubectl does (PyYAML keeps the last silently),
    and a key that is not a string (``1:``, ``yes:``, ``~:``: JSON and Kubernetes objects have
    string keys only)."""
    if not isinstance(node, yaml.MappingNode):
        raise _tag_problem(node)
    seen: set[str] = set()
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.tag.endswith(":str"):
            if key_node.value in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    DUPLICATE_KEY,
                    key_node.start_mark,
                )
            seen.add(key_node.value)
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep)
    if not all(isinstance(key, str) for key in mapping):
        bad = next(
            (k for k, _ in node.value if not isinstance(k, yaml.ScalarNode) or k.tag != _STR_TAG),
            node,
        )
        raise yaml.constructor.ConstructorError(None, None, _NOT_A_STRING_KEY, bad.start_mark)
    return mapping


_STR_TAG = "tag:yaml.org,2002:str"


YamlLoader.construct_mapping = _construct_unique_mapping


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


def _duplicate_key(node: yaml.Node, key_node: yaml.Node) -> Exception:
    return yaml.constructor.ConstructorError(
        "while constructing a mapping",
        node.start_mark,
        DUPLICATE_KEY,
        key_node.start_mark,
    )


class CachedLoader(YamlLoader):
    """:class:`YamlLoader`, giving the same documents and errors at a lower cost: a plain
    scalar's tag comes from a cache shared by every text (it depends on the value only, and
    a stack or an export repeats its keys and values thousands of times), and a mapping's
    string keys and string values are taken as they are (the rest is constructed as usual)."""

    _tags: dict[str, str] = {}
    _MAX_TAGS = 1 << 16  # then the cache starts afresh: a bounded memory for any input

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """The tag of a node, as YAML resolves it (a plain scalar's from the cache)."""
        if kind is yaml.ScalarNode and implicit[0]:
            tags = CachedLoader._tags
            tag = tags.get(value)
            if tag is None:
                if len(tags) >= self._MAX_TAGS:
                    tags.clear()
                tag = tags[value] = super().resolve(kind, value, implicit)
            return tag
        return super().resolve(kind, value, implicit)

    def descend_resolver(self, _current_node: Any, _current_index: Any) -> None:
        """Nothing: path resolvers are never added to these loaders (the parser calls this
        for every node)."""

    def ascend_resolver(self) -> None:
        """Nothing (see :meth:`descend_resolver`)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping of ``node``; a string key given twice is an error."""
        if type(node) is not yaml.MappingNode:  # e.g. !!map [] or !!set '': its own error
            refused: dict[Any, Any] = super().construct_mapping(node, deep)
            return refused
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not yaml.ScalarNode or key_node.tag != _STR:
                # merge, tagged or complex keys: the general path, which finds the same errors
                result: dict[Any, Any] = super().construct_mapping(node, deep)
                return result
            key = key_node.value
            if key in mapping:
                raise _duplicate_key(node, key_node)
            if type(value_node) is yaml.ScalarNode and value_node.tag == _STR:
                mapping[key] = value_node.value
            else:
                mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


class AliasFreeLoader(CachedLoader):
    """:class:`CachedLoader` for a text without aliases (every node is used once): a document
    is built in one recursive walk, its depth bounded by the nesting check that ran before,
    with PyYAML's constructors only for tagged or non-string scalars."""

    def construct_document(self, node: yaml.Node) -> Any:
        """The document of ``node``."""
        data = self._build(node)
        empty: dict[Any, Any] = {}
        self.constructed_objects = empty
        self.recursive_objects = dict(empty)
        self.deep_construct = False
        return data

    def _build(self, node: yaml.Node) -> Any:
        kind = type(node)
        if kind is yaml.ScalarNode:
            if node.tag == _STR:
                return node.value
            return self.construct_object(node, deep=True)
        if kind is yaml.SequenceNode and node.tag == _SEQ:
            return [self._build(item) for item in node.value]
        if kind is not yaml.MappingNode or node.tag != _MAP:
            return self.construct_object(node, deep=True)
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if type(key_node) is not yaml.ScalarNode or key_node.tag != _STR:
                return self.construct_object(node, deep=True)  # as in CachedLoader
            key = key_node.value
            if key in mapping:
                raise _duplicate_key(node, key_node)
            mapping[key] = self._build(value_node)
        return mapping


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
# So a file's nesting is at most 2 * (longest such run + 1) + its count of [ and {; an empty
# pair ([] or {}: a live export's managedFields holds thousands) holds nothing, so all of them
# together add at most one level.
_ANCHOR = re.compile(r"(?:^|[\s,\[\]{}:?\ufeff])&[^\s,\[\]{}]")
_ALIAS = re.compile(r"(?:^|[\s,\[\]{}:?\ufeff])\*[^\s,\[\]{}]")


def _nesting_bound_within(text: str, limit: int) -> bool:
    """True when the cheap upper bound on the nesting of ``text`` is at most ``limit``."""
    if _has_other_line_breaks(text):  # a lone CR, NEL, LS and PS break lines too; after a BOM
        text = _OTHER_BREAKS.sub("\n", text)  # a line starts afresh
    flow = _openers(text)
    if flow >= limit:  # a flow collection never spans a document marker: count per document
        flow = max(_openers(part) for part in _DOCUMENT_MARKER.split(text))
        if flow >= limit:
            return False
    run = (limit - flow) // 2
    if run < 1:
        return False
    first_line, other_lines = _line_starts(run)
    return first_line.match(text) is None and other_lines.search(text) is None


def _openers(text: str) -> int:
    """How many levels the flow collections of ``text`` can nest at most: its ``[`` and ``{``,
    the empty pairs counted once together."""
    empty = text.count("[]") + text.count("{}")
    return text.count("[") + text.count("{") - empty + (1 if empty else 0)


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
                mark = event.start_mark
                raise YamlLimitError(
                    _too_deep_message(max_depth), line=mark.line + 1 if mark else None
                )
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
    """Every document of ``text`` within ``limits``, exactly as :class:`YamlLoader` parses it
    (same documents, same first error), through the faster :class:`AliasFreeLoader` (or
    :class:`CachedLoader` when the text may hold aliases).

    Raises :class:`YamlLimitError` beyond a limit (the text is not parsed when too deep) and
    ``yaml.YAMLError`` for invalid YAML.
    """
    limits = limits or Limits()
    check_nesting(text, limits.max_depth)
    aliases = may_have_aliases(text)
    try:
        try:
            documents = list(
                yaml.load_all(text, Loader=CachedLoader if aliases else AliasFreeLoader)
            )
        except Exception:
            # Whatever stopped the fast loaders (they build depth first, YamlLoader breadth
            # first, so of two errors they may meet the other one; deep nesting under a key
            # they leave to PyYAML's recursive constructor), YamlLoader decides: the same
            # documents or the same first error. Errors are rare: parse again, and check the
            # aliases whatever the scan for them said.
            documents = list(yaml.load_all(text, Loader=YamlLoader))
            aliases = True
    except yaml.YAMLError as exc:
        if is_parser_nesting_error(exc):  # the parser's limit is above ours: never expected
            raise _too_deep(limits.max_depth, exc) from None
        raise
    if aliases:
        check_aliases(documents, text, limits)
    return documents
