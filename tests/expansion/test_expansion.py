"""One test per mapping row of design §4 / reference §4 (expand mode)."""

from __future__ import annotations

import pytest
from support.builders.documents import (
    DROP,
    FRAMEWORK,
    NAMESPACE,
    edited,
    load,
    main_container,
    normal_server,
    objects,
    pod_spec,
    tars_server,
    template,
)

from tars_components.expansion.quantity import canonical_quantity
from tars_components.fileio.yaml_writer import dump
from tars_components.loading.load import load_texts
from tars_components.pipeline import expand
from tars_components.settings.options import Options

LABELS = {"tars.io/ServerApp": "Test", "tars.io/ServerName": "DemoTest"}


# --- names and which objects exist -------------------------------------------------------


def test_every_object_is_named_lower_app_dash_lower_server_in_the_server_namespace() -> None:
    objs = objects(tars_server())
    assert set(objs) == {"Service/test-demotest", "StatefulSet/test-demotest"}
    for obj in objs.values():
        meta = {k: v for k, v in obj["metadata"].items() if k != "annotations"}
        assert meta == {"name": "test-demotest", "namespace": NAMESPACE, "labels": LABELS}
        assert "ownerReferences" not in obj["metadata"]


def test_daemonset_server_gets_a_daemonset_and_no_service() -> None:
    assert set(objects(tars_server(daemonSet=True))) == {"DaemonSet/test-demotest"}


def test_daemonset_server_without_release_emits_nothing() -> None:
    assert objects(edited(tars_server(daemonSet=True), spec__release=DROP)) == {}


def test_templates_and_framework_configs_produce_no_objects() -> None:
    stack = load(template("tars.java", "tars.default"))
    assert expand(stack, Options(namespace=NAMESPACE)) == []


# --- Service -----------------------------------------------------------------------------


def test_service_is_headless_and_selects_app_and_server() -> None:
    spec = objects(tars_server())["Service/test-demotest"]["spec"]
    assert spec["type"] == "ClusterIP"
    assert spec["clusterIP"] == "None"
    assert spec["sessionAffinity"] == "None"
    assert spec["selector"] == LABELS


def test_service_ports_are_servants_then_tars_ports_lowercased_with_target_port() -> None:
    doc = tars_server()
    doc["spec"]["tars"]["servants"].append({"name": "StatUdpObj", "port": 10002, "isTcp": False})
    doc["spec"]["tars"]["ports"] = [{"name": "metrics", "port": 9100}]
    ports = objects(doc)["Service/test-demotest"]["spec"]["ports"]
    assert ports == [
        {"name": "demotest1obj", "port": 10001, "targetPort": 10001, "protocol": "TCP"},
        {"name": "statudpobj", "port": 10002, "targetPort": 10002, "protocol": "UDP"},
        {"name": "metrics", "port": 9100, "targetPort": 9100, "protocol": "TCP"},
    ]


def test_normal_server_service_has_its_normal_ports() -> None:
    ports = objects(normal_server())["Service/web-portal"]["spec"]["ports"]
    assert ports == [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"}]


def test_server_without_ports_gets_a_headless_service_with_no_ports() -> None:
    doc = edited(tars_server(), spec__tars__servants=[])
    assert objects(doc)["Service/test-demotest"]["spec"]["ports"] == []


# --- StatefulSet -------------------------------------------------------------------------


def test_statefulset_identity_fields() -> None:
    spec = objects(tars_server(podManagementPolicy="OrderedReady"))["StatefulSet/test-demotest"][
        "spec"
    ]
    assert spec["serviceName"] == "test-demotest"
    assert spec["selector"] == {"matchLabels": LABELS}
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["revisionHistoryLimit"] == 1
    assert "minReadySeconds" not in spec


def test_statefulset_replicas_are_copied() -> None:
    sts = objects(tars_server(replicas=3))["StatefulSet/test-demotest"]
    assert sts["spec"]["replicas"] == 3


def test_statefulset_rolling_update_keeps_its_partition() -> None:
    doc = tars_server(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    assert objects(doc)["StatefulSet/test-demotest"]["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"partition": 2},
    }


def test_statefulset_on_delete_has_no_rolling_update_block() -> None:
    doc = tars_server(updateStrategy={"type": "OnDelete"})
    strategy = objects(doc)["StatefulSet/test-demotest"]["spec"]["updateStrategy"]
    assert strategy == {"type": "OnDelete"}


# --- DaemonSet ---------------------------------------------------------------------------


def test_daemonset_rolling_update_max_unavailable_is_partition_at_least_one() -> None:
    for partition, expected in ((0, 1), (1, 1), (4, 4)):
        doc = tars_server(
            daemonSet=True,
            updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": partition}},
        )
        strategy = objects(doc)["DaemonSet/test-demotest"]["spec"]["updateStrategy"]
        assert strategy == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": expected}}


def test_daemonset_on_delete_and_min_ready_seconds() -> None:
    ds = objects(tars_server(daemonSet=True, updateStrategy={"type": "OnDelete"}))[
        "DaemonSet/test-demotest"
    ]
    assert ds["spec"]["updateStrategy"] == {"type": "OnDelete"}
    assert ds["spec"]["minReadySeconds"] == 3
    assert ds["spec"]["revisionHistoryLimit"] == 1


# --- pod template ------------------------------------------------------------------------


def test_pod_labels_carry_the_release_id() -> None:
    meta = objects(tars_server())["StatefulSet/test-demotest"]["spec"]["template"]["metadata"]
    assert meta == {"name": "test-demotest", "labels": {**LABELS, "tars.io/ServerID": "v1"}}


def test_pod_dns_service_links_and_restart_policy() -> None:
    pod = pod_spec(objects(tars_server())["StatefulSet/test-demotest"])
    assert pod["dnsPolicy"] == "ClusterFirst"
    assert pod["dnsConfig"] == {"options": [{"name": "ndots", "value": "2"}]}
    assert pod["enableServiceLinks"] is False
    assert pod["restartPolicy"] == "Always"
    assert "hostNetwork" not in pod and "hostIPC" not in pod


def test_host_network_sets_dns_policy_and_host_ipc_is_copied() -> None:
    pod = pod_spec(
        objects(tars_server(hostNetwork=True, hostIPC=True))["StatefulSet/test-demotest"]
    )
    assert pod["hostNetwork"] is True
    assert pod["hostIPC"] is True
    assert pod["dnsPolicy"] == "ClusterFirstWithHostNet"


def test_service_account_is_copied() -> None:
    pod = pod_spec(objects(tars_server(serviceAccount="demo-sa"))["StatefulSet/test-demotest"])
    assert pod["serviceAccountName"] == "demo-sa"


def test_v1beta2_tars_server_gate_becomes_tars_active() -> None:
    doc = tars_server(api_version="k8s.tars.io/v1beta2", readinessGate="example.com/x")
    pod = pod_spec(objects(doc)["StatefulSet/test-demotest"])
    assert pod["readinessGates"] == [{"conditionType": "tars.io/active"}]


def test_v1beta3_tars_server_gates_put_tars_active_first_and_keep_user_gates() -> None:
    doc = tars_server(readinessGates=["example.com/a", "tars.io/active", "example.com/a", "bb/c"])
    pod = pod_spec(objects(doc)["StatefulSet/test-demotest"])
    assert pod["readinessGates"] == [
        {"conditionType": "tars.io/active"},
        {"conditionType": "example.com/a"},
        {"conditionType": "bb/c"},
    ]


def test_normal_server_keeps_its_own_gates_only() -> None:
    server = normal_server(readinessGates=["aa/b", "aa/b"])
    pod = pod_spec(objects(server)["StatefulSet/web-portal"])
    assert pod["readinessGates"] == [{"conditionType": "aa/b"}]
    assert "readinessGates" not in pod_spec(objects(normal_server())["StatefulSet/web-portal"])


def test_tars_readiness_gate_option_off_drops_tars_active() -> None:
    doc = tars_server(readinessGates=["example.com/a"])
    options = Options(namespace=NAMESPACE, tars_readiness_gate=False)
    pod = pod_spec(objects(doc, options=options)["StatefulSet/test-demotest"])
    assert pod["readinessGates"] == [{"conditionType": "example.com/a"}]
    assert "readinessGates" not in pod_spec(
        objects(tars_server(), options=options)["StatefulSet/test-demotest"]
    )


def test_image_pull_secrets_release_secret_then_node_secret() -> None:
    doc = edited(tars_server(), spec__release__secret="app-secret")
    pod = pod_spec(objects(doc)["StatefulSet/test-demotest"])
    # nodeSecret comes from the framework default (M-TS13)
    assert pod["imagePullSecrets"] == [{"name": "app-secret"}, {"name": "node-secret"}]


def test_image_pull_secrets_are_deduplicated_and_prefer_release_node_secret() -> None:
    doc = tars_server()
    doc["spec"]["release"].update(
        secret="same", nodeImage="reg.example.com/tars.tarsnode:v2", nodeSecret="same"
    )
    assert pod_spec(objects(doc)["StatefulSet/test-demotest"])["imagePullSecrets"] == [
        {"name": "same"}
    ]


def test_normal_server_gets_no_node_secret_and_no_release_means_no_secrets() -> None:
    doc = edited(normal_server(), spec__release__secret="web-secret")
    assert pod_spec(objects(doc)["StatefulSet/web-portal"])["imagePullSecrets"] == [
        {"name": "web-secret"}
    ]
    unreleased = edited(tars_server(), spec__release=DROP)
    assert "imagePullSecrets" not in pod_spec(objects(unreleased)["StatefulSet/test-demotest"])


def test_node_selector_expressions_come_first_in_the_required_term() -> None:
    doc = tars_server(
        nodeSelector=[{"key": "zone", "operator": "In", "values": ["a", "b"]}],
        abilityAffinity="AppRequired",
    )
    term = pod_spec(objects(doc)["StatefulSet/test-demotest"])["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert term == [
        {
            "matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a", "b"]},
                {"key": "tars.io/node.tars-dev", "operator": "Exists"},
                {"key": "tars.io/ability.tars-dev.Test", "operator": "Exists"},
            ]
        }
    ]


# --- tarsnode init container -------------------------------------------------------------


def test_tarsnode_init_container() -> None:
    init = pod_spec(objects(tars_server())["StatefulSet/test-demotest"])["initContainers"]
    assert init == [
        {
            "name": "tarsnode",
            "image": "reg.example.com/tars.tarsnode:v1",
            "imagePullPolicy": "Always",
            "env": [
                {
                    "name": "Namespace",
                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
                },
                {"name": "PodName", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "PodIP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                {"name": "ServerApp", "value": "Test"},
                {"name": "ServerName", "value": "DemoTest"},
            ],
            "resources": {},
            "volumeMounts": [
                {"name": "tarsnode-work-dir", "mountPath": "/usr/local/app/tars/tarsnode"}
            ],
        }
    ]


def test_tarsnode_gets_launcher_type_only_when_foreground() -> None:
    init = pod_spec(objects(tars_server(launcherType="foreground"))["StatefulSet/test-demotest"])[
        "initContainers"
    ][0]
    assert init["env"][-1] == {"name": "LauncherType", "value": "foreground"}


def test_tarsnode_image_prefers_the_release_node_image() -> None:
    doc = edited(tars_server(), spec__release__nodeImage="reg.example.com/tars.tarsnode:v9")
    init = pod_spec(objects(doc)["StatefulSet/test-demotest"])["initContainers"][0]
    assert init["image"] == "reg.example.com/tars.tarsnode:v9"


def test_tarsnode_image_without_release_is_the_framework_default() -> None:
    doc = edited(tars_server(), spec__release=DROP)
    init = pod_spec(objects(doc)["StatefulSet/test-demotest"])["initContainers"][0]
    assert init["image"] == "reg.example.com/tars.tarsnode:v1"


def test_normal_server_has_no_init_container_and_no_work_dir() -> None:
    pod = pod_spec(objects(normal_server())["StatefulSet/web-portal"])
    assert "initContainers" not in pod
    assert [v["name"] for v in pod["volumes"]] == ["host-timezone"]
    assert [m["name"] for m in pod["containers"][0]["volumeMounts"]] == ["host-timezone"]


# --- main container ----------------------------------------------------------------------


def test_main_container_fields() -> None:
    doc = tars_server(
        imagePullPolicy="IfNotPresent",
        command=["/bin/demo"],
        args=["--x"],
        env=[
            {"name": "A", "value": "1"},
            {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        ],
        envFrom=[{"prefix": "CFG_", "configMapRef": {"name": "cm"}}],
        resources={"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}},
    )
    container = main_container(objects(doc)["StatefulSet/test-demotest"])
    assert container["name"] == "test-demotest"
    assert container["image"] == "reg.example.com/test.demotest:v1"
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["command"] == ["/bin/demo"]
    assert container["args"] == ["--x"]
    # verbatim, with the CRD's default optional: true
    assert container["env"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": True}}},
    ]
    assert container["envFrom"] == [
        {"prefix": "CFG_", "configMapRef": {"name": "cm", "optional": True}}
    ]
    assert container["resources"] == {"requests": {"cpu": "100m"}, "limits": {"memory": "1Gi"}}


def test_main_container_placeholder_image_and_zero_replicas_without_release() -> None:
    sts = objects(edited(tars_server(replicas=3), spec__release=DROP))["StatefulSet/test-demotest"]
    assert main_container(sts)["image"] == " "
    assert sts["spec"]["replicas"] == 0
    assert "tars.io/ServerID" not in sts["spec"]["template"]["metadata"]["labels"]


# --- container ports ---------------------------------------------------------------------


def test_container_ports_servants_then_ports_with_protocols() -> None:
    doc = tars_server()
    doc["spec"]["tars"]["servants"].append({"name": "UdpObj", "port": 10002, "isTcp": False})
    doc["spec"]["tars"]["ports"] = [{"name": "metrics", "port": 9100}]
    assert main_container(objects(doc)["StatefulSet/test-demotest"])["ports"] == [
        {"name": "demotest1obj", "containerPort": 10001, "protocol": "TCP"},
        {"name": "udpobj", "containerPort": 10002, "protocol": "UDP"},
        {"name": "metrics", "containerPort": 9100, "protocol": "TCP"},
    ]


def test_servant_names_that_are_not_valid_port_names_become_p_port() -> None:
    doc = edited(
        tars_server(), spec__tars__servants=[{"name": "VeryLongServantObj", "port": 10005}]
    )
    ports = main_container(objects(doc)["StatefulSet/test-demotest"])["ports"]
    assert ports == [{"name": "p10005", "containerPort": 10005, "protocol": "TCP"}]
    service_ports = objects(doc)["Service/test-demotest"]["spec"]["ports"]
    assert service_ports[0]["name"] == "verylongservantobj"


def test_host_ports_match_servants_and_ports_case_insensitively() -> None:
    doc = tars_server(
        hostPorts=[
            {"nameRef": "demotest1obj", "port": 30001},
            {"nameRef": "METRICS", "port": 30002},
        ]
    )
    doc["spec"]["tars"]["ports"] = [{"name": "metrics", "port": 9100}]
    assert main_container(objects(doc)["StatefulSet/test-demotest"])["ports"] == [
        {"name": "demotest1obj", "containerPort": 10001, "hostPort": 30001, "protocol": "TCP"},
        {"name": "metrics", "containerPort": 9100, "hostPort": 30002, "protocol": "TCP"},
    ]


def test_normal_ports_take_host_ports() -> None:
    doc = normal_server(hostPorts=[{"nameRef": "http", "port": 80}])
    assert main_container(objects(doc)["StatefulSet/web-portal"])["ports"] == [
        {"name": "http", "containerPort": 8080, "hostPort": 80, "protocol": "TCP"}
    ]


def test_host_network_drops_every_host_port() -> None:
    doc = tars_server(hostNetwork=True, hostPorts=[{"nameRef": "DemoTest1Obj", "port": 30001}])
    ports = main_container(objects(doc)["StatefulSet/test-demotest"])["ports"]
    assert ports == [{"name": "demotest1obj", "containerPort": 10001, "protocol": "TCP"}]


# --- volumes, mounts, claim templates ----------------------------------------------------

MOUNTS = [
    {
        "name": "logs",
        "mountPath": "/logs",
        "subPath": "x",
        "mountPropagation": "HostToContainer",
        "source": {"hostPath": {"path": "/var/log", "type": "Directory"}},
    },
    {
        "name": "scratch",
        "mountPath": "/scratch",
        "source": {"emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
    },
    {
        "name": "certs",
        "mountPath": "/certs",
        "readOnly": True,
        "source": {
            "secret": {"secretName": "certs", "items": [{"key": "tls.crt", "path": "tls.crt"}]}
        },
    },
    {"name": "conf", "mountPath": "/conf", "source": {"configMap": {"name": "conf"}}},
    {
        "name": "shared",
        "mountPath": "/shared",
        "source": {"persistentVolumeClaim": {"claimName": "shared"}},
    },
    {"name": "data", "mountPath": "/data", "source": {"tLocalVolume": {}}},
    {
        "name": "cache",
        "mountPath": "/cache",
        "source": {
            "persistentVolumeClaimTemplate": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                },
            }
        },
    },
]


def test_pod_volumes_copy_plain_sources_then_fixed_volumes() -> None:
    pod = pod_spec(objects(tars_server(mounts=MOUNTS))["StatefulSet/test-demotest"])
    assert pod["volumes"] == [
        {"name": "logs", "hostPath": {"path": "/var/log", "type": "Directory"}},
        {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
        {
            "name": "certs",
            "secret": {
                "secretName": "certs",
                "items": [{"key": "tls.crt", "path": "tls.crt", "mode": 420}],
                "defaultMode": 420,
                "optional": True,
            },
        },
        {"name": "conf", "configMap": {"name": "conf", "defaultMode": 420, "optional": True}},
        {"name": "shared", "persistentVolumeClaim": {"claimName": "shared", "readOnly": False}},
        {"name": "host-timezone", "hostPath": {"path": "/etc/localtime"}},
        {"name": "tarsnode-work-dir", "emptyDir": {}},
    ]


def test_volume_mounts_in_mount_order_then_fixed_mounts() -> None:
    container = main_container(objects(tars_server(mounts=MOUNTS))["StatefulSet/test-demotest"])
    assert container["volumeMounts"] == [
        {
            "name": "logs",
            "mountPath": "/logs",
            "subPath": "x",
            "mountPropagation": "HostToContainer",
        },
        {"name": "scratch", "mountPath": "/scratch"},
        {"name": "certs", "mountPath": "/certs", "readOnly": True},
        {"name": "conf", "mountPath": "/conf"},
        {"name": "shared", "mountPath": "/shared"},
        {"name": "data", "mountPath": "/data"},
        {"name": "cache", "mountPath": "/cache"},
        {"name": "host-timezone", "mountPath": "/etc/localtime"},
        {"name": "tarsnode-work-dir", "mountPath": "/usr/local/app/tars/tarsnode"},
    ]


def test_claim_templates_in_mount_order_then_delay_bind() -> None:
    doc = tars_server(mounts=MOUNTS, hostIPC=True)
    claims = objects(doc)["StatefulSet/test-demotest"]["spec"]["volumeClaimTemplates"]
    assert [c["metadata"]["name"] for c in claims] == ["data", "cache", "delay-bind"]
    assert claims[1] == {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "cache", "labels": {"a": "b"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    assert claims[2]["metadata"]["labels"] == {**LABELS, "tars.io/LocalVolume": "delay-bind"}


def test_a_claim_template_as_a_go_client_writes_it_is_admitted_and_its_extras_ignored() -> None:
    """kind, apiVersion, an empty status and a null creationTimestamp (a Go
    PersistentVolumeClaim value, as TarsK8S's e2e suite sends it) are pruned by the API
    server and admitted by v1.4.1; other unknown fields stay schema errors (typos)."""
    go_written = {
        "kind": "PersistentVolumeClaim",
        "apiVersion": "v1",
        "metadata": {"creationTimestamp": None, "labels": {"a": "b"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        "status": {},
    }
    mount = {"name": "cache", "mountPath": "/cache"}
    doc = tars_server(mounts=[{**mount, "source": {"persistentVolumeClaimTemplate": go_written}}])
    (claim,) = objects(doc)["StatefulSet/test-demotest"]["spec"]["volumeClaimTemplates"]
    assert claim["metadata"] == {"name": "cache", "labels": {"a": "b"}} and "status" not in claim
    for typo in ({"status": {"phase": "Bound"}}, {"kind": 3}, {"spec2": {}}):
        template = {**go_written, **typo}
        doc = tars_server(mounts=[{**mount, "source": {"persistentVolumeClaimTemplate": template}}])
        assert [v.code for v in load(doc).violations] == ["TS021"], typo
    meta = {**go_written, "metadata": {"creationTimestamp": "2024-01-01T00:00:00Z"}}
    doc = tars_server(mounts=[{**mount, "source": {"persistentVolumeClaimTemplate": meta}}])
    assert [v.code for v in load(doc).violations] == ["TS021"]


def test_delay_bind_for_each_host_binding_and_not_without() -> None:
    for k8s in (
        {"hostIPC": True},
        {"hostNetwork": True},
        {"hostPorts": [{"nameRef": "DemoTest1Obj", "port": 30001}]},
    ):
        sts = objects(tars_server(**k8s))["StatefulSet/test-demotest"]
        assert [c["metadata"]["name"] for c in sts["spec"]["volumeClaimTemplates"]] == [
            "delay-bind"
        ], k8s
    assert "volumeClaimTemplates" not in objects(tars_server())["StatefulSet/test-demotest"]["spec"]


def test_delay_bind_option_off() -> None:
    options = Options(namespace=NAMESPACE, delay_bind=False)
    sts = objects(tars_server(hostNetwork=True), options=options)["StatefulSet/test-demotest"]
    assert "volumeClaimTemplates" not in sts["spec"]


def test_local_volume_storage_class_option() -> None:
    options = Options(namespace=NAMESPACE, local_volume_storage_class="local-ssd")
    doc = tars_server(mounts=[MOUNTS[5]], hostIPC=True)
    claims = objects(doc, options=options)["StatefulSet/test-demotest"]["spec"][
        "volumeClaimTemplates"
    ]
    assert [c["spec"]["storageClassName"] for c in claims] == ["local-ssd", "local-ssd"]


def test_daemonset_skips_claim_template_mounts() -> None:
    doc = tars_server(daemonSet=True, mounts=[MOUNTS[0]])
    ds = objects(doc)["DaemonSet/test-demotest"]
    assert [m["name"] for m in main_container(ds)["volumeMounts"]] == [
        "logs",
        "host-timezone",
        "tarsnode-work-dir",
    ]


# --- Pulumi inputs are placed, never inspected -------------------------------------------


class FakeOutput:
    """Stands in for a pulumi.Output: something with ``apply`` whose value is not known."""

    def apply(self, func):
        return self


def test_deferred_release_and_env_values_are_placed_as_is() -> None:
    from tars_components.models import TFrameworkConfigDocument, TServerDocument
    from tars_components.pipeline import expand_server

    image, release_id, env_value = FakeOutput(), FakeOutput(), FakeOutput()
    doc = tars_server(env=[{"name": "TOKEN", "value": "x"}])
    server = TServerDocument.model_validate(doc)
    server.spec.release.image = image
    server.spec.release.id = release_id
    server.spec.k8s.env[0].value = env_value
    framework = TFrameworkConfigDocument.model_validate(FRAMEWORK)
    sts = expand_server(server, framework, Options(namespace=NAMESPACE))[1]
    container = main_container(sts)
    assert container["image"] is image
    assert container["env"][0]["value"] is env_value
    assert sts["spec"]["template"]["metadata"]["labels"]["tars.io/ServerID"] is release_id


def test_models_accept_deferred_values_at_construction() -> None:
    from tars_components.models import Release

    image = FakeOutput()
    assert Release(id="v1", image=image).image is image


def test_output_is_stable_across_file_names_order() -> None:
    text = dump(tars_server()) + "---\n" + dump(normal_server())
    first = expand(load_texts({"a.yaml": text}, NAMESPACE), Options(namespace=NAMESPACE))
    second = expand(load_texts({"a.yaml": text}, NAMESPACE), Options(namespace=NAMESPACE))
    assert first == second
    assert [o["metadata"]["name"] for o in first] == [
        "test-demotest",
        "test-demotest",
        "web-portal",
        "web-portal",
    ]


def test_skip_await_option_annotates_workloads_only() -> None:
    options = Options(namespace=NAMESPACE, skip_await=True)
    objs = objects(tars_server(), normal_server(daemonSet=True), options=options)
    assert objs["StatefulSet/test-demotest"]["metadata"]["annotations"] == {
        "pulumi.com/skipAwait": "true"
    }
    assert objs["DaemonSet/web-portal"]["metadata"]["annotations"] == {
        "pulumi.com/skipAwait": "true"
    }
    assert "annotations" not in objs["Service/test-demotest"]["metadata"]
    # without the option: the StatefulSet's wait conditions (docs/pulumi/deploy.md)
    default = objects(tars_server())["StatefulSet/test-demotest"]["metadata"]["annotations"]
    assert set(default) == {"pulumi.com/waitFor"}


# --- quantities in the API server's canonical form --------------------------------------


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("1000m", "1"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("1.5Gi", "1536Mi"),
        ("2048Mi", "2Gi"),
        ("1023Ki", "1023Ki"),
        ("512", "512"),
        ("0.1Gi", "107374182400m"),
        ("1e3", "1e3"),
        ("1E3", "1e3"),
        ("12e6", "12e6"),
        ("1000k", "1M"),
        ("0.0000000001", "1n"),
        ("0", "0"),
    ],
)
def test_quantities_are_written_as_the_api_server_stores_them(written: str, stored: str) -> None:
    """apimachinery's Quantity.String: what the controller's StatefulSet holds in the
    cluster, so a later comparison with the live object shows no false change."""
    assert canonical_quantity(written) == stored
    claim = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": written}}}
    template = {"spec": claim}
    mounts = [
        {
            "name": "c",
            "mountPath": "/c",
            "source": {"persistentVolumeClaimTemplate": {"spec": claim}},
        },
        {"name": "s", "mountPath": "/s", "source": {"emptyDir": {"sizeLimit": written}}},
    ]
    resources = {"requests": {"cpu": written}, "limits": {"memory": written}}
    sts = objects(tars_server(mounts=mounts, resources=resources))["StatefulSet/test-demotest"]
    assert main_container(sts)["resources"] == {
        "requests": {"cpu": stored},
        "limits": {"memory": stored},
    }
    (template,) = sts["spec"]["volumeClaimTemplates"]
    assert template["spec"]["resources"] == {"requests": {"storage": stored}}
    (scratch,) = [v for v in pod_spec(sts)["volumes"] if v["name"] == "s"]
    assert scratch["emptyDir"] == {"sizeLimit": stored}
