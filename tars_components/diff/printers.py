"""The edge of ``diff``: a :class:`~.model.Diff` as JSON, text (``git diff`` style, coloured
on request) or markdown (a summary table and one collapsible block per object, sized for a
GitHub comment). Pure string functions; the CLI writes them.

Control characters and other non-printables (ESC, C1 controls, bidirectional overrides, line
separators) in paths, keys and values are written as ``\\uXXXX`` escapes in the text and
markdown output (:func:`~tars_components.kernel.text.printable`), so no escape sequence of a stack
reaches the terminal; the JSON output escapes them as JSON does."""

from __future__ import annotations

import difflib
import itertools
import json
import re
from collections.abc import Iterable
from typing import Any

from ..fileio.yaml_writer import dump
from ..kernel.text import printable
from . import GITHUB_COMMENT_LIMIT
from .model import ACTIONS, Action, Change, Diff, FieldChange

NO_CHANGES = "No changes."

_SIGN = {Action.CREATE: "+", Action.UPDATE: "~", Action.REPLACE: "!", Action.DELETE: "-"}
_RESET, _BOLD, _RED, _GREEN, _YELLOW, _CYAN = (
    "\033[0m",
    "\033[1m",
    "\033[31m",
    "\033[32m",
    "\033[33m",
    "\033[36m",
)
_ACTION_COLOUR = {
    Action.CREATE: _GREEN,
    Action.UPDATE: _YELLOW,
    Action.REPLACE: _RED + _BOLD,
    Action.DELETE: _RED,
}


def to_json(diff: Diff) -> str:
    """``{"changes": [...], "summary": {...}}`` (the shape of docs/cli/diff.md), indented, one
    trailing newline; key order fixed, so the same diff is always the same text."""
    return json.dumps(diff.to_json(), indent=2, ensure_ascii=False) + "\n"


def summary_line(diff: Diff) -> str:
    """``3 objects change: 1 create, 1 update, 1 replace, 0 delete``."""
    counts = diff.summary()
    total = len(diff.changes)
    noun = "object changes" if total == 1 else "objects change"
    return f"{total} {noun}: " + ", ".join(f"{counts[a.value]} {a.value}" for a in ACTIONS)


def value_lines(value: Any) -> list[str]:
    """A value as diff lines: scalars as JSON (``"v1"``, ``3``, ``true``), mappings and lists
    as block YAML; no lines for an absent value."""
    if value is None:
        return []
    if isinstance(value, (dict, list)):
        if not value:
            return [json.dumps(value)]
        return dump(value).rstrip("\n").split("\n")
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        return ["|", *(f"  {line}" for line in _lines(value))]
    return [json.dumps(value, ensure_ascii=False)]


def _lines(text: str) -> list[str]:
    """The lines of ``text``, split at ``\\n`` only (a CR, form feed or NEL stays in its line,
    where :func:`printable` shows it)."""
    if not text:
        return []
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def _text_lines(old: str, new: str) -> list[tuple[str, str]]:
    """Two multi-line strings (a template's content, a server profile) as a line diff with
    two lines of context; ``~`` lines stand for the unchanged lines left out."""
    out: list[tuple[str, str]] = []
    lines = difflib.unified_diff(_lines(old), _lines(new), lineterm="", n=2)
    for line in itertools.islice(lines, 2, None):  # skip the ---/+++ header
        if line.startswith("@@"):
            start = re.match(r"@@ -(\d+)", line)
            if start is None or int(start.group(1)) > 1:
                out.append(("~", "…"))
        else:
            out.append((line[0], line[1:]))
    return out


def field_lines(change: FieldChange) -> list[tuple[str, str]]:
    """``(sign, text)`` lines of one field: a ``@@ path`` line, then ``-`` old, ``+`` new;
    for two multi-line strings a line diff (`` `` context, ``~`` for lines left out)."""
    lines = [("@", change.path)]
    old, new = change.old, change.new
    if isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new):
        return lines + _text_lines(old, new)
    lines.extend(("-", line) for line in value_lines(old))
    lines.extend(("+", line) for line in value_lines(new))
    return lines


def change_lines(change: Change) -> list[tuple[str, str]]:
    """``(sign, text)`` lines of one object: a created or deleted object as one block of YAML
    (every line ``+`` or ``-``), an update or replace field by field."""
    if change.action in (Action.CREATE, Action.DELETE):
        sign = "+" if change.action is Action.CREATE else "-"
        whole = {
            f.path: (f.new if change.action is Action.CREATE else f.old) for f in change.fields
        }
        return [(sign, printable(line)) for line in value_lines(whole)]
    return [(sign, printable(line)) for field in change.fields for sign, line in field_lines(field)]


def _identity(change: Change) -> str:
    """``apiVersion Kind namespace/name`` of a change, printable."""
    return printable(f"{change.api_version} {change.kind} {change.qualified_name}")


# --- text ------------------------------------------------------------------------------------


def to_text(diff: Diff, colour: bool = False) -> str:
    """Per object a header (``~ update apps/v1 StatefulSet ns/name``), the replace reason,
    then each field as ``@@ path`` with ``-``/``+`` lines; crd-mode effects indented below
    their TServer; a summary line last. ``No changes.`` when nothing changes."""
    if not diff.changes:
        return "\n".join([NO_CHANGES, *rollout_lines(diff), *request_lines(diff)]) + "\n"
    out: list[str] = []
    for change in diff.changes:
        out.extend(_text_change(change, "", colour))
    out.extend(rollout_lines(diff))
    out.extend(request_lines(diff))
    out.append(summary_line(diff))
    return "\n".join(out) + "\n"


def rollout_lines(diff: Diff) -> list[str]:
    """``plan: <line>`` and ``step: <line>`` per TServer a Rollout drives, then ``release:
    <line>`` per ordinal that changes release (docs/concepts/rollout.md); none without
    Rollouts."""
    return [
        *(f"plan: {printable(line)}" for line in diff.plan),
        *(f"step: {printable(line)}" for line in diff.steps),
        *(f"release: {printable(line)}" for line in diff.release_changes),
    ]


def request_lines(diff: Diff) -> list[str]:
    """``request: <line>`` per TDeploy request whose state changes (docs/concepts/tdeploy.md)."""
    return [f"request: {printable(line)}" for line in diff.requests]


def _paint(text: str, code: str, colour: bool) -> str:
    return f"{code}{text}{_RESET}" if colour else text


def _text_change(change: Change, indent: str, colour: bool) -> list[str]:
    header = f"{_SIGN[change.action]} {change.action.value} {_identity(change)}"
    out = [indent + _paint(header, _ACTION_COLOUR[change.action] + _BOLD, colour)]
    if change.reason:
        out.append(indent + "  " + _paint(f"reason: {printable(change.reason)}", _RED, colour))
    for sign, line in change_lines(change):
        if sign == "@":
            out.append(indent + "  " + _paint(f"@@ {line}", _CYAN, colour))
        elif sign in "-+":
            painted = _paint(f"{sign} {line}", _RED if sign == "-" else _GREEN, colour)
            out.append(indent + "  " + painted)
        else:
            out.append(indent + "  " + (f"  {line}" if sign == " " else line))
    if change.effects:
        out.append(indent + "  controller effects (expanded):")
        for effect in change.effects:
            out.extend(_text_change(effect, indent + "    ", colour))
    elif change.effects is not None and change.kind in ("TServer", "TFrameworkConfig"):
        out.append(indent + "  controller effects (expanded): none")
    return out


# --- markdown --------------------------------------------------------------------------------


def to_markdown(diff: Diff, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """A summary line, a table of the changed objects, then one ``<details>`` per object with
    a ```` ```diff ```` block. At most ``limit`` characters: what does not fit is left out
    (the table first keeps its rows, then whole objects, then the lines of the last one) and
    a note says how many objects are not shown."""
    plan = "".join(f"- {_escape(line)}\n" for line in rollout_lines(diff))
    plan = f"Rollout:\n\n{plan}\n" if plan else ""
    requests = "".join(f"- {_escape(line)}\n" for line in diff.requests)
    plan += f"TDeploy requests:\n\n{requests}\n" if requests else ""
    if not diff.changes:
        return NO_CHANGES + "\n" + (f"\n{plan}" if plan else "")
    head = f"**{summary_line(diff)}**\n\n{plan}"
    table_head = "| Action | Kind | Object | Fields |\n|---|---|---|---:|\n"
    rows = [_table_row(c) for c in diff.changes]
    blocks = [_details(c) for c in diff.changes]
    full = head + table_head + "".join(rows) + "\n" + "".join(blocks)
    if len(full) <= limit:
        return full
    total = len(diff.changes)
    budget = limit - len(_truncation_note(total, total)) - 1
    out = head + table_head
    shown_rows = 0
    for row in rows:
        if len(out) + len(row) > budget:
            break
        out += row
        shown_rows += 1
    out += "\n"
    shown = 0
    if shown_rows == total:
        for change, block in zip(diff.changes, blocks, strict=True):
            if len(out) + len(block) <= budget:
                out += block
                shown += 1
                continue
            room = budget - len(out)
            if room > 400:
                out += _details(change, room)
                shown += 1  # shown, with its last lines cut (said inside the block)
            break
    return out + _truncation_note(total - shown, total) + "\n"


def _truncation_note(missing: int, total: int) -> str:
    return (
        f"> **Truncated:** {missing} of {total} changed objects are not shown in full, to fit "
        "a GitHub comment. Run `tars-components diff` locally for the whole list.\n"
    )


def _table_row(change: Change) -> str:
    action = f"**{change.action.value}**" if change.action is Action.REPLACE else change.action
    replaced = [e.kind for e in change.effects or () if e.action is Action.REPLACE]
    if replaced:  # crd mode: the danger is in what the controller does
        action = f"{action} (controller **replaces** {', '.join(replaced)})"
    count = "" if change.action in (Action.CREATE, Action.DELETE) else str(len(change.fields))
    kind, where = printable(change.kind), printable(change.qualified_name)
    return f"| {action} | {kind} | `{where}` | {count} |\n"


def _fence(lines: Iterable[str]) -> str:
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)


def _diff_lines(change: Change) -> list[str]:
    return [
        f"@@ {line} @@" if sign == "@" else line if sign == "~" else f"{sign} {line}"
        for sign, line in change_lines(change)
    ]


def _diff_block(lines: list[str], room: int | None) -> str:
    fence = _fence(lines)
    if room is not None:
        kept: list[str] = []
        used = 2 * len(fence) + 80
        for line in lines:
            if used + len(line) + 1 > room:
                break
            kept.append(line)
            used += len(line) + 1
        if len(kept) < len(lines):
            kept.append(f"# … {len(lines) - len(kept)} more lines not shown")
        lines = kept
    return f"{fence}diff\n" + "".join(f"{line}\n" for line in lines) + f"{fence}\n"


def _details(change: Change, room: int | None = None) -> str:
    kind, version = _escape(printable(change.kind)), _escape(printable(change.api_version))
    where = _escape(printable(change.qualified_name))
    summary = (
        f"<details><summary><b>{change.action.value}</b> {kind} "
        f"<code>{where}</code> ({version})</summary>\n\n"
    )
    body = ""
    if change.reason:
        body += f"> **Replace:** {_escape(printable(change.reason))}\n\n"
    tail = "</details>\n\n"
    own = _diff_lines(change)
    effects: list[str] = []
    for effect in change.effects or ():
        effects.append(f"@@ {effect.action.value} {_identity(effect)} @@")
        if effect.reason:
            effects.append(f"# replace: {printable(effect.reason)}")
        effects.extend(_diff_lines(effect))
    if room is None:
        body += _diff_block(own, None)
        if effects:
            body += "\nWhat the controller will change (expanded):\n\n" + _diff_block(effects, None)
        elif change.effects is not None and change.kind in ("TServer", "TFrameworkConfig"):
            body += "\nWhat the controller will change (expanded): nothing.\n"
        return summary + body + "\n" + tail
    room -= len(summary) + len(body) + len(tail) + 1
    body += _diff_block(own + effects, room)
    return summary + body + "\n" + tail


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")
