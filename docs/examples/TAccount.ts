// A TarsWeb user, admin, whose password is a Pulumi config secret (hashed, never stored).
import * as pulumi from "@pulumi/pulumi";
import * as tars from "@tars-components/tars";

const framework = new tars.TFramework("tars-dev", {
    namespace: "tars-dev",
    mode: "crd",
    existingConfig: true, // the cluster's framework has its tars-framework config
});

const config = new pulumi.Config();
const admin = new tars.TAccount(
    "admin",
    {
        framework: "tars-dev",
        username: "admin",
        password: config.requireSecret("adminPassword"), // pulumi config set --secret
        authorization: [{ role: "admin", flag: "*" }],
    },
    { dependsOn: [framework] },
);

export const objectName = admin.objectName;
