"""The edge of ``diff --live``: a :class:`~.live.LiveDiff` as JSON, text or markdown (the
drift as :mod:`.printers` prints any diff, then the conflicts). Pure string functions."""

from __future__ import annotations

import json

from ..kernel.text import printable
from . import GITHUB_COMMENT_LIMIT
from .live import Conflict, LiveDiff
from .printers import to_markdown, to_text, value_lines

NO_CONFLICTS = "No conflicts."


def live_json(result: LiveDiff) -> str:
    """``{"changes", "summary", "conflicts"}``, indented, one trailing newline."""
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"


def _value(value: object) -> list[str]:
    lines = value_lines(value)
    return [printable(line) for line in lines] if lines else ["(absent)"]


def conflict_lines(conflict: Conflict) -> list[str]:
    """One conflict: a header naming the object, the field and the manager, both values and
    the setting that avoids it."""
    out = [
        printable(
            f"! conflict {conflict.api_version} {conflict.title}: {conflict.field} is owned "
            f"by {conflict.manager}"
        )
    ]
    out.append(f"  live ({printable(conflict.manager)}):")
    out.extend(f"    {line}" for line in _value(conflict.live))
    out.append("  build:")
    out.extend(f"    {line}" for line in _value(conflict.build))
    out.append(f"  avoid with: {printable(conflict.avoid)}")
    return out


def live_text(result: LiveDiff, colour: bool = False) -> str:
    """The drift (``to_text``), then each conflict and a count; ``No conflicts.`` when none."""
    out = to_text(result.drift, colour=colour)
    if not result.conflicts:
        return out + NO_CONFLICTS + "\n"
    lines: list[str] = []
    for conflict in result.conflicts:
        lines.extend(conflict_lines(conflict))
    count = len(result.conflicts)
    lines.append(f"{count} conflict{'s' if count != 1 else ''} with other field managers")
    return out + "\n".join(lines) + "\n"


def live_markdown(result: LiveDiff, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """A conflicts table (manager, object, field, setting that avoids it) first, then the
    drift as ``to_markdown`` writes it, within ``limit`` characters."""
    head = ""
    if result.conflicts:
        rows = [
            f"| {_cell(c.manager)} | {_cell(c.title)} | `{_cell(c.field)}` | "
            f"`{_compact(c.live)}` | `{_compact(c.build)}` | {_cell(c.avoid)} |\n"
            for c in result.conflicts
        ]
        head = (
            f"**{len(result.conflicts)} conflict(s) with other field managers**\n\n"
            "| Manager | Object | Field | Live | Build | Avoid with |\n|---|---|---|---|---|---|\n"
            + "".join(rows)
            + "\n"
        )
    else:
        head = NO_CONFLICTS + "\n\n"
    return head + to_markdown(result.drift, max(1000, limit - len(head)))


def _compact(value: object, width: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) > width:
        text = text[: width - 1] + "…"
    return _cell(text).replace("`", "'")


def _cell(text: str) -> str:
    return printable(text).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["NO_CONFLICTS", "conflict_lines", "live_json", "live_markdown", "live_text"]
