"""The loader reads a Rollout in its common shape without the pydantic model (a fast path for
large stacks); whatever the document, that path may only ever give exactly what the model
gives: the same Rollout, and never accept what the model refuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tars_components.loading import rollout
from tars_components.loading.rollout import Rollouts

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=120),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(["", "1", "50%", "100%", "101%", "0%", "05%", "v1", "x" * 70, "é1"]),
    st.text(max_size=8),
)
IDS = st.one_of(
    st.sampled_from(["v1.4.0", "v1", "V1", "1.0-rc1", "", "v 1", "ü1", "a" * 63, "a" * 64]),
    SCALARS,
)
IMAGES = st.one_of(
    st.sampled_from(
        [
            "registry.example.com/shop/orderserver:v1.4.0",
            "registry/shop.orderserver:v1.4.0",
            "Registry/Shop:v1",
            "reg.example.com/a@sha256:" + "a" * 64,
            "img:tag with space",
            "r/" + "x" * 600,
        ]
    ),
    SCALARS,
)
STEP_VALUES = st.one_of(
    st.integers(min_value=-2, max_value=200),
    st.sampled_from(["1%", "50%", "100%", "150%", "1000%", "x%", "5", True, 1.5]),
)


FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "steps": st.one_of(st.lists(STEP_VALUES, max_size=4), SCALARS),
    "step": st.one_of(st.integers(min_value=-3, max_value=5), SCALARS),
    "stable.id": IDS,
    "stable.image": IMAGES,
    "stable": st.one_of(
        SCALARS, st.just({"id": "v1"}), st.just({"id": "v1", "image": "r/x:v1", "x": 1})
    ),
    "abort": st.one_of(st.booleans(), SCALARS),
    "stopped": st.one_of(st.lists(st.integers(min_value=-1, max_value=100), max_size=4), SCALARS),
    "maxUnavailable": st.one_of(
        st.integers(min_value=-1, max_value=5), st.sampled_from(["25%", "x", "0%"]), SCALARS
    ),
    "spec.extra": st.sampled_from(["Steps", "stable_id", "paused"]),
    "metadata": st.sampled_from(["namespace", "labels", "annotations", "uid"]),
    "extra": st.sampled_from(["status", "extra"]),
}


@st.composite
def rollout_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A valid Rollout with up to two of its fields replaced by any value (most documents are
    then valid but for one field, where the two paths could disagree)."""
    spec: dict[str, Any] = {
        "steps": [1, "50%", "100%"],
        "step": draw(st.integers(0, 3)),
        "stable": {"id": "v1.4.0", "image": "registry/shop.orderserver:v1.4.0"},
    }
    doc: dict[str, Any] = {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": draw(st.sampled_from(["shop-orderserver", "a-b", "A_b"]))},
        "spec": spec,
    }
    for field in draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=2, unique=True)):
        value = draw(FIELDS[field])
        if field.startswith("stable."):
            if isinstance(spec.get("stable"), dict):
                spec["stable"][field.removeprefix("stable.")] = value
        elif field == "spec.extra":
            spec[value] = 1
        elif field == "metadata":
            doc["metadata"][value] = draw(st.one_of(SCALARS, st.just({"a": "b"})))
        elif field == "extra":
            doc[value] = {"x": 1}
        elif draw(st.integers(0, 9)) == 0:
            spec.pop(field, None)  # the field left out
        else:
            spec[field] = value
    return doc


def _read(doc: dict[str, Any], fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(rollout, "_plain_rollout", lambda *args: None)
        collector = Rollouts()
        violations = collector.read(doc, None, "tars-dev")
    return collector.rollouts, [(v.code, v.field) for v in violations]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rollout_documents())
def test_the_fast_path_gives_exactly_what_the_model_gives(doc: dict[str, Any]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _read(doc, True, monkeypatch) == _read(doc, False, monkeypatch)


def test_the_common_shape_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {
        "apiVersion": "tars-components.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": "shop-orderserver"},
        "spec": {
            "steps": [1, "50%", "100%"],
            "step": 0,
            "stable": {"id": "v1.4.0", "image": "registry/shop.orderserver:v1.4.0"},
        },
    }
    assert rollout._plain_rollout(doc, "tars-dev", None) is not None
    assert _read(doc, True, monkeypatch) == _read(doc, False, monkeypatch)
