"""The webhook CA as data (pure; no cryptography import): see :mod:`.certificates`."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

CERT_DIR = "/etc/tarswebhook-cert"
"""Where the tarswebhook image reads ``ca.crt`` and ``ca.key`` (webhook.go CaCrtFile, CaKeyFile)."""
SECRET_NAME = "tars-webhook-ca"
CA_COMMON_NAME = "tars-webhook-ca"
CA_VALIDITY_DAYS = 3650


@dataclass(frozen=True)
class CertificateAuthority:
    """A CA as PEM text: ``cert_pem`` (``CERTIFICATE``) and ``key_pem`` (PKCS#1
    ``RSA PRIVATE KEY``, the only form the webhook parses)."""

    cert_pem: str
    key_pem: str

    @property
    def ca_bundle(self) -> str:
        """The certificate base64-encoded, as ``clientConfig.caBundle`` takes it."""
        return base64.b64encode(self.cert_pem.encode()).decode()

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the certificate PEM (annotates the webhook pods so a new CA restarts
        them: the webhook reads the CA only at start-up)."""
        return hashlib.sha256(self.cert_pem.encode()).hexdigest()
