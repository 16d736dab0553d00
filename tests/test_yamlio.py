"""The YAML writer: same text as PyYAML's block style, and always loads back to the same data."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tars_components.expansion import crd_documents, expand
from tars_components.loader import load_stack
from tars_components.options import Options
from tars_components.yamlio import dump

ROOT = Path(__file__).resolve().parent.parent


def _pyyaml(obj: object) -> str:
    return yaml.dump(
        obj,
        Dumper=yaml.CSafeDumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )


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
        "y",
        "=",
        "<<",
    ]
    obj = {v: v for v in values}
    assert yaml.safe_load(dump(obj)) == obj
    assert dump(obj) == _pyyaml(obj)


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
