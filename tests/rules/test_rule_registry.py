"""The rule registry: every code is declared once, in ``rules/`` or (the loader's own) in
``loading/``, reported from there only, and named by a test; the provider's tables cannot hold a
code that does not exist."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tars_components.kernel.errors import Severity
from tars_components.kernel.registry import code_order, rule
from tars_components.provider.wire import CONTEXT_RULES, FIELD_RULES
from tars_components.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tars_components"
HOMES = (PACKAGE / "rules", PACKAGE / "loading")
"""Where rules are declared and reported: the checks, and the loader for its own codes."""
CODE = re.compile(r"T[A-Z]\d{3}")


def _modules(*folders: Path) -> Iterator[tuple[Path, ast.Module]]:
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _declarations(tree: ast.Module) -> dict[str, ast.Assign]:
    """``CODE = rule("CODE", ...)`` statements of one module, by code."""
    found: dict[str, ast.Assign] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "rule"
        ):
            first = node.value.args[0]
            assert isinstance(first, ast.Constant) and isinstance(first.value, str)
            assert [t.id for t in node.targets if isinstance(t, ast.Name)] == [first.value]
            found[first.value] = node
    return found


def _code_literals(tree: ast.Module) -> Iterator[tuple[ast.Constant, str]]:
    """String constants that are exactly a rule code (docstrings mention codes in prose)."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and CODE.fullmatch(node.value)
        ):
            yield node, node.value


def test_every_code_is_declared_once_in_a_rules_module() -> None:
    homes: dict[str, list[str]] = {}
    for path, tree in _modules(*HOMES):
        for code in _declarations(tree):
            homes.setdefault(code, []).append(path.name)
    assert {code: len(files) for code, files in homes.items() if len(files) != 1} == {}
    assert sorted(homes, key=code_order) == list(RULES)


def test_every_code_has_an_emitter_in_rules() -> None:
    """Each declared rule object is used in ``rules/`` or ``loading/`` beyond its declaration
    (a check that reports it, or a table a check reads)."""
    used: set[str] = set()
    for _, tree in _modules(*HOMES):
        declared = {id(node.targets[0]) for node in _declarations(tree).values()}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and id(node) not in declared
                and node.id in RULES
            ):
                used.add(node.id)
    assert sorted(set(RULES) - used) == []


def test_every_code_is_named_by_a_test() -> None:
    text = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if path.name != Path(__file__).name
    )
    assert sorted(code for code in RULES if code not in text) == []


def test_no_code_string_outside_the_declarations() -> None:
    """A check reports through its rule object; a bare ``"TS004"`` anywhere in the package
    (outside the ``rule("TS004", ...)`` declaration) would escape the registry."""
    stray: list[str] = []
    for path, tree in _modules(PACKAGE):
        allowed = {
            id(node.value.args[0])
            for node in _declarations(tree).values()
            if isinstance(node.value, ast.Call)
        }
        for literal, code in _code_literals(tree):
            if id(literal) not in allowed:
                stray.append(f"{path.relative_to(ROOT)}:{literal.lineno}: {code}")
    assert stray == []


def test_provider_tables_name_registered_rules() -> None:
    tables = [*CONTEXT_RULES.values(), *FIELD_RULES.values()]
    assert tables and all(codes <= set(RULES) for codes in tables)


def test_declaring_a_code_twice_raises() -> None:
    before = dict(RULES)
    with pytest.raises(ValueError, match="TS004 is declared twice"):
        rule("TS004", Severity.ERROR, "TServer", "again", origin="seed")
    with pytest.raises(ValueError, match="not T<kind letter>"):
        rule("TQ001", Severity.ERROR, "TServer", "unknown kind letter", origin="seed")
    from tars_components.kernel.registry import registered

    assert registered() == before


def test_rule_at_locates_the_violation() -> None:
    from tars_components.loading.load import load_texts
    from tars_components.loading.schema_rules import TS014
    from tars_components.rules.tserver_ports import TS004

    stack = load_texts({"s.yaml": _SERVER})
    server = stack.servers[0]
    found = TS004.at(server, ("spec", "tars", "servants", 0, "port"), "taken")
    assert (found.code, found.severity, found.kind, found.name) == (
        "TS004",
        Severity.ERROR,
        "TServer",
        "a-b",
    )
    assert (found.file, found.line, found.field) == ("s.yaml", 13, "spec.tars.servants[0].port")
    assert TS014.at(server, "metadata.name", "x", Severity.WARNING).severity is Severity.WARNING


_SERVER = """\
apiVersion: k8s.tars.io/v1beta3
kind: TServer
metadata:
  name: a-b
spec:
  app: A
  server: B
  subType: tars
  tars:
    template: tars.cpp
    profile: ""
    servants:
      - {name: MainObj, port: 10000}
  k8s:
    replicas: 1
"""


def test_only_a_rule_declared_also_warning_is_ever_reported_as_a_warning() -> None:
    from tars_components.kernel.registry import ERROR, WARNING

    also = {code for code, r in RULES.items() if r.also_warning}
    assert also == {"TS014", "TV001"}
    assert all(RULES[code].severity is ERROR for code in also)
    kwargs = {"kind": "TServer", "namespace": "ns", "name": "n", "field": "spec", "message": "m"}
    assert RULES["TS014"].violation(**kwargs, severity=WARNING).severity is WARNING
    with pytest.raises(ValueError, match="TS004 is declared error"):
        RULES["TS004"].violation(**kwargs, severity=WARNING)
