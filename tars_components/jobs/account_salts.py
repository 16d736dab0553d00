"""Where ``render`` finds the salt of a TAccount's password hash when no salt key is given:
the account's hash in the previous render, else this machine's key (docs/concepts/namespace.md).

Both are read from disk, so they sit here at the edge; the hashing itself is pure
(:class:`~tars_components.secrets.hashing.AccountHashing`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from yaml import YAMLError

from ..fileio.files import UnreadableFile, read_bytes
from ..kernel.yaml_reader import YamlLimitError
from ..loading.document_set import DocumentSet
from ..rules.layout import output_path

PREVIOUS_FILE_LIMIT = 64 * 1024
"""The largest previous TAccount file read for its hash (a TAccount is a few hundred bytes)."""


def previous_hashes(out_dir: str | Path, stack: DocumentSet) -> dict[tuple[str, str], str]:
    """The ``bcryptPassword`` of each TAccount of ``stack`` in the previous render in
    ``out_dir`` (either apiVersion), by ``(namespace, name)``. A file that is missing, too
    large, unreadable or not that TAccount is skipped: the previous render is only a hint."""
    from ..kernel.yaml_reader import load_documents
    from ..models import API_VERSIONS

    found: dict[tuple[str, str], str] = {}
    for account in stack.accounts:
        for api_version in API_VERSIONS:
            path = Path(out_dir) / output_path(
                api_version, account.kind, account.namespace, account.name
            )
            try:
                if path.is_symlink() or path.stat().st_size > PREVIOUS_FILE_LIMIT:
                    continue
                documents = load_documents(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError, YAMLError, YamlLimitError):
                continue
            hashed = _account_hash(documents, account.namespace, account.name)
            if hashed is not None:
                found[(account.namespace, account.name)] = hashed
                break
    return found


def _account_hash(documents: list[Any], namespace: str, name: str) -> str | None:
    if len(documents) != 1 or not isinstance(documents[0], dict):
        return None
    body = documents[0]
    meta, spec = body.get("metadata"), body.get("spec")
    if body.get("kind") != "TAccount" or not isinstance(meta, dict) or not isinstance(spec, dict):
        return None
    if meta.get("namespace") != namespace or meta.get("name") != name:
        return None
    auth = spec.get("authentication")
    hashed = auth.get("bcryptPassword") if isinstance(auth, dict) else None
    return hashed if isinstance(hashed, str) else None


LOCAL_KEY_NAME = "account-salt.key"
"""The file of this machine's TAccount salt key, in :func:`local_key_dir`."""


def local_key_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/tars-components``, by default ``~/.local/state/tars-components``."""
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "tars-components"


def local_salt_key(directory: Path | None = None) -> bytes | None:
    """This machine's TAccount salt key: 32 random bytes (hex) in a file created 0600 in a 0700
    directory on first use, read afterwards. None when it can be neither read nor created (a
    read-only home): the caller then draws a random salt."""
    folder = local_key_dir() if directory is None else directory
    path = folder / LOCAL_KEY_NAME
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            key = read_bytes(path, max_bytes=1024).strip()
            return key if len(key) >= 16 else None
        with os.fdopen(fd, "w", encoding="ascii") as out:
            key = os.urandom(32).hex().encode("ascii")
            out.write(key.decode("ascii") + "\n")
        return key
    except (OSError, UnreadableFile):
        return None
