"""A Tars server with two servants and two replicas, expanded into its Kubernetes objects."""

import pulumi

from tars_components import Mode, Options, TFramework, TFrameworkArgs, TServer, TServerArgs

framework = TFramework(
    "tars-dev",
    TFrameworkArgs(
        namespace="tars-dev",
        options=Options(namespace="tars-dev", mode=Mode.EXPAND),
        config={
            "nodeImage": {"image": "reg.example.com/tars/tarsnode:v1.4.0"},
            "imageBuild": {"executor": {"image": "reg.example.com/tars/kaniko:v1.4.0"}},
            "imageUpload": {"registry": "reg.example.com/shop"},
        },
        templates={"tars.default": "tars.default", "tars.cpp": "tars.default"},
    ),
)

order = TServer(
    "shop-order",
    TServerArgs(
        framework,
        app="Shop",
        server="Order",
        sub_type="tars",
        tars={
            "template": "tars.cpp",
            "servants": [
                {"name": "OrderObj", "port": 10000, "thread": 5},
                {"name": "AdminObj", "port": 10001},
            ],
        },
        k8s={"replicas": 2, "env": [{"name": "LOG_LEVEL", "value": "debug"}]},
        release={"id": "v1", "image": "reg.example.com/shop/order:v1"},
    ),
)

pulumi.export("objects", order.objects)
