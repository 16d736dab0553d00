// The TarsK8S framework of the namespace tars-dev (chart tarsframework), after the controller.
import * as tars from "@tars-components/tars";

const controller = new tars.TarsController("tars", {
    values: { controller: { registry: "reg.example.com/tars", tag: "v1.4.1" } },
});

const install = new tars.TarsFrameworkInstall(
    "tars-dev",
    {
        values: {
            framework: { registry: "reg.example.com/tars", tag: "v1.4.1" },
            upload: { registry: "reg.example.com/upload" },
            web: "tars.example.com",
        },
        namespace: "tars-dev",
        controller: "tars", // the TarsController's resource name
        nodes: ["node-1", "node-2"],
        localVolumeNodes: ["node-1"],
    },
    { dependsOn: [controller] },
);

export const objects = install.objects;
