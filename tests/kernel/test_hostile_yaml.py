"""Hostile YAML is refused fast with exit 2 and one clear line (issue #9, item 9): deep
nesting, alias bombs, oversize files and stacks; each limit set by flag or ``tars:*`` key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders.documents import FRAMEWORK, stack_text, tars_server, template
from support.engines.cli import timed_run

from tars_components.kernel import yaml_reader
from tars_components.kernel.errors import LoadError
from tars_components.kernel.limits import Limits, format_size, parse_size
from tars_components.kernel.yaml_reader import (
    YamlLimitError,
    check_nesting,
    expanded_size,
    load_documents,
)
from tars_components.loading.load import load_stack, load_texts

ROOT = Path(__file__).resolve().parents[2]
HEADER = "apiVersion: k8s.tars.io/v1beta3\nkind: TServer\nmetadata:\n  name: a-b\n"


def _billion_laughs() -> str:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        lines.append(f"l{level}: &l{level} [{','.join([f'*l{level - 1}'] * 9)}]")
    return HEADER + "spec:\n" + "\n".join("  " + line for line in lines) + "\n"


# file name: (text, line of the message, message)
HOSTILE = {
    "deep500.yaml": (
        HEADER + "spec:\n" + "".join("  " * (i + 1) + "a:\n" for i in range(500)) + "  b: 1\n",
        105,
        "nesting deeper than 100 levels (limit: --max-depth, tars:maxDepth)",
    ),
    "deep100k-flow.yaml": (
        HEADER + "spec: " + "[" * 100_000 + "]" * 100_000 + "\n",
        5,
        "nesting deeper than 100 levels (limit: --max-depth, tars:maxDepth)",
    ),
    "deep100k-block.yaml": (
        HEADER + "spec:\n" + "- " * 100_000 + "x\n",
        6,
        "nesting deeper than 100 levels (limit: --max-depth, tars:maxDepth)",
    ),
    "deep100k-mapping.yaml": (
        HEADER + "spec: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n",
        5,
        "nesting deeper than 100 levels (limit: --max-depth, tars:maxDepth)",
    ),
    "laughs.yaml": (
        _billion_laughs(),
        1,
        f"aliases expand the file to more than 10x its {len(_billion_laughs()):,} characters "
        "(limit: --max-alias-expansion, tars:maxAliasExpansion)",
    ),
    "recursive.yaml": (
        HEADER + "spec: &x\n  again: *x\n",
        1,
        "an alias refers to its own ancestor (infinite nesting)",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("command", ["validate", "render"])
def test_hostile_file_exits_2_fast_with_one_line(name: str, command: str, tmp_path: Path) -> None:
    text, line, message = HOSTILE[name]
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "00-ok.yaml").write_text(stack_text(FRAMEWORK, template("tars.default")))
    (stack / name).write_text(text)
    args = [command, "stack"] + (["--out", "out"] if command == "render" else [])
    result, elapsed = timed_run(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-500:]
    assert result.stderr == f"stack/{name}:{line}: {message}\n"
    assert result.stdout == ""
    assert elapsed < 15, f"{elapsed:.1f} s"
    assert not (tmp_path / "out").exists()


def test_limits_are_adjustable_by_flag(tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    documents = [FRAMEWORK, template("tars.default"), template("tars.cpp", "tars.default")]
    (stack / "s.yaml").write_text(stack_text(*documents, tars_server()))
    size = (stack / "s.yaml").stat().st_size
    result, _ = timed_run("validate", "stack", "--max-file-size", str(size - 1), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"stack/s.yaml:0: file is {format_size(size)}, more than {format_size(size - 1)} "
        "(limit: --max-file-size, tars:maxFileSize)\n"
    )
    result, _ = timed_run("validate", "stack", "--max-file-size", str(size), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    result, _ = timed_run("validate", "stack", "--max-depth", "3", cwd=tmp_path)
    assert result.returncode == 2
    assert "nesting deeper than 3 levels (limit: --max-depth, tars:maxDepth)" in result.stderr
    deep = HOSTILE["deep500.yaml"][0]
    (stack / "deep.yaml").write_text(deep)
    result, _ = timed_run("validate", "stack", "--max-depth", "400", cwd=tmp_path)
    assert result.returncode == 2
    assert "nesting deeper than 400 levels" in result.stderr


def test_stack_total_limit_is_checked_before_reading(tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    for i in range(3):
        (stack / f"s{i}.yaml").write_text(stack_text(tars_server(server=f"S{i}")))
    total = sum(p.stat().st_size for p in stack.iterdir())
    result, _ = timed_run("validate", "stack", "--max-stack-size", str(total - 1), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"stack:0: the stack's files add up to {format_size(total)}, more than "
        f"{format_size(total - 1)} (limit: --max-stack-size, tars:maxStackSize)\n"
    )
    with pytest.raises(LoadError, match="add up to"):
        load_stack(stack, limits=Limits(max_stack_bytes=total - 1))
    assert load_stack(stack, limits=Limits(max_stack_bytes=total)).documents


def test_an_oversize_file_is_refused_without_being_read(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:  # a sparse 17 MiB file: reading it would take the time
        f.truncate(17 * 1024 * 1024)
    with pytest.raises(LoadError) as raised:
        load_stack(tmp_path)
    assert [p.format() for p in raised.value.problems] == [
        f"{big}:0: file is 17 MiB, more than 16 MiB (limit: --max-file-size, tars:maxFileSize)"
    ]


def test_limits_come_from_the_stack_config(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "stacks" / "dev", tmp_path / "stacks" / "dev")
    config = tmp_path / "Pulumi.dev.yaml"
    config.write_text("config:\n  tars:namespace: tars-dev\n  tars:maxDepth: 4\n")
    result, _ = timed_run("validate", "--stack", "dev", cwd=tmp_path)
    assert result.returncode == 2
    assert "nesting deeper than 4 levels (limit: --max-depth, tars:maxDepth)" in result.stderr
    result, _ = timed_run("validate", "--stack", "dev", "--max-depth", "100", cwd=tmp_path)
    assert result.returncode == 0, result.stderr  # the flag wins over the key
    config.write_text("config:\n  tars:maxFileSize: 1Ki\n")
    result, _ = timed_run("render", "--stack", "dev", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert "more than 1 KiB (limit: --max-file-size, tars:maxFileSize)" in result.stderr
    assert not (tmp_path / "out").exists()
    for key, value in (("maxDepth", "deep"), ("maxFileSize", "-1"), ("maxAliasExpansion", "0")):
        config.write_text(f"config:\n  tars:{key}: {value!r}\n")
        result, _ = timed_run("validate", "--stack", "dev", cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr.startswith(f"tars-components: error: tars:{key} '{value}': ")


def test_the_stack_config_file_itself_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.dev.yaml").write_text("config: " + "[" * 100_000 + "]" * 100_000)
    result, elapsed = timed_run("validate", "--stack", "dev", cwd=tmp_path)
    assert result.returncode == 2
    assert "Pulumi.dev.yaml:1: nesting deeper than 100 levels" in result.stderr
    assert "Traceback" not in result.stderr and elapsed < 15


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.yaml"))}


def test_a_stack_within_the_limits_is_unaffected(tmp_path: Path) -> None:
    dev = str(ROOT / "stacks" / "dev")
    first, _ = timed_run("render", dev, "--namespace", "tars-dev", "--out", "a", cwd=tmp_path)
    loose = ["--max-depth", "400", "--max-file-size", "1Gi", "--max-alias-expansion", "1000"]
    second, _ = timed_run(
        "render", dev, "--namespace", "tars-dev", "--out", "b", *loose, cwd=tmp_path
    )
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b") != {}


def test_anchors_and_merge_keys_within_the_limit_load_as_written_out() -> None:
    labels = {"team": "shop", "tier": "web"}
    server = tars_server()
    server["metadata"]["labels"] = labels
    server["metadata"]["annotations"] = {**labels, "extra": "x"}
    written = stack_text(server)
    anchored = written.replace("  labels:\n", "  labels: &labels\n", 1).replace(
        "  annotations:\n    team: shop\n    tier: web\n",
        "  annotations:\n    <<: *labels\n",
        1,
    )
    assert "*labels" in anchored and anchored != written
    expected = load_texts({"s.yaml": written})
    found = load_texts({"s.yaml": anchored})
    assert [d.to_dict() for d in found.documents] == [d.to_dict() for d in expected.documents]
    assert found.documents and not found.violations


def test_nesting_limit_counts_mappings_and_lists() -> None:
    assert load_documents("- " * 99 + "x\n", Limits(max_depth=99))
    with pytest.raises(YamlLimitError) as raised:
        load_documents("a: 1\n---\n" + "- " * 100 + "x\n", Limits(max_depth=99))
    assert raised.value.line == 3
    with pytest.raises(YamlLimitError):
        check_nesting("{a: " * 6 + "1" + "}" * 6, 5)
    check_nesting("{a: " * 5 + "1" + "}" * 5, 5)
    with pytest.raises(YamlLimitError):  # a flow collection over many unindented lines
        check_nesting("[\n" * 150 + "x" + "]" * 150, 100)


def test_brackets_are_counted_per_document() -> None:
    """A one-file stack with many short flow collections keeps the cheap check."""
    one = stack_text(*[tars_server(server=f"S{i}") for i in range(60)])
    text = one.replace("  k8s:\n", "  k8s:\n    env: []\n    nodeSelector: []\n")
    assert text.count("[") > 100
    assert yaml_reader._nesting_bound_within(text, 100)
    assert not yaml_reader._nesting_bound_within(
        "a: " + "[" * 60 + "1" + "]" * 60 + "\nb: " + "{c: 1}" * 60, 100
    )
    # empty pairs hold nothing: together they add one level (a live export's managedFields)
    leaves = "managedFields:\n- fieldsV1:\n" + "".join(f"    f:k{i}: {{}}\n" for i in range(500))
    assert yaml_reader._nesting_bound_within(leaves, 100)
    assert not yaml_reader._nesting_bound_within("a: " + "[" * 99 + "[]" + "]" * 99, 100)
    check_nesting(text, 100)


def _nested(draw: st.DrawFn, depth: int) -> object:
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(["x", 1, "[a]", "- b", "{c: d}", "? e"]))
    if draw(st.booleans()):
        return [_nested(draw, depth - 1) for _ in range(draw(st.integers(1, 2)))]
    return {f"k{i}": _nested(draw, depth - 1) for i in range(draw(st.integers(1, 2)))}


@st.composite
def _documents(draw: st.DrawFn) -> tuple[list[object], str]:
    """One to three nested documents, written in block or flow style, with any of YAML's line
    breaks and maybe a byte order mark."""
    documents = [_nested(draw, draw(st.integers(1, 12))) for _ in range(draw(st.integers(1, 3)))]
    text = yaml.safe_dump_all(
        documents,
        default_flow_style=draw(st.booleans()),
        indent=2,
        width=draw(st.sampled_from([1, 80])),  # 1: a flow collection over many lines
        explicit_end=draw(st.booleans()),
    )
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r", "\x85", "\u2028"])))
    return documents, ("\ufeff" if draw(st.booleans()) else "") + text


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(_documents(), st.integers(1, 14))
def test_the_nesting_check_refuses_exactly_what_is_too_deep(
    case: tuple[list[object], str], limit: int
) -> None:
    """Whatever the layout (block, flow, compact, line breaks), the cheap bound never lets
    through a document deeper than the limit, and never refuses one within it."""
    documents, text = case
    loaded = list(yaml.load_all(text, Loader=yaml.CSafeLoader))  # the depth the parser sees
    assert [_depth(d) for d in loaded] == [_depth(d) for d in documents]
    if max(_depth(d) for d in loaded) > limit:
        with pytest.raises(YamlLimitError):
            check_nesting(text, limit)
    else:
        check_nesting(text, limit)


def test_alias_expansion_is_measured_without_expanding() -> None:
    docs = load_documents(_billion_laughs(), Limits(max_alias_expansion=10**12))
    size, depth = expanded_size(docs[0])
    assert size > 9**10 and depth == 12
    shared = load_documents("a: &a [1, 2]\nb: *a\nc: *a\n")
    assert expanded_size(shared[0]) == (1 + 3 * 2 + 3 * (1 + 2 * 2), 2)


def test_sizes_take_units() -> None:
    assert parse_size("16Mi") == parse_size("16MiB") == 16 * 1024 * 1024
    assert parse_size("512Ki") == 512 * 1024 and parse_size("2M") == 2_000_000
    assert parse_size(4096) == 4096 and parse_size("1") == 1
    for bad in ("0", "-1", "1.5Mi", "lots", True):
        with pytest.raises(ValueError):
            parse_size(bad)
    assert format_size(16 * 1024 * 1024) == "16 MiB" and format_size(1536) == "1,536 bytes"
