"""The ``tarscontroller`` 1.4.1 chart as a pure builder: values and a CA → documents, one module
per part of the chart (crds, cluster, agent, manager, webhook; common.py what they share).

Same objects as the chart (namespace ``tars-system``, the eleven CRDs, StorageClass, the
controller, webhook and tarsagent with their RBAC, the webhook Service and configurations)
plus the CA Secret, with these differences:

* the CRDs are built from the project's models (:mod:`tars_components.crds`); ``docs/crds.md``
  lists where their schemas differ from the chart's;

* every ``caBundle`` (both webhook configurations, the TServer and TFrameworkConfig conversion
  webhooks) is the installation's own CA, and the webhook Deployment mounts that CA's Secret
  (``ca.crt``, PKCS#1 ``ca.key``) over ``/etc/tarswebhook-cert``, where the image's built-in,
  public CA would otherwise be read; its pod template is annotated with the CA's fingerprint
  so that a new CA restarts the webhook (it reads the CA only at start-up);
* API versions are the current ones (the chart's already are: apiextensions.k8s.io/v1,
  admissionregistration.k8s.io/v1, ...), for Kubernetes 1.25 and newer; ``deprecated`` and
  ``deprecationWarning`` of the old CRD versions are always written (the chart writes them
  from Kubernetes 1.19 on).
"""

from __future__ import annotations

from typing import Any

from ..models.vocabulary import CA_ANNOTATION
from .ca import CertificateAuthority
from .controller_agent import agent_objects
from .controller_cluster import namespace_object, storage_class
from .controller_common import SYSTEM_NAMESPACE, WEBHOOK_SERVICE
from .controller_crds import CRD_KINDS, crd, crds
from .controller_manager import controller_objects
from .controller_webhook import ca_secret, webhook_configurations, webhook_objects
from .values import ControllerValues


def build_controller(
    values: ControllerValues, ca_bundle: str, ca_fingerprint: str
) -> list[dict[str, Any]]:
    """Every object of the ``tarscontroller`` chart except the CA Secret (see
    :func:`ca_secret`), in apply order: CRDs, Namespace, StorageClass, agent, controller,
    webhook, webhook configurations. ``ca_bundle`` is the base64 CA certificate,
    ``ca_fingerprint`` its SHA-256 (see :class:`CertificateAuthority`)."""
    return [
        *crds(values, ca_bundle),
        namespace_object(),
        storage_class(),
        *agent_objects(values),
        *controller_objects(values),
        *webhook_objects(values, ca_fingerprint),
        *webhook_configurations(ca_bundle),
    ]


def build_controller_with_ca(
    values: ControllerValues, ca: CertificateAuthority
) -> list[dict[str, Any]]:
    """:func:`build_controller` plus the CA Secret (after the Namespace), for offline render."""
    objects = build_controller(values, ca.ca_bundle, ca.fingerprint)
    at = next(i for i, o in enumerate(objects) if o["kind"] == "Namespace") + 1
    return [*objects[:at], ca_secret(ca), *objects[at:]]


__all__ = [
    "CA_ANNOTATION",
    "CRD_KINDS",
    "SYSTEM_NAMESPACE",
    "WEBHOOK_SERVICE",
    "agent_objects",
    "build_controller",
    "build_controller_with_ca",
    "ca_secret",
    "controller_objects",
    "crd",
    "crds",
    "namespace_object",
    "storage_class",
    "webhook_configurations",
    "webhook_objects",
]
