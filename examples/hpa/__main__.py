"""Hand a server's scale to a HorizontalPodAutoscaler (or TarsWeb).

The order server is declared with ``external_replicas=True`` (``tars:externalReplicas`` for a
whole stack, ``TFrameworkArgs.external_replicas`` for a framework): Pulumi then ignores
changes to its replicas (``ignore_changes`` on ``spec.replicas`` of the StatefulSet, or on
``spec.k8s.replicas`` of the TServer in crd mode), so an ``up`` never resets what the
autoscaler chose. The HPA targets ``TServer.scale_target_ref``: the TServer's scale
subresource in crd mode (the TarsK8S controller passes the count on), the StatefulSet in
expand mode.

Config (namespace ``tars-hpa``): ``mode`` (expand or crd), ``renderDir``, ``minReplicas``,
``maxReplicas``, ``cpuUtilization``.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tars_components import Mode, Options, TFramework, TFrameworkConfigDocument, TServer

config = pulumi.Config()
namespace = "shop"
mode = Mode(config.get("mode") or "expand")
provider = k8s.Provider("kubernetes", render_yaml_to_directory=config.get("renderDir") or "out")

framework = TFramework(
    "shop",
    pulumi.ResourceOptions(provider=provider),
    namespace=namespace,
    options=Options(namespace=namespace, mode=mode),
    config=TFrameworkConfigDocument.model_validate(
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TFrameworkConfig",
            "metadata": {"name": "tars-framework"},
            "imageBuild": {"executor": {"image": "docker.tarsyun.com/tarscloud/kaniko:v1.4.0"}},
            "imageUpload": {"registry": "docker.tarsyun.com/shop"},
            "nodeImage": {"image": "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.0"},
        }
    ),
    templates={"tars.cpp": "tars.cpp"},
)

order = TServer(
    "order",
    framework=framework,
    app="Shop",
    server="OrderServer",
    tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
    k8s={"replicas": 2, "resources": {"requests": {"cpu": "200m"}}},
    release={"id": "v1", "image": "docker.tarsyun.com/shop/orderserver:v1"},
    external_replicas=True,  # the HPA owns the replicas from now on
)

target = order.scale_target_ref
assert target is not None  # None only for a DaemonSet or an unreleased server
spec = {
    "scaleTargetRef": {
        "apiVersion": target["apiVersion"],
        "kind": target["kind"],
        "name": target["name"],
    },
    "minReplicas": config.get_int("minReplicas") or 2,
    "maxReplicas": config.get_int("maxReplicas") or 10,
    "metrics": [
        {
            "type": "Resource",
            "resource": {
                "name": "cpu",
                "target": {
                    "type": "Utilization",
                    "averageUtilization": config.get_int("cpuUtilization") or 70,
                },
            },
        }
    ],
}
hpa = k8s.autoscaling.v2.HorizontalPodAutoscaler(
    "order-hpa",
    metadata={"name": "shop-orderserver", "namespace": namespace},
    spec=spec,
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[order]),
)

pulumi.export("scaleTarget", order.scale_target_ref)
