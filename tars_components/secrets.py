"""TAccount credentials without plaintext (reference §5.4, §7.3).

The mutating webhook stores ``bcrypt(cost 6, lowercase-hex(SHA-1(password)))`` and removes
the password (M-TA1). tars-components does the same, with one difference: the bcrypt salt is
derived deterministically from the account (namespace, name) and the password's SHA-1, so the
same password always gives the same hash. Render output therefore stays byte-identical from
run to run and Pulumi sees no perpetual diff, while any bcrypt verifier (TarsWeb's) accepts
the hash as usual.

A credential given as a reference to a Pulumi config secret (``{configSecret: KEY}``) is
resolved only where the secret is known (the Pulumi program). Where it is not (offline
``render``), :func:`placeholder` stands in: a fixed 60-character string that the CRD schema
accepts but that no password verifies against, so applying such a render by hand can never
grant access, and no secret is ever written.
"""

from __future__ import annotations

import base64

import bcrypt

# hashlib is imported by the functions that hash: loading OpenSSL costs every CLI run a few
# milliseconds (issue #12 measures start-up), and only TAccounts need it.

BCRYPT_COST = 6
BCRYPT_PREFIX = b"$2a$06$"
PLACEHOLDER_PREFIX = "!unresolved-secret:"
_STD = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BCRYPT = b"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def sha1_hex(password: str) -> str:
    """What the webhook hashes: the lowercase hex SHA-1 of the password."""
    import hashlib

    return hashlib.sha1(password.encode("utf-8")).hexdigest()


def deterministic_salt(namespace: str, name: str, password: str) -> bytes:
    """A bcrypt salt (``$2a$06$`` + 22 characters) derived from the account and the password.

    A different account or password gives a different salt; the same ones the same salt.
    """
    import hashlib

    seed = hashlib.sha256(f"tars-components\0{namespace}\0{name}\0{sha1_hex(password)}".encode())
    raw = base64.b64encode(seed.digest()[:16]).translate(bytes.maketrans(_STD, _BCRYPT))
    # bcrypt uses only 4 bits of the 22nd character: keep it canonical (one of . O e u)
    last = _BCRYPT.index(raw[21]) & 0b110000
    return BCRYPT_PREFIX + raw[:21] + _BCRYPT[last : last + 1]


def bcrypt_password(password: str, namespace: str, name: str) -> str:
    """The hash the webhook would store for ``password`` (M-TA1), with a deterministic salt."""
    salt = deterministic_salt(namespace, name, password)
    return bcrypt.hashpw(sha1_hex(password).encode("ascii"), salt).decode("ascii")


def verify(password: str, hashed: str) -> bool:
    """True when ``hashed`` is a bcrypt hash of the webhook's form for ``password`` (False for
    anything that is not a bcrypt hash, such as a :func:`placeholder`)."""
    try:
        return bcrypt.checkpw(sha1_hex(password).encode("ascii"), hashed.encode("ascii"))
    except ValueError:
        return False


def placeholder(key: str) -> str:
    """The 60-character stand-in for an unresolved ``bcryptPassword`` (see the module doc)."""
    marker = f"{PLACEHOLDER_PREFIX}tars:{key}!"
    if len(marker) > 60:
        import hashlib

        marker = f"{PLACEHOLDER_PREFIX}{hashlib.sha256(key.encode()).hexdigest()}"[:59] + "!"
    return marker.ljust(60, "!")


def is_placeholder(value: str) -> bool:
    """True for a value made by :func:`placeholder`."""
    return value.startswith(PLACEHOLDER_PREFIX)
