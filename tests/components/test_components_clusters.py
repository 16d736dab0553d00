"""The project's ``__main__.py`` on a stack with two clusters, under
``pulumi.runtime.set_mocks``: one Kubernetes provider per cluster, every resource registered
with its cluster's provider and named after it, the bj replicas override, waves as
dependencies, and the provider's kubeconfig built from the secret credentials (a kubeconfig
naming another API server than the inventory's refused)."""

from __future__ import annotations

import base64
import contextlib
import json
import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from support.builders.clusters import BJ_REPLICAS, ORDER, project

from tars_components.components.clusters import CredentialsError, cluster_kubeconfig
from tars_components.components.testing import (
    Recording,
    is_secret_value,
    record,
    strip_secrets,
)
from tars_components.models.cluster import Cluster

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = str(ROOT / "__main__.py")
PROVIDER = "pulumi:providers:kubernetes"


def kubeconfig(server: str, context: str = "admin@cluster", token: str = "t0k3n-value") -> str:
    """A kubeconfig as a cluster admin hands it out."""
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": {"token": token}}],
            "contexts": [{"name": context, "context": {"cluster": "c", "user": "u"}}],
            "current-context": context,
        }
    )


def _config(stack_dir: Path, **extra: Any) -> dict[str, Any]:
    clusters = [
        {
            "name": "sh",
            "apiServer": "https://sh.example.com:6443",
            "credentials": "kubeconfig-sh",
            "labels": {"region": "east"},
        },
        {
            "name": "bj",
            "apiServer": "https://bj.example.com:6443",
            "credentials": "kubeconfig-bj",
            "labels": {"region": "north"},
            "wave": 1,
        },
    ]
    return {
        "tars:namespace": "tars-dev",
        "tars:stackDir": str(stack_dir),
        "tars:clusters": json.dumps(clusters),
        "tars:kubeconfig-sh": kubeconfig("https://sh.example.com:6443"),
        "tars:kubeconfig-bj": kubeconfig("https://bj.example.com:6443"),
        **extra,
    }


@contextlib.contextmanager
def answering(*down: str, missing: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """The program's probe of each cluster's API server (no server runs here): every one
    answers but those named ``down``, and serves the TarsK8S CRDs but those ``missing``;
    yields the clusters probed."""
    from tars_components.jobs import fleet

    probed: list[str] = []

    def probe(kubeconfig: str, cluster: str) -> str | None:
        probed.append(cluster)
        return "its API server does not answer: connection refused" if cluster in down else None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fleet, "probe", probe)
        patch.setattr(fleet, "serves", lambda kubeconfig, cluster, api: cluster not in missing)
        yield probed


def run_program(
    config: dict[str, Any],
    *down: str,
    into: Recording | None = None,
    missing: tuple[str, ...] = (),
) -> Recording:
    with answering(*down, missing=missing):
        return record(lambda: runpy.run_path(PROGRAM), config=config, recording=into)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    root = project(tmp_path_factory.mktemp("mc"), BJ_REPLICAS)
    return run_program(_config(root / "stacks" / "dev"))


def test_one_provider_per_cluster(recording: Recording) -> None:
    providers = recording.of_type(PROVIDER)
    assert sorted(p.name for p in providers) == ["cluster-bj", "cluster-sh"]
    for p in providers:
        assert is_secret_value(p.inputs["kubeconfig"])  # the credentials stay a secret
        # tars:unavailableClusters: fail (the default): a cluster that stops answering
        # during the update fails it, and the waves after it are not applied
        assert p.inputs["skipUpdateUnreachable"] in (False, "false")


def test_a_cluster_that_does_not_answer_stops_the_program_before_anything(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    refused = Recording()
    with pytest.raises(pulumi.RunError, match=r"1 cluster\(s\) cannot take the change"):
        run_program(_config(root / "stacks" / "dev"), "bj", into=refused)
    shown = "\n".join(message for _, message in refused.log)
    assert "TM011" in shown and "cluster bj cannot take the change" in shown
    assert "does not answer" in shown and "cluster sh cannot" not in shown
    assert refused.registrations == [] or all(
        not r.type.startswith("kubernetes:") for r in refused.registrations
    )


def test_a_missing_credential_affects_only_its_cluster_under_skip(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    config = _config(root / "stacks" / "dev", **{"tars:unavailableClusters": "skip"})
    del config["tars:kubeconfig-bj"]
    done = run_program(config)
    shown = "\n".join(message for _, message in done.log)
    assert "TM011" in shown and "no credentials: tars:kubeconfig-bj is not set" in shown
    # the stack never applied bj (no last objects under mocks): it is left out, sh applied
    assert "the stack never applied it" in shown
    kube = {r.name.split("/", 1)[0] for r in done.registrations if r.type.startswith("kubernetes:")}
    assert kube == {"sh"}
    assert done.outputs["skipped"] == {"bj": "no credentials: tars:kubeconfig-bj is not set"}
    providers = done.of_type(PROVIDER)
    assert [p.inputs["skipUpdateUnreachable"] for p in providers] in ([True], ["true"])
    assert done.plaintext("t0k3n-value") == []


def test_a_missing_credential_stops_the_program_under_fail(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    config = _config(root / "stacks" / "dev")
    del config["tars:kubeconfig-sh"]
    with pytest.raises(pulumi.RunError, match=r"1 cluster\(s\) cannot take the change"):
        run_program(config)


def test_every_resource_uses_its_cluster_provider(recording: Recording) -> None:
    urns = {p.name.removeprefix("cluster-"): p.urn for p in recording.of_type(PROVIDER)}
    kube = [r for r in recording.registrations if r.type.startswith("kubernetes:")]
    assert kube
    for r in kube:
        cluster = r.name.split("/", 1)[0]
        assert cluster in urns, r.name
        assert r.provider_urn == urns[cluster], (r.name, r.provider)
    clusters = {r.name.split("/", 1)[0] for r in kube}
    assert clusters == {"sh", "bj"}


def test_bj_replicas_override(recording: Recording) -> None:
    replicas = {
        r.name.split("/", 1)[0]: r.inputs["spec"]["replicas"]
        for r in recording.of_type("kubernetes:apps/v1:StatefulSet")
        if r.inputs["metadata"]["name"] == ORDER
    }
    assert replicas == {"sh": 2, "bj": 3}


def test_wave_one_depends_on_wave_zero(recording: Recording) -> None:
    sh = {
        r.urn
        for r in recording.registrations
        if r.name.startswith("sh/") and r.type.startswith("kubernetes:")
    }
    bj_frameworks = [r for r in recording.registrations if r.name == "bj/tars-dev" and not r.custom]
    assert bj_frameworks and sh
    assert sh <= set(bj_frameworks[0].dependencies)
    sh_framework = next(r for r in recording.registrations if r.name == "sh/tars-dev")
    assert not any(d.startswith("urn:") and "bj/" in d for d in sh_framework.dependencies)


def test_credentials_stay_secret(recording: Recording) -> None:
    assert recording.plaintext("t0k3n-value") == []


def test_a_kubeconfig_for_another_api_server_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    moved = _config(
        root / "stacks" / "dev", **{"tars:kubeconfig-bj": kubeconfig("https://other:6443")}
    )
    refused = Recording()
    with pytest.raises(pulumi.RunError, match=r"1 cluster\(s\) refused: nothing is applied"):
        run_program(moved, into=refused)
    shown = "\n".join(message for _, message in refused.log)
    assert "is not the inventory's https://bj.example.com:6443" in shown
    assert "tars:allowApiServerChange" in shown and "t0k3n-value" not in shown
    assert refused.of_type(PROVIDER) == []
    allowed = {**moved, "tars:allowApiServerChange": "bj"}
    done = run_program(allowed)
    assert len(done.of_type(PROVIDER)) == 2


def test_kubeconfig_is_normalised_to_the_cluster_name() -> None:
    sh = Cluster("sh", "https://sh.example.com:6443", "kubeconfig-sh")
    one = cluster_kubeconfig(sh, kubeconfig("https://sh.example.com:6443", "ctx-a", "one"))
    two = cluster_kubeconfig(sh, kubeconfig("https://sh.example.com:6443", "ctx-b", "two"))
    parsed = yaml.safe_load(one)
    assert parsed["current-context"] == "sh"
    assert [c["name"] for c in parsed["clusters"]] == ["sh"]
    assert one.replace("one", "two") == two  # only the credential itself differs


def test_cluster_kubeconfig_refuses_another_server() -> None:
    bj = Cluster("bj", "https://bj.example.com:6443", "kubeconfig-bj")
    with pytest.raises(CredentialsError, match="not the inventory's"):
        cluster_kubeconfig(bj, kubeconfig("https://other:6443"))
    moved = yaml.safe_load(cluster_kubeconfig(bj, kubeconfig("https://other:6443"), True))
    assert moved["clusters"][0]["cluster"]["server"] == "https://other:6443"


def test_token_credentials_use_the_inventory_server() -> None:
    bj = Cluster("bj", "https://bj.example.com:6443", "token-bj", "token")
    parsed = yaml.safe_load(cluster_kubeconfig(bj, "abc.def\n"))
    assert parsed["clusters"][0]["cluster"] == {"server": "https://bj.example.com:6443"}
    assert parsed["users"][0]["user"] == {"token": "abc.def"}


def test_unreadable_credentials_are_not_quoted() -> None:
    sh = Cluster("sh", "https://sh.example.com:6443", "kubeconfig-sh")
    with pytest.raises(CredentialsError) as caught:
        cluster_kubeconfig(sh, "users: [s3cr3t")
    assert "s3cr3t" not in str(caught.value) and "tars:kubeconfig-sh" in str(caught.value)


def test_install_framework_installs_it_on_every_cluster_with_its_own_nodes(
    tmp_path: Path,
) -> None:
    """With clusters, ``tars:installFramework`` is no longer dropped: one framework install per
    cluster, through that cluster's provider, each labelling the nodes the mapping gives it."""
    root = project(tmp_path, BJ_REPLICAS)
    nodes = json.dumps({"sh": "sh-node-1", "bj": "bj-node-1,bj-node-2"})
    extra = {"tars:installFramework": "true", "tars:frameworkNodes": nodes}
    config = _config(root / "stacks" / "dev", **extra)
    recording = run_program(config)
    installs = {r.name: r for r in recording.of_type("tars:index:TarsFrameworkInstall")}
    assert sorted(installs) == ["bj/tars-dev-framework", "sh/tars-dev-framework"]
    urns = {p.name.removeprefix("cluster-"): p.urn for p in recording.of_type(PROVIDER)}
    for name, install in installs.items():
        cluster = name.split("/", 1)[0]
        children = [r for r in recording.children(install) if r.type.startswith("kubernetes:")]
        assert children and {r.provider_urn for r in children} == {urns[cluster]}
        labelled = sorted(
            r.inputs["metadata"]["name"] for r in children if r.type.endswith(":NodePatch")
        )
        assert labelled == (["sh-node-1"] if cluster == "sh" else ["bj-node-1", "bj-node-2"])


def test_the_waves_and_each_clusters_pods_are_stack_outputs(recording: Recording) -> None:
    assert recording.outputs["waves"] == [["sh"], ["bj"]]
    progress = recording.outputs["progress"]
    assert sorted(progress) == ["bj", "sh"]
    # under mocks nothing reports a status yet: the servers are listed, their counts unknown
    assert progress["sh"] and all(v is None for v in progress["sh"].values())


def test_waves_with_tolerated_failures_are_gated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tars:waves`` with ``maxFailures``: a WaveGate after each wave, the next wave's
    components depending on it, the workloads not awaited by pulumi-kubernetes (the gate
    waits instead), the gate given each cluster's servers and kubeconfig as a secret."""
    from tars_components.components import wave_gate

    passed: list[dict[str, Any]] = []
    monkeypatch.setattr(wave_gate, "_pass", lambda props: passed.append(props) or props)
    root = project(tmp_path, BJ_REPLICAS)
    waves = json.dumps({"maxFailures": 1, "pauseSeconds": 30, "timeoutSeconds": 120})
    done = run_program(_config(root / "stacks" / "dev", **{"tars:waves": waves}))
    gates = {r.name: r for r in done.of_type(wave_gate.RESOURCE_TYPE)}
    assert sorted(gates) == ["wave-0", "wave-1"]
    zero = gates["wave-0"]
    assert zero.inputs["allowed"] == 1 and zero.inputs["pauseSeconds"] == 30
    watched = zero.inputs["clusters"]["sh"]
    assert {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "namespace": "tars-dev",
        "name": ORDER,
    } in watched
    assert is_secret_value(zero.inputs["kubeconfigs"])
    assert done.plaintext("t0k3n-value") == []
    bj_framework = next(r for r in done.registrations if r.name == "bj/tars-dev" and not r.custom)
    assert zero.urn in bj_framework.dependencies
    sets = done.of_type("kubernetes:apps/v1:StatefulSet")
    assert sets and all(
        s.inputs["metadata"]["annotations"].get("pulumi.com/skipAwait") == "true" for s in sets
    )
    assert [p["wave"] for p in passed] == [0, 1]


def test_without_wave_settings_expand_mode_has_no_gate(recording: Recording) -> None:
    assert recording.of_type("pulumi-python:dynamic/tars:WaveGate") == []


def test_a_crd_mode_cluster_without_the_tarsk8s_crds_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    config = _config(root / "stacks" / "dev", **{"tars:mode": "crd"})
    refused = Recording()
    with pytest.raises(pulumi.RunError, match=r"1 cluster\(s\) refused: nothing is applied"):
        run_program(config, into=refused, missing=("bj",))
    shown = "\n".join(message for _, message in refused.log)
    assert "cluster bj does not serve k8s.tars.io/v1beta3" in shown
    assert "install the TarsK8S controller on it first" in shown


def _add_server(stack_dir: Path, name: str) -> None:
    """A copy of the order server named ``name`` (its app-server ``shop-<name>``)."""
    order = yaml.safe_load((stack_dir / "20-shop-order.yaml").read_text())
    order["metadata"]["name"] = f"shop-{name}"
    order["spec"]["server"] = name
    (stack_dir / f"25-{name}.yaml").write_text(yaml.safe_dump(order))


def test_a_wave_beyond_approved_waves_is_held_and_new_servers_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tars:waves`` ``approvedWaves: 1``: wave 0 (sh) takes the change, bj (wave 1) keeps
    its objects as the last update left them, every change ignored; a server new to bj waits
    for the approval of its wave, left out there."""
    from tars_components.components import clusters

    root = project(tmp_path, BJ_REPLICAS)
    stack_dir = root / "stacks" / "dev"
    last = run_program(_config(stack_dir)).outputs["objects"]
    monkeypatch.setattr(clusters, "own_objects", lambda: pulumi.Output.from_input(last))
    _add_server(stack_dir, "stockserver")
    waves = json.dumps({"approvedWaves": 1})
    done = run_program(_config(stack_dir, **{"tars:waves": waves}))
    why = "wave 1 waits for approval (tars:waves approvedWaves 1)"
    assert done.outputs["held"] == {"bj": why} and done.outputs["skipped"] == {}
    assert done.outputs["progress"]["bj"] == {"held": why}
    shown = "\n".join(message for _, message in done.log)
    assert "cluster bj is held" in shown and "wait(s) for its approval" in shown
    kube = [r for r in done.registrations if r.type.startswith("kubernetes:")]
    bj = [r for r in kube if r.name.startswith("bj/")]
    # its provider keeps its last inputs; its resources' ignoreChanges come from a transform,
    # which only the engine runs (tests/e2e/test_fleet_waves.py)
    held = next(p for p in done.of_type(PROVIDER) if p.name == "cluster-bj")
    assert held.ignore_changes == ("*",) and bj
    assert not any("stockserver" in r.name for r in bj)  # waits for wave 1's approval
    assert any("stockserver" in r.name for r in kube if r.name.startswith("sh/"))
    assert not any(r.ignore_changes for r in kube if r.name.startswith("sh/"))
    assert sorted(done.outputs["objects"]["bj"]) == sorted(last["bj"])


def test_a_held_wave_refuses_a_deletion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tars_components.components import clusters

    root = project(tmp_path, BJ_REPLICAS)
    stack_dir = root / "stacks" / "dev"
    last = run_program(_config(stack_dir)).outputs["objects"]
    monkeypatch.setattr(clusters, "own_objects", lambda: pulumi.Output.from_input(last))
    (stack_dir / "30-shop-gateway.yaml").unlink()
    refused = Recording()
    config = _config(stack_dir, **{"tars:waves": json.dumps({"approvedWaves": 1})})
    with pytest.raises(pulumi.RunError, match="cluster bj cannot be held: nothing is applied"):
        run_program(config, into=refused)
    shown = "\n".join(message for _, message in refused.log)
    assert "but this change would delete" in shown and "shop-gatewayserver" in shown


def test_install_controller_installs_it_on_every_cluster_with_a_ca_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tars:installController`` (crd mode, clusters without the TarsK8S CRDs yet): one
    controller per cluster through that cluster's provider, each with a webhook CA the
    program made (the key a secret everywhere); the framework waits for the controller, the
    stack's own components for both."""
    from tars_components.components import wave_gate, webhook_ca

    monkeypatch.setattr(wave_gate, "_pass", lambda props: props)  # crd mode: a gate, no wait
    root = project(tmp_path, BJ_REPLICAS)
    extra = {"tars:mode": "crd", "tars:installController": "true", "tars:installFramework": "true"}
    done = run_program(_config(root / "stacks" / "dev", **extra), missing=("sh", "bj"))
    controllers = {r.name: r for r in done.of_type("tars:index:TarsController")}
    assert sorted(controllers) == ["bj/tars-controller", "sh/tars-controller"]
    cas = {r.name: r for r in done.of_type(webhook_ca.RESOURCE_TYPE)}
    assert sorted(cas) == ["bj/tars-webhook-ca", "sh/tars-webhook-ca"]
    assert (
        cas["sh/tars-webhook-ca"].outputs["certPem"] != cas["bj/tars-webhook-ca"].outputs["certPem"]
    )
    assert all(is_secret_value(c.outputs["keyPem"]) for c in cas.values())
    keys = [str(strip_secrets(c.outputs["keyPem"])) for c in cas.values()]
    urns = {p.name.removeprefix("cluster-"): p.urn for p in done.of_type(PROVIDER)}
    for name, controller in controllers.items():
        cluster = name.split("/", 1)[0]
        children = [r for r in done.children(controller) if r.type.startswith("kubernetes:")]
        assert {r.provider_urn for r in children} == {urns[cluster]}
        secret = next(r for r in children if r.type == "kubernetes:core/v1:Secret")
        assert is_secret_value(secret.inputs["stringData"])
        webhooks = [r for r in children if r.type.endswith("WebhookConfiguration")]
        cert = str(cas[f"{cluster}/tars-webhook-ca"].outputs["certPem"])
        bundles = {w["clientConfig"]["caBundle"] for r in webhooks for w in r.inputs["webhooks"]}
        assert bundles == {base64.b64encode(cert.encode()).decode()}
        framework = next(
            r for r in done.registrations if r.name == f"{cluster}/tars-dev" and not r.custom
        )
        install = next(r for r in done.registrations if r.name == f"{cluster}/tars-dev-framework")
        # waiting on a component is waiting on its resources
        assert {c.urn for c in done.children(install)} <= set(framework.dependencies)
        assert {c.urn for c in children if c.type.endswith("CustomResourceDefinition")} <= set(
            framework.dependencies
        )
    for key in keys:
        assert "PRIVATE KEY" in key and done.plaintext(key.splitlines()[1]) == []
