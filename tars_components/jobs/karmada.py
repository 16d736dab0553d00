"""The hand-over to Karmada (docs/concepts/clusters.md#karmada): ``render --target karmada``.

For a Karmada control plane the objects are written once (as every cluster of the inventory
gets them without its own overrides), plus:

* a ``PropagationPolicy`` per server (its workload and Service, selected by kind and name),
  placing them on the clusters whose result has them (``clusterAffinity.clusterNames``;
  ``Duplicated`` replica scheduling, so each cluster runs the server's own replica count); one
  more for the other namespaced objects, and a ``ClusterPropagationPolicy`` for cluster-scoped
  ones, grouped by the clusters they go to;
* an ``OverridePolicy`` (``ClusterOverridePolicy`` for a cluster-scoped object) per object that
  differs on some cluster: one ``plaintext`` JSON-patch rule per such cluster, computed from
  the cluster's own render, so Karmada reproduces exactly what ``render`` writes for it.

:func:`karmada_build` is pure; :func:`render_karmada` writes the tree (the renderYamlToDirectory
layout, as ``render`` does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..kernel.errors import Violation, has_errors, sorted_violations
from ..loading.document_set import DocumentSet
from ..models.cluster import Cluster
from ..models.kind_facts import CLUSTER_SCOPED_KINDS
from ..models.vocabulary import LABEL_APP, LABEL_SERVER
from ..pipeline import run, shared_build, targets
from ..rules.clusters import karmada_secret
from ..settings.options import Options

if TYPE_CHECKING:
    from ..secrets.hashing import AccountHashing

POLICY_API_VERSION = "policy.karmada.io/v1alpha1"
"""apiVersion of Karmada's PropagationPolicy and OverridePolicy."""
SERVER_LABELS = (LABEL_APP, LABEL_SERVER)

Key = tuple[str, str, str, str]
"""``(apiVersion, kind, namespace, name)`` of an object."""


def _key(obj: Mapping[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return (
        str(obj["apiVersion"]),
        str(obj["kind"]),
        str(meta.get("namespace") or ""),
        str(meta["name"]),
    )


@dataclass(frozen=True)
class KarmadaBuild:
    """What :func:`karmada_build` makes: the objects once, the policies, the clusters (names)
    and every violation (each cluster's naming it)."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    policies: list[dict[str, Any]] = field(default_factory=list)
    clusters: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.violations)


def karmada_build(
    stack: DocumentSet,
    options: Options = Options(),
    configured: Sequence[Cluster] = (),
    hashing: AccountHashing | None = None,
) -> KarmadaBuild:
    """The Karmada hand-over of a stack with clusters (nothing but the violations when any
    cluster's result has a rule error). ``hashing`` salts TAccount passwords alike for every
    cluster (keyed, so that the object written once is every cluster's)."""
    to = targets(stack, configured)
    result = run(stack, to, options, hashing=hashing)
    violations = result.all_violations
    if not result.ok:
        return KarmadaBuild(violations=violations)
    base = shared_build(stack, to, options, hashing)
    per_cluster = {r.name: {_key(o): o for o in r.build.objects} for r in result.results}
    names = list(per_cluster)
    order: dict[Key, dict[str, Any]] = {}
    for obj in base.objects if base.ok else []:
        order.setdefault(_key(obj), obj)
    for objects in per_cluster.values():
        for key, obj in objects.items():
            order.setdefault(key, obj)
    placements: dict[Key, list[str]] = {}
    overrides: list[dict[str, Any]] = []
    refused: list[Violation] = []
    for key, template in order.items():
        present = [name for name in names if key in per_cluster[name]]
        placements[key] = present
        rules = []
        for name in present:
            patch = json_patch(template, per_cluster[name][key])
            if _secret_values(key, patch):  # the every-cluster overrides are in the template
                cluster = next(c for c in result.inventory.clusters if c.name == name)
                own = [o for o in result.inventory.for_cluster(cluster) if o.level]
                refused.extend(karmada_secret(own, key[2], key[3], name))
                continue
            if patch:
                rules.append(
                    {
                        "targetCluster": {"clusterNames": [name]},
                        "overriders": {"plaintext": patch},
                    }
                )
        if rules:
            overrides.append(_override_policy(key, rules))
    if refused:
        return KarmadaBuild(violations=sorted_violations([*violations, *refused]))
    policies = [*_propagation_policies(order, placements, names), *overrides]
    return KarmadaBuild(
        objects=list(order.values()),
        policies=policies,
        clusters=names,
        violations=sorted_violations(violations),
    )


def _secret_values(key: Key, patch: Sequence[Mapping[str, Any]]) -> bool:
    """True when ``patch`` changes a Secret's values (which an OverridePolicy holds in plain
    text)."""
    if key[:2] != ("v1", "Secret"):
        return False
    return any(str(op.get("path", "")).startswith(("/data", "/stringData")) for op in patch)


def _selector(key: Key) -> dict[str, Any]:
    api_version, kind, namespace, name = key
    selector = {"apiVersion": api_version, "kind": kind, "name": name}
    if namespace:
        selector["namespace"] = namespace
    return selector


def _policy_name(text: str) -> str:
    name = "".join(c if c.isalnum() or c in "-." else "-" for c in text.lower()).strip("-.")
    return name[:253] or "tars"


def _placement(clusters: Sequence[str]) -> dict[str, Any]:
    return {
        "clusterAffinity": {"clusterNames": list(clusters)},
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }


def _server_of(obj: Mapping[str, Any]) -> str | None:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if all(label in labels for label in SERVER_LABELS):
        app, server = (str(labels[label]) for label in SERVER_LABELS)
        return f"{app.lower()}-{server.lower()}"
    return None


def _propagation_policies(
    order: Mapping[Key, Mapping[str, Any]],
    placements: Mapping[Key, list[str]],
    names: Sequence[str],
) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, tuple[str, ...]], list[Key]] = {}
    for key, obj in order.items():
        _, kind, namespace, _ = key
        clusters = tuple(placements[key])
        server = _server_of(obj) if namespace else None
        if kind in CLUSTER_SCOPED_KINDS or not namespace:
            group = "tars-cluster-objects"
        else:
            group = server or "tars-objects"
        groups.setdefault((group, namespace, clusters), []).append(key)
    policies: list[dict[str, Any]] = []
    counted: dict[tuple[str, str], int] = {}
    for (group, namespace, clusters), keys in groups.items():
        seen = counted.get((group, namespace), 0)
        counted[(group, namespace)] = seen + 1
        name = group if seen == 0 else f"{group}-{seen + 1}"
        meta: dict[str, Any] = {"name": _policy_name(name)}
        if namespace:
            meta["namespace"] = namespace
        policies.append(
            {
                "apiVersion": POLICY_API_VERSION,
                "kind": "PropagationPolicy" if namespace else "ClusterPropagationPolicy",
                "metadata": meta,
                "spec": {
                    "resourceSelectors": [_selector(k) for k in keys],
                    "placement": _placement(clusters),
                },
            }
        )
    return policies


def _override_policy(key: Key, rules: list[dict[str, Any]]) -> dict[str, Any]:
    _, kind, namespace, name = key
    meta: dict[str, Any] = {"name": _policy_name(f"{name}-{kind}")}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": POLICY_API_VERSION,
        "kind": "OverridePolicy" if namespace else "ClusterOverridePolicy",
        "metadata": meta,
        "spec": {"resourceSelectors": [_selector(key)], "overrideRules": rules},
    }


def json_patch(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """The RFC 6902 operations (Karmada ``plaintext`` overriders: add, replace, remove) that
    turn ``old`` into ``new``: mappings key by key, lists of the same length item by item,
    anything else replaced whole."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        ops: list[dict[str, Any]] = []
        for key in old:
            here = f"{path}/{_escape(str(key))}"
            if key not in new:
                ops.append({"path": here, "operator": "remove"})
            else:
                ops.extend(json_patch(old[key], new[key], here))
        for key in new:
            if key not in old:
                here = f"{path}/{_escape(str(key))}"
                ops.append({"path": here, "operator": "add", "value": new[key]})
        return ops
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            op
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for op in json_patch(a, b, f"{path}/{i}")
        ]
    if old == new and type(old) is type(new):
        return []
    return [{"path": path, "operator": "replace", "value": new}]


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def render_karmada(
    stack: DocumentSet,
    stack_dir: str | Path,
    out_dir: str | Path,
    options: Options,
    configured: Sequence[Cluster] = (),
    salt_key: bytes | None = None,
) -> KarmadaBuild:
    """``render --target karmada``: :func:`karmada_build`, then the objects and policies as one
    renderYamlToDirectory tree in ``out_dir`` (replaced atomically; nothing written when a rule
    error blocks). TAccount passwords (crd mode) are salted with ``salt_key``, else the
    previous render's salt, else this machine's key, as ``render`` does."""
    from dataclasses import replace

    from ..settings.options import Mode
    from .account_salts import local_salt_key, previous_hashes
    from .render import render_files
    from .tree_writer import check_out_dir, write_tree

    check_out_dir(out_dir, stack_dir)
    hashing = None
    if stack.accounts and options.mode == Mode.CRD:
        from ..secrets.hashing import AccountHashing

        hashing = AccountHashing(
            key=salt_key,
            previous=previous_hashes(out_dir, stack),
            local_key=None if salt_key is not None else local_salt_key(),
        )
    result = karmada_build(stack, options, configured, hashing)
    if not result.ok:
        return result
    files = render_files([*result.objects, *result.policies])
    write_tree(out_dir, files)
    return replace(result, files=list(files))
