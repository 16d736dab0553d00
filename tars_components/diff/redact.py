"""Secret values never reach a diff: the data of Secrets and a TAccount's credentials are
masked before objects are compared, as ``kubectl diff`` masks Secret data. A masked value that
changed reads ``[secret: before]`` / ``[secret: after]``, one that did not ``[secret]``, so a
reviewer sees that a credential changes without seeing it (a bcrypt hash of a weak password is
as good as the password)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .objects import identity

SECRET = "[secret]"
BEFORE = "[secret: before]"
AFTER = "[secret: after]"

# (API group, kind) → the subtrees whose every value is secret.
SECRET_SUBTREES: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    ("", "Secret"): (("data",), ("stringData",)),
    ("k8s.tars.io", "TAccount"): (("spec", "authentication"),),
}

_ABSENT: Any = object()


def redact_pair(
    previous: list[dict[str, Any]], current: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Both object lists with their secret values masked; objects that hold none are kept as
    they are (not copied)."""
    old_by_id = {identity(obj): obj for obj in previous}
    new_by_id = {identity(obj): obj for obj in current}
    masked_old: dict[int, dict[str, Any]] = {}
    masked_new: dict[int, dict[str, Any]] = {}
    for key in dict.fromkeys([*old_by_id, *new_by_id]):
        subtrees = SECRET_SUBTREES.get((key[3], key[2]))
        if not subtrees:
            continue
        old, new = old_by_id.get(key), new_by_id.get(key)
        old_copy = copy.deepcopy(old) if old is not None else None
        new_copy = copy.deepcopy(new) if new is not None else None
        for path in subtrees:
            a, b = _masked(_at(old_copy, path), _at(new_copy, path))
            _put(old_copy, path, a)
            _put(new_copy, path, b)
        if old is not None and old_copy is not None:
            masked_old[id(old)] = old_copy
        if new is not None and new_copy is not None:
            masked_new[id(new)] = new_copy
    return (
        [masked_old.get(id(obj), obj) for obj in previous],
        [masked_new.get(id(obj), obj) for obj in current],
    )


def _masked(old: Any, new: Any) -> tuple[Any, Any]:
    """Masked copies of the values at one place of the old and new object."""
    if isinstance(old, dict) and isinstance(new, dict):
        pairs = {k: _masked(old.get(k, _ABSENT), new.get(k, _ABSENT)) for k in {**old, **new}}
        return (
            {k: a for k, (a, _) in pairs.items() if k in old},
            {k: b for k, (_, b) in pairs.items() if k in new},
        )
    if isinstance(old, list) and isinstance(new, list):
        pairs_list = [
            _masked(old[i] if i < len(old) else _ABSENT, new[i] if i < len(new) else _ABSENT)
            for i in range(max(len(old), len(new)))
        ]
        return [a for a, _ in pairs_list[: len(old)]], [b for _, b in pairs_list[: len(new)]]
    if old == new or old is _ABSENT or new is _ABSENT:  # unchanged, or added/removed as a whole
        return _all(old, SECRET), _all(new, SECRET)
    return _all(old, BEFORE), _all(new, AFTER)


def _all(value: Any, mask: str) -> Any:
    """``value`` with every leaf replaced by ``mask`` (its shape kept)."""
    if value is _ABSENT or value is None:
        return value
    if isinstance(value, dict):
        return {k: _all(v, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [_all(v, mask) for v in value]
    return mask


def _at(obj: Mapping[str, Any] | None, path: tuple[str, ...]) -> Any:
    node: Any = obj
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return _ABSENT
        node = node[key]
    return node


def _put(obj: dict[str, Any] | None, path: tuple[str, ...], value: Any) -> None:
    if obj is None or value is _ABSENT:
        return
    node: Any = obj
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
