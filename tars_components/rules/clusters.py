"""The cluster inventory and the per-cluster overrides of a stack (docs/concepts/clusters.md).

A stack names its clusters either as Stellaris ``Cluster`` documents
(``stellaris.harmonycloud.cn/v1alpha1``) among its files, or in ``tars:clusters`` of
``Pulumi.<env>.yaml``; ``ClusterOverride`` documents (``tars-components.io/v1alpha1``) and the
``overrides`` of a ``tars:clusters`` entry say what differs per cluster. Neither kind is ever
emitted. This module reads both kinds into :class:`Inventory` and reports what is wrong with
them (the TM rules); applying the overrides is :mod:`tars_components.jobs.multicluster`.

* TM001: a Stellaris Cluster has ``spec.apiserver`` (an https URL) and ``spec.secretRef``
  (``type`` kubeconfig or token, ``name``, ``namespace``, ``field``);
* TM002: cluster names are DNS labels, once each;
* TM003: a cluster's wave (annotation ``tars-components.io/wave``) is a non-negative integer;
* TM004: a ClusterOverride's spec has known fields of the right types;
* TM005: a ClusterOverride names clusters of the inventory;
* TM006 (warning): a ClusterOverride's targets match documents of the stack;
* TM007: clusters come from Cluster documents or ``tars:clusters``, not both;
* TM008: ClusterOverride documents need a cluster inventory;
* TM009 (warning): a replicas override outside the TServer's ``tars.io/MinReplicas`` and
  ``tars.io/MaxReplicas`` is clamped by the webhook.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..kernel.errors import UsageError, Violation
from ..kernel.registry import ERROR, WARNING, rule
from ..loading.document_set import DocumentSet, KubeObject
from ..models import Source, TServerDocument
from ..models.names import is_dns_label
from ..models.product import CLUSTER_OVERRIDE_KIND, PRODUCT_API_VERSION

STELLARIS_API_VERSION = "stellaris.harmonycloud.cn/v1alpha1"
"""apiVersion of the Stellaris ``Cluster`` documents."""
CLUSTER_KIND = "Cluster"
OVERRIDE_API_VERSION = PRODUCT_API_VERSION
"""apiVersion of the ``ClusterOverride`` documents (this product's own group)."""
OVERRIDE_KIND = CLUSTER_OVERRIDE_KIND
WAVE_ANNOTATION = "tars-components.io/wave"
"""Annotation of a Stellaris Cluster: its wave (default 0)."""
CREDENTIALS_ANNOTATION = "tars-components.io/credentials"
"""Annotation of a Stellaris Cluster: the Pulumi secret config key of its credentials (default:
``spec.secretRef.name``)."""
CREDENTIAL_TYPES = ("kubeconfig", "token")
FIELD_OVERRIDES = ("replicas", "release", "env", "resources", "nodeSelector")
"""The TServer fields an override sets (``spec.k8s.*``, ``spec.release``)."""
_OVERRIDE_SPEC = frozenset({"clusters", "clusterSelector", "targets", "exclude", *FIELD_OVERRIDES})
_HTTPS = re.compile(r"^https://[^\s/]+(/\S*)?$")


@dataclass(frozen=True)
class Target:
    """Documents an override applies to: a kind and a name (None: every one of the kind)."""

    kind: str = "TServer"
    name: str | None = None

    def matches(self, kind: str, name: str) -> bool:
        """True when a document of ``kind`` named ``name`` is one of these."""
        return kind == self.kind and (self.name is None or self.name == name)


@dataclass(frozen=True)
class Override:
    """What differs on some clusters: on the clusters it selects (``clusters`` by name, else
    ``labels`` all matching, else every cluster), for the documents of ``targets`` (default:
    every TServer), ``exclude`` (true leaves them out, false puts them back) and the
    TServer fields of :data:`FIELD_OVERRIDES` (in ``fields``, as written)."""

    name: str
    clusters: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    targets: tuple[Target, ...] = (Target(),)
    exclude: bool | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    source: Source | None = None
    order: int = 0

    @property
    def level(self) -> int:
        """Precedence: 0 every cluster, 1 clusters matching labels, 2 named clusters."""
        return 2 if self.clusters else 1 if self.labels else 0

    def applies_to(self, cluster: Cluster) -> bool:
        """True when this override selects ``cluster``."""
        if self.clusters:
            return cluster.name in self.clusters
        own = dict(cluster.labels)
        return all(own.get(key) == value for key, value in self.labels)

    def selects(self, kind: str, name: str) -> bool:
        """True when a document of ``kind`` named ``name`` is a target."""
        return any(t.matches(kind, name) for t in self.targets)


@dataclass(frozen=True)
class Cluster:
    """One cluster of the inventory: its name (the output directory, part of resource
    names), API server, the Pulumi secret config key of its credentials and their type
    (``kubeconfig`` or ``token``), labels, wave, and the overrides of its ``tars:clusters``
    entry."""

    name: str
    api_server: str | None = None
    credentials_key: str | None = None
    credentials_type: str = "kubeconfig"
    labels: tuple[tuple[str, str], ...] = ()
    wave: int = 0
    source: Source | None = None
    overrides: tuple[Override, ...] = ()


@dataclass(frozen=True)
class Inventory:
    """The clusters of a stack (in declaration order) and every override, in precedence
    order (level, then declaration order)."""

    clusters: tuple[Cluster, ...] = ()
    overrides: tuple[Override, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.clusters)

    @property
    def names(self) -> list[str]:
        """Cluster names, in declaration order."""
        return [c.name for c in self.clusters]

    def cluster(self, name: str) -> Cluster | None:
        """The cluster named ``name``, if any."""
        return next((c for c in self.clusters if c.name == name), None)

    def for_cluster(self, cluster: Cluster) -> list[Override]:
        """The overrides that apply to ``cluster``, lowest precedence first."""
        return [o for o in self.overrides if o.applies_to(cluster)]

    def waves(self) -> list[list[Cluster]]:
        """The clusters grouped by wave, lowest wave first."""
        found: dict[int, list[Cluster]] = {}
        for c in self.clusters:
            found.setdefault(c.wave, []).append(c)
        return [found[w] for w in sorted(found)]


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


def _stellaris_cluster(obj: KubeObject) -> tuple[Cluster | None, list[Violation]]:
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
    )
    return cluster, []


TM004 = rule(
    "TM004",
    ERROR,
    OVERRIDE_KIND,
    "a ClusterOverride's spec has only clusters, clusterSelector.matchLabels, targets, "
    "exclude, replicas (0-99), release, env, resources and nodeSelector, of the right types",
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
    selector = spec.get("clusterSelector")
    if selector is not None:
        match = selector.get("matchLabels") if isinstance(selector, Mapping) else None
        if (
            not isinstance(selector, Mapping)
            or set(selector) != {"matchLabels"}
            or not isinstance(match, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in match.items())
        ):
            bad("spec.clusterSelector", "must be {matchLabels: {label: value, ...}}")
        else:
            labels = dict(match)
    if clusters and labels:
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
    for key in FIELD_OVERRIDES:
        if key in spec:
            message = _field_problem(key, spec[key])
            if message:
                bad(f"spec.{key}", message)
            fields[key] = spec[key]
    if fields and any(t.kind != "TServer" for t in targets):
        bad(
            "spec.targets",
            f"{', '.join(fields)} override TServer fields: every target must be a TServer",
        )
    if not ok:
        return None
    return Override(
        name=name,
        clusters=tuple(clusters),
        labels=tuple(sorted(labels.items())),
        targets=tuple(targets),
        exclude=exclude,
        fields=fields,
        source=where,
        order=order,
    )


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
    return None


def _override_document(obj: KubeObject, order: int) -> tuple[Override | None, list[Violation]]:
    found: list[Violation] = []
    override = read_override(
        obj.body.get("spec"),
        obj.name,
        order,
        obj.source,
        lambda path, message: found.append(TM004.at(obj, path, message)),
    )
    return override, found


TM005 = rule(
    "TM005",
    ERROR,
    OVERRIDE_KIND,
    "a ClusterOverride names clusters of the inventory",
    origin="tars-components",
)
TM006 = rule(
    "TM006",
    WARNING,
    OVERRIDE_KIND,
    "a ClusterOverride's targets match documents of the stack (else it changes nothing)",
    origin="tars-components",
)
TM007 = rule(
    "TM007",
    ERROR,
    CLUSTER_KIND,
    "clusters come from Stellaris Cluster documents or from tars:clusters, not both",
    origin="tars-components",
)
TM008 = rule(
    "TM008",
    ERROR,
    OVERRIDE_KIND,
    "ClusterOverride documents need a cluster inventory (Cluster documents or tars:clusters)",
    origin="tars-components",
)


def stack_inventory(
    stack: DocumentSet, configured: Sequence[Cluster] = ()
) -> tuple[Inventory, list[Violation]]:
    """The inventory of a loaded stack: its Stellaris Cluster documents, or ``configured``
    (``tars:clusters``), with every override (ClusterOverride documents, then the entries'
    own); and the TM violations found. No clusters and no ClusterOverride: an empty
    inventory, no violation (a stack for one cluster, as without this feature)."""
    found: list[Violation] = []
    clusters: list[Cluster] = []
    documents: list[Override] = []
    cluster_docs = [
        o for o in stack.objects if (o.api_version, o.kind) == (STELLARIS_API_VERSION, CLUSTER_KIND)
    ]
    override_docs = [
        o for o in stack.objects if (o.api_version, o.kind) == (OVERRIDE_API_VERSION, OVERRIDE_KIND)
    ]
    for obj in cluster_docs:
        if configured:
            found.append(
                TM007.at(
                    obj,
                    "metadata.name",
                    "the stack config already lists its clusters (tars:clusters): remove "
                    "either the Cluster documents or tars:clusters",
                )
            )
            continue
        cluster, problems = _stellaris_cluster(obj)
        found.extend(problems)
        if cluster is not None:
            if any(c.name == cluster.name for c in clusters):
                found.append(
                    TM002.at(obj, "metadata.name", f"cluster {cluster.name} is declared twice")
                )
                continue
            clusters.append(cluster)
    if configured:
        clusters = list(configured)
    for order, obj in enumerate(override_docs):
        override, problems = _override_document(obj, order)
        found.extend(problems)
        if override is None:
            continue
        if not cluster_docs and not configured:
            found.append(
                TM008.at(
                    obj,
                    "spec",
                    "no cluster inventory: add Stellaris Cluster documents or tars:clusters",
                )
            )
            continue
        known = {c.name for c in clusters}
        unknown = [n for n in override.clusters if n not in known]
        for name in unknown:
            index = override.clusters.index(name)
            found.append(
                TM005.at(
                    obj,
                    f"spec.clusters[{index}]",
                    f"no cluster {name} in the inventory ({', '.join(sorted(known)) or 'none'})",
                )
            )
        if unknown:
            continue
        unmatched = [t for t in override.targets if not _matches_any(t, stack)]
        for target in unmatched:
            index = override.targets.index(target)
            what = f"{target.kind} {target.name}" if target.name else f"no {target.kind}"
            found.append(
                TM006.at(
                    obj,
                    f"spec.targets[{index}]" if obj.body["spec"].get("targets") else "spec",
                    f"{what} in the stack: this target changes nothing",
                )
            )
        documents.append(override)
    if found and any(v.is_error for v in found):
        return Inventory(tuple(clusters), ()), found
    entries = [
        Override(
            name=o.name,
            clusters=(c.name,),
            targets=o.targets,
            exclude=o.exclude,
            fields=o.fields,
            source=o.source,
            order=len(documents) + i,
        )
        for c in clusters
        for i, o in enumerate(c.overrides)
    ]
    ordered = sorted([*documents, *entries], key=lambda o: (o.level, o.order))
    return Inventory(tuple(clusters), tuple(ordered)), found


def _matches_any(target: Target, stack: DocumentSet) -> bool:
    for doc in stack.documents:
        if target.matches(doc.kind, doc.name):
            return True
    return any(target.matches(o.kind, o.name) for o in stack.objects)


def clusters_from_config(value: Any, where: str = "tars:clusters") -> tuple[Cluster, ...]:
    """The clusters of ``tars:clusters``: a list of ``{name, apiServer, credentials,
    credentialsType, labels, wave, overrides}`` (only ``name`` required). Raises
    :class:`UsageError` naming the entry and field at fault (``where`` names the setting, with
    its file)."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):  # pulumi.Config.get gives structured values as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            raise UsageError(f"{where}: must be a list of clusters (YAML or JSON)") from None
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


TM009 = rule(
    "TM009",
    WARNING,
    OVERRIDE_KIND,
    "a replicas override lies within the TServer's tars.io/MinReplicas and tars.io/MaxReplicas "
    "(else the webhook clamps it)",
    origin="tars-components",
)


def clamped_replicas(override: Override, server: TServerDocument) -> Violation | None:
    """TM009 when ``override`` sets replicas outside ``server``'s replica annotations (the
    mutating webhook then clamps them, M-TS10); None otherwise."""
    from ..mutation.tserver import replica_bounds

    replicas = override.fields.get("replicas")
    bounds = replica_bounds(server) if isinstance(replicas, int) else None
    if bounds is None or not isinstance(replicas, int):
        return None
    low, high = bounds
    if (low is None or replicas >= low) and (high is None or replicas <= high):
        return None
    source = override.source
    where = "spec.replicas"
    return TM009.violation(
        kind=OVERRIDE_KIND,
        namespace=server.namespace,
        name=override.name,
        field=where,
        message=f"replicas {replicas} for TServer {server.name} is outside its "
        f"tars.io/MinReplicas..MaxReplicas ({low if low is not None else 0}.."
        f"{high if high is not None else 99}): the webhook makes it "
        f"{max(low or 0, min(replicas, 99 if high is None else high))}",
        file=source.file if source else None,
        line=source.line(where) if source else None,
    )


def cluster_violations(violations: Iterable[Violation], cluster: str) -> Iterator[Violation]:
    """``violations`` of one cluster's result, each naming ``cluster``."""
    from dataclasses import replace

    for v in violations:
        yield v if v.cluster else replace(v, cluster=cluster)
