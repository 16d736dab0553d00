"""The ``Rollout`` document (docs/concepts/rollout.md): the canary steps of one TServer.

A stack-only document of the product's own API group (``tars-components.io/v1alpha1``): it is
loaded and checked like the TarsK8S kinds, applied to its TServer before expansion, and never
emitted. This model checks its own fields; what it says about its TServer is checked by the
rules of :mod:`tars_components.rules.rollout`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import Field

from .base import P_IMAGE_REF, P_RELEASE_ID, TarsModel, pattern
from .document import ObjectMeta, Source
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


class Pause(TarsModel):
    """One item of ``spec.pauses``: after step ``after`` is reached, the Rollout holds. With
    ``seconds``, ``pulumi up`` holds that long once the step's pods are Ready (a soak), then
    the next step may follow; without, the next step waits for approval (``spec.approved``
    at least ``after``)."""

    after: Annotated[int, Field(ge=0)]
    seconds: Annotated[int | None, Field(ge=1, le=86400)] = None


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
    order: Annotated[list[Annotated[int, Field(ge=0, le=98)]] | None, Field(max_length=99)] = None
    """The order in which instances take the TServer's release (TApp engine): the listed
    ordinals first, then the others, highest first (the default order of every engine)."""
    pinned: dict[Annotated[int, Field(strict=False, ge=0, le=98)], Stable] | None = None
    """Instances kept on a release of their own (TApp engine: a third version and more), by
    ordinal (``"0":``, quoted as TApp's ``templates`` keys are): outside the steps, neither
    stable nor the TServer's release."""
    pauses: Annotated[list[Pause], Field(max_length=100)] = Field(default_factory=list)
    """Where the Rollout holds: after a step, until approved or for a while (TP019, TP020)."""
    approved: Annotated[int | None, Field(ge=0)] = None
    """The last step whose approval pause is approved: the steps after it may follow."""


class RolloutDocument(TarsModel):
    """A ``kind: Rollout`` document: ``metadata.name`` is the TServer it drives."""

    KIND: ClassVar[str] = ROLLOUT_KIND

    api_version: str = Field(alias="apiVersion")
    kind: str
    metadata: ObjectMeta
    spec: RolloutSpec


# --- a valid Rollout as the stack holds it, and the arithmetic of its steps ---------------


@dataclass(frozen=True)
class Rollout:
    """One valid Rollout of a stack."""

    namespace: str
    name: str
    """``metadata.name``: the TServer it drives."""
    steps: tuple[int | str, ...]
    step: int
    stable_id: str
    stable_image: str
    abort: bool = False
    source: Source | None = field(default=None, compare=False)
    stopped: tuple[int, ...] = ()
    """Ordinals of the instances to stop, sorted, each once."""
    max_unavailable: int | str | None = None
    """``spec.maxUnavailable``: at most this many instances updating at once."""
    pauses: tuple[tuple[int, int | None], ...] = ()
    """``spec.pauses`` as ``(after, seconds)``: ``seconds`` None holds until approved."""
    approved: int | None = None
    """``spec.approved``: the last step whose approval pause is approved."""
    order: tuple[int, ...] = ()
    """``spec.order``: the ordinals that take the release first, in that order."""
    pinned: tuple[tuple[int, str, str], ...] = ()
    """``spec.pinned`` as ``(ordinal, release id, image)``, by ordinal."""

    def soak(self) -> int | None:
        """The seconds ``pulumi up`` holds after the declared step's pods are Ready (its timed
        pause), None when it has none or the Rollout aborts."""
        if self.abort:
            return None
        found = [s for after, s in self.pauses if after == self.step and s is not None]
        return max(found) if found else None

    def waiting_approval(self) -> int | None:
        """The step whose approval pause the declared step is past without approval (the
        first such), None when every gate before it is approved or there is none."""
        if self.abort:
            return None
        approved = -1 if self.approved is None else self.approved
        for after, seconds in sorted(self.pauses):
            if seconds is None and after < self.step and after > approved:
                return after
        return None

    @property
    def kind(self) -> str:
        """``Rollout`` (so that a Rollout can be reported like a document)."""
        return ROLLOUT_KIND

    @property
    def current(self) -> int | str | None:
        """The value of the declared step, None when ``step`` is beyond the list (TP002)."""
        return self.steps[self.step] if self.step < len(self.steps) else None


ServerKey = tuple[str, str]
"""A TServer's ``(namespace, name)``: how a Rollout names the server it drives."""


@dataclass(frozen=True)
class RolloutStep:
    """Where a Rollout holds its TServer, as the workload builders take it: the Rollout, the
    partition of its declared step and the replicas (the TServer's, stopped instances
    included) that partition was computed for."""

    rollout: Rollout
    partition: int
    replicas: int

    @property
    def running(self) -> tuple[int, ...]:
        """The ordinals that run (:func:`running_ordinals`)."""
        return running_ordinals(self.rollout, self.replicas)

    @property
    def updated(self) -> tuple[int, ...]:
        """The ordinals on the TServer's release at this step (:func:`updated_ordinals`)."""
        return updated_ordinals(self.rollout, self.replicas)


def instances(value: int | str, replicas: int) -> int:
    """Instances on the new release for one step value: a count as written, a percentage of
    ``replicas`` rounded up; never more than ``replicas``."""
    if isinstance(value, str):
        percent = int(value.rstrip("%"))
        wanted = -(-percent * replicas // 100)  # ceil without floats
    else:
        wanted = value
    return max(0, min(wanted, replicas))


def wanted(value: int | str, replicas: int) -> int:
    """Like :func:`instances`, without the cap at ``replicas`` (what the rules compare)."""
    if isinstance(value, str):
        return -(-int(value.rstrip("%")) * replicas // 100)
    return value


def updated_count(rollout: Rollout, replicas: int) -> int:
    """Instances on the TServer's release at the declared step (all of them when aborted:
    the release is then ``stable``)."""
    current = rollout.current
    if rollout.abort or current is None:
        return replicas
    return instances(current, replicas)


def running_ordinals(rollout: Rollout, replicas: int) -> tuple[int, ...]:
    """The ordinals of a TServer of ``replicas`` instances that the steps count: all but the
    stopped and the pinned ones."""
    left_out = set(rollout.stopped) | {ordinal for ordinal, _, _ in rollout.pinned}
    return tuple(o for o in range(replicas) if o not in left_out)


def partition(rollout: Rollout, replicas: int) -> int:
    """The RollingUpdate partition of the declared step: ``L - n_k`` for the ``L`` instances
    that run (``replicas`` less the stopped ones), ``n_k`` counted on ``L``; 0 when aborted.

    It is a count of running instances kept on the stable release, lowest ordinals first,
    which is what every engine does with it: an apps/v1 StatefulSet updates the ordinals at
    or above it (its running ordinals are ``0 .. L-1``: only the highest can stop, TP014);
    OpenKruise's Advanced StatefulSet counts the pods below an ordinal skipping its
    ``reserveOrdinals`` (``isCurrentRevisionNeeded`` and ``sortPodsToUpdate`` of its
    StatefulSet controller, v1.8.2); a TApp is given the updated ids themselves."""
    running = len(running_ordinals(rollout, replicas))
    return running - updated_count(rollout, running)


def updated_ordinals(rollout: Rollout, replicas: int) -> tuple[int, ...]:
    """The ordinals on the TServer's release at the declared step, ascending: the first
    ``n_k`` running ones in ``spec.order``, then highest first."""
    running = running_ordinals(rollout, replicas)
    count = len(running) - partition(rollout, replicas)
    runs = frozenset(running)
    listed = [o for o in dict.fromkeys(rollout.order) if o in runs]
    first = frozenset(listed)
    rest = [o for o in reversed(running) if o not in first]
    return tuple(sorted([*listed, *rest][:count]))
