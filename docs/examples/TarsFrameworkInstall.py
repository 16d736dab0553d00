"""The TarsK8S framework of the namespace tars-dev (chart tarsframework), after the controller."""

from tars_components.components.platform import (
    TarsController,
    TarsControllerArgs,
    TarsFrameworkInstall,
    TarsFrameworkInstallArgs,
)

controller = TarsController(
    "tars",
    TarsControllerArgs(
        values={"controller": {"registry": "reg.example.com/tars", "tag": "v1.4.1"}},
    ),
)

install = TarsFrameworkInstall(
    "tars-dev",
    TarsFrameworkInstallArgs(
        values={
            "framework": {"registry": "reg.example.com/tars", "tag": "v1.4.1"},
            "upload": {"registry": "reg.example.com/upload"},
            "web": "tars.example.com",
        },
        namespace="tars-dev",
        controller=controller,
        nodes=["node-1", "node-2"],
        local_volume_nodes=["node-1"],
    ),
)
