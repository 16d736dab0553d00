"""Every ``tars.io`` name TarsK8S gives a label, an annotation or a readiness gate, in one place.

The controller, the webhook and the charts of TarsCloud/K8SFramework v1.4.1 write these keys;
the loader, the webhook's mutation, the rules, the expansion, the platform builders and the
Karmada hand-over read and write them from here (docs/concepts/webhooks.md,
docs/concepts/mapping.md).
"""

from __future__ import annotations

LABEL_PREFIX = "tars.io/"
"""What every TarsK8S label and annotation key starts with."""

# The labels of a server's objects (the webhook sets them from the TServer).
LABEL_APP = "tars.io/ServerApp"
LABEL_SERVER = "tars.io/ServerName"
LABEL_SUBTYPE = "tars.io/SubType"
LABEL_TEMPLATE = "tars.io/Template"
LABEL_SERVER_ID = "tars.io/ServerID"
"""``<app>.<server>`` when the server has a release (its ``release.id``)."""
LABEL_PARENT = "tars.io/Parent"
"""A TTemplate's parent template."""

# TConfig: which version of which config is live.
LABEL_CONFIG_NAME = "tars.io/ConfigName"
LABEL_POD_SEQ = "tars.io/PodSeq"
LABEL_ACTIVATED = "tars.io/Activated"
LABEL_VERSION = "tars.io/Version"
LABEL_DEACTIVATE = "tars.io/Deactivate"
LABEL_DELETING = "tars.io/Deleting"

# TImage.
LABEL_IMAGE_TYPE = "tars.io/ImageType"
SUPPORTED_PREFIX = "tars.io/Supported."
"""A base image's ``tars.io/Supported.<type>`` labels: the server types it runs."""

# Nodes and volumes.
LABEL_NODE = "tars.io/node"
"""The key every framework node label starts with (:func:`node_label`)."""
LABEL_LOCAL_VOLUME = "tars.io/LocalVolume"
LABEL_SUPPORT_LOCAL_VOLUME = "tars.io/SupportLocalVolume"

# The platform's own pods.
LABEL_AGENT = "tars.io/Agent"
LABEL_CONTROLLER = "tars.io/Controller"
LABEL_WEBHOOK = "tars.io/Webhook"

ANNOTATION_MAX_REPLICAS = "tars.io/MaxReplicas"
ANNOTATION_MIN_REPLICAS = "tars.io/MinReplicas"
CONVERSION_ANNOTATION = "tars.io/Conversion.1b21b3"
"""What the v1beta2 → v1beta3 conversion keeps of a v1beta2 object."""
OLD_CONVERSION_ANNOTATIONS = ("tars.io/Conversion.1b11b2", "tars.io/Conversion.1b11b3")
"""Annotations the v1beta1 conversion webhook wrote; their content is not restored."""
CA_ANNOTATION = "tars.io/webhook-ca-sha256"
"""The digest of the webhook's CA on the controller's pods (a new CA restarts them)."""

TARS_ACTIVE_GATE = "tars.io/active"
"""The readiness gate of a tars server's pods (``spec.k8s.readinessGates``)."""


def node_label(namespace: str) -> str:
    """``tars.io/node.<ns>``: nodes that may run pods of the framework in ``namespace``."""
    return f"{LABEL_NODE}.{namespace}"


def app_ability_label(namespace: str, app: str) -> str:
    """``tars.io/ability.<ns>.<app>`` (app in its own case)."""
    return f"{LABEL_PREFIX}ability.{namespace}.{app}"


def server_ability_label(namespace: str, app: str, server: str) -> str:
    """``tars.io/ability.<ns>.<app>-<server>`` (app and server in their own case)."""
    return f"{LABEL_PREFIX}ability.{namespace}.{app}-{server}"
