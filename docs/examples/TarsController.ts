// The TarsK8S controller install (chart tarscontroller), with a webhook CA of its own.
import * as tars from "@tars-components/tars";

const controller = new tars.TarsController("tars", {
    values: { controller: { registry: "reg.example.com/tars", tag: "v1.4.1" } },
});

export const caCertPem = controller.caCertPem;
