"""``diff``: what changes between two builds of a stack (docs/api/pipeline.md).

A pure stage after expand: two stacks (or two lists of objects) in, a list of changes out.
:func:`diff_stacks` checks the new stack with the change rules and compares the builds;
:func:`diff_objects` compares two renders. The printers (:mod:`.printers`: text, markdown,
JSON) sit at the edge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.lazy import lazy_attributes

GITHUB_COMMENT_LIMIT = 65_536
"""GitHub's limit on a comment body, in characters (the default of ``diff --max-chars``)."""

if TYPE_CHECKING:
    from .fields import field_changes
    from .model import ACTIONS, Action, Change, Diff, FieldChange
    from .objects import api_group, diff_objects, identity, replace_reason
    from .printers import NO_CHANGES, to_json, to_markdown, to_text
    from .stacks import StackDiff, diff_stacks
else:
    # Imported on first use: the CLI builds every command's parser (``--max-chars`` shows
    # GITHUB_COMMENT_LIMIT) without paying for the diff itself.
    _LAZY = {
        "field_changes": ".fields",
        "ACTIONS": ".model",
        "Action": ".model",
        "Change": ".model",
        "Diff": ".model",
        "FieldChange": ".model",
        "api_group": ".objects",
        "diff_objects": ".objects",
        "identity": ".objects",
        "replace_reason": ".objects",
        "NO_CHANGES": ".printers",
        "to_json": ".printers",
        "to_markdown": ".printers",
        "to_text": ".printers",
        "StackDiff": ".stacks",
        "diff_stacks": ".stacks",
    }

    __getattr__ = lazy_attributes(__name__, _LAZY, globals())


__all__ = [
    "ACTIONS",
    "GITHUB_COMMENT_LIMIT",
    "NO_CHANGES",
    "Action",
    "Change",
    "Diff",
    "FieldChange",
    "StackDiff",
    "api_group",
    "diff_objects",
    "diff_stacks",
    "field_changes",
    "identity",
    "replace_reason",
    "to_json",
    "to_markdown",
    "to_text",
]
