"""Former home of the loader, now :mod:`tars_components.loading`; kept only so that the CLI's
imports keep working until they move. Import from :mod:`tars_components.loading`."""

from __future__ import annotations

from .loading.documents import SchemaError, parse_document
from .loading.files import read_texts
from .loading.load import load_stack, load_texts

__all__ = ["SchemaError", "load_stack", "load_texts", "parse_document", "read_texts"]
