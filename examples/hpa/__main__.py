"""Hand a server's scale to a HorizontalPodAutoscaler (or TarsWeb).

``TServerAutoscaler`` declares the order server and its ``autoscaling/v2`` HPA: the server's
replicas are ``external`` (never applied, ignored: ``spec.replicas`` of the StatefulSet, or
``spec.k8s.replicas`` of the TServer in crd mode), so an ``up`` never resets what the
autoscaler chose, and its ``tars.io/MinReplicas``/``tars.io/MaxReplicas`` annotations follow
the HPA's bounds. The HPA targets the TServer's scale subresource in crd mode (the TarsK8S
controller passes the count on), the StatefulSet in expand mode.

Config (namespace ``tars-hpa``): ``mode`` (expand or crd), ``renderDir``, ``minReplicas``,
``maxReplicas``, ``cpuUtilization``.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tars_components import (
    Mode,
    Options,
    TFramework,
    TFrameworkConfigDocument,
    TServerArgs,
    TServerAutoscaler,
)

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

autoscaler = TServerAutoscaler(
    "order",
    server=TServerArgs(
        framework,
        app="Shop",
        server="OrderServer",
        tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
        k8s={"replicas": 2, "resources": {"requests": {"cpu": "200m"}}},
        release={"id": "v1", "image": "docker.tarsyun.com/shop/orderserver:v1"},
    ),
    min_replicas=config.get_int("minReplicas") or 2,
    max_replicas=config.get_int("maxReplicas") or 10,
    metrics=[
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
)

pulumi.export("scaleTarget", autoscaler.server.scale_target_ref)
