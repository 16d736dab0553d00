"""Every file is read through the fast loaders (``AliasFreeLoader``, or ``CachedLoader`` when
the text may hold aliases); they must give exactly what the reference ``YamlLoader`` gives:
the same documents, value types included, and the same error (the first one ``YamlLoader``
meets) for a text it refuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.assertions.same import same

from tars_components.kernel.limits import MAX_DEPTH_CEILING, Limits
from tars_components.kernel.yaml_reader import (
    AliasFreeLoader,
    CachedLoader,
    YamlLimitError,
    YamlLoader,
    describe_yaml_error,
    load_documents,
    may_have_aliases,
)


def _reference(text: str) -> tuple[str, Any]:
    try:
        return "ok", list(yaml.load_all(text, Loader=YamlLoader))
    except yaml.YAMLError as exc:
        return "error", str(exc)


def _fast(text: str) -> tuple[str, Any]:
    try:
        return "ok", load_documents(text)
    except yaml.YAMLError as exc:
        return "error", str(exc)


def _assert_same(text: str) -> None:
    (kind, want), (got_kind, got) = _reference(text), _fast(text)
    assert got_kind == kind, (text, want, got)
    assert same(got, want) if kind == "ok" else got == want, (text, want, got)


# Plain scalars YAML 1.1 resolves to other types, or nearly does.
_TRICKY = [
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "true",
    "False",
    "~",
    "null",
    "",
    "0",
    "-1",
    "012",
    "0x1F",
    "0o17",
    "1_000",
    "1:20",
    "190:20:30",
    "1e3",
    "1.5",
    ".5",
    "-.inf",
    ".NaN",
    "+12",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2002-12-14 21:59:43.10 -5",
    "<<",
    "=",
    "v1.4.0",
    "registry/shop:v1",
    "50%",
    "100%",
    "0.0.0.0",
    "a b",
    "null_",
    "Yes!",
]
_SCALARS = st.one_of(
    st.sampled_from(_TRICKY),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=12),
)
_KEYS = st.one_of(st.sampled_from(_TRICKY), st.text("abcxyz-_.", min_size=1, max_size=6))
_TREES = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_KEYS, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TREES, min_size=1, max_size=3), st.sampled_from([None, False, True]))
def test_any_dumped_tree_reads_as_the_reference_reads_it(
    trees: list[Any], flow: bool | None
) -> None:
    """Trees of tricky scalars written in block, flow and mixed style, one or more documents;
    the dumper quotes what must stay a string, so the plain scalars are resolved by type."""
    text = yaml.safe_dump_all(trees, default_flow_style=flow, sort_keys=False)
    _assert_same(text)
    # the same text with every quote dropped: the tricky scalars are resolved again
    _assert_same(text.replace("'", ""))


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a key given twice: refused
        "a: {b: 1, b: 2}\nc: 3\nc: 4\n",  # two errors: the one YamlLoader meets first
        "x: [{k: 1, k: 2}]\nx: 1\n",
        "1: a\n1: b\n",  # a non-string key given twice: PyYAML keeps the last
        "true: a\n1: b\n",  # True == 1: two keys for YAML, one for Python
        "base: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  y: 3\n",  # merge key
        "a: &x [1, 2]\nb: *x\nc: *x\n",  # an alias used twice
        "a: !!str 12\nb: !!int '7'\nc: !!float 1\nd: !!binary aGVsbG8=\n",  # tags
        "s: !!set {a, b}\no: !!omap [{a: 1}, {b: 2}]\np: !!pairs [{a: 1}, {a: 2}]\n",
        "? [a, b]\n: complex key\n",  # an unhashable key: refused
        "? {a: 1}\n: complex key\n",
        "t: 2001-12-14t21:59:43.10-05:00\nd: 2002-12-14\n",  # timestamps stay text
        "---\n...\n---\na: 1\n--- ~\n",  # empty and null documents
        "a: !custom x\n",  # an unknown tag: refused
        "a: *missing\n",  # an undefined alias: refused
        "a: 1\n b: 2\n",  # a syntax error
        "&a [*a]\n",  # a recursive alias: built (and refused by the alias check)
        "\ufeff&a [*a]\n",  # the same after a byte order mark
        "[? &k key, ?*k : v]\n",  # an anchor and an alias right after a flow key indicator
        "!!map []\n",  # a tagged collection of the wrong kind: refused
        "!!set []\n",
        "!!map ''\n",
        "a: &x 1\nb: *x\nc: !!map []\n",
        "a: !!int x\n",  # a value its tag does not admit: refused at its line
        "a: !!bool maybe\n",
        "a: !!float y\n",
        "a: !!int x\na: 1\n",  # two errors, met in another order by the fast loaders
        "a: !!bool maybe\na: 2\n",
        "a: !!int x\n<<: 5\n",
        "a: {b: !!int x}\nc: !foo y\n",
        "a: &x 1\nb: *x\nc: !!int x\nc: 2\n",
        "k: &v value\n",  # an anchor without alias
        "quoted: \"yes\"\nplain: yes\nsingle: '1'\nblock: |\n  1\nfolded: >\n  yes\n",
    ],
)
def test_edge_texts_read_as_the_reference_reads_them(text: str) -> None:
    if "&a [*a]" in text:  # the product refuses it by the alias check, the reference builds it
        assert may_have_aliases(text)
        with pytest.raises(YamlLimitError, match="refers to its own ancestor"):
            load_documents(text)
        return
    _assert_same(text)


@pytest.mark.parametrize(
    "text",
    [
        "{1: " + "[" * 250 + "]" * 250 + "}\n",  # a non-string key over deep nesting
        "{1: " + "{a: " * 390 + "x" + "}" * 390 + "}\n",
        "- " * 390 + "x\n",
    ],
    ids=["flow-lists-under-an-int-key", "flow-maps-under-an-int-key", "block-lists"],
)
def test_nesting_the_limits_allow_reads_as_the_reference_reads_it(text: str) -> None:
    """Up to the highest ``--max-depth`` (400 levels), the fast loaders never hit Python's
    recursion limit where the reference (breadth first) does not (a non-string key is then
    refused by both, with the same error)."""
    limits = Limits(max_depth=MAX_DEPTH_CEILING)
    assert _outcome(lambda: load_documents(text, limits)) == _outcome(
        lambda: list(yaml.load_all(text, Loader=YamlLoader))
    )


def _outcome(read: Callable[[], list[Any]]) -> Any:
    try:
        return read()
    except yaml.YAMLError as exc:
        return describe_yaml_error(exc)


def test_a_value_its_tag_does_not_admit_is_a_yaml_error_with_its_line() -> None:
    with pytest.raises(yaml.YAMLError) as raised:
        load_documents("a: 1\nb: !!int twelve\n")
    line, message = describe_yaml_error(raised.value)
    assert (line, message) == (2, "a value tagged !!int is not an integer")


def test_the_fast_loaders_have_no_path_resolvers() -> None:
    """Their resolvers skip the per-node path bookkeeping and cache plain scalars' tags by
    value: both hold only without path resolvers (PyYAML's ``add_path_resolver``)."""
    for loader in (CachedLoader, AliasFreeLoader, YamlLoader):
        assert not loader.yaml_path_resolvers


def test_the_tag_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CachedLoader, "_MAX_TAGS", 8)
    monkeypatch.setattr(CachedLoader, "_tags", {})
    text = "".join(f"k{i}: v{i}\n" for i in range(100))
    assert load_documents(text) == [{f"k{i}": f"v{i}" for i in range(100)}]
    assert len(CachedLoader._tags) <= 8
