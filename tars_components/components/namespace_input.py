"""A framework namespace given as a ``pulumi.Input`` (another stack's output, say): the pure
core runs on a stand-in namespace, and the stand-in is replaced by the namespace's value,
inside an Output, wherever it reached a value that is registered or exported.

This is exact because the core only *places* the namespace: ``metadata.namespace``, the
``tars.io/node.<ns>`` and ``tars.io/ability.<ns>.…`` label keys of the node affinity, the
``namespaces`` of a pod affinity term. No mapping rule branches on it, measures it or derives
another value from it, so the objects built for :data:`STAND_IN` with the stand-in replaced
are the objects built for the namespace itself (``tests/components/test_components_other_stacks.py``
checks it on every object of the dev stack). Where a value is derived from the namespace (a
TAccount's keyed salt) the component derives it from the Output itself, and the rules that
read it (TS016's label-key lengths) run in the validation resource, which takes the
namespace as an input.

Which resources exist does not wait for the value: every object is registered when its
component is declared, with Outputs at the places the namespace takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

STAND_IN = "namespace-from-output"
"""What the pure core sees as the namespace of a framework whose namespace is an Output: a
valid namespace name, which no default of the core contains (a document's own text that
holds it would be replaced too)."""


def replaced(value: Any, namespace: str) -> Any:
    """``value`` with :data:`STAND_IN` replaced by ``namespace`` in every string (mapping keys
    included); a value without it is returned as it is."""
    if isinstance(value, str):
        return value.replace(STAND_IN, namespace) if STAND_IN in value else value
    if isinstance(value, Mapping):
        return {replaced(k, namespace): replaced(v, namespace) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [replaced(v, namespace) for v in value]
    return value


def placed(value: Any, namespace: pulumi.Output[str]) -> Any:
    """``value`` with the namespace put where the stand-in is: a string that holds the stand-in
    becomes an Output of ``namespace``, so does an Output whose value may hold it, and a
    mapping with the stand-in in a key; everything else (the mappings and lists around them
    included) stays plain, so a registration's shape is the one of a plain namespace."""
    if isinstance(value, str):
        if STAND_IN not in value:
            return value
        return namespace.apply(lambda ns: value.replace(STAND_IN, ns))
    if isinstance(value, pulumi.Output):
        return pulumi.Output.all(value, namespace).apply(lambda pair: replaced(pair[0], pair[1]))
    if isinstance(value, Mapping):
        items = {k: placed(v, namespace) for k, v in value.items()}
        if not any(isinstance(k, str) and STAND_IN in k for k in items):
            return items
        return namespace.apply(lambda ns: {replaced(k, ns): v for k, v in items.items()})
    if isinstance(value, (list, tuple)):
        return [placed(v, namespace) for v in value]
    return value


def holds_stand_in(value: Any) -> bool:
    """Whether a plain ``value`` holds :data:`STAND_IN` anywhere (keys included)."""
    if isinstance(value, str):
        return STAND_IN in value
    if isinstance(value, Mapping):
        return any(holds_stand_in(k) or holds_stand_in(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(holds_stand_in(v) for v in value)
    return False


__all__ = ["STAND_IN", "holds_stand_in", "placed", "replaced"]
