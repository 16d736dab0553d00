"""Names every part of the framework chart uses."""

from __future__ import annotations

TARS_API = "k8s.tars.io/v1beta3"
HOOK = "helm.sh/hook"
HOOK_WEIGHT = "helm.sh/hook-weight"
LOG_DIR = "/usr/local/app/tars/app_log"
TREE_NAME = "tars-tree"
FRAMEWORK_CONFIG = "tars-framework"
INGRESS_NAME = "tars-web"
TARSWEB = "tars-tarsweb"

ENV_NAMESPACE = {
    "name": "Namespace",
    "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
}
ENV_POD_NAME = {"name": "PodName", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}
