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
  the cluster's own render, so Karmada reproduces exactly what ``render`` writes for it;
  each propagation policy names the override policies of its objects
  (``dependentOverrides``: a member never gets the base object first) and takes over objects
  the members already have (``conflictResolution: Overwrite``: the hand-over from per-cluster
  providers);
* with TServers among the objects (crd mode), a ``ResourceInterpreterCustomization`` that
  teaches Karmada what a TServer is (:func:`tserver_interpreter`): its replicas, its status
  summed over the members, its health from ``status.readyReplicas``, its dependencies, and the
  fields a member's TarsWeb or ``kubectl scale`` changed kept while the stack leaves them as
  they were (each TServer carries the values it was propagated with,
  :data:`PROPAGATED_RELEASE` and :data:`PROPAGATED_REPLICAS`).

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
from ..models.vocabulary import LABEL_APP, LABEL_SERVER, LABEL_SERVER_ID
from ..pipeline import run, shared_build, targets
from ..rules.clusters import karmada_secret
from ..settings.options import Options

if TYPE_CHECKING:
    from ..secrets.hashing import AccountHashing

POLICY_API_VERSION = "policy.karmada.io/v1alpha1"
"""apiVersion of Karmada's PropagationPolicy and OverridePolicy."""
CONFIG_API_VERSION = "config.karmada.io/v1alpha1"
"""apiVersion of Karmada's ResourceInterpreterCustomization."""
PROPAGATED_RELEASE = "tars-components.io/propagated-release"
"""The release id a TServer was propagated with (Karmada's retention compares it)."""
PROPAGATED_REPLICAS = "tars-components.io/propagated-replicas"
"""The replica count a TServer was propagated with (Karmada's retention compares it)."""
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
    crds: Sequence[Mapping[str, Any]] = (),
) -> KarmadaBuild:
    """The Karmada hand-over of a stack with clusters (nothing but the violations when any
    cluster's result has a rule error). ``hashing`` salts TAccount passwords alike for every
    cluster (keyed, so that the object written once is every cluster's). ``crds`` (the
    TarsK8S CRDs, for crd mode) are written too, for the Karmada API server, and propagated to
    every cluster that does not have them (``conflictResolution: Abort``: a member's own
    CRDs, installed with its TarsK8S controller and the CA of its conversion webhook, stay)."""
    to = targets(stack, configured)
    result = run(stack, to, options, hashing=hashing)
    violations = result.all_violations
    if not result.ok:
        return KarmadaBuild(violations=violations)
    base = shared_build(stack, to, options, hashing)
    per_cluster = {r.name: {_key(o): _stamped(o) for o in r.build.objects} for r in result.results}
    names = list(per_cluster)
    order: dict[Key, dict[str, Any]] = {}
    for crd in crds:
        order.setdefault(_key(crd), dict(crd))
        for objects in per_cluster.values():
            objects.setdefault(_key(crd), dict(crd))
    for obj in base.objects if base.ok else []:
        order.setdefault(_key(obj), _stamped(obj))
    for objects in per_cluster.values():
        for key, obj in objects.items():
            order.setdefault(key, obj)
    placements: dict[Key, list[str]] = {}
    overrides: dict[Key, dict[str, Any]] = {}
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
            overrides[key] = _override_policy(key, rules)
    if refused:
        return KarmadaBuild(violations=sorted_violations([*violations, *refused]))
    policies = [*_propagation_policies(order, placements, overrides), *overrides.values()]
    versions = sorted({k[0] for k in order if k[1] == TSERVER_KIND})
    policies += [tserver_interpreter(version) for version in versions]
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


def _stamped(obj: dict[str, Any]) -> dict[str, Any]:
    """A TServer with the release id and replica count it is propagated with
    (:data:`PROPAGATED_RELEASE`, :data:`PROPAGATED_REPLICAS`); any other object as it is."""
    if obj.get("kind") != TSERVER_KIND:
        return obj
    spec = obj.get("spec") or {}
    release = (spec.get("release") or {}).get("id")
    replicas = (spec.get("k8s") or {}).get("replicas")
    meta = dict(obj.get("metadata") or {})
    annotations = dict(meta.get("annotations") or {})
    if release is not None:
        annotations[PROPAGATED_RELEASE] = str(release)
    if replicas is not None:
        annotations[PROPAGATED_REPLICAS] = str(replicas)
    meta["annotations"] = annotations
    return {**obj, "metadata": meta}


def _propagation_policies(
    order: Mapping[Key, Mapping[str, Any]],
    placements: Mapping[Key, list[str]],
    overrides: Mapping[Key, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, tuple[str, ...]], list[Key]] = {}
    for key, obj in order.items():
        _, kind, namespace, _ = key
        clusters = tuple(placements[key])
        server = _server_of(obj) if namespace else None
        if kind == CRD_KIND:
            group = "tars-crds"
        elif kind in CLUSTER_SCOPED_KINDS or not namespace:
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
        spec: dict[str, Any] = {
            "resourceSelectors": [_selector(k) for k in keys],
            "placement": _placement(clusters),
            # taken over from the per-cluster providers; but a member's own CRDs (its TarsK8S
            # install, with the CA of its conversion webhook) stay its own
            "conflictResolution": "Abort" if group == "tars-crds" else "Overwrite",
        }
        dependent = [str(overrides[k]["metadata"]["name"]) for k in keys if k in overrides]
        if dependent:
            spec["dependentOverrides"] = dependent
        policies.append(
            {
                "apiVersion": POLICY_API_VERSION,
                "kind": "PropagationPolicy" if namespace else "ClusterPropagationPolicy",
                "metadata": meta,
                "spec": spec,
            }
        )
    return policies


TSERVER_KIND = "TServer"
CRD_KIND = "CustomResourceDefinition"

_REPLICAS_LUA = """\
local kube = require("kube")
function GetReplicas(obj)
  local container = {name = "main"}
  if obj.spec.k8s.resources ~= nil then
    container.resources = obj.spec.k8s.resources
  end
  local requirement = kube.accuratePodRequirements({spec = {containers = {container}}})
  return obj.spec.k8s.replicas, requirement
end
"""

_REVISE_LUA = """\
function ReviseReplica(obj, desiredReplica)
  obj.spec.k8s.replicas = desiredReplica
  return obj
end
"""

_REFLECT_LUA = """\
function ReflectStatus(observedObj)
  local status = {}
  if observedObj == nil or observedObj.status == nil then
    return status
  end
  status.replicas = observedObj.status.replicas
  status.currentReplicas = observedObj.status.currentReplicas
  status.readyReplicas = observedObj.status.readyReplicas
  status.selector = observedObj.status.selector
  return status
end
"""

_AGGREGATE_LUA = """\
function AggregateStatus(desiredObj, statusItems)
  local replicas, current, ready = 0, 0, 0
  local spec = desiredObj.spec
  local selector = "tars.io/ServerApp=" .. spec.app .. ",tars.io/ServerName=" .. spec.server
  if statusItems ~= nil then
    for i = 1, #statusItems do
      local status = statusItems[i].status
      if status ~= nil then
        if status.replicas ~= nil then replicas = replicas + status.replicas end
        if status.currentReplicas ~= nil then current = current + status.currentReplicas end
        if status.readyReplicas ~= nil then ready = ready + status.readyReplicas end
        if status.selector ~= nil and status.selector ~= "" then selector = status.selector end
      end
    end
  end
  desiredObj.status = {
    replicas = replicas, currentReplicas = current, readyReplicas = ready, selector = selector
  }
  return desiredObj
end
"""

_HEALTH_LUA = """\
function InterpretHealth(observedObj)
  if observedObj.status == nil or observedObj.status.readyReplicas == nil then
    return false
  end
  local wanted = observedObj.spec.k8s.replicas
  if wanted == nil then
    wanted = 0
  end
  return observedObj.status.readyReplicas >= wanted
end
"""

_RETAIN_LUA = f"""\
local function annotation(obj, key)
  if obj.metadata == nil or obj.metadata.annotations == nil then
    return nil
  end
  return obj.metadata.annotations[key]
end
local function unchanged(desiredObj, observedObj, key)
  local mine = annotation(desiredObj, key)
  return mine ~= nil and mine == annotation(observedObj, key)
end
local function label(obj, key)
  if obj.metadata == nil or obj.metadata.labels == nil then
    return nil
  end
  return obj.metadata.labels[key]
end
function Retain(desiredObj, observedObj)
  if observedObj.spec == nil then
    return desiredObj
  end
  local release = observedObj.spec.release
  local keep = desiredObj.spec.release == nil
  if release ~= nil and (keep or unchanged(desiredObj, observedObj, "{PROPAGATED_RELEASE}")) then
    desiredObj.spec.release = release
    local id = label(observedObj, "{LABEL_SERVER_ID}")
    if id ~= nil then
      if desiredObj.metadata.labels == nil then
        desiredObj.metadata.labels = {{}}
      end
      desiredObj.metadata.labels["{LABEL_SERVER_ID}"] = id
    end
  end
  local replicas = observedObj.spec.k8s and observedObj.spec.k8s.replicas
  keep = desiredObj.spec.k8s.replicas == nil
  if replicas ~= nil and (keep or unchanged(desiredObj, observedObj, "{PROPAGATED_REPLICAS}")) then
    desiredObj.spec.k8s.replicas = replicas
  end
  return desiredObj
end
"""

_DEPENDENCIES_LUA = """\
local kube = require("kube")
function GetDependencies(desiredObj)
  local spec = desiredObj.spec
  local namespace = desiredObj.metadata.namespace
  local container = {name = "main", env = spec.k8s.env, envFrom = spec.k8s.envFrom}
  local volumes = {}
  if spec.k8s.mounts ~= nil then
    for i = 1, #spec.k8s.mounts do
      local mount = spec.k8s.mounts[i]
      if mount.source ~= nil and (mount.source.configMap ~= nil or mount.source.secret ~= nil) then
        volumes[#volumes + 1] = {
          name = mount.name, configMap = mount.source.configMap, secret = mount.source.secret
        }
      end
    end
  end
  local pod = {spec = {containers = {container}, serviceAccountName = spec.k8s.serviceAccount}}
  if #volumes > 0 then
    pod.spec.volumes = volumes
  end
  local refs = kube.getPodDependencies(pod, namespace)
  if refs == nil then
    refs = {}
  end
  if spec.tars ~= nil and spec.tars.template ~= nil then
    refs[#refs + 1] = {
      apiVersion = desiredObj.apiVersion, kind = "TTemplate", namespace = namespace,
      name = spec.tars.template
    }
  end
  local labels = {["tars.io/ServerApp"] = spec.app, ["tars.io/ServerName"] = spec.server}
  refs[#refs + 1] = {
    apiVersion = desiredObj.apiVersion, kind = "TConfig", namespace = namespace,
    labelSelector = {matchLabels = labels}
  }
  return refs
end
"""


def tserver_interpreter(api_version: str) -> dict[str, Any]:
    """The ``ResourceInterpreterCustomization`` of TServers of ``api_version``: what Karmada
    cannot know of a custom resource (it treats one without a customization as healthy, with
    no replicas and no status):

    * ``replicaResource`` / ``replicaRevision``: ``spec.k8s.replicas`` and the pod's resource
      requests, so ``Divided`` scheduling works;
    * ``statusReflection`` / ``statusAggregation``: the status the TarsK8S controller writes
      (``replicas``, ``currentReplicas``, ``readyReplicas``, ``selector``), summed over the
      members on the Karmada API server;
    * ``healthInterpretation``: healthy when ``status.readyReplicas`` reaches
      ``spec.k8s.replicas`` (no status, no health: failover works);
    * ``retention``: a member's ``spec.release`` (with its ``tars.io/ServerID`` label) and
      ``spec.k8s.replicas`` stay as the member has them (TarsWeb, ``kubectl scale``) when the
      stack leaves them out (``external``) or has not changed them since they were propagated
      (:data:`PROPAGATED_RELEASE`, :data:`PROPAGATED_REPLICAS`); a change of the stack wins;
    * ``dependencyInterpretation``: its TTemplate, its TConfigs (by the app and server labels)
      and the ConfigMaps, Secrets and ServiceAccount its pods use."""
    version = api_version.rsplit("/", 1)[-1]
    return {
        "apiVersion": CONFIG_API_VERSION,
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": f"tars-components-tserver-{version}"},
        "spec": {
            "target": {"apiVersion": api_version, "kind": TSERVER_KIND},
            "customizations": {
                "replicaResource": {"luaScript": _REPLICAS_LUA},
                "replicaRevision": {"luaScript": _REVISE_LUA},
                "statusReflection": {"luaScript": _REFLECT_LUA},
                "statusAggregation": {"luaScript": _AGGREGATE_LUA},
                "healthInterpretation": {"luaScript": _HEALTH_LUA},
                "retention": {"luaScript": _RETAIN_LUA},
                "dependencyInterpretation": {"luaScript": _DEPENDENCIES_LUA},
            },
        },
    }


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
    crds: Sequence[Mapping[str, Any]] = (),
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
    result = karmada_build(stack, options, configured, hashing, crds)
    if not result.ok:
        return result
    files = render_files([*result.objects, *result.policies])
    write_tree(out_dir, files)
    return replace(result, files=list(files))
