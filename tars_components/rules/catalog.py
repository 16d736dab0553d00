"""The catalogue of rule codes, read from the registry (:mod:`tars_components.kernel.registry`).

Every rules module declares its codes next to its checks; :data:`RULES` is what they declare,
read after importing every module of this package, so a code cannot be missing from the
catalogue. The CLI's ``validate --help``, the rules page (docs/rules/index.md) and the provider read
it.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from ..kernel.registry import Origin, Rule, registered


def _import_rules_modules() -> None:
    """Import every module of :mod:`tars_components.rules` (each registers its codes), and the
    loader's own rules (:mod:`tars_components.loading.schema_rules`)."""
    package = __name__.rsplit(".", 1)[0]
    import_module("..loading.schema_rules", package)
    for module in pkgutil.iter_modules(import_module(package).__path__):
        import_module(f"{package}.{module.name}")


_import_rules_modules()

RULES: dict[str, Rule] = registered()
"""Every rule code, in code order (the TarsK8S kinds first: TS, TT, TF, TC, TI, TR, TA, then
TX, TH, TD; by number within a kind)."""


def rules_table() -> str:
    """The Markdown table of :data:`RULES` (the docs' rules page is generated from the registry)."""
    lines = [
        "| Code | Severity | Kind | What it checks | Origin |",
        "|---|---|---|---|---|",
    ]
    for rule in RULES.values():
        summary = rule.summary.replace("|", "\\|")
        if rule.change:
            summary = f"{summary} (change: compares with the previous stack)"
        lines.append(f"| {rule.code} | {rule.severity} | {rule.kind} | {summary} | {rule.origin} |")
    return "\n".join(lines) + "\n"


__all__ = ["RULES", "Origin", "Rule", "rules_table"]
