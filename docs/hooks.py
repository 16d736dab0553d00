"""MkDocs hooks: the rules reference is generated from the rule registry at build time, and
the API reference shows the docstrings' cross-references as code.

``docs/rules/index.md`` holds the hand-written introduction and the marker
``<!-- rules-table -->``; the hook replaces the marker with one row per rule of
:data:`tars_components.rules.RULES`, so the page can never disagree with ``validate --rules``.
Nothing generated is committed. The docstrings' reStructuredText roles (``:class:`~a.b.C```),
which mkdocstrings leaves as text, become the name they point at (``C``), as code.
"""

from __future__ import annotations

import re
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


_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|obj|exc):<code>(~?)([^<]+)</code>")


def on_page_content(html: str, **_: Any) -> str:
    """``:class:<code>~a.b.C</code>`` (a role mkdocstrings leaves as text) as ``<code>C</code>``
    (the whole path without ``~``, as Sphinx shows it)."""
    return _ROLE.sub(
        lambda m: f"<code>{m[2].rsplit('.', 1)[-1] if m[1] else m[2].lstrip('.')}</code>", html
    )
