"""The TarsK8S admission rules as pure functions (docs/rules/index.md).

:func:`validate` checks one stack, :func:`validate_change` compares two versions of it, and
:data:`RULES` lists every code either can report. Each code is declared once with
:func:`.registry.rule`, next to the check that reports it: one module per kind
(:mod:`.tserver`, :mod:`.ttemplate`, :mod:`.tframework`, :mod:`.tconfig`, :mod:`.timage`,
:mod:`.ttree`, :mod:`.taccount`, :mod:`.tdeploy`), plain objects in :mod:`.objects`, the
version-comparing rules in :mod:`.change` (the TConfig and TTree ones in their kind's module),
what the loader reports in :mod:`.schema`, crd mode's own rules in :mod:`.crd_mode` and the
output's in :mod:`.output`.

The names below are imported on first use, so that the loader can import :mod:`.schema`
without importing every check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.lazy import lazy_attributes

if TYPE_CHECKING:
    from ..kernel.registry import Origin, Rule
    from .catalog import RULES, rules_table
    from .change import validate_change, without_create_only
    from .check import validate
else:
    __getattr__ = lazy_attributes(
        __name__,
        {
            "RULES": ".catalog",
            "rules_table": ".catalog",
            "Origin": "..kernel.registry",
            "Rule": "..kernel.registry",
            "validate": ".check",
            "validate_change": ".change",
            "without_create_only": ".change",
        },
        globals(),
    )

__all__ = [
    "RULES",
    "Origin",
    "Rule",
    "rules_table",
    "validate",
    "validate_change",
    "without_create_only",
]
