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
    create_only: bool = False
    """True for rules the webhook applies on create only: ``validate --previous`` leaves
    them out for objects that the previous stack already has (updates)."""


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
    Rule(
        "TF005",
        ERROR,
        "TFrameworkConfig",
        "crd mode: not written as k8s.tars.io/v1beta2 (v1.4.1's conversion to the storage "
        "version stamps v1beta1, so the API server cannot store it)",
        "controller",
    ),
    # --- wave 2: TConfig, TImage, TTree, TAccount, live exports (issue 11) ---
    Rule(
        "TC001",
        ERROR,
        "TConfig",
        "app, server, podSeq, configName, version, updateTime, updatePerson and updateReason "
        "never change",
        "seed",
        change=True,
    ),
    Rule(
        "TC002",
        ERROR,
        "TConfig",
        "a node-level config (podSeq 0..99) needs the activated master (podSeq m) of the "
        "same app, server and configName",
        "seed",
        create_only=True,
    ),
    Rule(
        "TC003",
        ERROR,
        "TConfig",
        "an activated master is not deleted while node-level configs of the file remain, "
        "unless a new master version is activated in the same change",
        "seed",
        change=True,
    ),
    Rule(
        "TC004",
        ERROR,
        "TConfig",
        "configContent never changes (create a new version instead)",
        "seed",
        change=True,
    ),
    Rule(
        "TC005",
        ERROR,
        "TConfig",
        "a new TConfig carries no tars.io/Deactivate or tars.io/Deleting label",
        "controller",
        create_only=True,
    ),
    Rule(
        "TC006",
        ERROR,
        "TConfig",
        "an app-level config (server empty) has podSeq m",
        "controller",
        create_only=True,
    ),
    Rule(
        "TC007",
        ERROR,
        "TConfig",
        "activated never goes from true to false (activate another version instead)",
        "controller",
        change=True,
    ),
    Rule(
        "TC008",
        ERROR,
        "TConfig",
        "a TConfig being deleted (tars.io/Deleting) is not updated",
        "controller",
        change=True,
    ),
    Rule(
        "TC009",
        WARNING,
        "TConfig",
        "deleting the activated version deletes every version of the file (and is refused "
        "during 48 s after its creation); not when a new version replaces it in the same change",
        "controller",
        change=True,
    ),
    Rule(
        "TC010",
        ERROR,
        "TConfig",
        "at most one activated version per app, server, configName and podSeq",
        "controller",
    ),
    Rule(
        "TC011",
        ERROR,
        "TConfig",
        "the CRD schema (required fields, patterns, podSeq, lengths, types, unknown fields)",
        "controller",
    ),
    Rule(
        "TC012",
        WARNING,
        "TConfig",
        "a server's config names a TServer of the stack (server empty: an app-level config); "
        "a warning, as a live namespace keeps the configs of removed servers",
        "tars-components",
    ),
    Rule(
        "TC013",
        ERROR,
        "TConfig",
        "one TConfig per name in a namespace (a second would replace the first)",
        "tars-components",
    ),
    Rule(
        "TI001",
        ERROR,
        "TImage",
        "the CRD schema (imageType and supportedType enums, at most 120 releases, release "
        "id pattern, image length, unknown fields)",
        "controller",
    ),
    Rule(
        "TI002",
        WARNING,
        "TImage",
        "release ids are unique (the webhook keeps the first and removes the others)",
        "seed",
    ),
    Rule(
        "TI003",
        WARNING,
        "TImage",
        "a TServer's release.id listed by its server's TImage has the same image",
        "tars-components",
    ),
    Rule(
        "TI004",
        ERROR,
        "TImage",
        "one TImage per name in a namespace (a second would replace the first)",
        "tars-components",
    ),
    Rule(
        "TR001",
        ERROR,
        "TTree",
        "the TTree is named tars-tree",
        "controller",
        create_only=True,
    ),
    Rule(
        "TR002",
        ERROR,
        "TTree",
        "one tars-tree per namespace",
        "controller",
        create_only=True,
    ),
    Rule("TR003", ERROR, "TTree", "business names are unique", "controller"),
    Rule("TR004", ERROR, "TTree", "app names are unique", "controller"),
    Rule(
        "TR005",
        WARNING,
        "TTree",
        "an app's businessRef names a business (else the webhook blanks it)",
        "controller",
    ),
    Rule(
        "TR006",
        ERROR,
        "TTree",
        "an app is not removed from the tree while TServers of that app exist",
        "controller",
        change=True,
    ),
    Rule(
        "TR007",
        ERROR,
        "TTree",
        "tars-tree is never deleted",
        "controller",
        change=True,
    ),
    Rule(
        "TR008",
        ERROR,
        "TTree",
        "the CRD schema (required apps and businesses, name patterns, weight 1..5, lengths)",
        "controller",
    ),
    Rule(
        "TR009",
        WARNING,
        "TTree",
        "a TServer's app is listed in tars-tree (the controller appends it otherwise)",
        "tars-components",
    ),
    Rule(
        "TA001",
        ERROR,
        "TAccount",
        "metadata.name is the lowercase hex MD5 of spec.username",
        "controller",
    ),
    Rule(
        "TA002",
        ERROR,
        "TAccount",
        "a password has 6 to 32 printable ASCII characters",
        "controller",
    ),
    Rule(
        "TA003",
        ERROR,
        "TAccount",
        "the CRD schema (password or bcryptPassword, the password winning when both are "
        "given as the webhook hashes it first; a 60-character bcryptPassword, username "
        "2..16, role enum, unknown fields)",
        "controller",
    ),
    Rule(
        "TA004",
        ERROR,
        "TAccount",
        "one TAccount per name in a namespace (a second would replace the first)",
        "tars-components",
    ),
    Rule(
        "TA005",
        WARNING,
        "TAccount",
        "no plaintext password in a stack file (use {configSecret: KEY})",
        "tars-components",
    ),
    Rule(
        "TA006",
        WARNING,
        "TAccount",
        "crd mode: a credential kept in a Pulumi config secret is rendered offline as a "
        "placeholder hash",
        "tars-components",
    ),
    Rule(
        "TX001",
        WARNING,
        "TConfig, TImage, TTree, TAccount",
        "expand mode has no controller for these kinds: they are skipped (one warning per kind)",
        "tars-components",
    ),
    Rule(
        "TX002",
        WARNING,
        "any",
        "objects a controller writes (TEndpoint, TExitedRecord, objects with a controller "
        "ownerReference) are skipped",
        "tars-components",
    ),
    Rule(
        "TX003",
        ERROR,
        "any",
        "one plain Kubernetes object per apiVersion, kind, namespace and name, and none that "
        "a TServer's expansion also creates",
        "tars-components",
    ),
    Rule(
        "TX004",
        ERROR,
        "any",
        "no two objects share an output file name (TConfig, TImage, TTree, TAccount and plain "
        "objects; e.g. b-c in namespace a and c in namespace a-b)",
        "tars-components",
    ),
    Rule(
        "TX005",
        ERROR,
        "any",
        "crd mode: no plain v1 Service, apps/v1 StatefulSet or DaemonSet labelled both "
        "tars.io/ServerApp and tars.io/ServerName (the webhook admits them from the "
        "controller only)",
        "controller",
    ),
    Rule(
        "TX006",
        ERROR,
        "any",
        "a plain Kubernetes object's apiVersion, kind, name (per kind: DNS-1123 subdomain; "
        "DNS-1035 label for a Service; DNS-1123 label for a Namespace; a path segment for "
        "RBAC kinds), namespace, label and annotation keys and label values are what the API "
        "server admits",
        "tars-components",
    ),
    Rule(
        "TH001",
        WARNING,
        "TServer",
        "a helm-lib values file key that the v1.4.1 chart does not read (labelMatch, important, "
        "a typo) is ignored",
        "tars-components",
    ),
    Rule(
        "TD001",
        ERROR,
        "TDeploy",
        "a request new in this change carries no approve (request and approval are two "
        "reviewed changes)",
        "seed",
        change=True,
    ),
    Rule(
        "TD002",
        ERROR,
        "TDeploy",
        "apply does not change while approve stays the same (the approval is bound to the "
        "approved apply)",
        "seed",
        change=True,
    ),
    Rule(
        "TD003",
        ERROR,
        "TDeploy",
        "a request's server (its name or lower(app)-lower(server)) is not also a TServer of "
        "the stack",
        "seed",
    ),
    Rule("TD004", WARNING, "TDeploy", "deployed is the controller's field: ignored", "seed"),
    Rule(
        "TD005",
        WARNING,
        "TDeploy",
        "a pending request (no approve) deploys nothing until approved",
        "tars-components",
    ),
    Rule(
        "TD006",
        ERROR,
        "TDeploy",
        "approve.person is in the stack's approver list (tars:approvers, --approvers), when "
        "one is set",
        "tars-components",
    ),
    Rule(
        "TD007",
        ERROR,
        "TDeploy",
        "schema: approve has person (pattern), time, reason (max 300) and result; apply is a "
        "mapping (checked as a TServer spec once approved)",
        "seed",
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
