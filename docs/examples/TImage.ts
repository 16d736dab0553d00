// The releases of the Shop.Order server's image, as a TImage of the cluster.
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "crd",
    existingConfig: true, // the cluster's framework has its tars-framework config
});

const image = new tars.TImage(
    "shop-order",
    {
        framework: "tars-dev",
        name: "shop-order",
        imageType: "server",
        releases: [
            { id: "v1", image: "reg.example.com/shop/order:v1" },
            { id: "v2", image: "reg.example.com/shop/order:v2" },
        ],
        default: "v2",
    },
    { dependsOn: [framework] },
);

export const releaseIds = image.releaseIds;
