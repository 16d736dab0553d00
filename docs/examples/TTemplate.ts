// A config template of Tars servers, shop.cpp, inheriting from the namespace's tars.cpp.
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "crd",
    existingConfig: true, // the cluster's framework has its tars-framework config
    templates: { "tars.default": "tars.default", "tars.cpp": "tars.default" },
});

const template = new tars.TTemplate(
    "shop-cpp",
    {
        framework: "tars-dev",
        templateName: "shop.cpp",
        parent: "tars.cpp",
        content: "<tars><application><server>logLevel=INFO</server></application></tars>",
    },
    { dependsOn: [framework] },
);

export const parentChain = template.parentChain;
