"""``WebhookCa``: the TarsK8S webhook's CA made by the program itself, for
``tars:installController`` (docs/pulumi/clusters.md, "Bootstrapping the fleet").

:class:`~tars_components.components.platform.TarsController` makes its CA with pulumi-tls
unless it is given one; the stack program gives it one from this dynamic resource instead, so
that a ``pulumi up`` needs no plugin beyond pulumi-kubernetes: ``create`` generates an RSA 2048
key and a ten-year self-signed CA certificate
(:func:`tars_components.platform.certificates.generate_ca`), kept in the state, the key as a
secret. Nothing changes it afterwards (a new CA would make every webhook client distrust the
running webhook until its pods restart); it is replaced only when the resource is.

Type token ``pulumi-python:dynamic/tars:WebhookCa``; inputs ``commonName``, ``validityDays``;
outputs those and ``certPem``, ``keyPem`` (a secret, PKCS#1, as the webhook parses it).
"""

from __future__ import annotations

import functools
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from ..platform.ca import CA_COMMON_NAME, CA_VALIDITY_DAYS

RESOURCE_TYPE = "pulumi-python:dynamic/tars:WebhookCa"
"""The type token of :class:`WebhookCa`."""
KEYS = ("commonName", "validityDays")
"""The inputs whose change replaces the CA."""


class WebhookCaProvider(pulumi.dynamic.ResourceProvider):
    """Create generates the CA; diff replaces it only when its inputs change."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """A fresh CA; the id is its common name."""
        from ..platform.certificates import generate_ca

        ca = generate_ca()
        outputs = {k: props.get(k) for k in KEYS}
        return pulumi.dynamic.CreateResult(
            str(props["commonName"]), {**outputs, "certPem": ca.cert_pem, "keyPem": ca.key_pem}
        )

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A replacement when the common name or the validity changed, else nothing."""
        changed = [key for key in KEYS if olds.get(key) != news.get(key)]
        return pulumi.dynamic.DiffResult(
            changes=bool(changed), replaces=changed, delete_before_replace=False
        )


class WebhookCa(pulumi.dynamic.Resource, module="tars", name="WebhookCa"):
    """The webhook CA of one cluster's controller install (module doc)."""

    certPem: pulumi.Output[str]  # the dynamic provider's output names
    keyPem: pulumi.Output[str]

    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        args: dict[str, Any] = {
            "commonName": CA_COMMON_NAME,
            "validityDays": CA_VALIDITY_DAYS,
            "certPem": None,
            "keyPem": None,
            PROVIDER_KEY: _serialized_provider(),
        }
        secret = pulumi.ResourceOptions(additional_secret_outputs=["keyPem"])
        pulumi.CustomResource.__init__(
            self, RESOURCE_TYPE, name, args, pulumi.ResourceOptions.merge(opts, secret)
        )

    @property
    def cert_pem(self) -> pulumi.Output[str]:
        """The CA certificate (PEM)."""
        return self.certPem

    @property
    def key_pem(self) -> pulumi.Output[str]:
        """Its private key (PEM, PKCS#1), a secret."""
        return pulumi.Output.secret(self.keyPem)


@functools.cache
def _serialized_provider() -> str:
    """The SDK's own serialization of :class:`WebhookCaProvider`."""
    return str(serialize_provider(WebhookCaProvider()))


__all__ = ["RESOURCE_TYPE", "WebhookCa", "WebhookCaProvider"]
