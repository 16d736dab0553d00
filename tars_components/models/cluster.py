"""The cluster inventory of a stack as data (docs/concepts/clusters.md): its clusters
(Stellaris ``Cluster`` documents or ``tars:clusters`` entries) and the overrides that say what
differs per cluster. Reading them is :mod:`tars_components.loading.clusters`; what is wrong
with them, :mod:`tars_components.rules.clusters`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .document import Source
from .product import CLUSTER_OVERRIDE_KIND, PRODUCT_API_VERSION

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
UNAVAILABLE_POLICIES = ("fail", "skip")
"""``tars:unavailableClusters``: what a preview does with a cluster that cannot take the
change (its status says so, its API server does not answer, its credentials are missing):
stop (``fail``, the default) or leave it as it is with a warning (``skip``)."""
FIELD_OVERRIDES = ("replicas", "release", "env", "resources", "nodeSelector")
"""The TServer fields an override sets (``spec.k8s.*``, ``spec.release``)."""
CONTENT_OVERRIDES = ("configContent", "data", "stringData")
"""The content an override sets: a TConfig's ``configContent``, a ConfigMap's or Secret's
``data`` and a Secret's ``stringData`` (by key)."""
OVERRIDE_KINDS: Mapping[str, tuple[str, ...]] = {
    **dict.fromkeys(FIELD_OVERRIDES, ("TServer",)),
    "configContent": ("TConfig",),
    "data": ("ConfigMap", "Secret"),
    "stringData": ("Secret",),
}
"""Each field an override sets, and the kinds of the documents it applies to."""
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
"""The operators of a ``matchExpressions`` requirement, as Kubernetes label selectors define
them."""


@dataclass(frozen=True)
class Target:
    """Documents an override applies to: a kind and a name (None: every one of the kind)."""

    kind: str = "TServer"
    name: str | None = None

    def matches(self, kind: str, name: str) -> bool:
        """True when a document of ``kind`` named ``name`` is one of these."""
        return kind == self.kind and (self.name is None or self.name == name)


@dataclass(frozen=True)
class Requirement:
    """One ``matchExpressions`` entry of a cluster selector: a label ``key``, an
    ``operator`` of :data:`SELECTOR_OPERATORS` and its ``values`` (In and NotIn only)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when a cluster with ``labels`` meets this requirement (NotIn and
        DoesNotExist hold for a cluster without the label, as in Kubernetes)."""
        if self.operator == "In":
            return labels.get(self.key) in self.values
        if self.operator == "NotIn":
            return labels.get(self.key) not in self.values
        if self.operator == "Exists":
            return self.key in labels
        return self.key not in labels


@dataclass(frozen=True)
class Override:
    """What differs on some clusters: on the clusters it selects (``clusters`` by name, else
    ``labels`` and ``expressions`` all matching, else every cluster), for the documents of
    ``targets`` (default: every TServer), ``exclude`` (true leaves them out, false puts them
    back), the TServer fields of :data:`FIELD_OVERRIDES` and the content of
    :data:`CONTENT_OVERRIDES` (in ``fields``, as written)."""

    name: str
    clusters: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    expressions: tuple[Requirement, ...] = ()
    targets: tuple[Target, ...] = (Target(),)
    exclude: bool | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    source: Source | None = None
    order: int = 0

    @property
    def level(self) -> int:
        """Precedence: 0 every cluster, 1 clusters matching a selector (``matchLabels``,
        ``matchExpressions``), 2 named clusters."""
        return 2 if self.clusters else 1 if self.labels or self.expressions else 0

    def applies_to(self, cluster: Cluster) -> bool:
        """True when this override selects ``cluster``."""
        if self.clusters:
            return cluster.name in self.clusters
        own = dict(cluster.labels)
        return all(own.get(key) == value for key, value in self.labels) and all(
            r.matches(own) for r in self.expressions
        )

    def selects(self, kind: str, name: str) -> bool:
        """True when a document of ``kind`` named ``name`` is a target."""
        return any(t.matches(kind, name) for t in self.targets)


@dataclass(frozen=True)
class SecretReference:
    """A Stellaris Cluster's ``spec.secretRef``: the Secret of the management cluster that
    holds its credentials (``namespace``/``name``) and the key of its data (``field``)."""

    namespace: str
    name: str
    field: str


@dataclass(frozen=True)
class Cluster:
    """One cluster of the inventory: its name (the output directory, part of resource
    names), API server, the Pulumi secret config key of its credentials and their type
    (``kubeconfig`` or ``token``), labels, wave, and the overrides of its ``tars:clusters``
    entry. A Stellaris Cluster also gives the Secret of its credentials in the management
    cluster (``secret_ref``) and, when its ``status`` says it is not available, why
    (``unavailable``)."""

    name: str
    api_server: str | None = None
    credentials_key: str | None = None
    credentials_type: str = "kubeconfig"
    labels: tuple[tuple[str, str], ...] = ()
    wave: int = 0
    source: Source | None = None
    overrides: tuple[Override, ...] = ()
    secret_ref: SecretReference | None = None
    unavailable: str | None = None


@dataclass(frozen=True)
class ManagementCluster:
    """``tars:managementCluster``: the cluster whose Stellaris ``Cluster`` objects are the
    inventory and whose Secrets hold the clusters' credentials, reached through a context of
    the kubeconfig (``context``) or a kubeconfig kept as the Pulumi secret
    ``tars:<kubeconfig_key>``; ``label_selector`` (a Kubernetes label selector) picks this
    environment's clusters when one management cluster serves several."""

    context: str | None = None
    kubeconfig_key: str | None = None
    label_selector: str | None = None

    @property
    def described(self) -> str:
        """How it is named in messages: ``management cluster (context mgmt)``."""
        how = f"context {self.context}" if self.context else f"tars:{self.kubeconfig_key}"
        return f"management cluster ({how})"


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
