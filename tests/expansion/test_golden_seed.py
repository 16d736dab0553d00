"""Golden tests built from the seed document's own examples (seeds/tarsk8s-features.zh.md).

Where the seed and TarsK8S disagree the expected output follows the reference and design §4;
each such place is named in the test (e.g. the seed's Service selector typo).
"""

from __future__ import annotations

import textwrap
from typing import Any

import yaml
from support.builders.golden_seed import SEED_TARSCONFIG

from tars_components.loading.load import load_texts
from tars_components.pipeline import expand
from tars_components.settings.options import Options


def _yaml(text: str) -> Any:
    return yaml.safe_load(textwrap.dedent(text))


def _render(server_yaml: str, namespace: str = "tars") -> dict[str, dict[str, Any]]:
    framework = f"""
    apiVersion: k8s.tars.io/v1beta3
    kind: TFrameworkConfig
    metadata: {{name: tars-framework, namespace: {namespace}}}
    imageBuild: {{executor: {{image: tarscloud/tars-helm/tars.tarskaniko:v1b2b3}}}}
    imageUpload: {{registry: tarscloud/tars-helm}}
    nodeImage: {{image: tarscloud/tars-helm/tars.tafnode:v1b2b3}}
    """
    text = textwrap.dedent(server_yaml) + "\n---\n" + textwrap.dedent(framework)
    stack = load_texts({"seed.yaml": text}, namespace)
    assert not stack.violations, stack.violations
    return {o["kind"]: o for o in expand(stack, Options(namespace=namespace))}


def test_tarsconfig_service_matches_the_seed() -> None:
    service = _render(SEED_TARSCONFIG, "tars-dev")["Service"]
    # The seed's example names the object tars-tafconfig (old name) and writes the selector as
    # ServerName: $(tserver.spec.app) (typo); TarsK8S selects on app and server, and design §4
    # adds targetPort.
    expected = _yaml(
        """
        apiVersion: v1
        kind: Service
        metadata:
          labels:
            tars.io/ServerApp: tars
            tars.io/ServerName: tarsconfig
          name: tars-tarsconfig
          namespace: tars-dev
        spec:
          clusterIP: None
          selector:
            tars.io/ServerApp: tars
            tars.io/ServerName: tarsconfig
          sessionAffinity: None
          type: ClusterIP
          ports:
          - name: configobj
            port: 11111
            protocol: TCP
            targetPort: 11111
        """
    )
    assert service == expected


def test_tarsconfig_statefulset_copies_the_seed_fields() -> None:
    sts = _render(SEED_TARSCONFIG, "tars-dev")["StatefulSet"]
    pod = sts["spec"]["template"]["spec"]
    main, init = pod["containers"][0], pod["initContainers"][0]
    assert sts["spec"]["replicas"] == 1
    assert sts["spec"]["podManagementPolicy"] == "Parallel"
    assert pod["serviceAccountName"] == "tars-tarsconfig"
    assert pod["readinessGates"] == [{"conditionType": "tars.io/active"}]
    assert main["image"] == "docker.tarsyun.com/tarscloud/tars.tarsconfig:v1.2.2"
    assert init["name"] == "tarsnode"
    assert init["image"] == "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.2.2"
    assert pod["volumes"][0] == {
        "name": "host-log-dir",
        "hostPath": {"path": "/usr/local/app/tars/app_log", "type": "DirectoryOrCreate"},
    }
    assert main["volumeMounts"][0] == {
        "name": "host-log-dir",
        "mountPath": "/usr/local/app/tars/app_log",
        "subPathExpr": "$(Namespace)/$(PodName)",
    }


def _affinity_server(ability: str) -> str:
    return f"""
    apiVersion: k8s.tars.io/v1beta2
    kind: TServer
    metadata: {{name: tars-tafconfig, namespace: tars}}
    spec:
      app: tars
      server: tafconfig
      subType: tars
      tars:
        template: tars.cpp
        servants: [{{name: ConfigObj, port: 11111}}]
      k8s:
        abilityAffinity: {ability}
      release: {{id: v1, image: tarscloud/tars.tafconfig:v1}}
    """


SEED_AFFINITY = {
    "AppRequired": """
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: tars.io/node.tars
              operator: Exists
            - key: tars.io/ability.tars.tars
              operator: Exists
    """,
    "ServerRequired": """
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: tars.io/node.tars
              operator: Exists
            - key: tars.io/ability.tars.tars-tafconfig
              operator: Exists
    """,
    # The seed misplaces `weight: 30` inside the match expression; it belongs to the term.
    "AppOrServerPreferred": """
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - key: tars.io/node.tars
                  operator: Exists
        preferredDuringSchedulingIgnoredDuringExecution:
          - preference:
              matchExpressions:
                - key: tars.io/ability.tars.tars-tafconfig
                  operator: Exists
            weight: 60
          - preference:
              matchExpressions:
                - key: tars.io/ability.tars.tars
                  operator: Exists
            weight: 30
    """,
    "None": """
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
            - matchExpressions:
                - key: tars.io/node.tars
                  operator: Exists
    """,
}


def test_the_four_affinity_blocks_match_the_seed() -> None:
    for ability, expected in SEED_AFFINITY.items():
        sts = _render(_affinity_server(ability))["StatefulSet"]
        assert sts["spec"]["template"]["spec"]["affinity"] == _yaml(expected), ability


def test_not_stacked_matches_the_seed() -> None:
    text = _affinity_server("None").replace("abilityAffinity: None", "notStacked: true")
    affinity = _render(text)["StatefulSet"]["spec"]["template"]["spec"]["affinity"]
    # The seed writes `namespaces` as a scalar; Kubernetes takes a list.
    assert affinity["podAntiAffinity"] == _yaml(
        """
        requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                tars.io/ServerApp: tars
                tars.io/ServerName: tafconfig
            namespaces: [tars]
            topologyKey: kubernetes.io/hostname
        """
    )


def test_host_ports_container_ports_match_the_seed() -> None:
    text = """
    apiVersion: k8s.tars.io/v1beta2
    kind: TServer
    metadata: {name: test-hostports, namespace: tars}
    spec:
      app: Test
      server: HostPorts
      subType: tars
      tars:
        template: tars.cpp
        servants:
          - name: Test1Obj
            port: 10001
          - name: Test2Obj
            port: 10002
      k8s:
        hostPorts:
          - nameRef: Test1Obj
            port: 3323
      release: {id: v1, image: tarscloud/test.hostports:v1}
    """
    container = _render(text)["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]
    assert container["ports"] == _yaml(
        """
        - name: test1obj
          containerPort: 10001
          protocol: TCP
          hostPort: 3323
        - name: test2obj
          containerPort: 10002
          protocol: TCP
        """
    )


def _taflog(source: str, mount_name: str = "remote-log-dir") -> str:
    return f"""
    apiVersion: k8s.tars.io/v1beta2
    kind: TServer
    metadata: {{name: tars-taflog, namespace: tars}}
    spec:
      app: tars
      server: taflog
      subType: tars
      tars:
        template: tars.cpp
        servants: [{{name: LogObj, port: 12111}}]
      k8s:
        mounts:
          - name: {mount_name}
            mountPath: /usr/local/app/tars/remote_app_log
            {textwrap.indent(textwrap.dedent(source).strip(), " " * 12).lstrip()}
      release: {{id: v1, image: tarscloud/tars.taflog:v1}}
    """


def test_tlocalvolume_claim_template_matches_the_seed() -> None:
    text = _taflog(
        """
        readOnly: false
        source:
          tLocalVolume:
            gid: "0"
            mode: "755"
            uid: "0"
        """
    )
    sts = _render(text)["StatefulSet"]
    # The seed names the storage class t-storage-class; TarsK8S installs tars-storage-class.
    assert sts["spec"]["volumeClaimTemplates"] == _yaml(
        """
        - apiVersion: v1
          kind: PersistentVolumeClaim
          metadata:
            labels:
              tars.io/LocalVolume: remote-log-dir
              tars.io/ServerApp: tars
              tars.io/ServerName: taflog
            name: remote-log-dir
            namespace: tars
          spec:
            accessModes:
              - ReadWriteOnce
            resources:
              requests:
                storage: 1G
            selector:
              matchLabels:
                tars.io/LocalVolume: remote-log-dir
                tars.io/ServerApp: tars
                tars.io/ServerName: taflog
            storageClassName: tars-storage-class
            volumeMode: Filesystem
        """
    )
    container = sts["spec"]["template"]["spec"]["containers"][0]
    assert container["volumeMounts"][0] == {
        "mountPath": "/usr/local/app/tars/remote_app_log",
        "name": "remote-log-dir",
    }
    assert "remote-log-dir" not in [v["name"] for v in sts["spec"]["template"]["spec"]["volumes"]]


def test_persistent_volume_claim_template_matches_the_seed() -> None:
    text = _taflog(
        """
        subPathExpr: $(PodName)
        source:
          persistentVolumeClaimTemplate:
            metadata:
              annotations:
                zone: sounth-03
                disk_type: ssd
              name: remote-log-dir
              namespace: tars
            spec:
              accessModes:
                - ReadWriteOnce
              resources:
                requests:
                  storage: 1G
        """
    )
    sts = _render(text)["StatefulSet"]
    # The mount name names the claim; the template's own name and namespace are ignored.
    assert sts["spec"]["volumeClaimTemplates"] == _yaml(
        """
        - apiVersion: v1
          kind: PersistentVolumeClaim
          metadata:
            name: remote-log-dir
            annotations:
              zone: sounth-03
              disk_type: ssd
          spec:
            accessModes:
              - ReadWriteOnce
            resources:
              requests:
                storage: 1G
        """
    )
    assert sts["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0] == {
        "mountPath": "/usr/local/app/tars/remote_app_log",
        "name": "remote-log-dir",
        "subPathExpr": "$(PodName)",
    }


def test_daemonset_differences_from_the_statefulset() -> None:
    statefulset_text = _affinity_server("ServerRequired").replace(
        "abilityAffinity: ServerRequired",
        "abilityAffinity: ServerRequired\n        notStacked: true\n"
        "        nodeSelector: [{key: disk, operator: In, values: [ssd]}]",
    )
    daemon_text = statefulset_text.replace(
        "notStacked: true", "notStacked: true\n        daemonSet: true"
    )
    sts_objects = _render(statefulset_text)
    ds_objects = _render(daemon_text)
    assert set(sts_objects) == {"Service", "StatefulSet"}
    assert set(ds_objects) == {"DaemonSet"}  # no headless Service for DaemonSet servers
    sts_pod = sts_objects["StatefulSet"]["spec"]["template"]["spec"]
    ds = ds_objects["DaemonSet"]
    ds_pod = ds["spec"]["template"]["spec"]
    # nodeSelector and tars.io/node.<ns> still apply; abilityAffinity and notStacked do not.
    assert ds_pod["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "disk", "operator": "In", "values": ["ssd"]},
                            {"key": "tars.io/node.tars", "operator": "Exists"},
                        ]
                    }
                ]
            }
        }
    }
    assert "podAntiAffinity" in sts_pod["affinity"]
    assert ds["spec"]["minReadySeconds"] == 3
    assert ds["spec"]["revisionHistoryLimit"] == 1
    assert ds["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1},
    }
    assert "replicas" not in ds["spec"] and "volumeClaimTemplates" not in ds["spec"]
    # The pod content is otherwise the same builder's.
    assert ds_pod["containers"] == sts_pod["containers"]
    assert ds_pod["initContainers"] == sts_pod["initContainers"]
