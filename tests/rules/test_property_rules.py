"""Property tests: random edits of valid documents never crash loading or the rules.

Whatever the edit (a dropped key, a value of another type, a random string or number, a
duplicated list entry, an extra key, a value wrapped in a list or mapping), ``load_texts``
either raises :class:`LoadError` or returns a stack, and then ``validate`` returns violations
with known codes and file locations, the same before and after mutation, and
``validate_change`` works against the unedited stack in both directions.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.builders.edits import INTERESTING, OPS, SEEDS, all_paths, edit, put, values
from support.builders.rules import base_docs, template

from tars_components.kernel.errors import LoadError, Violation
from tars_components.kernel.registry import WARNING
from tars_components.loading.document_set import DocumentSet
from tars_components.loading.load import load_texts
from tars_components.mutation import mutate
from tars_components.rules import RULES, validate, validate_change

FILE = "stack.yaml"
NS = "tars-dev"


def random_document(data: st.DataObject) -> Any:
    doc = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        path = data.draw(st.sampled_from(all_paths(doc)))
        doc = edit(doc, path, data.draw(st.sampled_from(OPS)), data)
    return doc


def unedited() -> DocumentSet:
    templates = [template("tars.default"), template("tars.cpp", "tars.default")]
    return load_texts({FILE: yaml.safe_dump_all([*templates, *SEEDS])}, namespace=NS)


def check_stack(stack: DocumentSet) -> list[Violation]:
    found = validate(stack)
    for v in found:
        assert v.code in RULES
        rule = RULES[v.code]
        assert v.severity is rule.severity or (rule.also_warning and v.severity is WARNING)
        assert v.file == FILE and v.line is not None and v.line >= 1, v.format()
        assert v.format().startswith(f"{FILE}:{v.line}: {v.code} ")
    assert validate(mutate(stack)) == found
    return found


def test_unedited_seeds_are_valid() -> None:
    assert validate(unedited()) == []


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_random_edits_never_crash(data: st.DataObject) -> None:
    docs = [random_document(data) for _ in range(data.draw(st.integers(1, 2)))]
    extra = data.draw(st.sampled_from([[], base_docs(), SEEDS]))
    text = yaml.safe_dump_all([*extra, *docs], sort_keys=False)
    try:
        stack = load_texts({FILE: text}, namespace=NS)
    except LoadError as exc:
        assert exc.problems and all(p.file == FILE for p in exc.problems)
        return
    check_stack(stack)
    before = unedited()
    for v in validate_change(before, stack) + validate_change(stack, before):
        assert RULES[v.code].change


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_random_edits_of_one_field_at_a_time(data: st.DataObject) -> None:
    """Single edits keep most of the document valid, so the rules (not the schema) see it."""
    doc = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
    path = data.draw(st.sampled_from([p for p in all_paths(doc) if len(p) >= 2]))
    doc = put(doc, path, data.draw(st.one_of(st.sampled_from(INTERESTING), values)))
    text = yaml.safe_dump_all([*base_docs(), doc], sort_keys=False)
    try:
        stack = load_texts({FILE: text}, namespace=NS)
    except LoadError:
        return
    check_stack(stack)
