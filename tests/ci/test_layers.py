"""Imports only go down the layers: a module may import its own layer and the layers below,
never one above (imports under ``if TYPE_CHECKING:`` excepted: they do not run). Every module
of the package must have a layer, so a new module is placed on purpose."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tars_components"

LAYERS: tuple[tuple[str, ...], ...] = (
    # text, paths, errors and the other leaves: no domain knowledge
    (
        "text",
        "paths",
        "errors",
        "lazy",
        "limits",
        "yaml_reader",
        "yaml_writer",
        "redaction",
        "secrets",
        "batch",
        "deprecation",
        "version",
    ),
    ("models", "options"),
    # the registry and the rules the loader reports (the package __init__ imports lazily)
    ("rules.registry", "rules.schema", "rules.__init__"),
    ("loading", "legacy", "helmlib", "tdeploy", "rollout", "document_set"),
    ("mutation",),
    ("rules",),
    ("expansion",),
    (
        "pipeline",
        "diff",
        "render",
        "tree_writer",
        "account_salts",
        "convert",
        "importer",
        "import_plan",
        "schema",
        "crds",
        "platform",
    ),
    ("multicluster", "karmada"),
    ("cli", "config", "__main__"),
    ("components", "provider", "__init__"),
    ("polyglot",),
)
"""Lowest first. An entry names a module, or a package and everything in it; the longest
entry that matches a module wins (``rules.schema`` over ``rules``)."""


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


def _layer(module: str) -> int:
    best: tuple[int, int] | None = None
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            matches = module == entry or module.startswith(f"{entry}.")
            if matches and (best is None or len(entry) > best[0]):
                best = (len(entry), index)
    assert best is not None, f"tars_components.{module} has no layer in LAYERS"
    return best[1]


def _runtime_imports(tree: ast.Module) -> Iterator[ast.ImportFrom | ast.Import]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped:
            yield node


def _targets(module: str, is_package: bool, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """``(line, imported module relative to the package)`` of every runtime import."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if module == "__init__":
        package = []
    for node in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tars_components."):
                    yield node.lineno, alias.name.removeprefix("tars_components.")
            continue
        if node.level == 0:
            if node.module and node.module.startswith("tars_components."):
                yield node.lineno, node.module.removeprefix("tars_components.")
            continue
        base = package[: len(package) - (node.level - 1)]
        if node.module:
            yield node.lineno, ".".join([*base, node.module])
        else:
            for alias in node.names:
                yield node.lineno, ".".join([*base, alias.name])


def test_imports_only_go_down() -> None:
    upward: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        is_package = path.name == "__init__.py"
        if is_package and module != "__init__":
            module = module.removesuffix(".__init__")
            own = _layer(f"{module}.__init__") if module == "rules" else _layer(module)
        else:
            own = _layer(module)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, target in _targets(module, is_package, tree):
            if target and _layer(target) > own:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {target}")
    assert upward == []


def test_the_layer_test_sees_an_upward_import() -> None:
    tree = ast.parse("from ..rules import validate\nfrom .documents import identify\n")
    found = [target for _, target in _targets("loading.load", False, tree)]
    assert found == ["rules", "loading.documents"]
    assert _layer("rules") > _layer("loading.load") == _layer("loading.documents")
    assert _layer("rules.schema") < _layer("loading") < _layer("rules.tserver.ports")
