"""Builders and assertions of the rule tests: documents without a namespace, a stack rendered and
loaded, and the one violation a case expects."""

from __future__ import annotations

from typing import Any

import yaml

import support.builders.documents as helpers
from tars_components.kernel.errors import Severity, Violation
from tars_components.loading.document_set import DocumentSet
from tars_components.loading.load import load_texts
from tars_components.rules import validate

NS = "tars-dev"

FILE = "stack.yaml"

Doc = dict[str, Any]


def tars_server(app: str = "Test", server: str = "DemoTest", **k8s: Any) -> Doc:
    """A valid Tars TServer (template tars.cpp, one servant) with extra ``spec.k8s`` fields,
    in the stack namespace (no ``metadata.namespace``)."""
    return _without_namespace(helpers.tars_server(app, server, **k8s))


def normal_server(app: str = "Test", server: str = "Web", **k8s: Any) -> Doc:
    """A valid normal TServer with one port ``http:8080``, in the stack namespace."""
    return _without_namespace(helpers.normal_server(app, server, **k8s))


def _without_namespace(doc: Doc) -> Doc:
    del doc["metadata"]["namespace"]
    return doc


def template(name: str, parent: str | None = None) -> Doc:
    """A TTemplate; ``parent`` defaults to the template itself (a root)."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TTemplate",
        "metadata": {"name": name},
        "spec": {"content": "<tars></tars>", "parent": parent or name},
    }


def framework(name: str = "tars-framework", namespace: str | None = None) -> Doc:
    """A valid v1beta3 TFrameworkConfig."""
    metadata: Doc = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TFrameworkConfig",
        "metadata": metadata,
        "imageBuild": {"executor": {"image": "registry.local/tars.tarskaniko:v1"}},
        "imageUpload": {"registry": "registry.local/upload"},
        "nodeImage": {"image": "registry.local/tars.tarsnode:v1"},
    }


def base_docs() -> list[Doc]:
    """The framework config, the templates tars.default and tars.cpp: what servers need."""
    return [framework(), template("tars.default"), template("tars.cpp", "tars.default")]


def render(*docs: Doc) -> str:
    """YAML text of the documents, keys in insertion order."""
    return yaml.safe_dump_all(docs, sort_keys=False)


def load(text: str, file: str = FILE) -> DocumentSet:
    """The stack of one file, namespace tars-dev."""
    return load_texts({file: text}, namespace=NS)


def check(*docs: Doc) -> tuple[str, list[Violation]]:
    """``(text, violations)`` of the documents after :func:`base_docs`, in one file."""
    text = render(*base_docs(), *docs)
    return text, validate(load(text))


def only(violations: list[Violation], code: str) -> list[Violation]:
    """The violations with one code."""
    return [v for v in violations if v.code == code]


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line containing ``needle``."""
    lines = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return lines[occurrence - 1]


def assert_one(
    violations: list[Violation],
    code: str,
    field: str,
    line: int | None,
    severity: Severity = Severity.ERROR,
    name: str | None = None,
) -> Violation:
    """Exactly one violation of ``code``, at ``field``/``line`` with the given severity."""
    found = only(violations, code)
    assert len(found) == 1, [v.format() for v in violations]
    v = found[0]
    assert (v.severity, v.field, v.line) == (severity, field, line), v.format()
    if line is not None:
        assert v.file == FILE
    if name is not None:
        assert v.name == name
    return v
