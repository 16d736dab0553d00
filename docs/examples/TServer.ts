// A Tars server with two servants and two replicas, expanded into its Kubernetes objects.
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "expand",
    config: {
        nodeImage: { image: "reg.example.com/tars/tarsnode:v1.4.0" },
        imageBuild: { executor: { image: "reg.example.com/tars/kaniko:v1.4.0" } },
        imageUpload: { registry: "reg.example.com/shop" },
    },
    templates: { "tars.default": "tars.default", "tars.cpp": "tars.default" },
});

const order = new tars.TServer(
    "shop-order",
    {
        framework: "tars-dev",
        app: "Shop",
        server: "Order",
        subType: "tars",
        tars: {
            template: "tars.cpp",
            servants: [
                { name: "OrderObj", port: 10000, thread: 5 },
                { name: "AdminObj", port: 10001 },
            ],
        },
        k8s: { replicas: 2, env: [{ name: "LOG_LEVEL", value: "debug" }] },
        release: { id: "v1", image: "reg.example.com/shop/order:v1" },
    },
    { dependsOn: [framework] },
);

export const objects = order.objects;
