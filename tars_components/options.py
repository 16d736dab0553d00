"""Options that change the output, the same for the CLI and the Pulumi program (design §4)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .models import V1BETA3

DEFAULT_LOCAL_VOLUME_STORAGE_CLASS = "tars-storage-class"


class Mode(str, Enum):
    """``expand``: Kubernetes workloads; ``crd``: TarsK8S custom resources for its controller."""

    EXPAND = "expand"
    CRD = "crd"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Options:
    """Output options. Every field has the default of design §4's options table.

    * ``namespace``: stack namespace for documents without one. Defaults to ``default``.
    * ``mode``: ``expand`` or ``crd``. Defaults to ``expand``.
    * ``local_volume_storage_class``: storage class of tLocalVolume and ``delay-bind`` claim
      templates. Defaults to ``tars-storage-class``.
    * ``delay_bind``: add the ``delay-bind`` claim template to servers with hostIPC,
      hostNetwork or hostPorts. Defaults to true.
    * ``tars_readiness_gate``: keep the ``tars.io/active`` readiness gate on Tars servers (turn
      off only where no TarsK8S tarsregistry patches that condition). Defaults to true.
    * ``crd_api_version``: apiVersion of the custom resources in crd mode. Defaults to
      ``k8s.tars.io/v1beta3``.
    * ``skip_await``: annotate StatefulSets and DaemonSets ``pulumi.com/skipAwait: "true"``, for
      clusters where Tars pods never become Ready (no tarsregistry patches ``tars.io/active``),
      so ``pulumi up`` does not wait for them. Defaults to false.
    * ``existing_framework_config``: crd mode against a live TarsK8S cluster whose namespace
      already has its ``tars-framework`` TFrameworkConfig (the chart installs it): the rules
      count it as present (TS020) and the cluster's webhook fills the node image; it is never
      created or owned. Defaults to false.
    """

    namespace: str = "default"
    mode: Mode = Mode.EXPAND
    local_volume_storage_class: str = DEFAULT_LOCAL_VOLUME_STORAGE_CLASS
    delay_bind: bool = True
    tars_readiness_gate: bool = True
    crd_api_version: str = V1BETA3
    skip_await: bool = False
    existing_framework_config: bool = False
