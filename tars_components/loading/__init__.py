"""Loading stacks: files within the limits (:mod:`.files`), what exports and live clusters add
(:mod:`.exports`), one document into its model (:mod:`.documents`), and a whole stack
(:mod:`.load`).

The names below are imported on first use, so that a command reading one file
(:mod:`.files`) does not import the models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.lazy import lazy_attributes

if TYPE_CHECKING:
    from ..fileio.files import read_texts
    from .documents import SchemaError, parse_document
    from .load import load_stack, load_texts
else:
    __getattr__ = lazy_attributes(
        __name__,
        {
            "SchemaError": ".documents",
            "parse_document": ".documents",
            "read_texts": "..fileio.files",
            "load_stack": ".load",
            "load_texts": ".load",
        },
        globals(),
    )

__all__ = ["SchemaError", "load_stack", "load_texts", "parse_document", "read_texts"]
