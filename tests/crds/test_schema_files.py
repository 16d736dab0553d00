"""``tars-components schema``: the editor schemas accept every stack file of the repository
and refuse what ``validate`` refuses."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource
from support.assertions.crd_schema import HAN
from support.engines.cli import run

from tars_components.crds.editor_schema import STACK_SCHEMA, schema_files

ROOT = Path(__file__).resolve().parents[2]
STACK_FILES = sorted(
    p
    for pattern in ("stacks/**/*.y*ml", "tests/data/corpus/**/*.y*ml")
    for p in ROOT.glob(pattern)
    if p.suffix in (".yaml", ".yml")
)


@cache
def _validator() -> jsonschema.protocols.Validator:
    # Python's re has no \p{Han} (JavaScript's, which editors use, has): the CJK ranges
    escaped = json.dumps(HAN)[1:-1]
    files = {
        name: json.loads(text.replace("\\p{Han}", escaped)) for name, text in schema_files().items()
    }
    registry: Registry = Registry().with_resources(
        (name, Resource.from_contents(schema)) for name, schema in files.items()
    )
    return jsonschema.Draft7Validator(files[STACK_SCHEMA], registry=registry)


def _errors(doc: dict[str, Any]) -> list[str]:
    return sorted(e.message for e in _validator().iter_errors(doc))


def test_every_kind_and_version_has_a_schema() -> None:
    names = set(schema_files())
    for kind in ("tserver", "ttemplate", "tframeworkconfig", "tconfig", "timage", "ttree"):
        assert {f"{kind}.v1beta2.json", f"{kind}.v1beta3.json"} <= names
    assert {"taccount.v1beta3.json", STACK_SCHEMA} <= names
    assert schema_files() == schema_files()  # byte-stable


@pytest.mark.parametrize("path", STACK_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_stack_file_of_the_repository_is_valid(path: Path) -> None:
    validator = _validator()
    for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if doc:
            errors = sorted(e.message for e in validator.iter_errors(doc))
            assert errors == [], (doc.get("kind"), doc.get("metadata"))


def test_the_schemas_refuse_what_validate_refuses() -> None:
    server = yaml.safe_load((ROOT / "stacks/dev/20-shop-order.yaml").read_text())
    assert server["kind"] == "TServer" and _errors(server) == []
    assert _errors({**server, "spec": {**server["spec"], "subType": "odd"}})
    assert _errors({**server, "spec": {**server["spec"], "surprise": 1}})
    v1beta2 = {**server, "apiVersion": "k8s.tars.io/v1beta2"}
    k8s = {**server["spec"]["k8s"], "readinessGates": ["x"]}
    assert _errors({**v1beta2, "spec": {**server["spec"], "k8s": k8s}})  # v1beta3 only
    config = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TConfig",
        "metadata": {"name": "c"},
        "app": "Shop",
        "configName": "a.conf",
        "configContent": "",
    }
    assert _errors(config) == []
    assert _errors({**config, "podSeq": "x"})
    account = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TAccount",
        "metadata": {"name": "21232f297a57a5a743894a0e4a801fc3"},
        "spec": {
            "username": "admin",
            "authentication": {"password": {"configSecret": "adminPassword"}},
            "authorization": [{"role": "admin", "flag": "*"}],
        },
    }
    assert _errors(account) == []
    assert _errors({**account, "spec": {**account["spec"], "authorization": [{"role": "x"}]}})
    plain = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {}}
    assert _errors(plain) == []


def test_cli_writes_the_schemas(tmp_path: Path) -> None:
    result = run("schema", "--out", str(tmp_path / "schemas"))
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "schemas").iterdir())
    assert written == sorted(schema_files())
    assert (tmp_path / "schemas" / STACK_SCHEMA).read_text() == schema_files()[STACK_SCHEMA]


def test_an_export_is_valid_too() -> None:
    from support.builders.export import namespace_export

    for item in namespace_export()["items"]:
        if item["kind"] != "TEndpoint":
            assert _errors(item) == [], item["kind"]
    tree = next(i for i in namespace_export()["items"] if i["kind"] == "TTree")
    tree["businesses"][0]["name"] = "业务甲"
    assert _errors(tree) == []
    tree["businesses"][0]["name"] = "x"
    assert _errors(tree)
