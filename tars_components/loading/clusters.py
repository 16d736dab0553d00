"""Reading the cluster inventory (docs/concepts/clusters.md): Stellaris ``Cluster``
documents (``stellaris.harmonycloud.cn/v1alpha1``) among the stack's files, the
``tars:clusters`` entries of ``Pulumi.<env>.yaml``, and ``ClusterOverride`` documents
(``tars-components.io/v1alpha1``). Neither kind is ever emitted. The reader reports what it
cannot read (TM001-TM004); how the inventory fits the stack is
:mod:`tars_components.rules.clusters`.

* TM001: a Stellaris Cluster has ``spec.apiserver`` (an https URL) and ``spec.secretRef``
  (``type`` kubeconfig or token, ``name``, ``namespace``, ``field``);
* TM002: cluster names are DNS labels, once each;
* TM003: a cluster's wave (annotation ``tars-components.io/wave``) is a non-negative integer;
* TM004: a ClusterOverride's spec has known fields of the right types (its cluster selector
  ``matchLabels`` and ``matchExpressions`` as Kubernetes label selectors; each field for
  targets of the kinds it applies to).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..kernel.errors import UsageError, Violation
from ..kernel.paths import Source
from ..kernel.registry import ERROR, rule
from ..models.cluster import (
    CLUSTER_KIND,
    CONTENT_OVERRIDES,
    CREDENTIAL_TYPES,
    CREDENTIALS_ANNOTATION,
    FIELD_OVERRIDES,
    OVERRIDE_API_VERSION,
    OVERRIDE_KIND,
    OVERRIDE_KINDS,
    SELECTOR_OPERATORS,
    STELLARIS_API_VERSION,
    UNAVAILABLE_POLICIES,
    WAVE_ANNOTATION,
    Cluster,
    ManagementCluster,
    Override,
    Requirement,
    SecretReference,
    Target,
)
from ..models.credential import P_CONFIG_KEY
from ..models.names import is_dns_label
from .document_set import DocumentSet, KubeObject

_OVERRIDE_SPEC = frozenset(
    {"clusters", "clusterSelector", "targets", "exclude", *FIELD_OVERRIDES, *CONTENT_OVERRIDES}
)
_HTTPS = re.compile(r"^https://[^\s/]+(/\S*)?$")


def is_cluster_document(obj: KubeObject) -> bool:
    """True for a Stellaris Cluster or a ClusterOverride (stack-only, never emitted)."""
    return (obj.api_version, obj.kind) in (
        (STELLARIS_API_VERSION, CLUSTER_KIND),
        (OVERRIDE_API_VERSION, OVERRIDE_KIND),
    )


def has_cluster_documents(stack: DocumentSet) -> bool:
    """True when the stack holds a Stellaris Cluster or a ClusterOverride."""
    return any(is_cluster_document(o) for o in stack.objects)


def without_cluster_documents(stack: DocumentSet) -> DocumentSet:
    """The stack without its Cluster and ClusterOverride documents (what is deployed)."""
    from dataclasses import replace

    kept = tuple(o for o in stack.objects if not is_cluster_document(o))
    return stack if len(kept) == len(stack.objects) else replace(stack, objects=kept)


TM001 = rule(
    "TM001",
    ERROR,
    CLUSTER_KIND,
    "a Stellaris Cluster has spec.apiserver (an https URL) and spec.secretRef with type "
    "kubeconfig or token, name, namespace and field",
    origin="seed",
)
TM002 = rule(
    "TM002",
    ERROR,
    CLUSTER_KIND,
    "cluster names are DNS labels (at most 63 characters), each declared once",
    origin="tars-components",
)
TM003 = rule(
    "TM003",
    ERROR,
    CLUSTER_KIND,
    "a cluster's wave (annotation tars-components.io/wave) is a non-negative integer",
    origin="tars-components",
)


def cluster_document(obj: KubeObject) -> tuple[Cluster | None, list[Violation]]:
    """A Stellaris ``Cluster`` document read into a :class:`Cluster` (None when it cannot be),
    with what is wrong with it (TM001-TM003)."""
    found: list[Violation] = []
    body = obj.body
    spec = body.get("spec")
    if not isinstance(spec, Mapping):
        return None, [TM001.at(obj, "spec", "a Cluster needs spec.apiserver and spec.secretRef")]
    api_server = spec.get("apiserver")
    if not isinstance(api_server, str) or not _HTTPS.match(api_server):
        found.append(
            TM001.at(
                obj,
                "spec.apiserver",
                f"the API server address must be an https URL, got {_shown(api_server)}",
            )
        )
    ref = spec.get("secretRef")
    ref_type = "kubeconfig"
    ref_name: str | None = None
    secret_ref: SecretReference | None = None
    if not isinstance(ref, Mapping):
        found.append(TM001.at(obj, "spec.secretRef", "a Cluster needs spec.secretRef"))
    else:
        for key in ("type", "name", "namespace", "field"):
            value = ref.get(key)
            if not isinstance(value, str) or not value:
                found.append(
                    TM001.at(
                        obj,
                        f"spec.secretRef.{key}",
                        f"spec.secretRef.{key} must be a non-empty string, got {_shown(value)}",
                    )
                )
        if isinstance(ref.get("type"), str) and ref["type"] not in CREDENTIAL_TYPES:
            found.append(
                TM001.at(
                    obj,
                    "spec.secretRef.type",
                    f"must be kubeconfig or token, got {_shown(ref['type'])}",
                )
            )
        ref_type = str(ref.get("type") or "kubeconfig")
        ref_name = ref.get("name") if isinstance(ref.get("name"), str) else None
        secret_ref = SecretReference(
            str(ref.get("namespace")), str(ref.get("name")), str(ref.get("field"))
        )
    meta = body.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    labels = meta.get("labels") or {}
    wave_text = annotations.get(WAVE_ANNOTATION, "0") if isinstance(annotations, Mapping) else "0"
    wave = _wave(wave_text)
    if wave is None:
        found.append(
            TM003.at(
                obj,
                f"metadata.annotations.{WAVE_ANNOTATION}",
                f"the wave must be a non-negative integer, got {_shown(wave_text)}",
            )
        )
    if not is_dns_label(obj.name):
        found.append(TM002.at(obj, "metadata.name", _bad_name(obj.name)))
    if found:
        return None, found
    given = annotations.get(CREDENTIALS_ANNOTATION) if isinstance(annotations, Mapping) else None
    cluster = Cluster(
        name=obj.name,
        api_server=str(api_server),
        credentials_key=given if isinstance(given, str) and given else ref_name,
        credentials_type=ref_type,
        labels=_label_pairs(labels),
        wave=wave or 0,
        source=obj.source,
        secret_ref=secret_ref,
        unavailable=cluster_status_problem(body.get("status")),
    )
    return cluster, []


UNAVAILABLE_STATUSES = ("offline", "initializing")
"""The Stellaris ``status.status`` values of a cluster that cannot take a change."""


def cluster_status_problem(status: Any) -> str | None:
    """Why a Stellaris Cluster's ``status`` says the cluster cannot take a change (None when
    it does not): ``healthy: false``, ``status`` offline or initializing, and the reason and
    message of each condition (Stellaris writes one, such as ``KubernetesUnavailable`` /
    ``ApiserverIsDown``, only while something is wrong). No status: nothing is known against
    the cluster (a document kept by hand)."""
    if not isinstance(status, Mapping):
        return None
    found: list[str] = []
    if status.get("healthy") is False or str(status.get("healthy")).lower() == "false":
        found.append("status.healthy is false")
    state = status.get("status")
    if isinstance(state, str) and state.lower() in UNAVAILABLE_STATUSES:
        found.append(f"status.status is {state}")
    conditions = status.get("conditions")
    for item in conditions if isinstance(conditions, list) else []:
        if not isinstance(item, Mapping):
            continue
        what = "/".join(str(item[k]) for k in ("type", "reason") if item.get(k))
        message = item.get("message")
        if what or message:
            found.append(f"{what or 'condition'}" + (f": {message}" if message else ""))
    return "; ".join(found) or None


def management_clusters(
    items: Sequence[Mapping[str, Any]], where: str
) -> tuple[tuple[Cluster, ...], list[Violation]]:
    """The inventory read from a management cluster: its Stellaris ``Cluster`` objects
    (``items``, in the server's order, by name), read as the same documents in a stack are
    (TM001-TM003, each located at ``where``: the management cluster and the object)."""
    clusters: list[Cluster] = []
    found: list[Violation] = []
    for index, item in enumerate(items):
        obj = KubeObject(item, Source(f"{where}: Cluster/{_name_of(item)}", index))
        cluster, problems = cluster_document(obj)
        found.extend(problems)
        if cluster is not None:
            clusters.append(cluster)
    return tuple(clusters), found


_MANAGEMENT_KEYS = ("context", "kubeconfig", "labelSelector")


def structured_setting(value: Any, where: str, problem: str) -> Any:
    """A structured ``tars:*`` setting as written in YAML, or from its JSON text (as
    ``pulumi.Config.get`` gives it); :class:`UsageError` ``<where>: <problem>`` when that text
    is not JSON."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise UsageError(f"{where}: {problem}") from None


def known_fields(value: Mapping[str, Any], where: str, keys: Sequence[str]) -> None:
    """:class:`UsageError` naming the first field of a setting's mapping not in ``keys``."""
    unknown = sorted(str(k) for k in value if k not in keys)
    if unknown:
        raise UsageError(f"{where}.{unknown[0]}: unknown field (expected {', '.join(keys)})")


def management_from_config(value: Any) -> ManagementCluster | None:
    """``tars:managementCluster``: a context name, or a mapping (or its JSON text) with
    ``context`` or ``kubeconfig`` (the Pulumi secret config key of the management cluster's
    kubeconfig) and an optional ``labelSelector``. Raises :class:`UsageError` naming the key
    and the field."""
    where = "tars:managementCluster"
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith("{"):
            return ManagementCluster(context=text)
    value = structured_setting(value, where, "not valid JSON")
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: a context name or {{context | kubeconfig, labelSelector}}")
    known_fields(value, where, _MANAGEMENT_KEYS)
    for key in _MANAGEMENT_KEYS:
        if key in value and (not isinstance(value[key], str) or not value[key].strip()):
            raise UsageError(f"{where}.{key}: must be a non-empty string")
    context, kubeconfig = value.get("context"), value.get("kubeconfig")
    if (context is None) == (kubeconfig is None):
        raise UsageError(f"{where}: give context or kubeconfig (one of them)")
    if kubeconfig is not None and not re.match(P_CONFIG_KEY, kubeconfig):
        raise UsageError(f"{where}.kubeconfig: a config key, got {_shown(kubeconfig)}")
    return ManagementCluster(context, kubeconfig, value.get("labelSelector"))


def unavailable_policy(value: Any) -> str:
    """``tars:unavailableClusters``: ``fail`` (the default) or ``skip``."""
    text = "fail" if value is None or value == "" else str(value).strip()
    if text not in UNAVAILABLE_POLICIES:
        raise UsageError(f"tars:unavailableClusters must be fail or skip, got {text!r}")
    return text


def _name_of(item: Mapping[str, Any]) -> str:
    meta = item.get("metadata")
    return str(meta.get("name", "")) if isinstance(meta, Mapping) else ""


TM004 = rule(
    "TM004",
    ERROR,
    OVERRIDE_KIND,
    "a ClusterOverride's spec has only clusters, clusterSelector (matchLabels, "
    "matchExpressions with In, NotIn, Exists, DoesNotExist), targets, exclude, the TServer "
    "fields replicas (0-99), release, env, resources and nodeSelector, a TConfig's "
    "configContent, a ConfigMap's or Secret's data and a Secret's stringData, of the right "
    "types, each for targets of its kinds",
    origin="tars-components",
)


def read_override(spec: Any, name: str, order: int, where: Any, problem: Any) -> Override | None:
    """One override from its ``spec`` (a ClusterOverride's, or an entry of a ``tars:clusters``
    entry's ``overrides``). ``problem(path, message)`` receives each mistake; None when there
    is one. ``where`` is the override's source (or None)."""
    ok = True

    def bad(path: str, message: str) -> None:
        nonlocal ok
        ok = False
        problem(path, message)

    if not isinstance(spec, Mapping):
        bad("spec", f"must be a mapping, got {_shown(spec)}")
        return None
    for key in sorted(str(k) for k in spec if k not in _OVERRIDE_SPEC):
        bad(f"spec.{key}", f"unknown field (expected one of {', '.join(sorted(_OVERRIDE_SPEC))})")
    clusters = spec.get("clusters", [])
    if not _strings(clusters):
        bad("spec.clusters", "must be a list of cluster names")
        clusters = []
    labels: dict[str, str] = {}
    expressions: list[Requirement] = []
    selector = spec.get("clusterSelector")
    if selector is not None:
        selected = _selector(selector, bad)
        if selected is not None:
            labels, expressions = selected
    if clusters and (labels or expressions):
        bad("spec.clusterSelector", "give clusters or clusterSelector, not both")
    targets: list[Target] = []
    raw_targets = spec.get("targets")
    if raw_targets is None:
        targets = [Target()]
    elif not isinstance(raw_targets, list) or not raw_targets:
        bad("spec.targets", "must be a non-empty list of {kind, name}")
    else:
        for index, item in enumerate(raw_targets):
            kind = item.get("kind") if isinstance(item, Mapping) else None
            item_name = item.get("name") if isinstance(item, Mapping) else None
            if (
                not isinstance(kind, str)
                or not kind
                or (item_name is not None and not isinstance(item_name, str))
                or set(item) - {"kind", "name"}
            ):
                bad(f"spec.targets[{index}]", "must be {kind: KIND, name: NAME} (name optional)")
                continue
            targets.append(Target(kind, item_name))
    exclude = spec.get("exclude")
    if exclude is not None and not isinstance(exclude, bool):
        bad("spec.exclude", f"must be true or false, got {_shown(exclude)}")
    fields: dict[str, Any] = {}
    for key in (*FIELD_OVERRIDES, *CONTENT_OVERRIDES):
        if key in spec:
            message = _field_problem(key, spec[key])
            if message:
                bad(f"spec.{key}", message)
            fields[key] = spec[key]
    if fields:
        kinds = [k for k in OVERRIDE_KINDS[next(iter(fields))] if _for_all(k, fields)]
        if not kinds:
            groups = "; ".join(f"{f}: {' or '.join(OVERRIDE_KINDS[f])}" for f in fields)
            bad("spec", f"these fields apply to different kinds ({groups}): one override each")
        elif "data" in fields and "Secret" in {t.kind for t in targets}:
            for key, value in (
                fields["data"] if isinstance(fields["data"], Mapping) else {}
            ).items():
                if isinstance(value, str) and not _base64(value):
                    bad(
                        f"spec.data.{key}",
                        "a Secret's data values are base64 (stringData takes text)",
                    )
        if kinds and any(t.kind not in kinds for t in targets):
            what = "TServer fields" if kinds == ["TServer"] else f"{' or '.join(kinds)} content"
            bad(
                "spec.targets",
                f"{', '.join(fields)} override {what}: every target must be a "
                f"{' or a '.join(kinds)}",
            )
    if not ok:
        return None
    return Override(
        name=name,
        clusters=tuple(clusters),
        labels=tuple(sorted(labels.items())),
        expressions=tuple(expressions),
        targets=tuple(targets),
        exclude=exclude,
        fields=fields,
        source=where,
        order=order,
    )


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except ValueError:
        return False
    return True


def _for_all(kind: str, fields: Mapping[str, Any]) -> bool:
    return all(kind in OVERRIDE_KINDS[f] for f in fields)


_SELECTOR_SHAPE = (
    "must be {matchLabels: {label: value, ...}, matchExpressions: [{key, operator, values}]} "
    "(at least one of the two)"
)


def _selector(selector: Any, bad: Any) -> tuple[dict[str, str], list[Requirement]] | None:
    """A ``clusterSelector``: its ``matchLabels`` and ``matchExpressions`` (Kubernetes label
    selector semantics, all must match), or None after ``bad(path, message)`` for each
    mistake."""
    at = "spec.clusterSelector"
    if not isinstance(selector, Mapping) or not selector:
        bad(at, _SELECTOR_SHAPE)
        return None
    ok = True
    for key in sorted(str(k) for k in selector if k not in ("matchLabels", "matchExpressions")):
        bad(f"{at}.{key}", f"unknown field: {_SELECTOR_SHAPE}")
        ok = False
    match = selector.get("matchLabels", {})
    if not isinstance(match, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in match.items()
    ):
        bad(f"{at}.matchLabels", "must be {label: value, ...} (strings)")
        ok = False
    expressions: list[Requirement] = []
    raw = selector.get("matchExpressions", [])
    if not isinstance(raw, list):
        bad(f"{at}.matchExpressions", "must be a list of {key, operator, values}")
        return None
    for index, item in enumerate(raw):
        here = f"{at}.matchExpressions[{index}]"
        requirement = _requirement(item, here, bad)
        if requirement is None:
            ok = False
        else:
            expressions.append(requirement)
    return (dict(match), expressions) if ok else None


def _requirement(item: Any, here: str, bad: Any) -> Requirement | None:
    """One ``matchExpressions`` entry, as Kubernetes reads it: ``values`` non-empty for In and
    NotIn, absent or empty for Exists and DoesNotExist."""
    if not isinstance(item, Mapping):
        bad(here, f"must be {{key, operator, values}}, got {_shown(item)}")
        return None
    extra = sorted(str(k) for k in item if k not in ("key", "operator", "values"))
    if extra:
        bad(f"{here}.{extra[0]}", "unknown field (expected key, operator, values)")
        return None
    key, operator, values = item.get("key"), item.get("operator"), item.get("values")
    if not isinstance(key, str) or not key:
        bad(f"{here}.key", f"must be a label name, got {_shown(key)}")
        return None
    if operator not in SELECTOR_OPERATORS:
        bad(
            f"{here}.operator",
            f"must be one of {', '.join(SELECTOR_OPERATORS)}, got {_shown(operator)}",
        )
        return None
    if values is not None and (
        not isinstance(values, list) or not all(isinstance(v, str) for v in values)
    ):
        bad(f"{here}.values", f"must be a list of label values, got {_shown(values)}")
        return None
    if operator in ("In", "NotIn") and not values:
        bad(f"{here}.values", f"{operator} needs a non-empty list of values")
        return None
    if operator in ("Exists", "DoesNotExist") and values:
        bad(f"{here}.values", f"{operator} takes no values")
        return None
    return Requirement(key, str(operator), tuple(values or ()))


def _field_problem(key: str, value: Any) -> str | None:
    if key == "replicas":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
            return f"must be an integer from 0 to 99, got {_shown(value)}"
    elif key in ("release", "resources"):
        if not isinstance(value, Mapping) or not value:
            return f"must be a non-empty mapping, got {_shown(value)}"
    elif key in ("env", "nodeSelector"):
        if not isinstance(value, list) or not all(isinstance(i, Mapping) for i in value):
            return f"must be a list of mappings, got {_shown(value)}"
        if key == "env" and not all(isinstance(i.get("name"), str) for i in value):
            return "every env entry needs a name"
    elif key == "configContent":
        if not isinstance(value, str):
            return f"must be the config file's text, got {type(value).__name__}"
    elif key in ("data", "stringData"):
        # never the values: a Secret's are secret (types only, and the keys)
        if not isinstance(value, Mapping) or not value:
            return f"must be a non-empty mapping of keys to strings, got {type(value).__name__}"
        for name, item in value.items():
            if not isinstance(name, str) or not name:
                return f"keys must be non-empty strings, got {type(name).__name__}"
            if item is not None and not isinstance(item, str):
                return f"{name}: must be a string (null removes the key), got {type(item).__name__}"
    return None


def override_document(obj: KubeObject, order: int) -> tuple[Override | None, list[Violation]]:
    """A ``ClusterOverride`` document read into an :class:`Override` (None when it cannot
    be), with what is wrong with it (TM004); ``order`` is its place among the stack's."""
    found: list[Violation] = []
    override = read_override(
        obj.body.get("spec"),
        obj.name,
        order,
        obj.source,
        lambda path, message: found.append(TM004.at(obj, path, message)),
    )
    return override, found


def clusters_from_config(value: Any, where: str = "tars:clusters") -> tuple[Cluster, ...]:
    """The clusters of ``tars:clusters``: a list of ``{name, apiServer, credentials,
    credentialsType, labels, wave, overrides}`` (only ``name`` required). Raises
    :class:`UsageError` naming the entry and field at fault (``where`` names the setting, with
    its file)."""
    if value is None or value == "":
        return ()
    value = structured_setting(value, where, "must be a list of clusters (YAML or JSON)")
    if not isinstance(value, list):
        raise UsageError(f"{where}: must be a list of clusters, got {_shown(value)}")
    allowed = {"name", "apiServer", "credentials", "credentialsType", "labels", "wave", "overrides"}
    clusters: list[Cluster] = []
    for index, entry in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(entry, Mapping):
            raise UsageError(f"{at}: must be a mapping with a name, got {_shown(entry)}")
        extra = sorted(str(k) for k in entry if k not in allowed)
        if extra:
            raise UsageError(
                f"{at}.{extra[0]}: unknown field (expected {', '.join(sorted(allowed))})"
            )
        name = entry.get("name")
        if not isinstance(name, str) or not is_dns_label(name):
            raise UsageError(f"{at}.name: {_bad_name(name)}")
        if any(c.name == name for c in clusters):
            raise UsageError(f"{at}.name: cluster {name} is declared twice")
        api_server = entry.get("apiServer")
        if api_server is not None and (
            not isinstance(api_server, str) or not _HTTPS.match(api_server)
        ):
            raise UsageError(f"{at}.apiServer: must be an https URL, got {_shown(api_server)}")
        key = entry.get("credentials")
        if key is not None and (not isinstance(key, str) or not key):
            raise UsageError(f"{at}.credentials: must be the name of a Pulumi config key")
        kind = entry.get("credentialsType", "kubeconfig")
        if kind not in CREDENTIAL_TYPES:
            raise UsageError(
                f"{at}.credentialsType: must be kubeconfig or token, got {_shown(kind)}"
            )
        labels = entry.get("labels") or {}
        if not isinstance(labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise UsageError(f"{at}.labels: must map label names to string values")
        wave = _wave(entry.get("wave", 0))
        if wave is None:
            raise UsageError(
                f"{at}.wave: must be a non-negative integer, got {_shown(entry.get('wave'))}"
            )
        raw_overrides = entry.get("overrides") or []
        if not isinstance(raw_overrides, list):
            raise UsageError(f"{at}.overrides: must be a list of overrides")
        overrides: list[Override] = []
        for position, spec in enumerate(raw_overrides):
            here = f"{at}.overrides[{position}]"

            def problem(path: str, message: str, here: str = here) -> None:
                raise UsageError(f"{here}{path.removeprefix('spec')}: {message}")

            if isinstance(spec, Mapping) and ("clusters" in spec or "clusterSelector" in spec):
                raise UsageError(f"{here}: an entry's overrides apply to that cluster only")
            override = read_override(spec, f"{name}-{position}", position, None, problem)
            if override is not None:
                overrides.append(override)
        clusters.append(
            Cluster(
                name=name,
                api_server=api_server,
                credentials_key=key,
                credentials_type=str(kind),
                labels=_label_pairs(labels),
                wave=wave,
                overrides=tuple(overrides),
            )
        )
    return tuple(clusters)


def _wave(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _label_pairs(labels: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(labels, Mapping):
        return ()
    return tuple(sorted((str(k), str(v)) for k, v in labels.items()))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _bad_name(name: Any) -> str:
    return (
        f"a cluster name must be a DNS label (lowercase letters, digits and '-', at most 63), "
        f"got {_shown(name)}"
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
