"""Values and mocks of the platform components (controller and framework installs)."""

from __future__ import annotations

import datetime
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from pulumi.runtime import mocks

from tars_components.components.testing import RecordingMocks, Registration

SECRET_SIG = "4dabf18193072939515e22adb298388d"

CONTROLLER_VALUES = {"controller": {"registry": "reg.example.com/tars", "tag": "v1.4.1"}}

FRAMEWORK_VALUES = {
    "framework": {"registry": "reg.example.com/tars", "tag": "v1.4.1", "secret": "pull"},
    "upload": {"registry": "reg.example.com/upload"},
    "web": "tars.example.com",
}


def _plain(value: Any) -> Any:
    return value["value"] if isinstance(value, dict) and SECRET_SIG in value else value


class TlsMocks(RecordingMocks):
    """pulumi_tls resources with real keys and certificates (as the provider makes them)."""

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        if args.typ == "tls:index/privateKey:PrivateKey":
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            pem = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            ).decode()
            return f"{args.name}-id", {**args.inputs, "privateKeyPem": pem}
        if args.typ == "tls:index/selfSignedCert:SelfSignedCert":
            key = serialization.load_pem_private_key(
                _plain(args.inputs["privateKeyPem"]).encode(), None
            )
            assert isinstance(key, rsa.RSAPrivateKey)
            name = x509.Name(
                [x509.NameAttribute(NameOID.COMMON_NAME, args.inputs["subject"]["commonName"])]
            )
            now = datetime.datetime.now(datetime.timezone.utc)
            cert = (
                x509.CertificateBuilder()
                .subject_name(name)
                .issuer_name(name)
                .public_key(key.public_key())
                .serial_number(1)
                .not_valid_before(now)
                .not_valid_after(now + datetime.timedelta(hours=args.inputs["validityPeriodHours"]))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .sign(key, hashes.SHA256())
            )
            pem = cert.public_bytes(serialization.Encoding.PEM).decode()
            return f"{args.name}-id", {**args.inputs, "certPem": pem}
        return super().new_resource(args)


def key(r: Registration) -> tuple[str, str, str]:
    meta = r.inputs.get("metadata") or {}
    return (r.type.rsplit(":", 1)[1], meta.get("namespace", ""), meta.get("name", ""))
