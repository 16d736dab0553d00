"""``diff``: what changes between two builds of a stack (issue #10, design §2).

A pure stage after expand: two stacks (or two lists of objects) in, a list of changes out.
:func:`diff_stacks` checks the new stack with the change rules and compares the builds;
:func:`diff_objects` compares two renders. The printers (:mod:`.printers`: text, markdown,
JSON) sit at the edge.
"""

from __future__ import annotations

from .fields import field_changes
from .model import ACTIONS, Action, Change, Diff, FieldChange
from .objects import api_group, diff_objects, identity, replace_reason
from .printers import GITHUB_COMMENT_LIMIT, NO_CHANGES, to_json, to_markdown, to_text
from .stacks import StackDiff, diff_stacks

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
