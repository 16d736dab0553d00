// A TarsK8S framework: the namespace tars-dev, its tars-framework config and its templates.
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "expand",
    config: {
        nodeImage: { image: "reg.example.com/tars/tarsnode:v1.4.0" },
        imageBuild: { executor: { image: "reg.example.com/tars/kaniko:v1.4.0" } },
        imageUpload: { registry: "reg.example.com/shop" },
    },
    // the templates the namespace has already (installed with the framework)
    templates: { "tars.default": "tars.default", "tars.cpp": "tars.default" },
});

export const namespace = framework.namespace;
