"""A minimal Pulumi program of your own built on tars_components.

One TarsK8S framework (namespace ``shop-dev`` by default), one config template and two
servers declared in Python. The order server's image is an input from elsewhere: the
``orderImage`` output of another stack when ``imagesStack`` is set (a StackReference), else
the ``orderImage`` config value. Config (namespace of this project, ``tars-consumer``):
``namespace``, ``mode`` (expand or crd), ``renderDir`` or ``kubeContext``, ``orderImage``,
``imagesStack``.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from tars_components import (
    Mode,
    Options,
    TFramework,
    TFrameworkArgs,
    TServer,
    TServerArgs,
    TTemplate,
    TTemplateArgs,
)

FRAMEWORK_IMAGES = "docker.tarsyun.com/tarscloud"

config = pulumi.Config()
namespace = config.get("namespace") or "shop-dev"

images_stack = config.get("imagesStack")
order_image: pulumi.Input[str] = (
    pulumi.StackReference(images_stack).require_output("orderImage")
    if images_stack
    else config.require("orderImage")
)

provider = k8s.Provider(
    "kubernetes",
    render_yaml_to_directory=config.get("renderDir"),
    context=config.get("kubeContext"),
)

framework = TFramework(
    "shop",
    TFrameworkArgs(
        namespace=namespace,
        options=Options(namespace=namespace, mode=Mode(config.get("mode") or "expand")),
        # The namespace's tars-framework config (a TFrameworkConfigArgsDict: its fields, typed):
        # its nodeImage is every Tars server's default tarsnode image.
        config={
            "imageBuild": {"executor": {"image": f"{FRAMEWORK_IMAGES}/tars.tarskaniko:v1.4.0"}},
            "imageUpload": {"registry": "docker.tarsyun.com/shop"},
            "nodeImage": {"image": f"{FRAMEWORK_IMAGES}/tars.tarsnode:v1.4.0"},
        },
        # Templates the TarsK8S framework chart installed in the namespace.
        templates={"tars.default": "tars.default", "tars.cpp": "tars.default"},
    ),
    pulumi.ResourceOptions(provider=provider),
)

shop_cpp = TTemplate(
    "shop.cpp",
    TTemplateArgs(
        framework,
        template_name="shop.cpp",
        parent="tars.cpp",
        content="<tars>\n  <application>\n    <client>\n      sync-invoke-timeout = 1500\n"
        "    </client>\n  </application>\n</tars>\n",
    ),
)

order = TServer(
    "shop-orderserver",
    TServerArgs(
        framework,
        app="Shop",
        server="OrderServer",
        tars={
            "template": "shop.cpp",
            "servants": [{"name": "OrderObj", "port": 10001, "thread": 8}],
        },
        k8s={"replicas": 2},
        release={"id": "v1.8.0", "image": order_image},
    ),
    pulumi.ResourceOptions(depends_on=[shop_cpp]),
)

portal = TServer(
    "web-portal",
    TServerArgs(
        framework,
        app="Web",
        server="Portal",
        normal={"ports": [{"name": "http", "port": 8080}]},
        k8s={"replicas": 1, "env": [{"name": "ORDER_SERVICE", "value": "shop-orderserver:10001"}]},
        release={"id": "2026.11.3", "image": "docker.tarsyun.com/shop/web.portal:2026.11.3"},
    ),
)

pulumi.export("templateChain", shop_cpp.parent_chain)
pulumi.export(
    "objects", pulumi.Output.all(order.objects, portal.objects).apply(lambda o: [*o[0], *o[1]])
)
