"""Writing a tree of files atomically, each file private from its first byte when it holds a
secret: the one writer of ``render``, ``import``, ``controller`` and ``framework``
(docs/cli/render.md).

:func:`write_tree` replaces a directory with one atomic exchange, so that a failed or killed
command never leaves a half-written tree, nor a moment without one; :func:`holds_secret`
decides which files are created 0600.
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
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: no locking
    fcntl = None  # type: ignore[assignment]

from ..kernel.errors import UsageError
from ..rules.layout import CRD_DIR, MANIFEST_DIR


def check_out_target(out_dir: str | Path, stack_dir: str | Path | None = None) -> Path:
    """``out_dir`` as a path, refused (:class:`UsageError`) when it is a file or a symbolic
    link, or the stack directory or one that contains it."""
    out = Path(out_dir)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UsageError(f"--out {out}: not a directory")
    if stack_dir is not None:
        stack = Path(stack_dir).resolve()
        if stack == out.resolve() or out.resolve() in stack.parents:
            raise UsageError(f"--out {out}: would overwrite the stack directory {stack_dir}")
    return out


def check_out_dir(out_dir: str | Path, stack_dir: str | Path | None = None) -> None:
    """Refuse an output directory that a render would damage: a file or a symbolic link, the
    stack directory or one that contains it, or a directory holding anything but a previous
    render (``0-crd/``, ``1-manifest/``). Raises :class:`UsageError`."""
    out = check_out_target(out_dir, stack_dir)
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

_SECRET_KIND = re.compile(
    r"^kind: *[\"']?[A-Za-z]*(?:secret|taccount)[A-Za-z]*[\"']? *$", re.MULTILINE | re.IGNORECASE
)
_SECRET_KEY = re.compile(
    r"^[ \t-]*[\"']?[\w.-]*(?:password|passwd|passphrase|token|apikey|privatekey|clientsecret)"
    r"[\"']? *: *(?!(?:true|false|null|~|\{\}|\[\]|''|\"\")? *$)\S",
    re.MULTILINE | re.IGNORECASE,
)
_KEY_MATERIAL = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def holds_secret(text: str) -> bool:
    """True when a file's text holds a secret: a Kubernetes ``Secret`` (its data, e.g. the
    webhook CA's private key), a ``TAccount`` (a password hash or a reference to one), either
    kind in any casing, a value under a key that names a password, passphrase or token (in
    any object), or a PEM private key anywhere (a ConfigMap, a TConfig's content).

    The one place that decides which written files are private: :func:`write_tree` creates
    them :data:`SECRET_FILE_MODE` (0600) from their first byte. It reads the YAML text the
    writers produce (block style, every object's ``kind`` on a line of its own at column 0,
    one file per object or several documents per file), so no caller can forget to say so;
    a false positive only makes a file private."""
    return any(
        pattern.search(text) is not None for pattern in (_SECRET_KIND, _SECRET_KEY, _KEY_MATERIAL)
    )


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
