"""TAccount credentials without plaintext (docs/concepts/webhooks.md#taccount,
docs/concepts/namespace.md#taccount-credentials).

The mutating webhook stores ``bcrypt(lowercase-hex(SHA-1(password)))`` with a random salt and
removes the password (M-TA1; ``BcryptHashCost = 6`` in
``src/WebhookServer/webhook/mutating/tars/v1beta3/taccount.go`` of TarsK8S v1.4.1, and the
same in ``v1beta2``). tars-components stores the same kind of hash, which TarsWeb verifies
like any bcrypt hash, at cost :data:`BCRYPT_COST` (more than the webhook's), and with a salt
that never depends on the password, so that testing a guess always costs a bcrypt. The salt
comes, per account, from (:meth:`AccountHashing.salt_for`):

1. a salt the caller holds for the account (the Pulumi components keep a random one in the
   state of a ``TAccountSalt`` resource);
2. else a key the user supplies: the first 16 bytes of ``HMAC-SHA256(key, "<ns>/<name>")``,
   the same on every machine and in every output directory;
3. else the salt of the previous hash of the account (``render`` reads it from the previous
   render in ``--out``), unless that hash is of the old scheme (a cost below
   :data:`BCRYPT_COST`: the old ``tars-components`` salt was derived from the password);
4. else random bytes the caller supplies (``os.urandom`` at the edge);
5. else, for callers that only compare or validate and write nothing (``validate``, ``diff``,
   the validation resource's ``mutated`` output), a salt derived from the account alone.

With the same salt, the same password gives the same hash (bcrypt is deterministic), so a
re-render or a re-``up`` changes nothing, and a new password keeps the account's salt.
Nothing here reads a file, the clock or the system's randomness: the key, the previous hashes
and the random source are inputs.

A credential given as a reference to a Pulumi config secret (``{configSecret: KEY}``) is
resolved only where the secret is known (the Pulumi program). Where it is not (offline
``render``), :func:`placeholder` stands in: a fixed 60-character string that the CRD schema
accepts but that no password verifies against, so applying such a render by hand can never
grant access, and no secret is ever written.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import bcrypt

# hashlib and hmac are imported by the functions that hash: loading OpenSSL costs every CLI
# run a few milliseconds, and only TAccounts need it.

WEBHOOK_BCRYPT_COST = 6
"""The TarsK8S webhook's cost (``BcryptHashCost`` in its ``taccount.go``); hashes below
:data:`BCRYPT_COST` are of the old tars-components scheme and are re-hashed."""
BCRYPT_COST = 10
"""The bcrypt cost of the hashes tars-components writes (Go's ``bcrypt.DefaultCost``)."""
BCRYPT_PREFIX = b"$2a$%02d$" % BCRYPT_COST
SALT_BYTES = 16
"""A bcrypt salt: 16 bytes, 22 characters of bcrypt's base64."""
PLACEHOLDER_PREFIX = "!unresolved-secret:"
_STD = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BCRYPT = b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_HASH = re.compile(r"\$2[aby]\$(\d\d)\$([./A-Za-z0-9]{22})[./A-Za-z0-9]{31}")
MIN_KEY_BYTES = 16
"""Below this, a salt key is accepted with a warning (a key is meant to be random:
``openssl rand -base64 32``)."""


def sha1_hex(password: str) -> str:
    """What the webhook hashes: the lowercase hex SHA-1 of the password."""
    import hashlib

    return hashlib.sha1(password.encode("utf-8")).hexdigest()


def encode_salt(raw: bytes) -> str:
    """16 bytes as the 22 characters of a bcrypt salt (the last one canonical)."""
    if len(raw) < SALT_BYTES:
        raise ValueError(f"a bcrypt salt needs {SALT_BYTES} bytes, got {len(raw)}")
    text = base64.b64encode(raw[:SALT_BYTES]).translate(bytes.maketrans(_STD, _BCRYPT))
    # bcrypt uses only 2 bits of the 22nd character: keep it canonical (one of . O e u)
    last = _BCRYPT.index(text[21]) & 0b110000
    return (text[:21] + _BCRYPT[last : last + 1]).decode("ascii")


def keyed_salt(key: bytes, namespace: str, name: str) -> str:
    """The salt of account ``namespace/name`` under a user's key: the first 16 bytes of
    ``HMAC-SHA256(key, "<namespace>/<name>")``."""
    import hashlib
    import hmac

    digest = hmac.new(key, f"{namespace}/{name}".encode(), hashlib.sha256).digest()
    return encode_salt(digest)


def account_salt(namespace: str, name: str) -> str:
    """A salt derived from the account alone, for callers that write nothing (see the module
    doc, case 5): never from the password, but the same in every installation."""
    import hashlib

    seed = hashlib.sha256(f"tars-components account salt\0{namespace}\0{name}".encode())
    return encode_salt(seed.digest())


def parse_hash(hashed: Any) -> tuple[int, str] | None:
    """``(cost, salt)`` of a bcrypt hash (``$2a$``, ``$2b$`` or ``$2y$``); None for anything
    else (a placeholder, a reference, a truncated value)."""
    if not isinstance(hashed, str):
        return None
    match = _HASH.fullmatch(hashed)
    return (int(match.group(1)), match.group(2)) if match else None


def is_old_scheme(hashed: Any) -> bool:
    """True for a bcrypt hash below :data:`BCRYPT_COST`: what tars-components wrote before
    (cost 6, salt derived from the password), or the webhook writes."""
    parsed = parse_hash(hashed)
    return parsed is not None and parsed[0] < BCRYPT_COST


def reusable_salt(hashed: Any) -> str | None:
    """The salt of a previous hash that may be kept: a bcrypt hash of at least
    :data:`BCRYPT_COST` (None for the old scheme, which is then re-hashed with a new salt)."""
    parsed = parse_hash(hashed)
    return parsed[1] if parsed is not None and parsed[0] >= BCRYPT_COST else None


def check_key(key: bytes, name: str) -> str | None:
    """Raise ValueError for an empty salt key; return a warning for a key shorter than
    :data:`MIN_KEY_BYTES` (None otherwise). Messages name where the key came from, never its
    text."""
    if not key:
        raise ValueError(f"{name}: the salt key is empty")
    if len(key) < MIN_KEY_BYTES:
        return (
            f"{name}: a salt key of {len(key)} bytes is easy to guess; use at least "
            f"{MIN_KEY_BYTES} random bytes (openssl rand -base64 32)"
        )
    return None


@dataclass(frozen=True)
class AccountHashing:
    """Where the bcrypt salt of each hashed TAccount password comes from (module doc). Every
    field is an input from the edge; none is ever shown (``repr`` hides them all).

    * ``salt``: the salt of the one account being mutated (22 characters, or a deferred value
      such as a ``pulumi.Output``). Defaults to None.
    * ``key``: the user's salt key (a secret). Defaults to None.
    * ``previous``: the previous hash of each account, by ``(namespace, name)``. Defaults to
      none.
    * ``local_key``: a key kept on this machine, used when neither ``key`` nor a previous hash
      gives the salt, so that renders on one machine agree without the user's key. Defaults
      to None.
    * ``entropy``: a source of random bytes (``os.urandom``). Defaults to None.
    """

    salt: Any = field(default=None, repr=False)
    key: bytes | None = field(default=None, repr=False)
    previous: Mapping[tuple[str, str], str] = field(default_factory=dict, repr=False)
    local_key: bytes | None = field(default=None, repr=False)
    entropy: Callable[[int], bytes] | None = field(default=None, repr=False)

    def salt_for(self, namespace: str, name: str) -> Any:
        """The salt of account ``namespace/name`` (22 characters, or the deferred ``salt``)."""
        if self.salt is not None:
            return self.salt
        if self.key is not None:
            return keyed_salt(self.key, namespace, name)
        kept = reusable_salt(self.previous.get((namespace, name)))
        if kept is not None:
            return kept
        if self.local_key is not None:
            return keyed_salt(self.local_key, namespace, name)
        if self.entropy is not None:
            return encode_salt(self.entropy(SALT_BYTES))
        return account_salt(namespace, name)


def hash_password(password: str, salt: str) -> str:
    """``bcrypt(cost BCRYPT_COST, sha1_hex(password))`` with the 22-character ``salt``."""
    if not isinstance(salt, str) or len(salt) != 22:
        raise ValueError("a TAccount password needs a 22-character bcrypt salt, got none")
    full = BCRYPT_PREFIX + salt.encode("ascii")
    return bcrypt.hashpw(sha1_hex(password).encode("ascii"), full).decode("ascii")


def bcrypt_password(
    password: str, namespace: str, name: str, hashing: AccountHashing | None = None
) -> str:
    """The hash of ``password`` for account ``namespace/name``, with the salt ``hashing``
    gives it (:meth:`AccountHashing.salt_for`; a plain salt, not a deferred one)."""
    salt = (hashing or AccountHashing()).salt_for(namespace, name)
    return hash_password(password, str(salt))


def verify(password: str, hashed: str) -> bool:
    """True when ``hashed`` is a bcrypt hash of the webhook's form for ``password`` (False for
    anything that is not a bcrypt hash, such as a :func:`placeholder`)."""
    try:
        return bcrypt.checkpw(sha1_hex(password).encode("ascii"), hashed.encode("ascii"))
    except ValueError:
        return False


def placeholder(key: str) -> str:
    """The 60-character stand-in for an unresolved ``bcryptPassword`` (see the module doc), and
    for an unresolved TFrameworkConfig ``expand`` value."""
    marker = f"{PLACEHOLDER_PREFIX}tars:{key}!"
    if len(marker) > 60:
        import hashlib

        marker = f"{PLACEHOLDER_PREFIX}{hashlib.sha256(key.encode()).hexdigest()}"[:59] + "!"
    return marker.ljust(60, "!")


def is_placeholder(value: str) -> bool:
    """True for a value made by :func:`placeholder`."""
    return value.startswith(PLACEHOLDER_PREFIX)
