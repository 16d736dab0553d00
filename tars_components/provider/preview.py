"""Stand-ins for the values a preview does not know yet.

During a preview the engine sends values it does not know yet as ``pulumi.runtime.rpc.UNKNOWN``
(``pulumi.dynamic`` hands them to ``check`` and ``diff`` as :class:`pulumi.output.Unknown`). The
document is then checked with :data:`~.wire.PENDING` in their place (the models accept it where a
``pulumi.Input`` is allowed); an unknown number (say a port) stands in as a number that no
other field uses, so it collides with nothing and the other rules still run; an unknown string
in a structural field (``spec.app``, ``spec.server``, ``metadata.name``, a servant or port name,
``spec.tars.template``) stands in as a name that no other field uses (``unknown1``, …, valid
for every name pattern), so the other rules still run too. Violations at an unknown path, and
those of the rules that relate an unknown field to another one (:data:`~.wire.FIELD_RULES`),
are left out until the value is known (at ``pulumi up``). Only an unknown whole section (a
mapping or list the engine does not know) still leaves the document unchecked.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from ..kernel.paths import parse_path
from ..loading.document_set import DocumentSet, Rejected
from ..models import Document
from .editing import put, remove, strings, under, unused_numbers
from .wire import FIELD_RULES, PENDING, Path

PLACEHOLDER = "unknown"
"""Stand-in text for unknown values where YAML or a strict model needs a string."""


def stand_in_texts(raw: dict[str, Any], unknown_fields: Sequence[Path]) -> dict[Path, str]:
    """Put a distinct name that no field of ``raw`` uses at each unknown path (``unknown1``,
    …: a lowercase letter then letters and digits fits every name pattern of the CRDs), and
    derive an unknown ``metadata.name`` from the stand-ins of ``spec.app`` and
    ``spec.server`` as the program derives it (so TS016 stays quiet)."""
    if not unknown_fields:
        return {}
    used = {text.lower() for text in strings(raw)}
    fresh = (f"unknown{i}" for i in range(1, 1 << 30) if f"unknown{i}" not in used)
    texts: dict[Path, str] = {}
    for path in unknown_fields:
        if path:
            texts[path] = next(fresh)
            put(raw, path, texts[path])
    name_path: Path = ("metadata", "name")
    spec = raw.get("spec")
    sub_type: Path = ("spec", "subType")
    if sub_type in texts and isinstance(spec, dict):
        # The section given says which subType it is (TS014 waits for the value).
        texts[sub_type] = "tars" if "tars" in spec else "normal"
        put(raw, sub_type, texts[sub_type])
    if name_path in texts and isinstance(spec, dict):
        app, server = spec.get("app"), spec.get("server")
        if isinstance(app, str) and isinstance(server, str):
            texts[name_path] = f"{app.lower()}-{server.lower()}"
            put(raw, name_path, texts[name_path])
    return texts


def with_stand_in_numbers(
    raw: dict[str, Any],
    unknown_fields: Sequence[Path],
    load: Callable[[dict[str, Any]], DocumentSet],
    file: str,
) -> tuple[DocumentSet, dict[Path, int]]:
    """``load(raw)`` (the document as ``file``), after putting numbers that no other field
    uses at the unknown paths where the schema refuses a text stand-in; ``raw`` is edited in
    place, and the numbers put are returned by path."""
    loaded = load(raw)
    numbers: dict[Path, int] = {}
    for step in ("high", "low", "absent"):
        # Where the schema refuses the text stand-in it wants a number (a port, replicas):
        # put numbers there that no other field of the document uses, so they collide with
        # nothing and the other rules still run; high ones first (ports), then low ones
        # (bounded fields such as replicas). A field that takes neither (a flag, an enum
        # such as imagePullPolicy) is left out: its default stands in.
        if loaded.documents:
            break
        refused = {tuple(parse_path(v.field)) for v in loaded.violations if v.file == file}
        paths = [path for path in unknown_fields if path in refused]
        if not paths:
            break
        if step == "absent":
            for path in paths:
                remove(raw, path)
                numbers.pop(path, None)
        else:
            for path, number in zip(paths, unused_numbers(raw, step == "high"), strict=False):
                put(raw, path, number)
                numbers[path] = number
        loaded = load(raw)
    return loaded, numbers


def with_pending(
    doc: Document, unknown_fields: Sequence[Path], numbers: Mapping[Path, int]
) -> Document | Rejected:
    """The loaded document with :data:`PENDING` back where values are unknown and the model
    takes a deferred value (placed fields); unused numbers (``numbers``) and names
    (:func:`stand_in_texts`) stay where it does not. A document that still fails (an unknown whole
    section) is left unchecked (rejected)."""
    if not unknown_fields:
        return doc
    loaded = doc.to_dict()
    pending = [path for path in unknown_fields if path not in numbers]
    for _ in range(3):
        raw = copy.deepcopy(loaded)
        for path in pending:
            put(raw, path, PENDING)
        try:
            deferred = type(doc).model_validate(raw)
        except ValidationError as exc:
            refused = {tuple(error["loc"]) for error in exc.errors()}
            kept = [p for p in pending if not any(under(loc, p) for loc in refused)]
            if len(kept) == len(pending):
                break
            pending = kept
            continue
        deferred.with_source(doc.source)
        return deferred
    return Rejected(doc.kind, doc.namespace, doc.name, doc.source)


def deferred_rules(unknown_fields: Sequence[Path]) -> frozenset[str]:
    """The rules that relate an unknown field of the document to another field
    (:data:`~.wire.FIELD_RULES`): left out until the field is known."""
    codes: set[str] = set()
    for path in unknown_fields:
        text = ".".join("*" if isinstance(seg, int) else str(seg) for seg in path)
        for pattern, rules in FIELD_RULES.items():
            if text == pattern or text.startswith(pattern + "."):
                codes.update(rules)
    return frozenset(codes)


__all__ = [
    "PLACEHOLDER",
    "deferred_rules",
    "stand_in_texts",
    "with_pending",
    "with_stand_in_numbers",
]
