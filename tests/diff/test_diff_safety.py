"""``diff`` is safe on any input (issue #17): escape sequences and other control characters of a
stack never reach the terminal in any printer, and no pair of stacks, however broken, makes the
command exit 70 (a fuzz test of random edits, like the rules' property tests)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.builders.edits import OPS, SEEDS, all_paths, edit
from support.builders.rules import base_docs

from tars_components.cli import main
from tars_components.diff import Diff, diff_objects, to_json, to_markdown, to_text

RED = "\x1b[31m"
NASTY = [RED, "\x9b31m", "\u202e", "\r", "\x00", "\x07", "\u2028", "\x85", "\U000e0001"]


def _config_map(labels: dict[str, str], data: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "tars-dev", "labels": labels},
        "data": data,
    }


def _diffs() -> list[Diff]:
    """An update, a create and a delete, each with ESC in a label key and value and a
    multi-line value with control characters."""
    old = _config_map({"app": "a"}, {"conf": "line 1\nline 2\n"})
    new = _config_map(
        {"app": "a", f"{RED}key": f"{RED}value"},
        {"conf": f"line 1\n{RED}line 2\r\u202e\x85x\n", f"{RED}file": "\x9b2J"},
    )
    return [
        Diff(changes=tuple(diff_objects([old], [new]))),
        Diff(changes=tuple(diff_objects([], [new]))),
        Diff(changes=tuple(diff_objects([new], []))),
    ]


@pytest.mark.parametrize("printer", ["text", "colour", "markdown"])
def test_text_and_markdown_escape_control_characters(printer: str) -> None:
    for diff in _diffs():
        assert diff.changes
        if printer == "markdown":
            out = to_markdown(diff)
        else:
            out = to_text(diff, colour=printer == "colour")
        if printer == "colour":  # the printer's own colours are the only escapes left
            for code in ("\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m"):
                out = out.replace(code, "")
        for char in [*NASTY[1:], "\x1b"]:
            assert char not in out, (printer, repr(char))
        # shown, escaped (\u001b in a path or scalar, \e inside a created object's YAML)
        for shown in ("[31mkey", "[31mvalue", "2J"):
            assert shown in out


def test_text_shows_each_line_of_a_multi_line_value_once_with_its_controls_escaped() -> None:
    out = to_text(_diffs()[0])
    assert "+ \\u001b[31mline 2\\u000d\\u202e\\u0085x" in out
    assert "line 1" in out


def test_json_escapes_control_characters_and_reads_back_the_same_strings() -> None:
    for diff in _diffs():
        out = to_json(diff)
        assert "\x1b" not in out and "\x00" not in out
        assert json.loads(out) == json.loads(json.dumps(diff.to_json()))
    fields = json.loads(to_json(_diffs()[0]))["changes"][0]["fields"]
    assert {"path": f'metadata.labels["{RED}key"]', "old": None, "new": f"{RED}value"} in fields


# --- fuzz: no exit 70 ------------------------------------------------------------------------

NS = "tars-dev"
PLAIN = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "settings", "labels": {"app": "a"}},
    "data": {"key": "value"},
}
FUZZ_SEEDS = [*SEEDS, PLAIN]
EXIT_CODES = {0, 1, 2, 3}  # no change, rule errors, unreadable input, changes (--exit-code)


@contextlib.contextmanager
def _cli_output() -> Any:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def _random_stack(data: st.DataObject) -> str:
    """The framework config and templates (usually), then one to three documents: seeds as
    they are, seeds with one or two random edits, or heavily edited ones."""
    docs = []
    for _ in range(data.draw(st.integers(1, 3))):
        doc = json.loads(json.dumps(data.draw(st.sampled_from(FUZZ_SEEDS))))
        edits = data.draw(st.sampled_from([0, 1, 1, 2, 4]))
        for _ in range(edits):
            paths = all_paths(doc)
            if data.draw(st.integers(0, 9)):  # mostly below apiVersion and kind: loadable
                paths = [p for p in paths if p and p[0] not in ("apiVersion", "kind")] or paths
            path = data.draw(st.sampled_from(paths))
            doc = edit(doc, path, data.draw(st.sampled_from(OPS)), data)
        docs.append(doc)
    extra = data.draw(st.sampled_from([base_docs(), base_docs(), []]))
    return yaml.safe_dump_all([*extra, *docs], sort_keys=False, allow_unicode=True)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_diff_of_random_stacks_never_exits_70(data: st.DataObject) -> None:
    """Two stacks of randomly edited documents (a previous and a new one) through the real
    command: a diff, rule errors or a load error, in every format; never an internal error,
    and never a raw ESC outside the JSON printer's escapes."""
    valid = yaml.safe_dump_all([*base_docs(), *FUZZ_SEEDS], sort_keys=False)
    previous = data.draw(st.sampled_from([valid, _random_stack(data)]))
    current = _random_stack(data)
    fmt = data.draw(st.sampled_from(["text", "markdown", "json"]))
    os.environ.pop("TARS_COMPONENTS_DEBUG", None)
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp, "old"), Path(tmp, "new")
        old.mkdir()
        new.mkdir()
        (old / "stack.yaml").write_text(previous, encoding="utf-8")
        (new / "stack.yaml").write_text(current, encoding="utf-8")
        args = ["diff", str(old), str(new), "--namespace", NS, "--format", fmt, "--exit-code"]
        with _cli_output() as (out, err):
            code = main(args)
    assert code in EXIT_CODES, err.getvalue()
    assert "internal error" not in err.getvalue()
    if code in (0, 3) and fmt != "json":
        assert "\x1b" not in out.getvalue()
