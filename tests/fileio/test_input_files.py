"""Every file a command reads is read under the same rules (issue 17, item 2): stacks, exports,
previous stacks, values files, ``Pulumi.<env>.yaml`` and CA files. Only regular files within
the input limits; a ``*.yaml`` entry of a stack that is not one is an error naming it (exit 2),
never skipped (a skipped file reads as deleted objects); a FIFO never hangs a command."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from support.assertions.platform import FIXTURES
from support.builders.documents import FRAMEWORK, stack_text, tars_server, template
from support.engines.cli import timed_run

from tars_components.fileio.files import UnreadableFile, read_text
from tars_components.jobs.config import read_stack_config
from tars_components.kernel import yaml_reader
from tars_components.kernel.errors import UsageError
from tars_components.kernel.yaml_reader import YamlLimitError, check_nesting, load_documents
from tars_components.platform.values import FrameworkValues, parse_values

DEPTH_MESSAGE = "nesting deeper than 100 levels (limit: --max-depth, tars:maxDepth)"


def _stack(directory: Path) -> Path:
    directory.mkdir()
    documents = [FRAMEWORK, template("tars.default"), template("tars.cpp", "tars.default")]
    (directory / "00-base.yaml").write_text(stack_text(*documents))
    (directory / "10-server.yaml").write_text(stack_text(tars_server()))
    return directory


def _dangling(path: Path) -> str:
    path.symlink_to("gone.yaml")
    return "a symbolic link to 'gone.yaml', which does not exist"


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "not a regular file (a FIFO)"


def _directory(path: Path) -> str:
    path.mkdir()
    (path / "inner.yaml").write_text(stack_text(tars_server(server="Inner")))
    return "not a regular file (a directory)"


def _device(path: Path) -> str:
    path.symlink_to("/dev/zero")
    return "not a regular file (a character device)"


ENTRIES: dict[str, Callable[[Path], str]] = {
    "dangling-link": _dangling,
    "fifo": _fifo,
    "directory": _directory,
    "device": _device,
}


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize("command", ["validate", "render", "diff-new", "diff-old", "previous"])
def test_a_yaml_entry_that_is_not_a_regular_file_is_an_error_naming_it(
    entry: str, command: str, tmp_path: Path
) -> None:
    old = _stack(tmp_path / "old")
    new = tmp_path / "new"
    shutil.copytree(old, new)
    broken = old if command == "diff-old" else new
    message = ENTRIES[entry](broken / "50-broken.yaml")
    args = {
        "validate": ["validate", "new"],
        "render": ["render", "new", "--out", "out"],
        "diff-new": ["diff", "old", "new"],
        "diff-old": ["diff", "old", "new"],
        "previous": ["validate", "new", "--previous", "new"],
    }[command]
    result, _ = timed_run(*args, cwd=tmp_path, timeout=30)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"{broken.name}/50-broken.yaml:0: {message}\n"
    assert result.stdout == ""
    assert not (tmp_path / "out").exists()


def test_other_entries_of_a_stack_are_still_ignored(tmp_path: Path) -> None:
    stack = _stack(tmp_path / "stack")
    (stack / "notes.txt").symlink_to("gone.txt")
    os.mkfifo(stack / "pipe")
    (stack / "sub").mkdir()
    result, _ = timed_run("validate", "stack", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "stack: 4 documents" in result.stderr


def test_a_stack_given_as_a_fifo_or_a_dangling_link_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "link.yaml").symlink_to("gone.yaml")
    fifo, _ = timed_run("validate", "pipe.yaml", cwd=tmp_path, timeout=30)
    assert (fifo.returncode, fifo.stderr) == (2, "pipe.yaml:0: not a regular file (a FIFO)\n")
    link, _ = timed_run("validate", "link.yaml", cwd=tmp_path)
    assert link.returncode == 2
    assert link.stderr == "link.yaml:0: a symbolic link to 'gone.yaml', which does not exist\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_stack_file_is_an_error_naming_it(tmp_path: Path) -> None:
    stack = _stack(tmp_path / "stack")
    (stack / "10-server.yaml").chmod(0)
    result, _ = timed_run("validate", "stack", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "stack/10-server.yaml:0: cannot read file: permission denied\n"


def test_an_export_with_a_fifo_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    export = _stack(tmp_path / "export")
    os.mkfifo(export / "more.yaml")
    result, _ = timed_run("import", "export", "--out", "imported", cwd=tmp_path, timeout=30)
    assert result.returncode == 2
    assert result.stderr == "export/more.yaml:0: not a regular file (a FIFO)\n"
    assert not (tmp_path / "imported").exists()


# --- values files, Pulumi.<env>.yaml, CA files ---------------------------------------------


def _alias_bomb() -> str:
    """About 400 bytes that expand to a billion strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        name, previous = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [{','.join([f'*{previous}'] * 9)}]")
    return "\n".join(lines) + "\n"


ALIASES_MESSAGE = (
    f"aliases expand the file to more than 10x its {len(_alias_bomb()):,} characters "
    "(limit: --max-alias-expansion, tars:maxAliasExpansion)"
)


@pytest.mark.parametrize("command", ["framework", "controller"])
def test_an_alias_bomb_values_file_is_refused_fast(command: str, tmp_path: Path) -> None:
    values = FIXTURES / f"{command}-minimal.values.yaml"
    (tmp_path / "bomb.yaml").write_text(values.read_text() + _alias_bomb())
    result, elapsed = timed_run(command, "--values", "bomb.yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2
    size = len((tmp_path / "bomb.yaml").read_text())
    assert result.stderr == (
        f"tars-components: error: bomb.yaml:1: aliases expand the file to more than 10x its "
        f"{size:,} characters (limit: --max-alias-expansion, tars:maxAliasExpansion)\n"
    )
    assert elapsed < 15, f"{elapsed:.1f} s"  # it ran for minutes and took gigabytes
    assert not (tmp_path / "out").exists()


def test_reading_an_alias_bomb_values_file_takes_no_time(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(UsageError, match="aliases expand the file"):
        parse_values(_alias_bomb(), FrameworkValues, "bomb.yaml")
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("command", ["framework", "controller"])
@pytest.mark.parametrize("kind", ["fifo", "device", "dangling-link"])
def test_a_values_file_that_is_not_a_regular_file_is_refused(
    command: str, kind: str, tmp_path: Path
) -> None:
    message = ENTRIES[kind](tmp_path / "values.yaml")
    result, _ = timed_run(
        command, "--values", "values.yaml", "--out", "out", cwd=tmp_path, timeout=30
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"tars-components: error: values.yaml:0: cannot read values file: {message}\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_values_file_beyond_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    with (tmp_path / "big.yaml").open("wb") as big:
        big.truncate(17 * 1024 * 1024)  # sparse: nothing to write, nothing must be read
    result, _ = timed_run("framework", "--values", "big.yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "tars-components: error: big.yaml:0: cannot read values file: file is 17 MiB, more "
        "than 16 MiB\n"
    )


def test_deep_values_file_gets_the_depth_message(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text("framework: " + "[" * 100_000 + "]" * 100_000 + "\n")
    result, _ = timed_run("framework", "--values", "deep.yaml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"tars-components: error: deep.yaml:1: {DEPTH_MESSAGE}\n"


def test_a_ca_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "ca.crt")
    os.mkfifo(tmp_path / "ca.key")
    values = str(FIXTURES / "controller-minimal.values.yaml")
    result, _ = timed_run(
        "controller", "--values", values, "--out", "out", "--ca-cert", "ca.crt", "--ca-key",
        "ca.key", cwd=tmp_path, timeout=30,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "tars-components: error: cannot read the CA: ca.crt: not a regular file (a FIFO)\n"
    )


def _project(tmp_path: Path, config_text: str) -> None:
    _stack(tmp_path / "stack")
    (tmp_path / "Pulumi.yaml").write_text("name: tars\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text(config_text)


def test_an_alias_bomb_stack_config_is_refused_fast(tmp_path: Path) -> None:
    bomb = _alias_bomb()
    _project(tmp_path, "config:\n  tars:stackDir: stack\n" + bomb)
    result, elapsed = timed_run("validate", "--stack", "dev", cwd=tmp_path)
    assert result.returncode == 2
    size = len((tmp_path / "Pulumi.dev.yaml").read_text())
    assert result.stderr == (
        f"tars-components: error: Pulumi.dev.yaml:1: aliases expand the file to more than 10x "
        f"its {size:,} characters (limit: --max-alias-expansion, tars:maxAliasExpansion)\n"
    )
    assert elapsed < 15, f"{elapsed:.1f} s"
    started = time.monotonic()
    with pytest.raises(UsageError, match="aliases expand the file"):
        read_stack_config("dev", tmp_path)
    assert time.monotonic() - started < 2


def test_a_deep_stack_config_gets_one_line(tmp_path: Path) -> None:
    _project(tmp_path, "config:\n  tars:stackDir: " + "[" * 100_000 + "]" * 100_000 + "\n")
    result, _ = timed_run("render", "--stack", "dev", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"tars-components: error: Pulumi.dev.yaml:2: {DEPTH_MESSAGE}\n"


def test_invalid_yaml_in_a_stack_config_is_one_line(tmp_path: Path) -> None:
    _project(tmp_path, "config:\n  tars:stackDir: [stack\n")
    result, _ = timed_run("validate", "--stack", "dev", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("tars-components: error: Pulumi.dev.yaml:3: invalid YAML: ")
    assert "<unicode string>" not in result.stderr


@pytest.mark.parametrize("kind", ["fifo", "device", "dangling-link"])
def test_a_stack_config_that_is_not_a_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    _stack(tmp_path / "stack")
    message = ENTRIES[kind](tmp_path / "Pulumi.dev.yaml")
    result, _ = timed_run("validate", "--stack", "dev", cwd=tmp_path, timeout=30)
    assert result.returncode == 2
    assert result.stderr == (
        f"tars-components: error: Pulumi.dev.yaml:0: cannot read stack config: {message}\n"
    )


# --- the reader itself ---------------------------------------------------------------------


def test_read_text_gives_text_mode_line_breaks_and_refuses_other_encodings(
    tmp_path: Path,
) -> None:
    (tmp_path / "crlf.yaml").write_bytes(b"a: 1\r\nb: 2\rc: 3\n")
    assert read_text(tmp_path / "crlf.yaml", 100) == "a: 1\nb: 2\nc: 3\n"
    (tmp_path / "latin1.yaml").write_bytes(b"a: caf\xe9\n")
    with pytest.raises(UnreadableFile) as raised:
        read_text(tmp_path / "latin1.yaml", 100)
    assert raised.value.message == "not UTF-8 text (invalid continuation byte at byte 6)"
    with pytest.raises(UnreadableFile) as raised:
        read_text(tmp_path / "crlf.yaml", 10, "--max-file-size, tars:maxFileSize")
    assert raised.value.message == (
        "file is 16 bytes, more than 10 bytes (limit: --max-file-size, tars:maxFileSize)"
    )
    with pytest.raises(UnreadableFile) as raised:
        read_text(tmp_path / "missing.yaml", 10)
    assert raised.value.message == "no such file"


# --- PyYAML's own nesting limit (libyaml in PyYAML >= 6.0.4) --------------------------------


def test_the_parsers_own_nesting_limit_is_reported_as_the_products(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyYAML 6.0.4's libyaml stops at 1,000 levels, while its scanner runs ahead of the
    events the depth check reads: the product's message and line win whatever parser is
    installed (here the C parser's error is simulated, so the test runs on any PyYAML)."""
    parse = yaml.parse

    def libyaml_with_a_limit(text: str, Loader: type) -> object:
        if Loader is yaml_reader.YamlLoader:
            mark = yaml.Mark("<unicode string>", 0, 4, 1003, None, None)
            raise yaml.scanner.ScannerError(
                "while increasing flow level", mark, "exceeded maximum nesting depth", mark
            )
        return parse(text, Loader=Loader)

    monkeypatch.setattr(yaml_reader.yaml, "parse", libyaml_with_a_limit)
    text = "a: 1\nb: 2\nc: 3\nd: 4\nspec: " + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(YamlLimitError) as raised:
        check_nesting(text, 100)
    assert (raised.value.line, raised.value.message) == (5, DEPTH_MESSAGE)
    with pytest.raises(YamlLimitError) as raised:
        load_documents(text)
    assert (raised.value.line, raised.value.message) == (5, DEPTH_MESSAGE)
