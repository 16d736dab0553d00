"""The bounds on input: :class:`Limits` (file, stack, nesting, alias expansion), the flag and
config key of each, and size parsing and formatting (``16Mi``, ``16 MiB``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Bounds on what a stack may ask of the loader, in the spirit of the Kubernetes API
    server's own (3 MiB requests, etcd's 1.5 MiB objects); each is a CLI flag and a ``tars:*``
    config key.

    * ``max_file_bytes``: size of one file (``--max-file-size``, ``tars:maxFileSize``).
      Defaults to 16 MiB.
    * ``max_stack_bytes``: total size of a stack's files (``--max-stack-size``,
      ``tars:maxStackSize``). Defaults to 64 MiB: a render needs about 40 bytes of memory per
      byte of YAML, so about 2.6 GB at the limit.
    * ``max_depth``: nesting of mappings and lists, aliases expanded (``--max-depth``,
      ``tars:maxDepth``). Defaults to 100 levels; at most :data:`MAX_DEPTH_CEILING`.
    * ``max_alias_expansion``: how many times its own text a file may grow when its aliases are
      expanded (``--max-alias-expansion``, ``tars:maxAliasExpansion``). Defaults to 10.
    """

    max_file_bytes: int = 16 * MIB
    max_stack_bytes: int = 64 * MIB
    max_depth: int = 100
    max_alias_expansion: int = 10


MAX_DEPTH_CEILING = 400
"""The deepest nesting a stack may be allowed: the loader recurses once per level, and
Python's recursion limit (1,000 frames) is reached near 500 levels."""

LIMIT_NAMES = {
    "max_file_bytes": ("--max-file-size", "tars:maxFileSize"),
    "max_stack_bytes": ("--max-stack-size", "tars:maxStackSize"),
    "max_depth": ("--max-depth", "tars:maxDepth"),
    "max_alias_expansion": ("--max-alias-expansion", "tars:maxAliasExpansion"),
}
"""Each limit's CLI flag and config key, as messages name them."""

_SIZE = re.compile(r"(\d+)\s*(Ki|Mi|Gi|KiB|MiB|GiB|k|K|M|G|kB|KB|MB|GB|B)?\Z")
_SIZE_UNITS = {
    None: 1,
    "B": 1,
    "Ki": 1024,
    "KiB": 1024,
    "Mi": MIB,
    "MiB": MIB,
    "Gi": 1024 * MIB,
    "GiB": 1024 * MIB,
    "k": 1000,
    "K": 1000,
    "kB": 1000,
    "KB": 1000,
    "M": 1000**2,
    "MB": 1000**2,
    "G": 1000**3,
    "GB": 1000**3,
}


def parse_size(value: str | int) -> int:
    """A size in bytes: ``16777216``, ``16Mi``, ``16MiB``, ``512Ki``, ``20M`` (decimal).

    Raises ValueError for anything else, and for zero.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a size such as 16Mi, got {value!r}")
    match = _SIZE.match(str(value).strip())
    if match is None:
        raise ValueError(f"expected a size such as 16Mi or 16777216 (bytes), got {value!r}")
    size = int(match.group(1)) * _SIZE_UNITS[match.group(2)]
    if size < 1:
        raise ValueError(f"must be at least 1 byte, got {value!r}")
    return size


def format_size(size: int) -> str:
    """``16 MiB`` for a whole number of units, else exact: ``1,536 bytes``."""
    for unit, factor in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"
