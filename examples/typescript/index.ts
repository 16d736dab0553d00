// The tars components from TypeScript: a framework, a template and a Tars server, through the
// Python component provider in ../../plugin (`pulumi install` generates the SDK into sdks/tars).
import * as pulumi from "@pulumi/pulumi";
import * as tars from "@tars-components/tars";

const config = new pulumi.Config();
const namespace = config.get("namespace") ?? "tars-dev";

const framework = new tars.TFramework("fw", {
    namespace,
    mode: tars.Mode.EXPAND,
    config: {
        nodeImage: { image: "reg.example.com/tars/tarsnode:v1.4.0" },
        imageBuild: { executor: { image: "reg.example.com/tars/kaniko:v1.4.0" } },
        imageUpload: { registry: "reg.example.com/shop" },
    },
    templates: { "tars.cpp": "tars.default", "tars.default": "tars.default" },
});

const template = new tars.TTemplate(
    "shop-template",
    {
        framework: namespace,
        templateName: "tars.shop",
        parent: "tars.cpp",
        content: "<tars><application><server>logLevel=INFO</server></application></tars>",
    },
    { dependsOn: [framework] },
);

const order = new tars.TServer(
    "shop-order",
    {
        framework: namespace,
        app: "Shop",
        server: "Order",
        subType: tars.SubType.TARS,
        tars: {
            template: "tars.shop",
            servants: [
                { name: "OrderObj", port: 10000, thread: 5 },
                { name: "AdminObj", port: 10001 },
            ],
        },
        k8s: { replicas: 2, env: [{ name: "LOG_LEVEL", value: "debug" }] },
        release: {
            id: "v1",
            image: config.get("orderImage") ?? "reg.example.com/shop/order:v1",
        },
    },
    { dependsOn: [framework, template] },
);

export const objects = order.objects;
export const objectName = order.objectName;
