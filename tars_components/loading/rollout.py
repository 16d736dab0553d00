"""Rollout documents as a stack source (docs/concepts/rollout.md): the loader's collector and
the arithmetic of a step.

A ``kind: Rollout`` document (``tars-components.io/v1alpha1``) names, by ``metadata.name``,
the TServer whose release it rolls out step by step. The loader reads it through
:class:`Rollouts` (its own fields are TP001); it is kept on the stack as a :class:`Rollout`
and never emitted. At step k of R replicas, n_k instances run the TServer's release: a count
as written, a percentage rounded up (``ceil(p * R / 100)``, as OpenKruise does), at most R; the
partition is ``R - n_k`` (ordinals at or above it run the new release). ``abort`` puts every
instance back on ``stable`` with partition 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..kernel.errors import Violation
from ..kernel.paths import Segment, error_path
from ..models.base import P_IMAGE_REF, P_RELEASE_ID, PATTERN_HINTS
from ..models.document import Source
from ..models.product import PRODUCT_KINDS
from ..models.rollout import (
    P_PERCENT,
    ROLLOUT_API_VERSION,
    Rollout,
    RolloutDocument,
    max_unavailable_problem,
    step_problem,
)
from ..secrets.redaction import quote
from .schema_rules import document_schema_violation

KIND = RolloutDocument.KIND
GROUP = ROLLOUT_API_VERSION.split("/", 1)[0]


def is_rollout(raw: Any) -> bool:
    """True for a document of the product's own API group (``tars-components.io/...``)."""
    return (
        isinstance(raw, dict)
        and isinstance(raw.get("apiVersion"), str)
        and raw["apiVersion"].split("/", 1)[0] == GROUP
    )


def identify_rollout(raw: Mapping[str, Any]) -> str | None:
    """Why a document of the group cannot be read (None for a Rollout or a ClusterOverride:
    the loader reads the first, the cluster fan-out the second)."""
    if raw.get("apiVersion") != ROLLOUT_API_VERSION:
        return (
            f"unknown apiVersion {quote(raw.get('apiVersion'))} for the tars-components.io group: "
            f"expected {ROLLOUT_API_VERSION}"
        )
    if raw.get("kind") not in PRODUCT_KINDS:
        return (
            f"unknown kind {quote(raw.get('kind'))} for {ROLLOUT_API_VERSION}: expected one of "
            f"{', '.join(PRODUCT_KINDS)}"
        )
    return None


class Rollouts:
    """The loader's collector: :meth:`read` each Rollout document; :attr:`rollouts` holds
    the valid ones in load order."""

    def __init__(self) -> None:
        self.rollouts: list[Rollout] = []

    def read(
        self, raw: Mapping[str, Any], source: Source | None, namespace: str
    ) -> list[Violation]:
        """The schema violations (TP001) of one Rollout; a valid one is recorded."""
        fast = _plain_rollout(raw, namespace, source)
        if fast is not None:  # the common shape, valid: the model would say the same
            self.rollouts.append(fast)
            return []
        meta: dict[str, Any] = raw["metadata"] if isinstance(raw.get("metadata"), dict) else {}
        ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
        ns = ns or namespace
        name = meta.get("name") if isinstance(meta.get("name"), str) else ""
        body = {k: v for k, v in raw.items() if k != "status"}
        body["metadata"] = {
            k: v
            for k, v in meta.items()
            if k in ("name", "namespace", "labels", "annotations") and v is not None
        }
        doc, errors = _validated(body)
        if doc is not None and not errors:
            spec = doc.spec
            self.rollouts.append(
                Rollout(
                    ns,
                    str(name),
                    tuple(spec.steps),
                    spec.step,
                    spec.stable.id,
                    spec.stable.image,
                    spec.abort,
                    source,
                    tuple(sorted(set(spec.stopped))),
                    spec.max_unavailable,
                    tuple(sorted((p.after, p.seconds) for p in spec.pauses)),
                    spec.approved,
                    tuple(spec.order or ()),
                    tuple(sorted((o, s.id, s.image) for o, s in (spec.pinned or {}).items())),
                )
            )
        return [
            document_schema_violation(
                KIND, namespace=ns, name=str(name), path=path, message=message, source=source
            )
            for path, message in errors
        ]


_TOP_KEYS = frozenset(("apiVersion", "kind", "metadata", "spec", "status"))
_SPEC_KEYS = frozenset(("steps", "step", "stable", "abort", "stopped", "maxUnavailable"))
_RELEASE_ID = re.compile(P_RELEASE_ID)
_IMAGE_REF = re.compile(P_IMAGE_REF)
_PERCENT = re.compile(P_PERCENT)


def _plain_rollout(raw: Mapping[str, Any], namespace: str, source: Source | None) -> Rollout | None:
    """The Rollout of a document in the common shape that :class:`RolloutDocument` certainly
    admits without an error (None for anything else: :func:`_validated` then decides, and
    reports). Every test is as strict as the model's, or stricter: exact types (no bool for
    an int), the camelCase field names only, ASCII strings matched in full, no labels or
    annotations; the result is the Rollout the model would give (``namespace``: the stack's,
    for a document without its own)."""
    meta, spec = raw.get("metadata"), raw.get("spec")
    if type(meta) is not dict or type(spec) is not dict or not _TOP_KEYS.issuperset(raw):
        return None
    name, own_namespace = meta.get("name"), meta.get("namespace")
    if type(name) is not str or not name:
        return None
    if own_namespace is not None:
        if type(own_namespace) is not str:
            return None
        namespace = own_namespace or namespace
    if meta.get("labels") is not None or meta.get("annotations") is not None:
        return None
    if type(raw.get("apiVersion")) is not str or type(raw.get("kind")) is not str:
        return None
    if not _SPEC_KEYS.issuperset(spec):
        return None
    steps, step = spec.get("steps"), spec.get("step", 0)
    stable, abort = spec.get("stable"), spec.get("abort", False)
    max_unavailable = spec.get("maxUnavailable")
    if type(steps) is not list or not 1 <= len(steps) <= 100:
        return None
    for value in steps:  # what step_problem admits, without its messages
        kind = type(value)
        if not ((kind is int and value >= 0) or (kind is str and _PERCENT.fullmatch(value))):
            return None
    if type(step) is not int or step < 0 or type(abort) is not bool:
        return None
    if type(stable) is not dict or stable.keys() != {"id", "image"}:
        return None
    stable_id, image = stable["id"], stable["image"]
    if not (_ascii_match(_RELEASE_ID, stable_id, 63) and _ascii_match(_IMAGE_REF, image, 500)):
        return None
    ordinals: tuple[int, ...] = ()
    if "stopped" in spec:
        stopped = spec["stopped"]
        if type(stopped) is not list or len(stopped) > 99:
            return None
        if any(type(ordinal) is not int or not 0 <= ordinal <= 98 for ordinal in stopped):
            return None
        ordinals = tuple(sorted(set(stopped)))
    if max_unavailable is not None and max_unavailable_problem(max_unavailable):
        return None
    return Rollout(
        namespace,
        name,
        tuple(steps),
        step,
        stable_id,
        image,
        abort,
        source,
        ordinals,
        max_unavailable,
    )


def _ascii_match(pattern: re.Pattern[str], value: Any, max_length: int) -> bool:
    """``value`` is an ASCII string of at most ``max_length`` characters that ``pattern``
    matches in full."""
    return (
        type(value) is str
        and len(value) <= max_length
        and value.isascii()
        and pattern.fullmatch(value) is not None
    )


def _validated(
    body: Mapping[str, Any],
) -> tuple[RolloutDocument | None, list[tuple[tuple[Segment, ...], str]]]:
    """The model (None when pydantic refuses it) and every schema error, in field order."""
    errors: list[tuple[tuple[Segment, ...], str]] = []
    doc: RolloutDocument | None = None
    if not body.get("metadata", {}).get("name"):
        errors.append((("metadata", "name"), "required field is missing: the TServer's name"))
    try:
        doc = RolloutDocument.model_validate(body)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            errors.append((error_path(error["loc"]), _message(error)))
    spec = body.get("spec")
    steps = spec.get("steps") if isinstance(spec, dict) else None
    if isinstance(steps, list):
        for position, value in enumerate(steps):
            problem = step_problem(value)
            if problem:
                errors.append((("spec", "steps", position), problem))
    if isinstance(spec, dict) and spec.get("maxUnavailable") is not None:
        problem = max_unavailable_problem(spec["maxUnavailable"])
        if problem:
            errors.append((("spec", "maxUnavailable"), problem))
    return doc, errors


def _message(error: Mapping[str, Any]) -> str:
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "string_pattern_mismatch":
        value, pattern = error.get("input"), str(ctx.get("pattern", ""))
        if value == "":
            return "must not be empty"
        hint = PATTERN_HINTS.get(pattern, f"pattern {pattern}")
        return f"{quote(value)} is not valid: expected {hint}"
    if kind in ("string_type",):
        return f"must be a string, got {quote(error.get('input'))}"
    if kind == "too_short":
        return "needs at least one step"
    if kind in ("greater_than_equal",):
        return f"{quote(error.get('input'))} is below the minimum {ctx.get('ge')}"
    if kind == "bool_type":
        return f"must be true or false, got {quote(error.get('input'))}"
    if kind == "int_type":
        return f"must be an integer, got {quote(error.get('input'))}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be a mapping, got {quote(error.get('input'))}"
    if kind == "list_type":
        return f"must be a list, got {quote(error.get('input'))}"
    return " ".join(str(error["msg"]).split())


__all__ = [
    "KIND",
    "Rollouts",
    "identify_rollout",
    "is_rollout",
]
