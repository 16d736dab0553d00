"""The webhook for TConfigs: M-TC* (docs/concepts/webhooks.md#tconfig). The clock is never read:
``version`` and ``updateTime`` (M-TC6, M-TC7) are left as written."""

from __future__ import annotations

from ..models import (
    TConfigDocument,
)
from ..models.vocabulary import (
    LABEL_ACTIVATED,
    LABEL_APP,
    LABEL_CONFIG_NAME,
    LABEL_POD_SEQ,
    LABEL_SERVER,
    LABEL_VERSION,
)
from .common import with_labels


def mutate_config(config: TConfigDocument) -> TConfigDocument:
    """M-TC1…M-TC5 and M-TC8: the identity labels, ``tars.io/Activated`` and, when a version
    is known, ``tars.io/Version`` (M-TC6/M-TC7 need the clock and are left to the webhook)."""
    labels = dict(config.labels)
    labels[LABEL_APP] = config.app  # M-TC1
    labels[LABEL_SERVER] = config.server  # M-TC2
    labels[LABEL_CONFIG_NAME] = config.config_name  # M-TC3
    labels[LABEL_POD_SEQ] = config.pod_seq  # M-TC4
    labels[LABEL_ACTIVATED] = "true" if config.activated else "false"  # M-TC5
    if config.version:
        labels[LABEL_VERSION] = config.version  # M-TC8
    result: TConfigDocument = with_labels(config, labels)
    return result
