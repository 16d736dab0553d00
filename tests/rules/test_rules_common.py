"""The rules' cross-cutting behaviour: loader codes, report order, mutation invariance, the
acceptance example and the catalogue.

The builders of the rule tests are in ``tests/support/builders/rules.py``.
"""

from __future__ import annotations

from pathlib import Path

from support.builders.documents import DROP, edited
from support.builders.rules import (
    NS,
    assert_one,
    base_docs,
    check,
    framework,
    line_of,
    load,
    normal_server,
    only,
    render,
    tars_server,
    template,
)

from tars_components.kernel.errors import Severity
from tars_components.loading.document_set import DocumentSet
from tars_components.loading.load import load_texts
from tars_components.mutation import mutate
from tars_components.rules import RULES, validate

ROOT = Path(__file__).resolve().parents[2]


# --- builders -----------------------------------------------------------------------------


# --- cross-cutting tests ------------------------------------------------------------------


def test_valid_stack_has_no_violation() -> None:
    _, violations = check(tars_server(), normal_server())
    assert violations == []


ACCEPTANCE = """\
apiVersion: k8s.tars.io/v1beta3
kind: TTemplate
metadata:
  name: tars.cpp
spec:
  content: ""
  parent: tars.cpp
---
apiVersion: k8s.tars.io/v1beta3
kind: TServer
metadata:
  name: test-demotest
spec:
  app: Test
  server: DemoTest
  subType: tars
  tars:
    template: tars.cpp
    servants:
      - name: DemoTest1Obj
        port: 10001
      - name: DemoTest2Obj
        port: 10001
  k8s:
    replicas: 1
"""


def test_acceptance_duplicate_port_line() -> None:
    violations = validate(load(ACCEPTANCE, "stacks/dev/demo.yaml"))
    line = line_of(ACCEPTANCE, "port: 10001", 2)
    assert line == 23
    assert [v.format() for v in violations] == [
        f"stacks/dev/demo.yaml:{line}: TS004 error TServer tars-dev/test-demotest "
        "spec.tars.servants[1].port: port 10001 is already used by servant DemoTest1Obj"
    ]


def test_validate_reports_loader_schema_violations() -> None:
    server = edited(tars_server(), spec__k8s__replicas="two")
    text, violations = check(server)
    assert_one(violations, "TS021", "spec.k8s.replicas", line_of(text, "replicas: two"))


def test_report_order_is_file_then_line() -> None:
    first = edited(tars_server(), spec__k8s__hostPorts=[{"nameRef": "nothing", "port": 1}])
    second = edited(normal_server(), metadata__name="wrong")
    violations = validate(
        load_texts({"b.yaml": render(second), "a.yaml": render(*base_docs(), first)}, NS)
    )
    assert [(v.file, v.code) for v in violations] == [("a.yaml", "TS011"), ("b.yaml", "TS016")]


def test_same_violation_is_reported_once() -> None:
    stack = load(render(*base_docs(), edited(tars_server(), metadata__name="x")))
    doubled = DocumentSet(
        namespace=stack.namespace,
        documents=stack.documents + stack.documents,
        violations=stack.violations,
        rejected=stack.rejected,
    )
    assert len(only(validate(doubled), "TS016")) == 1


def _violating_stack() -> DocumentSet:
    """One stack that breaks many rules, including those that mutation touches."""
    servers = [
        edited(
            tars_server(),
            metadata__annotations={"tars.io/MinReplicas": "5", "tars.io/MaxReplicas": "3"},
            spec__k8s__hostPorts=[{"nameRef": "nothing", "port": 1}],
            spec__k8s__hostIPC=True,
        ),
        edited(tars_server("Test", "NoNode"), spec__release={"id": "v1", "image": "i"}),
        edited(normal_server(), spec__k8s__daemonSet=True, spec__release=DROP),
        edited(
            normal_server("Test", "Gate"),
            spec__k8s__readinessGates=["a.b/c", "a.b/c"],
            spec__release={"id": "v1", "image": "i", "nodeImage": "n"},
        ),
    ]
    docs = [template("tars.cpp", "missing"), framework("other"), *servers]
    return load(render(*docs))


def test_validate_is_the_same_after_mutation() -> None:
    stack = _violating_stack()
    before = validate(stack)
    assert {"TS011", "TS019", "TS020", "TS023", "TT002", "TF002"} <= {v.code for v in before}
    assert validate(mutate(stack)) == before


def test_validate_is_the_same_after_mutation_with_framework() -> None:
    stack = load(render(*base_docs(), tars_server(), normal_server()))
    mutated = mutate(stack)
    release = mutated.servers[0].spec.release
    assert release is not None and release.node_image  # mutation did fill it
    assert validate(mutated) == validate(stack) == []


def test_rules_cover_every_code_with_a_known_origin() -> None:
    expected = {f"TS{n:03d}" for n in range(1, 22)} | {f"TS{n:03d}" for n in range(23, 27)}
    expected |= {f"TT{n:03d}" for n in range(1, 9)} | {f"TF{n:03d}" for n in range(1, 7)}
    expected |= {f"TC{n:03d}" for n in range(1, 14)} | {f"TI{n:03d}" for n in range(1, 5)}
    expected |= {f"TR{n:03d}" for n in range(1, 10)} | {f"TA{n:03d}" for n in range(1, 7)}
    expected |= {"TX001", "TX002", "TX003", "TX004", "TX005", "TX006"}
    expected |= {"TH001"} | {f"TD{n:03d}" for n in range(1, 9)}
    expected |= {f"TM{n:03d}" for n in range(1, 12)}
    expected |= {"TO001", "TO002", "TO003"} | {f"TP{n:03d}" for n in range(1, 25)}
    expected |= {f"TV{n:03d}" for n in range(1, 8)}  # storage changes, all TServer
    assert set(RULES) == expected
    kinds = {
        "TS": "TServer",
        "TT": "TTemplate",
        "TF": "TFrameworkConfig",
        "TC": "TConfig",
        "TI": "TImage",
        "TR": "TTree",
        "TA": "TAccount",
        "TD": "TDeploy",
        "TV": "TServer",
    }
    for code, rule in RULES.items():
        assert rule.code == code
        assert rule.origin in ("seed", "controller", "tars-components")
        if code[:2] in kinds:
            assert rule.kind == kinds[code[:2]]
    warnings = {code for code, rule in RULES.items() if rule.severity is Severity.WARNING}
    assert warnings == {
        "TS015",
        "TS023",
        "TS024",
        "TS025",
        "TF002",
        "TF006",
        "TC009",
        "TC012",
        "TI002",
        "TI003",
        "TR005",
        "TR009",
        "TA005",
        "TA006",
        "TX001",
        "TX002",
        "TH001",
        "TD004",
        "TD005",
        "TM006",
        "TM009",
        "TO002",
        "TP011",
        "TP012",
        "TP015",
        "TV003",
        "TV006",
        "TP016",
        "TP017",
        "TP018",
        "TP021",
    }
    assert {c for c, r in RULES.items() if r.change} == {
        "TS001",
        "TS002",
        "TT003",
        "TT005",
        "TC001",
        "TC003",
        "TC004",
        "TC007",
        "TC008",
        "TC009",
        "TR006",
        "TR007",
        "TD001",
        "TD002",
        "TD008",
        *(f"TV{n:03d}" for n in range(1, 8)),
        "TP016",
    }
    assert {c for c, r in RULES.items() if r.create_only} == {
        "TC002",
        "TC005",
        "TC006",
        "TR001",
        "TR002",
    }
