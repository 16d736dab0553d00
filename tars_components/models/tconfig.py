"""The TConfig custom resource (docs/concepts/namespace.md): one version of one business config
file.

Fields sit at the top level. ``version`` and ``updateTime`` are written by the mutating
webhook on create (M-TC6, M-TC7) and are immutable afterwards (TC001), so an exported object
keeps them and a new one leaves them out.
"""

from typing import Annotated, ClassVar

from pydantic import Field

from .base import P_APP, pattern
from .document import Document

P_SERVER_OR_EMPTY = r"^([A-Za-z][0-9A-Za-z]*)?$"
P_CONFIG_NAME = r"^([0-9A-Za-z][-._0-9A-Za-z]*)?[0-9A-Za-z]$"
P_POD_SEQ = r"^(m|0|[1-9][0-9]?)$"
P_CONFIG_VERSION = r"^([0-9a-z][-0-9a-z]*)?[0-9a-z]$"
MASTER = "m"
"""``podSeq`` of a master config (the others are node-level configs for one pod ordinal)."""


class TConfigDocument(Document):
    """One version of a server's (or an app's) config file (``kind: TConfig``).

    ``server`` empty means an app-level config; ``podSeq`` ``m`` is the master config, digits
    a node-level config for that pod ordinal. At most one version of a (app, server,
    configName, podSeq) is activated.
    """

    KIND: ClassVar[str] = "TConfig"

    app: Annotated[str, pattern(P_APP, 63)]
    server: Annotated[str, pattern(P_SERVER_OR_EMPTY, 63)] = ""
    config_name: Annotated[str, pattern(P_CONFIG_NAME, 63)]
    config_content: Annotated[str, Field(max_length=1_560_000)]
    pod_seq: Annotated[str, pattern(P_POD_SEQ)] = MASTER
    version: Annotated[str, pattern(P_CONFIG_VERSION, 63)] | None = None
    update_time: str | None = None
    update_person: Annotated[str, Field(max_length=100)] | None = None
    update_reason: Annotated[str, Field(max_length=1600)] | None = None
    activated: bool = True

    @property
    def is_app_level(self) -> bool:
        """True for an app-level config (``server`` empty)."""
        return self.server == ""

    @property
    def config_key(self) -> tuple[str, str, str, str]:
        """``(namespace, app, server, configName)``: the file all versions are versions of."""
        return self.namespace, self.app, self.server, self.config_name

    @property
    def activation_key(self) -> tuple[str, str, str, str, str]:
        """``(namespace, app, server, configName, podSeq)``: at most one activated version."""
        return (*self.config_key, self.pod_seq)
