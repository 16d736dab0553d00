"""MkDocs hook: the rules reference is generated from the rule registry at build time.

``docs/rules/index.md`` holds the hand-written introduction and the marker
``<!-- rules-table -->``; the hook replaces the marker with one row per rule of
:data:`tars_components.rules.RULES`, so the page can never disagree with ``validate --rules``.
Nothing generated is committed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

MARKER = "<!-- rules-table -->"
PAGE = "rules/index.md"


class _Rule(Protocol):
    code: str
    severity: Any
    kind: str
    summary: str
    origin: str
    change: bool
    create_only: bool


def _rules() -> list[_Rule]:
    from tars_components.rules import RULES

    values = RULES.values() if isinstance(RULES, dict) else RULES
    return list(values)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_markdown(rules: Iterable[_Rule] | None = None) -> str:
    """The Markdown table of every rule, in registry order: code, severity, kind, what it
    checks, origin, and whether it is a change rule or a create-only rule."""
    lines = [
        "| Code | Severity | Kind | What it checks | Origin | Change | Create only |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule in _rules() if rules is None else rules:
        severity = getattr(rule.severity, "value", rule.severity)
        lines.append(
            f"| {rule.code} | {severity} | {rule.kind} | {_cell(rule.summary)} | {rule.origin}"
            f" | {'yes' if rule.change else ''} | {'yes' if rule.create_only else ''} |"
        )
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the marker of the rules page with the generated table."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} has no {MARKER} marker for the generated rules table")
    return markdown.replace(MARKER, rules_markdown())
