"""The TarsK8S admission rules as pure functions (docs/rules/index.md).

:func:`validate` checks one stack, :func:`validate_change` compares two versions of it, and
:data:`RULES` lists every code either can report. Each code is declared once with
:func:`tars_components.kernel.registry.rule`, next to the check that reports it: one module per kind
(:mod:`.tserver`, :mod:`.ttemplate`, :mod:`.tframework`, :mod:`.tconfig`, :mod:`.timage`,
:mod:`.ttree`, :mod:`.taccount`, :mod:`.tdeploy`), plain objects in :mod:`.objects`, the
version-comparing rules in :mod:`.change` (the TConfig and TTree ones in their kind's module),
what the loader reports in :mod:`tars_components.loading.schema_rules`, crd mode's own rules in
:mod:`.crd_mode` and the output's in :mod:`.output`.

The names below are imported on first use: importing the package does not import every
check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.lazy import lazy_attributes

if TYPE_CHECKING:
    from ..kernel.registry import Origin, Rule
    from .catalog import RULES, rules_table, validate, validate_change
    from .change import without_create_only
else:
    __getattr__ = lazy_attributes(
        __name__,
        {
            "RULES": ".catalog",
            "rules_table": ".catalog",
            "Origin": "..kernel.registry",
            "Rule": "..kernel.registry",
            "validate": ".catalog",
            "validate_change": ".catalog",
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
