"""The labels the TarsK8S mutating webhook sets (docs/concepts/webhooks.md)."""

from __future__ import annotations

import re

LABEL_APP = "tars.io/ServerApp"


LABEL_SERVER = "tars.io/ServerName"


LABEL_SUBTYPE = "tars.io/SubType"


LABEL_TEMPLATE = "tars.io/Template"


LABEL_SERVER_ID = "tars.io/ServerID"


LABEL_PARENT = "tars.io/Parent"


REPLICA_ANNOTATION = re.compile(r"^[1-9]?[0-9]$")

LABEL_CONFIG_NAME = "tars.io/ConfigName"


LABEL_POD_SEQ = "tars.io/PodSeq"


LABEL_ACTIVATED = "tars.io/Activated"


LABEL_VERSION = "tars.io/Version"


LABEL_DEACTIVATE = "tars.io/Deactivate"


LABEL_DELETING = "tars.io/Deleting"


LABEL_IMAGE_TYPE = "tars.io/ImageType"


SUPPORTED_PREFIX = "tars.io/Supported."
