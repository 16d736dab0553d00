"""Reading input files within the limits (the edge: I/O).

Stack files, exports, previous stacks, values files, ``Pulumi.<env>.yaml`` and CA files are
all read here: only a regular file (a symbolic link to one is followed) of at most a given
size, as UTF-8 text. Anything else is refused with one line naming the file, never skipped
and never waited on: a FIFO is opened without blocking and refused once ``fstat`` shows what
it is, so a FIFO without a writer cannot hang a command, and a device such as ``/dev/zero``
is never read. :func:`read_texts` reads a stack directory (or one file), checking every size
against :class:`~tars_components.kernel.limits.Limits` before anything is read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..kernel.errors import LoadError, LoadProblem
from ..kernel.limits import LIMIT_NAMES, Limits, format_size

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnreadableFile(Exception):
    """A file that cannot be read as input: ``path`` and a one-line ``message``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def _not_regular(mode: int) -> str | None:
    """Why a file of this mode is not input (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"not a regular file ({kind})"


def _os_problem(path: Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError) and path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symbolic link to {target!r}, which does not exist"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    return f"cannot read file: {(exc.strerror or str(exc)).lower()}"


def _too_large(size: int, max_bytes: int, limit: str | None) -> str:
    where = f" (limit: {limit})" if limit else ""
    return f"file is {format_size(size)}, more than {format_size(max_bytes)}{where}"


def file_size(path: str | Path) -> int:
    """The size of a regular input file, from ``stat`` (links followed), without opening it.

    Raises :class:`UnreadableFile` for a file that is missing, a dangling link, a directory,
    a FIFO, a device or a socket.
    """
    file = Path(path)
    try:
        info = os.stat(file)
    except OSError as exc:
        raise UnreadableFile(str(file), _os_problem(file, exc)) from None
    problem = _not_regular(info.st_mode)
    if problem:
        raise UnreadableFile(str(file), problem)
    return info.st_size


def read_bytes(path: str | Path, max_bytes: int, limit: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (``limit`` names the setting in
    the message of a file beyond it).

    Raises :class:`UnreadableFile` for a file that is missing, unreadable, not a regular file
    or too large; never blocks on a FIFO.
    """
    file = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file, flags)
    except OSError as exc:
        raise UnreadableFile(str(file), _os_problem(file, exc)) from None
    try:
        info = os.fstat(fd)
        problem = _not_regular(info.st_mode)
        if problem:
            raise UnreadableFile(str(file), problem)
        if info.st_size > max_bytes:
            raise UnreadableFile(str(file), _too_large(info.st_size, max_bytes, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # grew since it was measured
            raise UnreadableFile(str(file), _too_large(size, max_bytes, limit))
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(str(file), _os_problem(file, exc)) from None
    finally:
        os.close(fd)


def read_text(path: str | Path, max_bytes: int, limit: str | None = None) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``, line breaks as ``\\n`` (as
    reading in text mode gives them). Raises :class:`UnreadableFile` (see :func:`read_bytes`),
    also for a file that is not UTF-8."""
    data = read_bytes(path, max_bytes, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(
            str(path), f"not UTF-8 text ({exc.reason} at byte {exc.start:,})"
        ) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_texts(
    path: str | Path,
    limits: Limits,
    suffixes: tuple[str, ...] = (".yaml", ".yml"),
    what: str = "stack directory",
) -> dict[str, str]:
    """``{file name: text}`` of a directory's files with these suffixes (or of one file),
    sorted by path, within ``limits`` (sizes are checked before anything is read).

    Every entry with one of the suffixes must be a readable regular file (or a link to one):
    a dangling link, a FIFO, a device or a directory named ``x.yaml`` is a problem naming it,
    never skipped (skipping a file would read as deleting its objects).
    """
    root = Path(path)
    if root.is_dir():
        try:
            files = sorted(p for p in root.iterdir() if p.suffix in suffixes)
        except OSError as exc:
            problem = LoadProblem(str(root), 0, f"cannot read {what}: {exc.strerror}")
            raise LoadError([problem]) from None
    elif root.exists() or root.is_symlink():
        files = [root]
    else:
        raise LoadError([LoadProblem(str(root), 0, f"no such {what} or file")])
    if not files:
        patterns = " or ".join(", ".join(f"*{x}" for x in suffixes).rsplit(", ", 1))
        raise LoadError([LoadProblem(str(root), 0, f"no {patterns} files in the directory")])
    texts: dict[str, str] = {}
    problems = _size_problems(root, files, limits)
    if problems:
        raise LoadError(problems)
    flag, key = LIMIT_NAMES["max_file_bytes"]
    for file in files:
        try:
            texts[str(file)] = read_text(file, limits.max_file_bytes, f"{flag}, {key}")
        except UnreadableFile as exc:
            problems.append(LoadProblem(exc.path, 0, exc.message))
    if problems:
        raise LoadError(problems)
    return texts


def _size_problems(root: Path, files: list[Path], limits: Limits) -> list[LoadProblem]:
    """Files that are not regular files or are larger than ``limits.max_file_bytes``, and the
    stack when its files add up to more than ``limits.max_stack_bytes``."""
    problems: list[LoadProblem] = []
    total = 0
    for file in files:
        try:
            size = file_size(file)
        except UnreadableFile as exc:
            problems.append(LoadProblem(exc.path, 0, exc.message))
            continue
        total += size
        if size > limits.max_file_bytes:
            problems.append(_file_too_large(file, size, limits))
    if total > limits.max_stack_bytes:
        flag, key = LIMIT_NAMES["max_stack_bytes"]
        problems.append(
            LoadProblem(
                str(root),
                0,
                f"the stack's files add up to {format_size(total)}, more than "
                f"{format_size(limits.max_stack_bytes)} (limit: {flag}, {key})",
            )
        )
    return problems


def _file_too_large(file: Path, size: int, limits: Limits) -> LoadProblem:
    flag, key = LIMIT_NAMES["max_file_bytes"]
    return LoadProblem(
        str(file),
        0,
        f"file is {format_size(size)}, more than {format_size(limits.max_file_bytes)} "
        f"(limit: {flag}, {key})",
    )
