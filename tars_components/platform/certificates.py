"""The webhook's certificate authority: one per installation instead of the chart's public one.

The tarswebhook 1.4.1 image reads ``/etc/tarswebhook-cert/ca.crt`` and ``ca.key`` (a PKCS#1
``RSA PRIVATE KEY``) at start-up and signs its own serving certificate for
``tars-webhook-service.tars-system.svc`` with them (src/WebhookServer/webhook/webhook.go); the
API server trusts that certificate through the ``caBundle`` of the webhook configurations and
of the CRD conversion webhooks. The chart ships the CA and its private key inside the image, so
every installation trusts the same, publicly known, CA.

:class:`CertificateAuthority` and :func:`load_ca` are pure (the builders take a CA as input);
:func:`generate_ca` draws a key and reads the clock, and is called only at the edge (the CLI;
the Pulumi component uses ``pulumi_tls`` instead).
"""

from __future__ import annotations

import datetime

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from ..kernel.errors import UsageError
from .ca import CA_COMMON_NAME, CA_VALIDITY_DAYS, CertificateAuthority

__all__ = ["CertificateAuthority", "generate_ca", "load_ca"]


def load_ca(cert_pem: str, key_pem: str, source: str = "CA") -> CertificateAuthority:
    """A CA from PEM text, checked: a CA certificate, an RSA key that matches it. A PKCS#8
    RSA key is rewritten as PKCS#1. Raises :class:`UsageError`."""
    try:
        cert = x509.load_pem_x509_certificate(cert_pem.encode())
    except ValueError as exc:
        raise UsageError(f"{source}: certificate is not a PEM X.509 certificate ({exc})") from None
    try:
        key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{source}: key is not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise UsageError(f"{source}: the webhook needs an RSA key (it parses PKCS#1 only)")
    if key.public_key().public_numbers() != cert.public_key().public_numbers():  # type: ignore[union-attr]
        raise UsageError(f"{source}: the key does not belong to the certificate")
    try:
        constraints = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        is_ca = constraints.ca
    except x509.ExtensionNotFound:
        is_ca = False
    if not is_ca:
        raise UsageError(f"{source}: the certificate is not a CA (basicConstraints CA:TRUE)")
    pkcs1 = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    return CertificateAuthority(
        cert_pem=cert.public_bytes(serialization.Encoding.PEM).decode(), key_pem=pkcs1
    )


def generate_ca(now: datetime.datetime | None = None) -> CertificateAuthority:
    """A fresh self-signed CA (RSA 2048, ten years, CN ``tars-webhook-ca``). Edge only."""
    start = now or datetime.datetime.now(datetime.timezone.utc)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_COMMON_NAME)])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start - datetime.timedelta(minutes=5))
        .not_valid_after(start + datetime.timedelta(days=CA_VALIDITY_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return CertificateAuthority(
        cert_pem=cert.public_bytes(serialization.Encoding.PEM).decode(),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        ).decode(),
    )
