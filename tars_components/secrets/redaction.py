"""Secret values never reach a message: they are masked as values, before any text is built.

A message that quotes a value (``'x' is not valid``, ``must be a mapping, got list [...]``)
formats it with :func:`quote`, which first replaces every secret in it by :data:`MASK`:

* the subtrees a kind keeps its credentials in (:data:`SECRET_SUBTREES`: a Secret's ``data``
  and ``stringData``, a TAccount's ``spec.authentication``), wherever the quoted value sits
  (a value quoted at a parent field has its secret leaves masked; a credential under a
  misplaced parent, say ``spec: [{authentication: …}]``, is found by its key);
* the values that entered as Pulumi secrets, while :func:`masking` is active (the provider
  activates it with the secret values and paths of the document it checks): a leaf at one of
  their paths, a leaf equal to one of their texts, and any occurrence of one of their texts
  inside a longer string (case-insensitively, since names are lowercased into object names).

Masking happens on the value, so no escaping, quoting or encoding can make a secret's printed
form differ from what is masked. :func:`redact_text` (a text search over a finished message)
remains only as a second belt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

Segment = str | int
"""One step of a field path: a mapping key or a list index (re-exported by :mod:`.paths`)."""

MASK = "[secret]"
"""What a message prints instead of a secret value."""

Path = tuple[Segment, ...]

SECRET_SUBTREES: dict[tuple[str, str], tuple[Path, ...]] = {
    ("", "secret"): (("data",), ("stringData",)),
    ("k8s.tars.io", "taccount"): (("spec", "authentication"),),
    # a ClusterOverride's Secret data, per cluster (never emitted, quoted in messages)
    ("tars-components.io", "clusteroverride"): (("spec", "data"), ("spec", "stringData")),
}
"""(API group, kind), both lowercase → the subtrees whose every value is secret."""

SECRET_KEYS: dict[tuple[str, str], frozenset[str]] = {
    ("", "secret"): frozenset({"data", "stringdata"}),
    ("k8s.tars.io", "taccount"): frozenset(
        {"authentication", "password", "bcryptpassword", "tokens", "content"}
    ),
}
"""(API group, kind) → lowercase mapping keys whose value is masked wherever they appear in a
quoted value: a credential keeps its name when the user puts it under the wrong parent."""

REFERENCE_KEYS = frozenset({"configSecret"})
"""Keys below a key that names a secret that are the product's own field names (a reference
to a Pulumi config secret, ``password: {configSecret: KEY}``): shown in field paths."""

CONTAINER_NAMES = frozenset({"authentication", "tokens", "stringdata", "credentials"})
"""Keys (lowercase, without ``-``, ``_`` and ``.``) that hold credentials under field names of
their own, in any kind: every leaf below them is masked, their field names kept."""

SECRET_SUFFIXES = (
    "password",
    "passwd",
    "passphrase",
    "token",
    "secret",
    "apikey",
    "privatekey",
    "secretkey",
    "accesskey",
)
"""Endings of a key that names secret material (``dbPassword``, ``client_secret``,
``ssh-privatekey``), the names themselves included."""

SECRET_NAMES = frozenset({"pwd", "credential"})
"""Keys (lowercase, without ``-``, ``_`` and ``.``) whose whole value is secret besides those
ending in one of :data:`SECRET_SUFFIXES`, in any kind and shape (:func:`names_secret`)."""

_KEY_MATERIAL = re.compile(r"[._-](?:key|pem|p12|pfx|jks|keystore)$", re.IGNORECASE)


def _normal(key: str) -> str:
    return re.sub(r"[-_.\s]", "", key.lower())


def names_secret(key: Any, value: Any = None) -> bool:
    """True when the mapping key ``key`` names a secret value (a password, a token, a secret,
    key material: ``tls.key``, ``id_rsa.pem``), whatever the document's kind or shape; its
    whole value is masked (a secret written as a mapping key below it included). A pod's
    volume source ``secret: {secretName: …}`` (``value``) names a Secret and holds none."""
    if not isinstance(key, str):
        return False
    name = _normal(key)
    if name == "secret" and isinstance(value, Mapping) and "secretName" in value:
        return False
    return (
        name in SECRET_NAMES
        or name.endswith(SECRET_SUFFIXES)
        or _KEY_MATERIAL.search(key) is not None
    )


def holds_secrets(key: Any) -> bool:
    """True when ``key`` names a mapping of credentials (:data:`CONTAINER_NAMES`): its leaves
    are masked, its field names kept."""
    return isinstance(key, str) and _normal(key) in CONTAINER_NAMES


def secret_like(document: Any) -> bool:
    """True for a mapping that may be a Secret, however malformed: its ``kind`` names a
    secret in any casing, or its ``kind`` or ``apiVersion`` is there but not a string. Its
    ``data`` and ``stringData`` are then masked."""
    if not isinstance(document, Mapping):
        return False
    kind, api_version = document.get("kind"), document.get("apiVersion")
    if isinstance(kind, str) and "secret" in kind.lower():
        return True
    return ("kind" in document and not isinstance(kind, str)) or (
        "apiVersion" in document and not isinstance(api_version, str)
    )


class _Masked:
    """A masked value: its ``repr`` (and ``str``) is :data:`MASK`, so a quoted container
    prints ``[{'password': [secret]}]``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return MASK

    __str__ = __repr__


MASKED: Any = _Masked()
"""The stand-in of a secret value inside a quoted value."""


@dataclass(frozen=True)
class Secrets:
    """The Pulumi secrets of the document being checked: their texts (``str`` of each value)
    and their field paths."""

    texts: tuple[str, ...] = ()
    paths: tuple[Path, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.texts or self.paths)


_NONE = Secrets()
_ACTIVE: ContextVar[Secrets | None] = ContextVar("tars_components_secrets", default=None)


@contextmanager
def masking(texts: Iterable[str] = (), paths: Iterable[Sequence[Segment]] = ()) -> Iterator[None]:
    """While active (in this context only), :func:`quote` masks these secret texts and the
    values at these field paths (of the document being loaded and checked)."""
    secrets = Secrets(
        tuple(sorted({t for t in texts if t}, key=lambda t: (-len(t), t))),
        tuple(tuple(p) for p in paths),
    )
    token = _ACTIVE.set(secrets)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_secrets() -> Secrets:
    """The secrets :func:`masking` made active here (none outside it)."""
    return _ACTIVE.get() or _NONE


def api_key(api_version: Any, kind: Any) -> tuple[str, str]:
    """``(API group, kind)``, lowercased, of an object (the core group is ``""``)."""
    version = str(api_version or "")
    group = version.rsplit("/", 1)[0] if "/" in version else ""
    return group.lower(), str(kind or "").lower()


def secret_subtrees(api_version: Any, kind: Any) -> tuple[Path, ...]:
    """The secret subtrees of an object of this apiVersion and kind, in any casing."""
    return SECRET_SUBTREES.get(api_key(api_version, kind), ())


def secret_keys(api_version: Any, kind: Any) -> frozenset[str]:
    """The lowercase mapping keys whose value is secret in an object of this kind."""
    return SECRET_KEYS.get(api_key(api_version, kind), frozenset())


def quote(
    value: Any,
    at: Sequence[Segment] = (),
    subtrees: Collection[Path] = (),
    keys: Collection[str] = (),
) -> str:
    """``repr`` of ``value`` (found at field path ``at``) with its secrets masked: the
    ``subtrees`` and ``keys`` of its kind (:func:`secret_subtrees`, :func:`secret_keys`) and
    the active Pulumi secrets (:func:`masking`)."""
    return repr(masked(value, at, subtrees, keys))


def masked(
    value: Any,
    at: Sequence[Segment] = (),
    subtrees: Collection[Path] = (),
    keys: Collection[str] = (),
) -> Any:
    """A copy of ``value`` (found at field path ``at``) whose secret parts are
    :data:`MASKED` or, inside a longer string, :data:`MASK` (see :func:`quote`)."""
    if any(_names_secret_field(segment) for segment in at):
        return _masked_whole(value)  # a value found under a key that names a secret
    active = active_secrets()
    lowered = frozenset(key.lower() for key in keys)
    return _Masker(tuple(subtrees), lowered, active).masked(value, tuple(at))


def _names_secret_field(segment: Segment) -> bool:
    """A field path's key naming a secret, but ``secret`` alone (in TarsK8S documents, the
    name of an image pull Secret: ``release.secret``, ``imageUpload.secret``)."""
    return isinstance(segment, str) and segment.lower() != "secret" and names_secret(segment)


@dataclass(frozen=True)
class _Masker:
    subtrees: tuple[Path, ...]
    keys: frozenset[str]
    active: Secrets

    def masked(self, value: Any, at: Path) -> Any:
        if any(_under(at, path) for path in self.active.paths):
            return MASKED  # a Pulumi secret: nothing of it shows, not even its shape
        if any(_under(at, tree) for tree in self.subtrees):
            return _leaves(value)
        if isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            secretish = secret_like(value)
            for key, item in value.items():
                name = _masked_text(key, self.active.texts) if isinstance(key, str) else key
                if names_secret(key, item):
                    out[name] = _masked_whole(item)
                elif (
                    (isinstance(key, str) and key.lower() in self.keys)
                    or holds_secrets(key)
                    or (secretish and key in ("data", "stringData"))
                ):
                    out[name] = _leaves(item)
                else:
                    out[name] = self.masked(item, (*at, str(key)))
            return out
        if isinstance(value, (list, tuple)):
            return [self.masked(item, (*at, i)) for i, item in enumerate(value)]
        return _masked_leaf(value, self.active.texts)


def _leaves(value: Any) -> Any:
    """``value`` with every leaf masked and its shape kept (a credential's field names are
    no secret, and show what was written where); below a key that names a secret
    (:func:`names_secret`) nothing is kept (:func:`_masked_whole`)."""
    if isinstance(value, Mapping):
        return {
            key: _masked_whole(item) if names_secret(key, item) else _leaves(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_leaves(item) for item in value]
    return MASKED


def _masked_whole(value: Any) -> Any:
    """The stand-in of a value that is secret as a whole: :data:`MASKED`, whatever its shape
    (a mapping's keys may be the secret: ``password: {hunter2: x}``); a boolean or null is
    kept (``automountServiceAccountToken: false`` shows)."""
    if value is None or isinstance(value, bool):
        return value
    return MASKED


def _masked_leaf(value: Any, texts: Sequence[str]) -> Any:
    if isinstance(value, str):
        return _masked_text(value, texts)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and str(value) in texts:
        return MASKED
    return value


def _masked_text(text: str, texts: Sequence[str]) -> Any:
    """:data:`MASKED` for a secret text, the text with every secret in it (any casing)
    replaced by :data:`MASK` otherwise."""
    if text in texts:
        return MASKED
    for secret in texts:
        text = re.sub(re.escape(secret), MASK, text, flags=re.IGNORECASE)
    return text


def _under(path: Path, tree: Path) -> bool:
    """True when ``path`` is ``tree`` or below it (names compared in any casing)."""
    if len(path) < len(tree):
        return False
    return all(_same(a, b) for a, b in zip(path, tree, strict=False))


def _same(a: Segment, b: Segment) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


def redact_text(text: str, texts: Iterable[str]) -> str:
    """The second belt: ``text`` with every occurrence of a secret text, in any casing and as
    Python or JSON would escape it, replaced by :data:`MASK`. Messages are already built with
    their secrets masked (:func:`quote`); this catches a value interpolated as it is."""
    forms: set[str] = set()
    for secret in texts:
        if secret:
            forms.update({secret, repr(secret)[1:-1], json.dumps(secret)[1:-1]})
            forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
    for form in sorted(forms, key=lambda f: (-len(f), f)):
        text = re.sub(re.escape(form), MASK, text, flags=re.IGNORECASE)
    return text


__all__ = [
    "CONTAINER_NAMES",
    "MASK",
    "MASKED",
    "REFERENCE_KEYS",
    "SECRET_KEYS",
    "SECRET_NAMES",
    "SECRET_SUBTREES",
    "SECRET_SUFFIXES",
    "Secrets",
    "active_secrets",
    "api_key",
    "holds_secrets",
    "masked",
    "masking",
    "names_secret",
    "quote",
    "redact_text",
    "secret_keys",
    "secret_like",
    "secret_subtrees",
]
