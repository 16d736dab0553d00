"""TarsController and TarsFrameworkInstall under Pulumi's mocks: the objects they register
(the pure builders' objects), the CA from pulumi_tls reaching the webhook as a secret, the
dependsOn order for a first ``pulumi up`` on an empty cluster, and what is left to the live
platform (ignore_changes, retain_on_delete)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from support.builders.platform_values import (
    CONTROLLER_VALUES,
    FRAMEWORK_VALUES,
    SECRET_SIG,
    TlsMocks,
    _plain,
    key,
)

from tars_components.components.platform import (
    FRAMEWORK_IGNORE_CHANGES,
    TarsController,
    TarsControllerArgs,
    TarsFrameworkInstall,
    TarsFrameworkInstallArgs,
)
from tars_components.components.testing import Recording, Registration, record
from tars_components.kernel.errors import UsageError
from tars_components.platform import (
    ControllerValues,
    FrameworkValues,
    build_controller,
    build_framework,
)
from tars_components.platform.certificates import generate_ca

NAMESPACE = "tars-dev"


def install(**controller: Any) -> Recording:
    def program() -> None:
        tars = TarsController("tars", TarsControllerArgs(values=CONTROLLER_VALUES, **controller))
        TarsFrameworkInstall(
            "fw",
            TarsFrameworkInstallArgs(
                values=FRAMEWORK_VALUES,
                namespace=NAMESPACE,
                controller=tars,
                nodes=["node-a", "node-b"],
                local_volume_nodes=["node-b"],
            ),
        )

    return record(program, mock=TlsMocks())


@pytest.fixture(scope="module")
def recording() -> Recording:
    return install()


def kube(recording: Recording, parent_type: str) -> list[Registration]:
    [parent] = recording.of_type(parent_type)
    return [r for r in recording.children(parent) if r.type.startswith("kubernetes:")]


def test_the_controller_registers_the_builders_objects_and_the_secret(recording: Recording) -> None:
    built = build_controller(
        ControllerValues.model_validate(CONTROLLER_VALUES), "bundle", "fingerprint"
    )
    expected = {
        (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in built
    }
    registered = {key(r) for r in kube(recording, "tars:index:TarsController")}
    assert registered == expected | {("Secret", "tars-system", "tars-webhook-ca")}


def test_the_framework_registers_the_builders_objects_nodes_and_namespace(
    recording: Recording,
) -> None:
    built = build_framework(FrameworkValues.model_validate(FRAMEWORK_VALUES), NAMESPACE).objects
    expected = {
        (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in built
    }
    registered = {key(r) for r in kube(recording, "tars:index:TarsFrameworkInstall")}
    assert registered == expected | {
        ("Namespace", "", NAMESPACE),
        ("NodePatch", "", "node-a"),
        ("NodePatch", "", "node-b"),
    }
    by_name = {key(r): r for r in recording.registrations}
    server = by_name[("TServer", NAMESPACE, "tars-tarsregistry")]
    expected_server = next(
        o for o in built if o["metadata"]["name"] == "tars-tarsregistry" and o["kind"] == "TServer"
    )
    assert server.inputs["spec"]["k8s"]["replicas"] == expected_server["spec"]["k8s"]["replicas"]
    assert server.inputs["spec"]["release"] == expected_server["spec"]["release"]


def test_the_tls_ca_reaches_every_ca_bundle_and_the_secret_as_a_secret(
    recording: Recording,
) -> None:
    [cert] = recording.of_type("tls:index/selfSignedCert:SelfSignedCert")
    [key_resource] = recording.of_type("tls:index/privateKey:PrivateKey")
    assert cert.inputs["isCaCertificate"] is True
    assert key_resource.inputs["algorithm"] == "RSA"
    cert_pem = cert.outputs["certPem"]
    bundles = []
    for r in recording.kubernetes():
        for hook in r.inputs.get("webhooks", []):
            bundles.append(hook["clientConfig"]["caBundle"])
        conversion = (r.inputs.get("spec") or {}).get("conversion") or {}
        if conversion.get("strategy") == "Webhook":
            bundles.append(conversion["webhook"]["clientConfig"]["caBundle"])
    assert len(bundles) == 5
    assert {base64.b64decode(b).decode() for b in bundles} == {cert_pem}
    [secret] = recording.of_type("kubernetes:core/v1:Secret")
    assert SECRET_SIG in secret.inputs["stringData"]  # the whole stringData is a Pulumi secret
    data = _plain(secret.inputs["stringData"])
    assert data["ca.crt"] == cert_pem
    assert data["ca.key"].startswith("-----BEGIN RSA PRIVATE KEY-----")
    private = serialization.load_pem_private_key(data["ca.key"].encode(), None)
    public = x509.load_pem_x509_certificate(cert_pem.encode()).public_key()
    assert private.public_key().public_numbers() == public.public_numbers()  # type: ignore[union-attr]
    [webhook] = [
        r for r in recording.of_type("kubernetes:apps/v1:Deployment") if "webhook" in r.name
    ]
    pod = webhook.inputs["spec"]["template"]["spec"]
    assert pod["volumes"][0]["secret"]["secretName"] == "tars-webhook-ca"
    assert pod["containers"][0]["volumeMounts"][0]["mountPath"] == "/etc/tarswebhook-cert"


def test_a_given_ca_is_used_without_tls_resources() -> None:
    ca = generate_ca()
    recording = install(ca_cert_pem=ca.cert_pem, ca_key_pem=ca.key_pem)
    assert not [r for r in recording.registrations if r.type.startswith("tls:")]
    [validating] = recording.of_type(
        "kubernetes:admissionregistration.k8s.io/v1:ValidatingWebhookConfiguration"
    )
    assert validating.inputs["webhooks"][0]["clientConfig"]["caBundle"] == ca.ca_bundle
    [secret] = recording.of_type("kubernetes:core/v1:Secret")
    assert SECRET_SIG in secret.inputs["stringData"]


def test_order_crds_then_webhook_ready_then_framework(recording: Recording) -> None:
    crds = {
        r.urn
        for r in recording.of_type("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition")
    }
    assert len(crds) == 11
    controller = {key(r): r for r in kube(recording, "tars:index:TarsController")}
    system = controller[("Namespace", "", "tars-system")]
    assert crds <= set(system.dependencies)
    webhook = controller[("Deployment", "tars-system", "tars-webhook-manger")]
    service = controller[("Service", "tars-system", "tars-webhook-service")]
    assert crds <= set(webhook.dependencies)
    for kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        config = next(r for k, r in controller.items() if k[0] == kind)
        assert {webhook.urn, service.urn} <= set(config.dependencies)
    configs = {r.urn for k, r in controller.items() if k[0].endswith("WebhookConfiguration")}
    for r in kube(recording, "tars:index:TarsFrameworkInstall"):
        deps = set(r.dependencies)
        assert crds <= deps and webhook.urn in deps and configs <= deps, r.name


def test_each_workload_waits_for_what_its_pods_need(recording: Recording) -> None:
    """A pod of a Deployment created before its ServiceAccount is refused, and its ReplicaSet
    retries only after a back-off (found on a real cluster): the workloads come after the
    service accounts, RBAC and the CA's Secret, as helm orders them."""
    controller = {key(r): r for r in kube(recording, "tars:index:TarsController")}
    workloads = {k: r for k, r in controller.items() if k[0] in ("Deployment", "DaemonSet")}
    assert len(workloads) == 3
    for (_, namespace, _), workload in workloads.items():
        account = workload.inputs["spec"]["template"]["spec"]["serviceAccountName"]
        needed = [
            controller[("ServiceAccount", namespace, account)],
            controller[("Secret", "tars-system", "tars-webhook-ca")],
            *(r for k, r in controller.items() if k[0].endswith("RoleBinding")),
        ]
        assert {r.urn for r in needed} <= set(workload.dependencies), workload.name


def test_nothing_fights_the_running_platform(recording: Recording) -> None:
    for r in kube(recording, "tars:index:TarsFrameworkInstall"):
        kind = key(r)[0]
        assert list(r.ignore_changes) == FRAMEWORK_IGNORE_CHANGES.get(kind, []), r.name
    by_key = {key(r): r for r in recording.registrations}
    assert by_key[("TServer", NAMESPACE, "tars-tarsweb")].ignore_changes == ("spec.k8s.replicas",)
    assert "recordLimit" in by_key[("TFrameworkConfig", NAMESPACE, "tars-framework")].ignore_changes
    assert by_key[("TImage", NAMESPACE, "tars-tarsweb")].ignore_changes == ("releases",)
    # no ingress controller, no address: pulumi-kubernetes must not wait for one
    ingress = by_key[("Ingress", NAMESPACE, "tars-web")]
    assert ingress.inputs["metadata"]["annotations"]["pulumi.com/skipAwait"] == "true"
    for r in recording.of_type("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"):
        assert r.retain_on_delete
    assert by_key[("Namespace", "", "tars-system")].retain_on_delete


def test_nodes_are_labelled_as_code(recording: Recording) -> None:
    patches = {
        r.inputs["metadata"]["name"]: r for r in recording.of_type("kubernetes:core/v1:NodePatch")
    }
    assert patches["node-a"].inputs["metadata"]["labels"] == {f"tars.io/node.{NAMESPACE}": ""}
    assert patches["node-b"].inputs["metadata"]["labels"] == {
        f"tars.io/node.{NAMESPACE}": "",
        "tars.io/SupportLocalVolume": "",
    }


def test_bad_values_fail_before_anything_is_registered() -> None:
    with pytest.raises(UsageError, match="upload"):
        record(
            lambda: TarsFrameworkInstall(
                "fw",
                TarsFrameworkInstallArgs(
                    values={"framework": {"registry": "r", "tag": "v"}}, namespace=NAMESPACE
                ),
            )
        )
    with pytest.raises(UsageError, match="placeholder"):
        record(
            lambda: TarsController(
                "tars",
                TarsControllerArgs(
                    values={"controller": {"registry": "_CONTROLLER_REGISTRY_", "tag": "v"}}
                ),
            )
        )


def test_an_existing_tars_system_is_patched_not_created() -> None:
    recording = install(existing_namespace=True)
    assert not [
        r for r in recording.of_type("kubernetes:core/v1:Namespace") if key(r)[2] == "tars-system"
    ]
    [patch] = recording.of_type("kubernetes:core/v1:NamespacePatch")
    assert patch.inputs["metadata"] == {"name": "tars-system", "labels": {"name": "tars-system"}}
    [system_secret] = recording.of_type("kubernetes:core/v1:Secret")
    assert patch.urn in system_secret.dependencies
