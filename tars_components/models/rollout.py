"""The ``Rollout`` document (docs/concepts/rollout.md): the canary steps of one TServer.

A stack-only document of the product's own API group (``tars-components.io/v1alpha1``): it is
loaded and checked like the TarsK8S kinds, applied to its TServer before expansion, and never
emitted. This model checks its own fields; what it says about its TServer is checked by the
rules of :mod:`tars_components.rules.rollout`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import Field

from .base import P_IMAGE_REF, P_RELEASE_ID, TarsModel, pattern
from .document import ObjectMeta
from .product import PRODUCT_API_VERSION, ROLLOUT_KIND

ROLLOUT_API_VERSION = PRODUCT_API_VERSION
"""The apiVersion of a Rollout document."""

P_PERCENT = r"^(0|[1-9][0-9]{0,2})%$"
"""A percentage of the replicas: ``"0%"`` to ``"999%"`` (over 100% is a rule error, TP003)."""

_PERCENT = re.compile(P_PERCENT)

StepValue = Any
"""Instances on the new release after a step: a count (an integer, at least 0) or a
percentage of the replicas (:data:`P_PERCENT`, rounded up as OpenKruise does); each item is
checked by :func:`step_problem` (one clear message instead of a union's two)."""


def step_problem(value: Any) -> str | None:
    """Why one item of ``spec.steps`` is not a step (None when it is one)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return f'must be a count (an integer) or a percentage such as "50%", got {value!r}'
    if isinstance(value, int):
        return None if value >= 0 else f"{value} is below the minimum 0"
    if not _PERCENT.fullmatch(value):
        return f'{value!r} is not valid: expected a count or a percentage such as "50%"'
    return None


def max_unavailable_problem(value: Any) -> str | None:
    """Why ``spec.maxUnavailable`` is not a count of at least 1 or a percentage from 1% to
    100% (None when it is one)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return f'must be a count (an integer) or a percentage such as "25%", got {value!r}'
    if isinstance(value, int):
        return None if value >= 1 else f"{value} is below the minimum 1"
    if not _PERCENT.fullmatch(value) or not 1 <= int(value[:-1]) <= 100:
        return f"{value!r} is not valid: expected a count or a percentage from 1% to 100%"
    return None


class Stable(TarsModel):
    """``spec.stable``: the release every instance not yet on the TServer's release runs."""

    id: Annotated[str, pattern(P_RELEASE_ID, 63)]
    image: Annotated[str, pattern(P_IMAGE_REF, 500)]


class RolloutSpec(TarsModel):
    """``spec`` of a Rollout: the steps, the step this stack declares, the stable release and
    whether to abort."""

    steps: Annotated[list[StepValue], Field(min_length=1, max_length=100)]
    step: Annotated[int, Field(ge=0)] = 0
    stable: Stable
    abort: bool = False
    stopped: Annotated[list[Annotated[int, Field(ge=0, le=98)]], Field(max_length=99)] = Field(
        default_factory=list
    )
    """Ordinals of the instances to stop (``kruise``: ``reserveOrdinals``, ``tapp``:
    ``statuses: Killed``); the StatefulSet engine cannot stop one instance (TP014)."""
    max_unavailable: Any = None
    """At most this many instances (a count or a percentage) updating at once, checked by
    :func:`max_unavailable_problem`; expand mode only (TP017)."""


class RolloutDocument(TarsModel):
    """A ``kind: Rollout`` document: ``metadata.name`` is the TServer it drives."""

    KIND: ClassVar[str] = ROLLOUT_KIND

    api_version: str = Field(alias="apiVersion")
    kind: str
    metadata: ObjectMeta
    spec: RolloutSpec
