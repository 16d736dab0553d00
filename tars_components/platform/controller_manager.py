"""tarscontroller: the manager that turns TServers into Services and workloads."""

from __future__ import annotations

from typing import Any

from ..models.vocabulary import LABEL_CONTROLLER
from .controller_common import cluster_role, lease_role, manager, policy_rule, service_account
from .values import ControllerValues


def controller_objects(values: ControllerValues) -> list[dict[str, Any]]:
    """tarscontroller: ServiceAccount, lease Role(+Binding), ClusterRole(+Binding), Deployment."""
    crud = ["create", "get", "list", "delete", "watch", "patch", "update", "deletecollection"]
    return [
        service_account("tars-controller"),
        *lease_role("tars-controller"),
        *cluster_role(
            "tars-controller",
            [
                policy_rule([""], ["services", "persistentvolumeclaims"], crud),
                policy_rule([""], ["pods", "pods/status"], ["list", "get", "watch"]),
                policy_rule([""], ["events"], ["create"]),
                policy_rule([""], ["nodes"], ["get", "list", "watch", "patch", "update"]),
                policy_rule(["apps"], ["statefulsets", "daemonsets"], crud),
                policy_rule(
                    ["k8s.tars.io"],
                    ["ttrees", "ttemplates", "timages", "tframeworkconfigs"],
                    ["get", "list", "watch", "patch", "update"],
                ),
                policy_rule(
                    ["k8s.tars.io"],
                    [
                        "taccounts",
                        "tconfigs",
                        "tservers",
                        "tservers/status",
                        "texitedrecords",
                        "tendpoints",
                        "tendpoints/status",
                    ],
                    crud,
                ),
            ],
        ),
        manager(values, "tars-controller", LABEL_CONTROLLER, "tarscontroller"),
    ]
