"""The rules the loader reports: the CRD schema of each kind and what loading skips or ignores.

The loader hands back what the API server would refuse as plain data (the document's identity,
the field, the pydantic error type and a message); :func:`schema_violation` tells which rule
that is. This module imports no check, so the loader can use it without importing the rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernel.errors import Violation
from ..kernel.paths import Segment, format_path
from ..kernel.registry import ERROR, WARNING, Rule, Subject, rule
from ..models.document import Source
from ..models.tserver import SubType
from ..models.vocabulary import ANNOTATION_MAX_REPLICAS, ANNOTATION_MIN_REPLICAS

Path = tuple[Segment, ...]

TS021 = rule(
    "TS021",
    ERROR,
    "TServer",
    "TServer CRD schema: required fields, types, enums, patterns, ranges, no unknown fields",
    origin="controller",
)
TT006 = rule(
    "TT006",
    ERROR,
    "TTemplate",
    "TTemplate CRD schema: required fields, types, patterns, no unknown fields",
    origin="controller",
)
TF001 = rule(
    "TF001",
    ERROR,
    "TFrameworkConfig",
    "TFrameworkConfig CRD schema: required fields, types, patterns, ranges, no unknown fields",
    origin="controller",
)
TC011 = rule(
    "TC011",
    ERROR,
    "TConfig",
    "the CRD schema (required fields, patterns, podSeq, lengths, types, unknown fields)",
    origin="controller",
)
TI001 = rule(
    "TI001",
    ERROR,
    "TImage",
    "the CRD schema (imageType and supportedType enums, at most 120 releases, release id "
    "pattern, image length, unknown fields)",
    origin="controller",
)
TR008 = rule(
    "TR008",
    ERROR,
    "TTree",
    "the CRD schema (required apps and businesses, name patterns, weight 1..5, lengths)",
    origin="controller",
)
TA003 = rule(
    "TA003",
    ERROR,
    "TAccount",
    "the CRD schema (password or bcryptPassword, the password winning when both are given as "
    "the webhook hashes it first; a 60-character bcryptPassword, username 2..16, role enum, "
    "unknown fields)",
    origin="controller",
)

SCHEMA_RULES: dict[str, Rule] = {
    "TServer": TS021,
    "TTemplate": TT006,
    "TFrameworkConfig": TF001,
    "TConfig": TC011,
    "TImage": TI001,
    "TTree": TR008,
    "TAccount": TA003,
}
"""The CRD schema rule of each TarsK8S kind with a model."""

TS014 = rule(
    "TS014",
    ERROR,
    "TServer",
    "subType tars has spec.tars and no spec.normal; subType normal the reverse (a normal server "
    "carrying spec.tars instead of spec.normal is only a warning: the controller builds it "
    "without tarsnode)",
    origin="seed",
    also_warning=True,
    fields=("spec.subType",),
)


def section_mismatch(sub_type: object, has_tars: bool, has_normal: bool) -> tuple[Path, str] | None:
    """TS014 for a subType and the sections present: ``(field, message)`` or None.

    Pure on plain values, so the loader can use it on a document that both sections make
    schema-invalid.
    """
    if sub_type == SubType.TARS.value:
        if has_normal:
            return ("spec", "normal"), (
                "subType tars takes spec.tars, not spec.normal: use spec.tars.ports for plain ports"
            )
        if not has_tars:
            return ("spec", "tars"), "subType tars needs spec.tars"
    elif sub_type == SubType.NORMAL.value:
        if has_tars:
            return ("spec", "tars"), (
                "subType normal takes spec.normal, not spec.tars: use subType tars for a "
                "server run by tarsnode"
            )
        if not has_normal:
            return ("spec", "normal"), "subType normal needs spec.normal"
    return None


SECTION_MISMATCH = "section_mismatch"
"""The error type the loader gives a TServer's tars/normal failure told as TS014."""

TS019 = rule(
    "TS019",
    ERROR,
    "TServer",
    "annotations tars.io/MinReplicas and tars.io/MaxReplicas are 0-99 and min <= max",
    origin="controller",
)
TT001 = rule("TT001", ERROR, "TTemplate", "spec.parent is set and not empty", origin="seed")

_REPLICA_ANNOTATIONS = (
    ("metadata", "annotations", ANNOTATION_MIN_REPLICAS),
    ("metadata", "annotations", ANNOTATION_MAX_REPLICAS),
)


def schema_rule(kind: str, path: Sequence[Segment], error_type: str) -> Rule:
    """The kind's schema rule, or the more specific rule where one exists: TS014 for the
    tars/normal sections, TS019 for the replica annotations, TT001 for a missing parent."""
    path = tuple(path)
    if error_type == SECTION_MISMATCH:
        return TS014
    if kind == "TServer" and path in _REPLICA_ANNOTATIONS:
        return TS019
    if kind == "TTemplate" and path == ("spec", "parent") and error_type in ("missing", "empty"):
        return TT001
    return SCHEMA_RULES[kind]


def schema_violation(
    doc: Subject, path: Sequence[Segment], error_type: str, message: str
) -> Violation:
    """The violation for one schema error of ``doc`` (a document the loader rejects)."""
    return schema_rule(doc.kind, path, error_type).at(doc, path, message)


TX002 = rule(
    "TX002",
    WARNING,
    "any",
    "objects a controller writes (TEndpoint, TExitedRecord, objects with a controller "
    "ownerReference) are skipped",
    origin="tars-components",
)


def skipped_object(doc: Subject, why: str) -> Violation:
    """TX002: an object a controller writes is not part of a stack (``why`` says who)."""
    return TX002.at(doc, "kind", f"{doc.kind} is {why}; skipped")


TH001 = rule(
    "TH001",
    WARNING,
    "TServer",
    "a helm-lib values file key that the v1.4.1 chart does not read (labelMatch, important, a "
    "typo) is ignored",
    origin="tars-components",
)


def ignored_values_key(
    *, namespace: str, name: str, field: str, hint: str, file: str, line: int | None
) -> Violation:
    """TH001: a key of a helm-lib values file that the chart does not read."""
    return TH001.violation(
        kind="TServer",
        namespace=namespace,
        name=name,
        field=field,
        message=f"values key ignored: {hint}",
        file=file,
        line=line,
    )


TD007 = rule(
    "TD007",
    ERROR,
    "TDeploy",
    "schema: approve has person (pattern), time, reason (max 300) and result; apply is a "
    "mapping (checked as a TServer spec once approved)",
    origin="seed",
)


TP001 = rule(
    "TP001",
    ERROR,
    "Rollout",
    "schema: metadata.name, spec.steps (counts or percentages, at least one), spec.step (at "
    "least 0), spec.stable {id, image}, spec.abort, spec.stopped (ordinals) and "
    "spec.maxUnavailable are well-formed; no unknown field",
    origin="tars-components",
)


COLLECTED_SCHEMA_RULES: dict[str, Rule] = {"TDeploy": TD007, "Rollout": TP001}
"""The schema rule of each kind that is read by its own collector rather than loaded as a
model (a TDeploy request, a Rollout)."""


def document_schema_violation(
    kind: str,
    *,
    namespace: str,
    name: str,
    path: tuple[Segment, ...],
    message: str,
    source: Source | None,
) -> Violation:
    """The schema violation (:data:`COLLECTED_SCHEMA_RULES`) of a document of ``kind`` that
    is read by its own collector rather than loaded as a model, at ``path`` of its source."""
    return COLLECTED_SCHEMA_RULES[kind].violation(
        kind=kind,
        namespace=namespace,
        name=name,
        field=format_path(path),
        message=message,
        file=source.file if source else None,
        line=source.line(path) if source else None,
    )
