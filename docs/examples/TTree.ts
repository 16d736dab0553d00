// The namespace's business tree: the business shop and the app Shop in it.
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "crd",
    existingConfig: true, // the cluster's framework has its tars-framework config
});

const tree = new tars.TTree(
    "tars-tree",
    {
        framework: "tars-dev",
        businesses: [{ name: "shop", show: "Shop", weight: 1 }],
        apps: [{ name: "Shop", businessRef: "shop" }],
    },
    { dependsOn: [framework] },
);

export const objects = tree.objects;
