"""What is wrong with a stack's cluster inventory and overrides as a whole
(docs/concepts/clusters.md); reading them is :mod:`tars_components.loading.clusters` (TM001-TM004),
applying the overrides is :mod:`tars_components.jobs.multicluster`.

* TM005: a ClusterOverride names clusters of the inventory;
* TM006 (warning): a ClusterOverride's targets match documents of the stack;
* TM007: clusters come from Cluster documents or ``tars:clusters``, not both;
* TM008: ClusterOverride documents need a cluster inventory;
* TM009 (warning): a replicas override outside the TServer's ``tars.io/MinReplicas`` and
  ``tars.io/MaxReplicas`` is clamped by the webhook;
* TM010: the Karmada hand-over refuses a Secret whose data differs per cluster (an
  OverridePolicy would hold its values in plain text);
* TM011: a cluster that cannot take the change (its Stellaris status, an API server that does
  not answer, missing credentials) stops the preview, or is skipped with a warning under
  ``tars:unavailableClusters: skip``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from ..kernel.deprecation import moved_attributes
from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, rule
from ..loading.clusters import TM002, cluster_document, override_document
from ..loading.document_set import DocumentSet
from ..models import TServerDocument
from ..models.cluster import (
    CLUSTER_KIND,
    OVERRIDE_API_VERSION,
    OVERRIDE_KIND,
    STELLARIS_API_VERSION,
    Cluster,
    Inventory,
    Override,
    Target,
)

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
    stack: DocumentSet, configured: Sequence[Cluster] = (), policy: str = "fail"
) -> tuple[Inventory, list[Violation]]:
    """The inventory of a loaded stack: its Stellaris Cluster documents, or ``configured``
    (``tars:clusters``, or the management cluster's Cluster objects), with every override
    (ClusterOverride documents, then the entries' own); and the TM violations found, TM011
    for a cluster whose status says it cannot take the change under ``policy``
    (``tars:unavailableClusters``). No clusters and no ClusterOverride: an empty inventory, no
    violation (a stack for one cluster, as without this feature)."""
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
                    "the stack config already gives its clusters (tars:clusters or "
                    "tars:managementCluster): remove either the Cluster documents or that "
                    "setting",
                )
            )
            continue
        cluster, problems = cluster_document(obj)
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
        override, problems = override_document(obj, order)
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
    inventory = Inventory(tuple(clusters), tuple(ordered))
    return inventory, [*found, *unavailable_violations(inventory, policy)]


def _matches_any(target: Target, stack: DocumentSet) -> bool:
    for doc in stack.documents:
        if target.matches(doc.kind, doc.name):
            return True
    return any(target.matches(o.kind, o.name) for o in stack.objects)


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


TM010 = rule(
    "TM010",
    ERROR,
    OVERRIDE_KIND,
    "render --target karmada: a Secret's data or stringData is the same on every cluster (a "
    "Karmada OverridePolicy would hold the per-cluster values in plain text)",
    origin="tars-components",
)


def karmada_secret(
    overrides: Iterable[Override], namespace: str, secret: str, cluster: str
) -> list[Violation]:
    """TM010 for each override of ``overrides`` that sets data of the Secret ``secret`` on
    ``cluster``, at its ``spec.data``/``spec.stringData`` (never its values)."""
    found: list[Violation] = []
    for override in overrides:
        fields = [f for f in ("data", "stringData") if f in override.fields]
        if not fields or not override.selects("Secret", secret):
            continue
        where = f"spec.{fields[0]}"
        source = override.source
        found.append(
            TM010.violation(
                kind=OVERRIDE_KIND,
                namespace=namespace,
                name=override.name,
                field=where,
                message=f"Secret {namespace}/{secret} differs on cluster {cluster}: a Karmada "
                "OverridePolicy would hold its values in plain text; give the cluster a Secret "
                "of its own name (excluded from the others) or deploy with per-cluster "
                "providers",
                file=source.file if source else None,
                line=source.line(where) if source else None,
            )
        )
    return found


TM011 = rule(
    "TM011",
    ERROR,
    CLUSTER_KIND,
    "every cluster of the inventory can take the change: its Stellaris status is healthy and "
    "online, its API server answers, its credentials are found (a warning, the cluster "
    "skipped, under tars:unavailableClusters: skip)",
    origin="seed",
    also_warning=True,
)


def unavailable_violations(
    inventory: Inventory,
    policy: str,
    facts: Mapping[str, str] | None = None,
) -> list[Violation]:
    """TM011 for each cluster of ``inventory`` that cannot take the change: what its status
    says (:attr:`Cluster.unavailable`) and
    what the deployment found (``facts``: a cluster's name to why, such as an API server
    that does not answer); errors under ``policy`` ``fail``, warnings under ``skip``."""
    found: list[Violation] = []
    for cluster in inventory.clusters:
        status = cluster.unavailable
        reasons = [r for r in (status, (facts or {}).get(cluster.name)) if r]
        if not reasons:
            continue
        field = "status" if status else "metadata.name"
        then = (
            "skipped: its objects are left as they are (tars:unavailableClusters: skip)"
            if policy == "skip"
            else "nothing is applied (tars:unavailableClusters: skip applies the other "
            "clusters and leaves it as it is)"
        )
        source = cluster.source
        found.append(
            TM011.violation(
                kind=CLUSTER_KIND,
                namespace="",
                name=cluster.name,
                field=field,
                message=f"cluster {cluster.name} cannot take the change "
                f"({'; '.join(reasons)}): {then}",
                file=source.file if source else None,
                line=source.line(field) if source else None,
                severity=WARNING if policy == "skip" else None,
            )
        )
    return found


def cluster_violations(violations: Iterable[Violation], cluster: str) -> Iterator[Violation]:
    """``violations`` of one cluster's result, each naming ``cluster``."""
    from dataclasses import replace

    for v in violations:
        yield v if v.cluster else replace(v, cluster=cluster)


if not TYPE_CHECKING:
    # 0.2.0 split the model and the reader out of this module.
    __getattr__ = moved_attributes(
        __name__,
        {
            "FIELD_OVERRIDES": "tars_components.models.cluster",
            **dict.fromkeys(
                (
                    "clusters_from_config",
                    "read_override",
                    "is_cluster_document",
                    "has_cluster_documents",
                    "without_cluster_documents",
                ),
                "tars_components.loading.clusters",
            ),
        },
    )
