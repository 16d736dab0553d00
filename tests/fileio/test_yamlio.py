"""The YAML writer: same text as PyYAML's block style, and always loads back to the same data."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from tars_components.fileio.yaml_writer import dump, looks_typed
from tars_components.loading.load import load_stack
from tars_components.pipeline import crd_documents, expand
from tars_components.settings.options import Options

ROOT = Path(__file__).resolve().parents[2]


def _pyyaml(obj: object) -> str:
    return yaml.dump(
        obj,
        Dumper=yaml.CSafeDumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )


def _yaml12() -> Any:
    """A YAML 1.2 reader (core schema), as Go and newer tools read."""
    reader = YAML(typ="safe", pure=True)
    reader.version = (1, 2)
    return reader


def test_rendered_objects_are_written_exactly_as_pyyaml_writes_them() -> None:
    stack = load_stack(ROOT / "stacks" / "dev", "tars-dev")
    objects = expand(stack, Options(namespace="tars-dev"))
    single_line = [o for o in crd_documents(stack) if "\n" not in str(o)]
    assert objects and single_line
    for obj in [*objects, *single_line]:
        assert dump(obj) == _pyyaml(obj)


def test_multi_line_strings_load_back() -> None:
    obj = {"content": "<tars>\n  <a>\n</tars>\n", "x": ["a\nb"]}
    assert yaml.safe_load(dump(obj)) == obj


def test_strings_that_look_like_other_types_stay_strings() -> None:
    values = [
        "2",
        " ",
        "",
        "yes",
        "No",
        "ON",
        "null",
        "~",
        "1.5",
        "0x1F",
        "1:30",
        "2022-03-01",
        "2022-03-01T08:00:00Z",
        "-",
        "- a",
        "a: b",
        "#x",
        "a #b",
        "@x",
        "`x",
        "!x",
        "*x",
        "&x",
        "[x]",
        "{x}",
        "'q'",
        '"q"',
        "%x",
        "x ",
        " x",
        ".inf",
        "=",
        "<<",
    ]
    obj = {v: v for v in values}
    assert yaml.safe_load(dump(obj)) == obj
    assert dump(obj) == _pyyaml(obj)


# Strings PyYAML writes bare (YAML 1.1 reads them as strings) but that YAML 1.2 readers
# (ruamel.yaml) or Go's (go-yaml through sigs.k8s.io/yaml: kubectl, helm, client-go) read as
# numbers or booleans: kubectl apply would refuse an env value of 1.5e3.
OTHER_READERS_TYPED = [
    "1e6",
    "1.5e3",
    "2e10",
    "1E+3",
    "0o22",
    "0O17",
    "+0o7",
    "089",
    "+inf",
    "-Infinity",
    "+INF",
    "0x1p-2",
    "-0x1.8P3",
    "1_0e1_0",
    "+.5",
    "y",
    "Y",
    "n",
    "N",
]


@pytest.mark.parametrize("value", OTHER_READERS_TYPED)
def test_strings_other_readers_take_for_numbers_or_booleans_are_quoted(value: str) -> None:
    assert _pyyaml({"k": value}) == f"k: {value}\n"  # what PyYAML alone would write
    assert looks_typed(value)
    text = dump({"env": value})
    assert text == f"env: '{value}'\n"
    assert yaml.safe_load(text) == {"env": value}
    assert _yaml12().load(text) == {"env": value}


@pytest.mark.parametrize(
    "value", ["v1.0", "1.2.3", "10.0.0.1", "1-2", "1e", "e1", "a1e3", "0x", "1.5e3x", "nan"]
)
def test_strings_every_reader_takes_for_strings_stay_bare(value: str) -> None:
    assert not looks_typed(value)
    assert dump({"k": value}) == f"k: {value}\n"


@pytest.mark.parametrize("value", ["x\u2028y", "x\u2029", "a\x85b", "a\nb\u2028c", "d\x7fe\n"])
def test_line_breaks_yaml_12_does_not_know_are_escaped(value: str) -> None:
    """YAML 1.1 (PyYAML, go-yaml) takes NEL, LS and PS for line breaks, YAML 1.2 does not: a
    raw one inside a quoted scalar would be folded by one reader and kept by the other."""
    text = dump({"k": value})
    assert not any(mark in text for mark in ("\x85", "\u2028", "\u2029", "\x7f"))
    assert text.count("\n") == 1
    assert yaml.safe_load(text) == {"k": value}
    assert _yaml12().load(text) == {"k": value}


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.text(max_size=12),
    st.sampled_from(["yes", "null", "1e3", "0o17", "12:30:00", "tars.io/active", " "]),
)
data = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), data, min_size=1, max_size=5))
def test_any_plain_data_round_trips(obj: dict) -> None:
    assert yaml.safe_load(dump(obj)) == obj


numeric_looking = st.text(alphabet="0123456789._-+eExXoObBpPiInNfFaAyY:~ \u2028\x85", max_size=8)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(numeric_looking, numeric_looking, min_size=1, max_size=6))
def test_yaml_12_reads_what_pyyaml_reads(obj: dict[str, str]) -> None:
    """Strings made of the characters numbers, booleans and line breaks are made of come back
    as the same strings through a YAML 1.1 and a YAML 1.2 reader."""
    text = dump(obj)
    assert yaml.safe_load(text) == obj
    assert _yaml12().load(text) == obj


@pytest.mark.parametrize(
    "value", ["1" * 50_000 + "x", "1_" * 25_000 + "e", "0x" + "f" * 50_000 + "."]
)
def test_long_number_like_strings_are_decided_in_linear_time(value: str) -> None:
    """A 50 KB env value made of digits must not stall a render (no backtracking blow-up)."""
    started = time.perf_counter()
    assert not looks_typed(value)
    assert time.perf_counter() - started < 0.5
