"""A TServer's TApp settings (docs/concepts/rollout.md, "Workload engines"): the
``tars-components.io/tapp`` annotation, read for the ``tapp`` workload engine.

TApp's own switches (``TAppSpec`` of tkestack/tapp) that the StatefulSet mapping has no place
for: ``forceDeletePod`` (force-delete a pod whose node is lost), ``neverMigrate`` (never move a
pod to another node), ``autoDeleteUnusedTemplate`` (drop pool templates no instance uses), and
which template a scale-out uses (``defaultTemplateName``: ``stable``, the default, or
``release``, the TServer's release while a Rollout holds both). Written as the ownership
annotation is: ``forceDeletePod=true,neverMigrate=true,defaultTemplate=release``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ANNOTATION = "tars-components.io/tapp"
"""The TServer annotation of the TApp settings."""

_SWITCHES = ("forceDeletePod", "neverMigrate", "autoDeleteUnusedTemplate")
_DEFAULTS = ("stable", "release")


@dataclass(frozen=True)
class TAppSettings:
    """The TApp switches of one TServer (all off, scale-outs on the default template)."""

    force_delete_pod: bool = False
    never_migrate: bool = False
    auto_delete_unused_template: bool = False
    default_template: str = "stable"

    def fields(self) -> dict[str, bool]:
        """The switches that are on, as TAppSpec fields."""
        values = (self.force_delete_pod, self.never_migrate, self.auto_delete_unused_template)
        return {name: True for name, on in zip(_SWITCHES, values, strict=True) if on}


def parse_tapp_settings(value: Any) -> TAppSettings:
    """``key=value,...`` as :class:`TAppSettings`; raises ValueError naming the bad entry."""
    if not isinstance(value, str):
        raise ValueError("expected key=value entries separated by commas")
    found: dict[str, Any] = {}
    for entry in (e.strip() for e in value.split(",")):
        if not entry:
            continue
        key, sep, setting = (part.strip() for part in entry.partition("="))
        if not sep:
            raise ValueError(f"{entry!r}: expected key=value")
        if key in _SWITCHES:
            if setting not in ("true", "false"):
                raise ValueError(f"{key}: {setting!r} is not true or false")
            found[key] = setting == "true"
        elif key == "defaultTemplate":
            if setting not in _DEFAULTS:
                raise ValueError(f"defaultTemplate: {setting!r} is not stable or release")
            found[key] = setting
        else:
            known = ", ".join((*_SWITCHES, "defaultTemplate"))
            raise ValueError(f"{key!r} is not a TApp setting: expected one of {known}")
    return TAppSettings(
        force_delete_pod=found.get("forceDeletePod", False),
        never_migrate=found.get("neverMigrate", False),
        auto_delete_unused_template=found.get("autoDeleteUnusedTemplate", False),
        default_template=found.get("defaultTemplate", "stable"),
    )


def tapp_settings(annotations: Mapping[str, Any] | None) -> TAppSettings:
    """A TServer's settings from its annotations; the defaults when it has none or they do
    not parse (rule TP024 reports those)."""
    raw = (annotations or {}).get(ANNOTATION)
    if raw is None:
        return TAppSettings()
    try:
        return parse_tapp_settings(raw)
    except ValueError:
        return TAppSettings()


__all__ = ["ANNOTATION", "TAppSettings", "parse_tapp_settings", "tapp_settings"]
