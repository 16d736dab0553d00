"""The catalogue of rule codes: severity, kind, what each checks and who defines it.

Every code that :func:`tars_components.rules.validate` or
:func:`tars_components.rules.validate_change` can report is listed here, including the schema
codes that the loader reports (TS021, TT006, TF001 and TT001 for a missing parent). The CLI's
``validate --help`` and the README table are generated from :data:`RULES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import Severity

Origin = Literal["seed", "controller", "tars-components"]
"""Who defines a rule: the TarsK8S seed document, the controller's webhook or CRD code, or
this project."""

ERROR = Severity.ERROR
WARNING = Severity.WARNING


@dataclass(frozen=True)
class Rule:
    """One rule code. ``change`` rules compare a previous and a current stack
    (:func:`tars_components.rules.validate_change`); the others look at one stack."""

    code: str
    severity: Severity
    kind: str
    summary: str
    origin: Origin
    change: bool = False


_RULES = (
    Rule(
        "TS001",
        ERROR,
        "TServer",
        "spec.app, spec.server and spec.subType never change",
        "seed",
        change=True,
    ),
    Rule(
        "TS002",
        ERROR,
        "TServer",
        "spec.tars and spec.normal are never added or removed",
        "seed",
        change=True,
    ),
    Rule(
        "TS003",
        ERROR,
        "TServer",
        "servant and spec.tars.ports names are unique (case-insensitive)",
        "seed",
    ),
    Rule("TS004", ERROR, "TServer", "servant and spec.tars.ports port numbers are unique", "seed"),
    Rule("TS005", ERROR, "TServer", "no servant is named NodeObj (in any case)", "seed"),
    Rule(
        "TS006",
        ERROR,
        "TServer",
        "servants and spec.tars.ports do not use port 19385 (tarsnode)",
        "seed",
    ),
    Rule(
        "TS007", ERROR, "TServer", "spec.normal.ports names are unique (case-insensitive)", "seed"
    ),
    Rule("TS008", ERROR, "TServer", "spec.normal.ports port numbers are unique", "seed"),
    Rule("TS009", ERROR, "TServer", "spec.k8s.mounts names are unique", "seed"),
    Rule(
        "TS010",
        ERROR,
        "TServer",
        "the TTemplate named by spec.tars.template exists in the namespace",
        "seed",
    ),
    Rule(
        "TS011",
        ERROR,
        "TServer",
        "every hostPorts nameRef names a servant or port of the server (case-insensitive)",
        "seed",
    ),
    Rule("TS012", ERROR, "TServer", "hostPorts port numbers are unique", "seed"),
    Rule(
        "TS013",
        ERROR,
        "TServer",
        "a daemonSet server has no persistentVolumeClaimTemplate or tLocalVolume mount",
        "seed",
    ),
    Rule(
        "TS014",
        ERROR,
        "TServer",
        "subType tars has spec.tars and no spec.normal; subType normal the reverse (a normal "
        "server carrying spec.tars instead of spec.normal is only a warning: the controller "
        "builds it without tarsnode)",
        "seed",
    ),
    Rule(
        "TS015",
        WARNING,
        "TServer",
        "persistentVolumeClaimTemplate and tLocalVolume mounts are meant for tars servers",
        "seed",
    ),
    Rule(
        "TS016",
        ERROR,
        "TServer",
        "names Kubernetes accepts: metadata.name is lower(app)-lower(server), at most 58 "
        "characters (52 for a StatefulSet); ability label keys at most 63; mount names are "
        "DNS-1123 labels, mount names and paths are not reserved, mount paths are unique; "
        "tars/normal port names are IANA service names",
        "controller",
    ),
    Rule(
        "TS017",
        ERROR,
        "TServer",
        "no two TServers of a namespace map to the same object name",
        "tars-components",
    ),
    Rule(
        "TS018", ERROR, "TServer", "hostPorts nameRefs are unique (case-insensitive)", "controller"
    ),
    Rule(
        "TS019",
        ERROR,
        "TServer",
        "annotations tars.io/MinReplicas and tars.io/MaxReplicas are 0-99 and min <= max",
        "controller",
    ),
    Rule(
        "TS020",
        ERROR,
        "TServer",
        "a released tars server has a nodeImage or its namespace has TFrameworkConfig "
        "tars-framework",
        "controller",
    ),
    Rule(
        "TS021",
        ERROR,
        "TServer",
        "TServer CRD schema: required fields, types, enums, patterns, ranges, no unknown fields",
        "controller",
    ),
    Rule(
        "TS023",
        WARNING,
        "TServer",
        "a daemonSet server has a release (without one no DaemonSet is emitted)",
        "tars-components",
    ),
    Rule(
        "TS024",
        WARNING,
        "TServer",
        "a hostPorts nameRef is spelled in the same case as its servant or port (the v1.4.1 "
        "controller matches case-sensitively and binds no host port otherwise)",
        "tars-components",
    ),
    Rule(
        "TS025",
        WARNING,
        "TServer",
        "crd mode: the controller copies updateStrategy into the StatefulSet, which the API "
        "server refuses under OnDelete with a rollingUpdate block or with a negative partition",
        "tars-components",
    ),
    Rule(
        "TS026",
        ERROR,
        "TServer",
        "no two TServers' objects share an output file name (render's file layout)",
        "tars-components",
    ),
    Rule("TT001", ERROR, "TTemplate", "spec.parent is set and not empty", "seed"),
    Rule(
        "TT002",
        ERROR,
        "TTemplate",
        "spec.parent is the template itself or a TTemplate of the namespace",
        "seed",
    ),
    Rule(
        "TT003",
        ERROR,
        "TTemplate",
        "a removed TTemplate is no remaining template's parent",
        "seed",
        change=True,
    ),
    Rule("TT004", ERROR, "TTemplate", "parent chains have no cycle", "seed"),
    Rule(
        "TT005",
        ERROR,
        "TTemplate",
        "a removed TTemplate is not named by a TServer's spec.tars.template",
        "controller",
        change=True,
    ),
    Rule(
        "TT006",
        ERROR,
        "TTemplate",
        "TTemplate CRD schema: required fields, types, patterns, no unknown fields",
        "controller",
    ),
    Rule(
        "TT007",
        ERROR,
        "TTemplate",
        "one TTemplate per name in a namespace (a second would replace the first)",
        "tars-components",
    ),
    Rule(
        "TT008",
        ERROR,
        "TTemplate",
        "crd mode: no two TTemplates share an output file name (e.g. b-c in namespace a and c "
        "in namespace a-b)",
        "tars-components",
    ),
    Rule(
        "TF001",
        ERROR,
        "TFrameworkConfig",
        "TFrameworkConfig CRD schema: required fields, types, patterns, ranges, no unknown fields",
        "controller",
    ),
    Rule(
        "TF002",
        WARNING,
        "TFrameworkConfig",
        "a TFrameworkConfig is named tars-framework (others are ignored)",
        "seed",
    ),
    Rule(
        "TF003",
        ERROR,
        "TFrameworkConfig",
        "one TFrameworkConfig per name in a namespace (a second would replace the first)",
        "tars-components",
    ),
    Rule(
        "TF004",
        ERROR,
        "TFrameworkConfig",
        "crd mode: no two TFrameworkConfigs share an output file name",
        "tars-components",
    ),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}
"""Every rule code, in code order."""


def rules_table() -> str:
    """The Markdown table of :data:`RULES` (the README carries it)."""
    lines = [
        "| Code | Severity | Kind | What it checks | Origin |",
        "|---|---|---|---|---|",
    ]
    for rule in RULES.values():
        summary = rule.summary.replace("|", "\\|")
        if rule.change:
            summary = f"{summary} (change: compares with the previous stack)"
        lines.append(f"| {rule.code} | {rule.severity} | {rule.kind} | {summary} | {rule.origin} |")
    return "\n".join(lines) + "\n"
