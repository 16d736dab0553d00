// A config file of the Shop.Order server, order.conf, as a TConfig of the cluster.
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "crd",
    existingConfig: true, // the cluster's framework has its tars-framework config
});

const config = new tars.TConfig(
    "order-conf",
    {
        framework: "tars-dev",
        app: "Shop",
        server: "Order",
        configName: "order.conf",
        configContent: "timeout=1500\nretries=3\n",
    },
    { dependsOn: [framework] },
);

export const objectName = config.objectName;
