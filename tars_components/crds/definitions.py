"""What each TarsK8S CRD declares besides its schema: names, scope, versions, printer columns,
subresources and conversion (the facts of the ``tarscontroller`` 1.4.1 chart)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

GROUP = "k8s.tars.io"
LATEST = "v1beta3"
WEBHOOK_SERVICE = "tars-webhook-service"
WEBHOOK_NAMESPACE = "tars-system"


def column(name: str, json_path: str, type_: str = "string") -> dict[str, str]:
    """One ``additionalPrinterColumns`` entry (``kubectl get`` column)."""
    return {"name": name, "type": type_, "jsonPath": json_path}


SERVER_SCALE = {
    "specReplicasPath": ".spec.k8s.replicas",
    "statusReplicasPath": ".status.currentReplicas",
    "labelSelectorPath": ".status.selector",
}
_SERVER_COLUMNS = (
    column("App", ".spec.app"),
    column("Server", ".spec.server"),
    column("SubType", ".spec.subType"),
)
_SERVER_COLUMNS_OLD = (
    *_SERVER_COLUMNS,
    # "Repicas" is the chart's spelling: kubectl shows it as the column header
    column("Repicas", ".spec.k8s.replicas", "integer"),
    column("Ready", ".status.readyReplicas", "integer"),
)
_SERVER_COLUMNS_NEW = (
    *_SERVER_COLUMNS,
    column("ReleaseImage", ".spec.release.image"),
    column("NodeImage", ".spec.release.nodeImage"),
    column("Template", ".spec.tars.template"),
    column("Replicas", ".spec.k8s.replicas", "integer"),
    column("Ready", ".status.readyReplicas", "integer"),
)
_CONFIG_COLUMNS = (
    column("App", ".app"),
    column("Server", ".server"),
    column("PodSeq", ".podSeq"),
    column("ConfigName", ".configName"),
    column("Version", ".version"),
    column("Activated", ".activated", "boolean"),
)


@dataclass(frozen=True)
class CrdKind:
    """One CRD: its kind, names and per-version extras (columns, subresources by version)."""

    kind: str
    plural: str
    short_names: tuple[str, ...] = ()
    versions: tuple[str, ...] = ("v1beta1", "v1beta2", "v1beta3")
    columns: dict[str, tuple[dict[str, str], ...]] = field(default_factory=dict)
    subresources: dict[str, Any] | None = None
    webhook_conversion: bool = False

    @property
    def name(self) -> str:
        """``metadata.name`` of the CRD: ``<plural>.k8s.tars.io``."""
        return f"{self.plural}.{GROUP}"


CRD_KINDS: tuple[CrdKind, ...] = (
    CrdKind(
        "TAccount",
        "taccounts",
        ("ta",),
        columns={v: (column("Username", ".spec.username"),) for v in ("v1beta2", "v1beta3")},
    ),
    CrdKind(
        "TConfig",
        "tconfigs",
        ("tc",),
        columns={v: _CONFIG_COLUMNS for v in ("v1beta1", "v1beta2", "v1beta3")},
    ),
    CrdKind("TEndpoint", "tendpoints", ("te",), subresources={"status": {}}),
    CrdKind("TExitedRecord", "texitedrecords"),
    CrdKind(
        "TFrameworkConfig",
        "tframeworkconfigs",
        ("tfc",),
        versions=("v1beta2", "v1beta3"),
        webhook_conversion=True,
    ),
    # the chart's plural is singular here ("tframeworkkey"), and so is the CRD's name
    CrdKind("TFrameworkKey", "tframeworkkey", ("tfk",), versions=("v1beta2", "v1beta3")),
    CrdKind("TImage", "timages", ("ti",), columns={"v1beta3": (column("type", ".imageType"),)}),
    CrdKind("TPlugin", "tplugins", ("tp",)),
    CrdKind(
        "TServer",
        "tservers",
        ("ts",),
        columns={
            "v1beta1": _SERVER_COLUMNS_OLD,
            "v1beta2": _SERVER_COLUMNS_OLD,
            "v1beta3": _SERVER_COLUMNS_NEW,
        },
        subresources={"status": {}, "scale": SERVER_SCALE},
        webhook_conversion=True,
    ),
    CrdKind(
        "TTemplate", "ttemplates", ("tt",), columns={"v1beta3": (column("Parent", ".spec.parent"),)}
    ),
    CrdKind("TTree", "ttrees"),
)
"""The eleven CRDs, in kind order."""
