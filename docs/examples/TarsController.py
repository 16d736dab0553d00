"""The TarsK8S controller install (chart tarscontroller), with a webhook CA of its own."""

import pulumi

from tars_components.components.platform import TarsController, TarsControllerArgs

controller = TarsController(
    "tars",
    TarsControllerArgs(
        values={"controller": {"registry": "reg.example.com/tars", "tag": "v1.4.1"}},
    ),
)

pulumi.export("caCertPem", controller.ca_cert_pem)
