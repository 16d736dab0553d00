"""Rendered manifests as files, in the layout of pulumi-kubernetes' ``renderYamlToDirectory``.

``DIR/1-manifest/<apiVersion, / and : as _>-<kind lowercased>-<namespace>-<name>.yaml``, and
``DIR/0-crd/`` for CustomResourceDefinitions. :func:`render_files` is pure; :func:`write_tree`
is the only function that touches the disk: it replaces the directory with one atomic exchange,
so that a failed or killed render never leaves a half-written tree, nor a moment without one.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml import YAMLError

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: no locking
    fcntl = None  # type: ignore[assignment]

from .batch import suspended_gc
from .document_set import DocumentSet
from .errors import UsageError
from .expansion.layout import CRD_DIR, MANIFEST_DIR, output_path
from .limits import Limits
from .loading.files import UnreadableFile, read_bytes
from .loading.load import load_stack
from .options import Mode, Options, check_options
from .pipeline import Build, build
from .yaml_reader import YamlLimitError
from .yaml_writer import dump


def render_path(obj: Mapping[str, Any]) -> str:
    """Relative path of one object, exactly as ``renderYamlToDirectory`` names it."""
    meta = obj.get("metadata") or {}
    namespace = str(meta.get("namespace") or "")
    return output_path(str(obj["apiVersion"]), str(obj["kind"]), namespace, str(meta["name"]))


def render_files(objects: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{relative path: YAML text}`` for every object, in the objects' order.

    Raises ValueError when two objects map to the same file (they would overwrite each other).
    """
    files: dict[str, str] = {}
    for obj in objects:
        path = render_path(obj)
        if path in files:
            raise ValueError(f"two objects render to {path}")
        files[path] = dump(obj)
    return files


def check_out_dir(out_dir: str | Path, stack_dir: str | Path | None = None) -> None:
    """Refuse an output directory that a render would damage: a file or a symbolic link, the
    stack directory or one that contains it, or a directory holding anything but a previous
    render (``0-crd/``, ``1-manifest/``). Raises :class:`UsageError`."""
    out = Path(out_dir)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UsageError(f"--out {out}: not a directory")
    if stack_dir is not None:
        stack = Path(stack_dir).resolve()
        if stack == out.resolve() or out.resolve() in stack.parents:
            raise UsageError(f"--out {out}: would overwrite the stack directory {stack_dir}")
    if out.is_dir():
        foreign = sorted(p.name for p in out.iterdir() if p.name not in (CRD_DIR, MANIFEST_DIR))
        if foreign:
            raise UsageError(
                f"--out {out}: holds {', '.join(foreign[:3])}{', …' if len(foreign) > 3 else ''}"
                f", not a previous render (only {CRD_DIR}/ and {MANIFEST_DIR}/ are replaced)"
            )


SECRET_FILE_MODE = 0o600
"""Mode of every file that :func:`holds_secret` says holds a secret, from its creation."""
PRIVATE_EXECUTABLE_MODE = 0o700
"""Mode of a written script (``executable``): only its owner reads or runs it."""
_PUBLIC_FILE_MODE = 0o666  # less the umask, as for any new file: 0644 under the usual 022

_SECRET_KIND = re.compile(r"^kind: *[\"']?(?:Secret|TAccount)[\"']? *$", re.MULTILINE)
_KEY_MATERIAL = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def holds_secret(text: str) -> bool:
    """True when a file's text holds a secret: a Kubernetes ``Secret`` (its data, e.g. the
    webhook CA's private key), a ``TAccount`` (a password hash or a reference to one), or a
    PEM private key anywhere (a ConfigMap, a TConfig's content).

    The one place that decides which written files are private: :func:`write_tree` creates
    them :data:`SECRET_FILE_MODE` (0600) from their first byte. It reads the YAML text the
    writers produce (block style, every object's ``kind`` on a line of its own at column 0,
    one file per object or several documents per file), so no caller can forget to say so;
    a false positive only makes a file private."""
    return _SECRET_KIND.search(text) is not None or _KEY_MATERIAL.search(text) is not None


def write_tree(
    out_dir: str | Path,
    files: Mapping[str, str],
    *,
    directories: Iterable[str] = (CRD_DIR, MANIFEST_DIR),
    executable: Collection[str] = (),
    replace: bool = True,
    check_dir: Callable[[str | Path], None] | None = None,
) -> None:
    """Make ``out_dir`` contain exactly ``files`` (``{relative path: text}``), atomically.

    The tree is written into a staging directory next to ``out_dir``
    (``.<name>.tars-render-XXXXXXXX``, created 0700) and swapped in with one atomic exchange
    (``renameat2(RENAME_EXCHANGE)``; a plain rename when ``out_dir`` does not exist yet), so a
    command killed at any instant leaves ``out_dir`` holding either the previous tree or the
    new one, complete, and never missing. The previous tree, now under the staging name, is
    made 0700 and deleted. Staging directories left by killed commands are deleted by the next
    one writing into the same parent directory; writers into one parent directory take turns
    (``flock`` on it).

    Every file is created with its final mode (``O_CREAT | O_EXCL``, never changed
    afterwards): 0600 when :func:`holds_secret`, 0700 for a path in ``executable``, otherwise
    0666 less the umask; ``directories`` (the render layout's ``0-crd/`` and ``1-manifest/``
    by default) exist even when empty. The tree's top directory gets the mode the umask gives
    a new directory, once every file is in it.

    With ``replace`` (a render), ``out_dir`` may be a previous render (see
    :func:`check_out_dir`). Without it (``import``), ``out_dir`` must not exist or be an empty
    directory, and the new tree is renamed over it (:class:`UsageError` otherwise, also when
    something appears in it meanwhile). Where the file system cannot exchange two directories
    (``EINVAL``/``ENOSYS``), replacing an existing render is refused (:class:`UsageError`)
    rather than done with a moment at which it does not exist; writing a new directory still
    works. ``check_dir`` replaces that check of ``out_dir`` (a per-cluster render's,
    docs/concepts/clusters.md).
    """
    out = Path(os.path.abspath(out_dir))
    check = check_dir or (check_out_dir if replace else check_new_dir)
    check(out_dir)
    if not out.name:
        raise UsageError(f"--out {out_dir}: not a directory a render can replace")
    layout = [*directories]
    for relative in files:
        parts = Path(relative).parts
        if Path(relative).is_absolute() or ".." in parts or "\0" in relative or not parts:
            raise ValueError(f"not a relative path inside the tree: {relative!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with _locked_directory(out.parent):
        check(out_dir)  # again, now that no other writer can change it
        remove_stale_staging(out)
        staging = Path(tempfile.mkdtemp(prefix=_staging_prefix(out), dir=out.parent))
        try:
            for directory in layout:
                (staging / directory).mkdir(parents=True, exist_ok=True)
            for relative, text in files.items():
                target = staging / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                _create_file(target, text, _file_mode(relative, text, executable))
            os.chmod(staging, _new_directory_mode(staging))
            if replace and out.is_dir():
                _exchange(staging, out, out_dir)
                os.chmod(staging, 0o700)  # the previous tree, until it is deleted
            else:
                _rename_into_place(staging, out, out_dir)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        shutil.rmtree(staging, ignore_errors=True)  # the previous tree, after the exchange


def check_new_dir(out_dir: str | Path) -> None:
    """Refuse an output directory that exists and is not an empty directory (what ``import``
    writes into). Raises :class:`UsageError`."""
    out = Path(out_dir)
    if out.is_symlink() or (out.exists() and (not out.is_dir() or any(out.iterdir()))):
        raise UsageError(f"--out {out}: exists and is not an empty directory")


def _file_mode(relative: str, text: str, executable: Collection[str]) -> int:
    if relative in executable:
        return PRIVATE_EXECUTABLE_MODE
    return SECRET_FILE_MODE if holds_secret(text) else _PUBLIC_FILE_MODE


def _create_file(path: Path, text: str, mode: int) -> None:
    """Create ``path`` with ``mode`` (less the umask) and write ``text``: a file that holds a
    secret is never readable by others, not even for an instant."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), mode)
    with os.fdopen(fd, "wb") as stream:
        stream.write(text.encode("utf-8"))


def _new_directory_mode(staging: Path) -> int:
    """The mode a new directory gets here (0777 less the umask), read from a probe directory:
    asking ``os.umask`` means changing it, which other threads would see."""
    probe = staging / ".mode"
    probe.mkdir()
    try:
        return probe.stat().st_mode & 0o777
    finally:
        probe.rmdir()


def _rename_into_place(staging: Path, out: Path, shown: str | Path) -> None:
    """Rename the staging directory to ``out``, which does not exist or is an empty
    directory (rename replaces an empty directory atomically and refuses any other)."""
    try:
        os.rename(staging, out)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise
        raise UsageError(f"--out {shown}: exists and is not an empty directory") from None


STAGING_MARK = "tars-render"
"""Staging directories are named ``.<out name>.tars-render-<random>``, next to ``--out``."""


def _staging_prefix(out: Path) -> str:
    return f".{out.name}.{STAGING_MARK}-"


def staging_dirs(out_dir: str | Path) -> list[Path]:
    """The staging directories of ``out_dir`` that exist now (left by a killed render, or in
    use by a running one); also those of earlier versions (``.<name>.XXXXXXXX`` and
    ``.<name>.old.XXXXXXXX`` holding nothing but a render's ``0-crd/`` and ``1-manifest/``)."""
    out = Path(os.path.abspath(out_dir))
    prefix = _staging_prefix(out)
    legacy = re.compile(rf"\.{re.escape(out.name)}\.(?:old\.)?[a-z0-9_]{{8}}\Z")
    if not out.parent.is_dir():
        return []
    found = []
    for path in out.parent.iterdir():
        if not path.is_dir() or path.is_symlink():
            continue
        if path.name.startswith(prefix) or (
            legacy.match(path.name)
            and all(p.name in (CRD_DIR, MANIFEST_DIR) for p in path.iterdir())
        ):
            found.append(path)
    return sorted(found)


def remove_stale_staging(out_dir: str | Path) -> None:
    """Delete the staging directories a killed render of ``out_dir`` left behind (call it
    holding the parent directory's lock, so that no running render's staging is taken)."""
    for path in staging_dirs(out_dir):
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def _locked_directory(directory: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``directory``, released by the kernel if the process dies."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# renameat2(2) flags and syscall numbers (for a C library without the renameat2 wrapper,
# glibc < 2.28).
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276, "i386": 353, "i686": 353, "armv7l": 382}
_MACOS_RENAME_SWAP = 2
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV}


def _exchange(a: Path, b: Path, shown: str | Path) -> None:
    """Atomically swap the directories ``a`` and ``b``.

    Raises :class:`UsageError` when the system or file system cannot (see :func:`write_tree`).
    """
    try:
        exchange_paths(a, b)
    except OSError as exc:
        if exc.errno not in _UNSUPPORTED:
            raise
        raise UsageError(
            f"--out {shown}: this file system cannot replace a directory atomically "
            f"(rename exchange: {os.strerror(exc.errno)}); render into a new directory or "
            "remove the previous render first"
        ) from None


def exchange_paths(a: str | Path, b: str | Path) -> None:
    """Swap two existing paths atomically: ``renameat2(RENAME_EXCHANGE)`` on Linux (through
    ``syscall`` where the C library lacks the wrapper), ``renamex_np(RENAME_SWAP)`` on macOS.
    Raises OSError: ``ENOSYS`` where neither call exists, ``EINVAL`` where the file system
    does not support it."""
    libc = _libc()
    if libc is None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))
    path_a, path_b = os.fsencode(a), os.fsencode(b)
    if sys.platform == "darwin":
        renamex = getattr(libc, "renamex_np", None)
        if renamex is None:
            raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))
        result = renamex(path_a, path_b, ctypes.c_uint(_MACOS_RENAME_SWAP))
    else:
        renameat2 = getattr(libc, "renameat2", None)
        if renameat2 is not None:
            result = renameat2(
                _AT_FDCWD, path_a, _AT_FDCWD, path_b, ctypes.c_uint(_RENAME_EXCHANGE)
            )
        else:
            number = _SYS_RENAMEAT2.get(platform.machine())
            if number is None:
                raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))
            result = libc.syscall(
                ctypes.c_long(number),
                _AT_FDCWD,
                path_a,
                _AT_FDCWD,
                path_b,
                ctypes.c_uint(_RENAME_EXCHANGE),
            )
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(a), None, str(b))


def _libc() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no C library to load (not a POSIX system)
        return None


PREVIOUS_FILE_LIMIT = 64 * 1024
"""The largest previous TAccount file read for its hash (a TAccount is a few hundred bytes)."""


def previous_hashes(out_dir: str | Path, stack: DocumentSet) -> dict[tuple[str, str], str]:
    """The ``bcryptPassword`` of each TAccount of ``stack`` in the previous render in
    ``out_dir`` (either apiVersion), by ``(namespace, name)``. A file that is missing, too
    large, unreadable or not that TAccount is skipped: the previous render is only a hint."""
    from .models import API_VERSIONS
    from .yaml_reader import load_documents

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


@dataclass(frozen=True)
class RenderResult:
    """What :func:`render_stack` did: the stack, its build, and the files it wrote (relative
    paths; none when a rule error blocked)."""

    stack: DocumentSet
    build: Build
    files: list[str] = field(default_factory=list)


def render_stack(
    stack_dir: str | Path,
    out_dir: str | Path,
    options: Options,
    limits: Limits | None = None,
    salt_key: bytes | None = None,
    stack: DocumentSet | None = None,
) -> RenderResult:
    """The ``render`` job: load a stack directory, validate and expand it, and write the files.

    Nothing is written when a rule error blocks (``result.build.ok`` is false). Raises
    :class:`~tars_components.errors.LoadError` for unreadable input or input beyond ``limits``
    (default :class:`~tars_components.limits.Limits`), :class:`UsageError` for a bad option
    value or ``--out``.

    A TAccount password is hashed with the salt of ``salt_key`` when given, else with the salt
    of the account's hash in the previous render in ``out_dir``, else with the salt of this
    machine's key (:func:`local_salt_key`), else with a random one
    (:class:`~tars_components.secrets.AccountHashing`): re-rendering writes the same hash, and
    a new password keeps the account's salt. ``stack``: the stack already loaded from
    ``stack_dir`` (it is not read again).
    """
    check_options(options)
    check_out_dir(out_dir, stack_dir)
    with suspended_gc():
        if stack is None:
            stack = load_stack(stack_dir, options.namespace, limits)
        hashing = None
        if stack.accounts and options.mode == Mode.CRD:  # expand mode skips TAccounts
            from .secrets import AccountHashing

            hashing = AccountHashing(
                key=salt_key,
                previous=previous_hashes(out_dir, stack),
                local_key=None if salt_key is not None else local_salt_key(),
                entropy=os.urandom,
            )
        result = build(stack, options, hashing)
        if not result.ok:
            return RenderResult(stack=stack, build=result)
        files = render_files(result.objects)
        write_tree(out_dir, files)
    return RenderResult(stack=stack, build=result, files=list(files))


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
