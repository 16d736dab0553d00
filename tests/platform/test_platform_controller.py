"""The controller install (``tarscontroller`` chart) built natively, compared with helm's output,
and the installation's own CA reaching the webhook.

Upstream renders: tarsk8s/chart-renders/controller-*.helm.yaml of the shared folder (see
tests/support/assertions/upstream.py); the CRD schemas are compared in test_crds_built.py.
"""

from __future__ import annotations

import base64
import copy
import datetime
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID
from support.assertions.platform import by_key, helm_objects, values_text

from tars_components.kernel.errors import UsageError
from tars_components.platform import ControllerValues, build_controller_with_ca, parse_values
from tars_components.platform.ca import CERT_DIR, SECRET_NAME, CertificateAuthority
from tars_components.platform.certificates import generate_ca, load_ca

CASES = ("controller-minimal", "controller-full")
SYSTEM = "tars-system"
WEBHOOK = ("Deployment", SYSTEM, "tars-webhook-manger")
CA = generate_ca()


def ours(case: str, ca: CertificateAuthority = CA) -> list[dict[str, Any]]:
    return build_controller_with_ca(parse_values(values_text(case), ControllerValues), ca)


def ca_bundles(objects: list[dict[str, Any]]) -> list[str]:
    """Every caBundle: webhook configurations' webhooks and CRD conversion webhooks."""
    found = []
    for obj in objects:
        for hook in obj.get("webhooks", []):
            found.append(hook["clientConfig"]["caBundle"])
        conversion = (
            obj.get("spec", {}).get("conversion", {})
            if obj["kind"] == "CustomResourceDefinition"
            else {}
        )
        if conversion.get("strategy") == "Webhook":
            found.append(conversion["webhook"]["clientConfig"]["caBundle"])
    return found


def without_ca(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its CA bundles, and a CRD without its versions' schemas (built from the
    models; test_crds_built.py compares them with v1.4.1's)."""
    out = copy.deepcopy(obj)
    if out["kind"] == "CustomResourceDefinition":
        for version in out["spec"]["versions"]:
            version.pop("schema")
    for hook in out.get("webhooks", []):
        hook["clientConfig"].pop("caBundle")
    if out["kind"] == "CustomResourceDefinition":
        conversion = out["spec"].get("conversion", {})
        if conversion.get("strategy") == "Webhook":
            conversion["webhook"]["clientConfig"].pop("caBundle")
    return out


@pytest.mark.parametrize("case", CASES)
def test_same_objects_as_helm_plus_the_ca_secret(case: str) -> None:
    helm, built = by_key(helm_objects(case), SYSTEM), by_key(ours(case), SYSTEM)
    assert set(built) - set(helm) == {("Secret", SYSTEM, SECRET_NAME)}
    assert set(helm) <= set(built)
    assert len(helm) == 33


@pytest.mark.parametrize("case", CASES)
def test_objects_equal_helm_apart_from_the_ca(case: str) -> None:
    """CRDs (but their schemas), served/storage versions, RBAC, images, volumes, webhook rules:
    helm's; the only differences are the CA (bundle, and the webhook's Secret mount and
    fingerprint)."""
    helm, built = by_key(helm_objects(case), SYSTEM), by_key(ours(case), SYSTEM)
    for k, expected in helm.items():
        actual = without_ca(built[k])
        if k == WEBHOOK:
            pod = actual["spec"]["template"]
            pod["metadata"].pop("annotations")
            pod["spec"].pop("volumes")
            pod["spec"]["containers"][0].pop("volumeMounts")
        assert actual == without_ca(expected), k


def test_crd_versions_follow_crds_servers_and_storage() -> None:
    built = by_key(ours("controller-full"), SYSTEM)
    tserver = built[("CustomResourceDefinition", "", "tservers.k8s.tars.io")]
    assert [(v["name"], v["served"], v["storage"]) for v in tserver["spec"]["versions"]] == [
        ("v1beta1", True, False),
        ("v1beta2", True, True),
        ("v1beta3", True, False),
    ]
    minimal = by_key(ours("controller-minimal"), SYSTEM)
    key_crd = minimal[("CustomResourceDefinition", "", "tframeworkkey.k8s.tars.io")]
    assert [(v["name"], v["served"], v["storage"]) for v in key_crd["spec"]["versions"]] == [
        ("v1beta2", True, False),
        ("v1beta3", True, True),
    ]


def test_crd_defaults_are_what_the_release_build_writes() -> None:
    values = parse_values("controller: {registry: r, tag: v1}\n", ControllerValues)
    assert values.crds.servers == ("v1beta2", "v1beta3")
    assert values.crds.storage == "v1beta3"
    assert values.agent.tlv_in_host == "/usr/local/app/tars/host-mount"
    assert values.controller.secret == ""


def test_undeclared_values_reach_the_objects() -> None:
    built = by_key(ours("controller-full"), SYSTEM)
    agent = built[("DaemonSet", SYSTEM, "tars-agent")]["spec"]["template"]["spec"]
    assert {"name": "TLVInHost", "value": "/data/tars/host-mount"} in agent["containers"][0]["env"]
    assert agent["imagePullSecrets"] == [{"name": "tars-image-secret"}]
    for name in ("tars-controller-manger", "tars-webhook-manger"):
        pod = built[("Deployment", SYSTEM, name)]["spec"]["template"]["spec"]
        assert pod["imagePullSecrets"] == [{"name": "tars-image-secret"}]
        assert pod["containers"][0]["image"].startswith("registry.example.com:5000/tars/")


def test_the_ca_reaches_the_webhook() -> None:
    """Every caBundle is this installation's CA; the webhook mounts its Secret (ca.crt and a
    PKCS#1 ca.key) where webhook.go reads them; a serving certificate signed the way the
    webhook signs it verifies against the bundle."""
    objects = ours("controller-minimal")
    built = by_key(objects, SYSTEM)
    secret = built[("Secret", SYSTEM, SECRET_NAME)]
    cert_pem = base64.b64decode(secret["data"]["ca.crt"])
    key_pem = base64.b64decode(secret["data"]["ca.key"])
    assert key_pem.startswith(b"-----BEGIN RSA PRIVATE KEY-----")  # webhook.go: PKCS#1 only
    bundles = ca_bundles(objects)
    assert len(bundles) == 5  # 2 validating + 1 mutating webhook, TServer + TFrameworkConfig CRDs
    assert {base64.b64decode(b) for b in bundles} == {cert_pem}
    helm_bundles = set(ca_bundles(helm_objects("controller-minimal")))
    assert not helm_bundles & set(bundles)  # not the chart's public CA

    pod = built[WEBHOOK]["spec"]["template"]
    [volume] = pod["spec"]["volumes"]
    assert volume["secret"]["secretName"] == SECRET_NAME
    assert {i["path"] for i in volume["secret"]["items"]} == {"ca.crt", "ca.key"}
    [mount] = pod["spec"]["containers"][0]["volumeMounts"]
    assert (mount["name"], mount["mountPath"]) == (volume["name"], CERT_DIR)
    assert CERT_DIR == "/etc/tarswebhook-cert"
    assert pod["metadata"]["annotations"]["tars.io/webhook-ca-sha256"] == CA.fingerprint

    # sign a serving certificate as webhook.go does, verify it with the bundle
    ca_cert = x509.load_pem_x509_certificate(cert_pem)
    ca_key = serialization.load_pem_private_key(key_pem, password=None)
    assert isinstance(ca_key, rsa.RSAPrivateKey)
    leaf_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = datetime.datetime.now(datetime.timezone.utc)
    cn = "tars-webhook-service.tars-system.svc"
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)]))
        .issuer_name(ca_cert.subject)
        .public_key(leaf_key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(ca_key, hashes.SHA256())
    )
    trusted = x509.load_pem_x509_certificate(base64.b64decode(bundles[0]))
    trusted.public_key().verify(  # type: ignore[union-attr]
        leaf.signature,
        leaf.tbs_certificate_bytes,
        padding.PKCS1v15(),
        leaf.signature_hash_algorithm,
    )
    assert trusted.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


def test_a_given_ca_is_used_and_a_pkcs8_key_becomes_pkcs1() -> None:
    given = generate_ca()
    key = serialization.load_pem_private_key(given.key_pem.encode(), password=None)
    pkcs8 = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    loaded = load_ca(given.cert_pem, pkcs8)
    assert loaded.key_pem == given.key_pem
    assert set(ca_bundles(ours("controller-minimal", loaded))) == {loaded.ca_bundle}


def test_a_mismatched_or_non_ca_certificate_is_refused() -> None:
    one, other = generate_ca(), generate_ca()
    with pytest.raises(UsageError, match="does not belong"):
        load_ca(one.cert_pem, other.key_pem)
    with pytest.raises(UsageError, match=r"not a PEM X\.509"):
        load_ca("nonsense", one.key_pem)


def test_same_values_same_objects_with_the_same_ca() -> None:
    assert ours("controller-full") == ours("controller-full")


def test_published_values_are_refused() -> None:
    with pytest.raises(UsageError) as caught:
        parse_values(values_text("controller-published"), ControllerValues, "values.yaml")
    message = str(caught.value)
    assert "values.yaml:2: crds.servers: '_CRD_SERVED_VERSIONS_' is a placeholder" in message
    assert "values.yaml:5: controller.registry: '_CONTROLLER_REGISTRY_' is a placeholder" in message
