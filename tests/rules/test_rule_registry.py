"""The rule registry: every code is declared once, in ``rules/`` or (the loader's own) in
``loading/``, reported from there only, and named by a test; every check is registered with
what it needs; the provider's tables are read from the rules' declarations."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tars_components.kernel.errors import Severity
from tars_components.kernel.registry import (
    STACK_ONLY,
    WITH_OPTIONS,
    WITH_PREVIOUS,
    WITH_PREVIOUS_AND_OPTIONS,
    check,
    code_order,
    registered_checks,
    rule,
)
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


def test_provider_tables_are_the_rules_declarations() -> None:
    """What the validation resource holds back while a fact or a field is unknown is what the
    rules declare they read."""
    assert {
        "templates": {"TS010", "TT002", "TT004"},
        "frameworkNodeImage": {"TS020"},
        "serverNames": {"TS017"},
        "configMaster": {"TC002"},
    } == CONTEXT_RULES
    assert FIELD_RULES["spec.tars.servants.*.name"] == {"TS011", "TS024"}
    assert FIELD_RULES["metadata.name"] == {"TS016", "TS017"}
    assert FIELD_RULES["spec.subType"] == {"TS014"}
    with pytest.raises(ValueError, match="reads facts \\['weather'\\]"):
        rule("TS999", Severity.ERROR, "TServer", "unknown fact", origin="seed", facts=("weather",))


def test_every_check_is_registered_with_what_it_needs() -> None:
    """The checks are one walk of the registry: each public check function of ``rules/`` is
    registered, and each registration needs the stack alone, the options, the previous stack
    or both."""
    checks = {c.name: c.needs for c in registered_checks()}
    assert set(checks.values()) <= {
        STACK_ONLY,
        WITH_OPTIONS,
        WITH_PREVIOUS,
        WITH_PREVIOUS_AND_OPTIONS,
    }
    expected = {
        "tars_components.rules.tserver.check_servers": STACK_ONLY,
        "tars_components.rules.change.server_and_template_changes": WITH_PREVIOUS,
        "tars_components.rules.layout.layout_violations": WITH_OPTIONS,
        "tars_components.rules.crd_mode.crd_mode_violations": WITH_OPTIONS,
        "tars_components.rules.storage.storage_violations": WITH_PREVIOUS_AND_OPTIONS,
    }
    assert {name: checks.get(name) for name in expected} == expected
    decorated = {
        f"tars_components.rules.{path.stem}.{node.name}"
        for path, tree in _modules(PACKAGE / "rules")
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(ast.unparse(d).startswith("check(") for d in node.decorator_list)
    }
    assert decorated == set(checks)
    with pytest.raises(ValueError, match="registered twice"):
        check()(registered_checks()[0].function)


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
    assert also == {"TS014", "TV001", "TM011"}
    assert all(RULES[code].severity is ERROR for code in also)
    kwargs = {"kind": "TServer", "namespace": "ns", "name": "n", "field": "spec", "message": "m"}
    assert RULES["TS014"].violation(**kwargs, severity=WARNING).severity is WARNING
    with pytest.raises(ValueError, match="TS004 is declared error"):
        RULES["TS004"].violation(**kwargs, severity=WARNING)
