"""Secret values never reach a diff: the data of Secrets and a TAccount's credentials are
masked before objects are compared, as ``kubectl diff`` masks Secret data. A masked value that
changed reads ``[secret: before]`` / ``[secret: after]``, one that did not ``[secret]``, so a
reviewer sees that a credential changes without seeing it (a bcrypt hash of a weak password is
as good as the password).

An object is matched by its API group and kind in any casing, whatever its version (a TAccount
of ``k8s.tars.io/v1beta2``, ``v1beta3``, or a plain object spelled ``K8S.tars.io/…``), and its
secrets are found both where the kind keeps them
(:data:`~tars_components.secrets.redaction.SECRET_SUBTREES`, field names in any casing) and under a
credential's own key wherever it sits (:data:`~tars_components.secrets.redaction.SECRET_KEYS`), and
in any object, whatever its kind or shape, under a key that names a secret
(:func:`~tars_components.secrets.redaction.names_secret`: the whole value, a secret written as a key
included) or holds credentials (:func:`~tars_components.secrets.redaction.holds_secrets`), and in
the ``data`` and ``stringData`` of anything Secret-like
(:func:`~tars_components.secrets.redaction.secret_like`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..secrets.redaction import (
    SECRET_KEYS,
    SECRET_SUBTREES,
    Path,
    api_key,
    holds_secrets,
    names_secret,
    secret_like,
)
from .objects import identity

SECRET = "[secret]"
BEFORE = "[secret: before]"
AFTER = "[secret: after]"

_ABSENT: Any = object()


def redact_pair(
    previous: list[dict[str, Any]], current: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Both object lists with their secret values masked; objects that hold none are kept as
    they are (not copied). Each object is masked against its counterpart of the other list
    (the first of its identity there), every object of a list whatever its identity (two
    objects of one identity are both masked)."""
    old_by_id: dict[Any, dict[str, Any]] = {}
    new_by_id: dict[Any, dict[str, Any]] = {}
    for obj in previous:
        old_by_id.setdefault(identity(obj), obj)
    for obj in current:
        new_by_id.setdefault(identity(obj), obj)
    return (
        [_masked_pair(obj, new_by_id.get(identity(obj)))[0] for obj in previous],
        [_masked_pair(old_by_id.get(identity(obj)), obj)[1] for obj in current],
    )


def _masked_pair(old: Any, new: Any) -> tuple[Any, Any]:
    """The old and new version of one object with their secrets masked as a pair (each kept
    as it is when neither holds one)."""
    sample = new if new is not None else old
    kind_key = api_key((sample or {}).get("apiVersion"), (sample or {}).get("kind"))
    subtrees = SECRET_SUBTREES.get(kind_key, ())
    if secret_like(old) or secret_like(new):
        subtrees = (*subtrees, ("data",), ("stringData",))
    if not subtrees and not _holds_secret(old) and not _holds_secret(new):
        return old, new
    a, b = _walk(
        old if old is not None else _ABSENT,
        new if new is not None else _ABSENT,
        (),
        subtrees,
        SECRET_KEYS.get(kind_key, frozenset()),
    )
    return (a if old is not None else old), (b if new is not None else new)


def _walk(
    old: Any, new: Any, at: Path, subtrees: Collection[Path], keys: Collection[str]
) -> tuple[Any, Any]:
    """Copies of the old and new value at ``at`` (``_ABSENT`` where there is none), their
    secret parts masked as a pair."""
    if at and (names_secret(at[-1], old) or names_secret(at[-1], new)):
        return _whole(old, new)
    if any(_is(at, tree) for tree in subtrees) or (
        at and isinstance(at[-1], str) and (at[-1].lower() in keys or holds_secrets(at[-1]))
    ):
        return _masked(old, new)
    both_maps = isinstance(old, dict) and isinstance(new, dict)
    both_lists = isinstance(old, list) and isinstance(new, list)
    if not (both_maps or both_lists) and _container(old) and _container(new):
        # the shape changed: each side on its own
        return _walk(old, _ABSENT, at, subtrees, keys)[0], _walk(_ABSENT, new, at, subtrees, keys)[
            1
        ]
    if isinstance(old, dict) or isinstance(new, dict):
        old_map = old if isinstance(old, dict) else {}
        new_map = new if isinstance(new, dict) else {}
        if at and (secret_like(old_map) or secret_like(new_map)):  # a Secret inside a field
            subtrees = (*subtrees, (*at, "data"), (*at, "stringData"))
        pairs = {
            k: _walk(old_map.get(k, _ABSENT), new_map.get(k, _ABSENT), (*at, k), subtrees, keys)
            for k in {**old_map, **new_map}
        }
        a = {k: v for k, (v, _) in pairs.items() if k in old_map}
        b = {k: v for k, (_, v) in pairs.items() if k in new_map}
        return (a if isinstance(old, dict) else old), (b if isinstance(new, dict) else new)
    if isinstance(old, list) or isinstance(new, list):
        old_list = old if isinstance(old, list) else []
        new_list = new if isinstance(new, list) else []
        pairs_list = [
            _walk(
                old_list[i] if i < len(old_list) else _ABSENT,
                new_list[i] if i < len(new_list) else _ABSENT,
                (*at, i),
                subtrees,
                keys,
            )
            for i in range(max(len(old_list), len(new_list)))
        ]
        a_list = [v for v, _ in pairs_list[: len(old_list)]]
        b_list = [v for _, v in pairs_list[: len(new_list)]]
        return (a_list if isinstance(old, list) else old), (
            b_list if isinstance(new, list) else new
        )
    return old, new


def _holds_secret(value: Any) -> bool:
    """True when ``value`` has a key that names a secret or holds credentials, or a
    Secret-like mapping, at any depth (an object without one is not copied)."""
    work = [value]
    while work:
        node = work.pop()
        if isinstance(node, dict):
            if secret_like(node):
                return True
            for key, item in node.items():
                if names_secret(key, item) or holds_secrets(key):
                    return True
                work.append(item)
        elif isinstance(node, list):
            work.extend(node)
    return False


def _whole(old: Any, new: Any) -> tuple[Any, Any]:
    """The stand-ins of a value that is secret as a whole, whatever its shape (its keys may
    be the secret): ``[secret]``, or ``[secret: before]``/``[secret: after]`` when it changed;
    a boolean or null shows as it is."""
    if all(v is _ABSENT or v is None or isinstance(v, bool) for v in (old, new)):
        return old, new
    if old == new or old is _ABSENT or new is _ABSENT:
        return _one(old, SECRET), _one(new, SECRET)
    return _one(old, BEFORE), _one(new, AFTER)


def _one(value: Any, mask: str) -> Any:
    return value if value is _ABSENT or value is None else mask


def _container(value: Any) -> bool:
    return isinstance(value, (dict, list))


def _is(path: Path, tree: Path) -> bool:
    """True when ``path`` is the subtree ``tree`` (field names in any casing)."""
    return len(path) == len(tree) and all(
        (a.lower() == b.lower()) if isinstance(a, str) and isinstance(b, str) else a == b
        for a, b in zip(path, tree, strict=True)
    )


def _masked(old: Any, new: Any) -> tuple[Any, Any]:
    """Masked copies of the values at one place of the old and new object."""
    if isinstance(old, dict) and isinstance(new, dict):
        pairs = {
            k: (_whole if names_secret(k) else _masked)(old.get(k, _ABSENT), new.get(k, _ABSENT))
            for k in {**old, **new}
        }
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
        return {k: mask if names_secret(k, v) else _all(v, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [_all(v, mask) for v in value]
    return mask
