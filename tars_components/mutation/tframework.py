"""A TFrameworkConfig's ``expand`` credentials (docs/concepts/namespace.md#taccount-credentials):
each ``{configSecret: KEY}`` value becomes the Pulumi config secret it names when the caller
has it, else the placeholder, so nothing secret is ever written where it is unknown (offline
``render``). TarsK8S's webhook does not mutate TFrameworkConfigs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import SecretRef, TFrameworkConfigDocument
from ..secrets.hashing import placeholder


def resolve_expand(
    config: TFrameworkConfigDocument, secrets: Mapping[str, Any] | None = None
) -> TFrameworkConfigDocument:
    """``config`` with every ``{configSecret: KEY}`` of ``expand`` resolved from ``secrets``
    (KEY → its value, typically a secret ``pulumi.Output``), or the placeholder of KEY; the
    document itself when it references none."""
    if not any(isinstance(v, SecretRef) for v in config.expand.values()):
        return config
    found = secrets or {}
    expand = {
        key: found.get(value.config_secret, placeholder(value.config_secret))
        if isinstance(value, SecretRef)
        else value
        for key, value in config.expand.items()
    }
    resolved = config.model_copy(update={"expand": expand})
    resolved.with_source(config.source)
    return resolved


__all__ = ["resolve_expand"]
