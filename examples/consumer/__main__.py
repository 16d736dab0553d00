"""A minimal Pulumi program of your own built on tars_components.

One TarsK8S framework, one config template and two servers declared in Python. The framework
is the platform team's when ``platformStack`` names a stack of the project's program
(``org/tars/prod``; ``organization/tars/dev`` on a file backend): its namespace and its
templates come through a StackReference (``PlatformStack``), as Outputs. Without it, the
namespace is the ``namespace`` config value (``shop-dev`` by default) with the framework
chart's two templates. The order server's image is an input from elsewhere too: the
``orderImage`` output of another stack when ``imagesStack`` is set, else the ``orderImage``
config value. Config (namespace of this project, ``tars-consumer``): ``platformStack``,
``namespace``, ``mode`` (expand or crd), ``renderDir`` or ``kubeContext``, ``orderImage``,
``imagesStack``.
"""

from __future__ import annotations

from collections.abc import Mapping

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
from tars_components.components import PlatformStack

FRAMEWORK_IMAGES = "docker.tarsyun.com/tarscloud"

config = pulumi.Config()
mode = Mode(config.get("mode") or "expand")

platform_stack = config.get("platformStack")
namespace: pulumi.Input[str]
templates: pulumi.Input[Mapping[str, pulumi.Input[str]]]
if platform_stack:
    # The platform team's framework: its namespace and templates, as Outputs of its stack.
    platform = PlatformStack(platform_stack)
    namespace, templates = platform.namespace, platform.templates
else:
    # Templates the TarsK8S framework chart installed in the namespace.
    namespace = config.get("namespace") or "shop-dev"
    templates = {"tars.default": "tars.default", "tars.cpp": "tars.default"}

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
        options=Options(mode=mode),
        # The namespace's tars-framework config (a TFrameworkConfigArgsDict: its fields, typed):
        # its nodeImage is every Tars server's default tarsnode image. The platform's stack
        # owns it in its namespace: in crd mode it is read from the cluster, never applied.
        config={
            "imageBuild": {"executor": {"image": f"{FRAMEWORK_IMAGES}/tars.tarskaniko:v1.4.0"}},
            "imageUpload": {"registry": "docker.tarsyun.com/shop"},
            "nodeImage": {"image": f"{FRAMEWORK_IMAGES}/tars.tarsnode:v1.4.0"},
        },
        existing_config=bool(platform_stack) and mode == Mode.CRD,
        templates=templates,
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

pulumi.export("namespace", framework.namespace)
pulumi.export("templateChain", shop_cpp.parent_chain)
pulumi.export(
    "objects", pulumi.Output.all(order.objects, portal.objects).apply(lambda o: [*o[0], *o[1]])
)
