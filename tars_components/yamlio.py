"""Former home of the YAML reader, the writer and the limits; kept only so that the CLI's
imports keep working until they move (:mod:`.yaml_reader`, :mod:`.yaml_writer`,
:mod:`.limits`). Import from those modules."""

from __future__ import annotations

from .limits import LIMIT_NAMES, MAX_DEPTH_CEILING, MIB, Limits, format_size, parse_size
from .yaml_reader import (
    YamlLimitError,
    YamlLoader,
    check_aliases,
    check_nesting,
    describe_yaml_error,
    load_documents,
    may_have_aliases,
)
from .yaml_writer import dump, looks_typed

__all__ = [
    "LIMIT_NAMES",
    "MAX_DEPTH_CEILING",
    "MIB",
    "Limits",
    "YamlLimitError",
    "YamlLoader",
    "check_aliases",
    "check_nesting",
    "describe_yaml_error",
    "dump",
    "format_size",
    "load_documents",
    "looks_typed",
    "may_have_aliases",
    "parse_size",
]
