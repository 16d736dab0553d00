"""YAML reading and writing, with the libyaml C bindings when present.

Reading keeps timestamps as strings (``release.time`` is a string in the CRD, and a datetime
would not round-trip). Writing is block style, keys in insertion order, and deterministic.
"""

from __future__ import annotations

from typing import Any

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class YamlLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that keeps YAML timestamps as plain strings."""


YamlLoader.add_constructor(
    "tag:yaml.org,2002:timestamp",
    lambda loader, node: loader.construct_scalar(node),
)


class YamlDumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Safe dumper with block style and indented lists."""


def dump(obj: Any) -> str:
    """One object as a YAML document (block style, keys in the order they were built)."""
    return yaml.dump(
        obj,
        Dumper=YamlDumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )


def load_all(text: str) -> list[Any]:
    """Every document of a YAML text."""
    return list(yaml.load_all(text, Loader=YamlLoader))
