"""Pod affinity (docs/concepts/mapping.md): one required node selector term, ability preferences,
and notStacked anti-affinity."""

from __future__ import annotations

from ..models import AbilityAffinity, TServerDocument
from ..models.vocabulary import app_ability_label, node_label, server_ability_label
from .labels import selector_labels

SERVER_AFFINITY_WEIGHT = 60
APP_AFFINITY_WEIGHT = 30
HOSTNAME_TOPOLOGY_KEY = "kubernetes.io/hostname"


def _server_key(server: TServerDocument) -> str:
    return server_ability_label(server.namespace, server.spec.app, server.spec.server)


def _exists(key: str) -> dict[str, object]:
    return {"key": key, "operator": "Exists"}


def build_affinity(server: TServerDocument, daemon: bool) -> dict[str, object]:
    """The pod's ``affinity``.

    All requirements share one nodeSelectorTerm (AND): the user's nodeSelector expressions,
    then ``tars.io/node.<ns>``, then (StatefulSet only) the abilityAffinity requirement.
    AppOrServerPreferred adds preferences (server 60, app 30) instead; notStacked adds a
    hostname anti-affinity. DaemonSets ignore abilityAffinity and notStacked.
    """
    k8s = server.spec.k8s
    expressions: list[dict[str, object]] = [
        expr.model_dump(by_alias=True, exclude_none=True) for expr in k8s.node_selector
    ]
    expressions.append(_exists(node_label(server.namespace)))
    preferred: list[dict[str, object]] = []
    if not daemon:
        ability = k8s.ability_affinity
        if ability == AbilityAffinity.APP_REQUIRED:
            expressions.append(_exists(app_ability_label(server.namespace, server.spec.app)))
        elif ability == AbilityAffinity.SERVER_REQUIRED:
            expressions.append(_exists(_server_key(server)))
        elif ability == AbilityAffinity.APP_OR_SERVER_PREFERRED:
            preferred = [
                {
                    "weight": SERVER_AFFINITY_WEIGHT,
                    "preference": {"matchExpressions": [_exists(_server_key(server))]},
                },
                {
                    "weight": APP_AFFINITY_WEIGHT,
                    "preference": {
                        "matchExpressions": [
                            _exists(app_ability_label(server.namespace, server.spec.app))
                        ]
                    },
                },
            ]
    node_affinity: dict[str, object] = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": expressions}]
        }
    }
    if preferred:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    affinity: dict[str, object] = {"nodeAffinity": node_affinity}
    if k8s.not_stacked and not daemon:
        affinity["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": selector_labels(server)},
                    "namespaces": [server.namespace],
                    "topologyKey": HOSTNAME_TOPOLOGY_KEY,
                }
            ]
        }
    return affinity
