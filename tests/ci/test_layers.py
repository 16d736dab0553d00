"""The package's rooms and the one direction of their imports (docs/development.md, "The map").

Each room (a folder of ``tars_components/``) has one floor; a module may import its own room
and the rooms below, never one above, and no two rooms (nor two folders of one room) import
each other, even through others. Every import counts, those under ``if TYPE_CHECKING:`` and
inside functions too: a cycle a type checker sees is a cycle a reader has to keep in mind. The
package root holds the public surface only (``__init__``, ``__main__``), on the top floor.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tars_components"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("secrets",),  # password hashing and redaction: imports nothing of the package
    ("kernel",),  # errors, field paths and their lines, the rule registry, limits, text
    ("fileio",),  # reading stack files, writing YAML
    ("kubeapi",),  # a cluster: kubeconfig, GET and LIST, the managedFields hand-over patch
    ("models",),  # the TarsK8S documents and the product's records
    ("settings",),  # the options a stack is built with
    ("loading",),  # files → a DocumentSet, with every source (helm-lib, TDeploy, Rollout, ...)
    ("mutation",),  # the mutating webhook: documents → documents
    ("rules",),  # the admission rules and this project's, and the one walk of their checks
    ("stages",),  # overrides, rollouts and mutation in one order: a checked stack → prepared
    ("expansion",),  # prepared TServer → Service and StatefulSet/DaemonSet, the other objects
    ("pipeline",),  # check and build: the one sequence of the stages
    ("diff",),  # two builds (or a build and a cluster) → changes
    ("jobs",),  # render, convert, import, clusters and Karmada, stack config
    ("crds",),  # the CustomResourceDefinitions and the editors' schemas
    ("platform",),  # the TarsK8S install: controller, framework, certificates
    ("provider",),  # the dynamic provider: the rules at preview
    ("components",),  # the Pulumi components
    ("polyglot",),  # the components for every Pulumi language
    ("cli",),  # the commands
    ("__init__", "__main__"),  # the package root: the public surface and the CLI's entry
)
"""Lowest first: one room (a folder of the package) per floor, the root's two modules on top.
An entry names a room and everything in it."""

ROOT_MODULES = {"__init__", "__main__"}
ROOMS = {entry for floor in LAYERS for entry in floor} - ROOT_MODULES


def _room(module: str) -> str:
    """The room of a module (its top folder), or the module itself at the package root."""
    return module.split(".")[0]


def _floor(module: str) -> int:
    room = _room(module)
    floors = [index for index, floor in enumerate(LAYERS) if room in floor]
    assert floors, f"tars_components.{module} has no floor in LAYERS"
    return floors[0]


def _module(path: Path) -> tuple[str, bool]:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        return ".".join(parts[:-1]), True
    return ".".join(parts), parts == ("__init__",)


def _targets(module: str, is_package: bool, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """``(line, imported module relative to the package)`` of every import of the package."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if module == "__init__":
        package = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tars_components."):
                    yield node.lineno, alias.name.removeprefix("tars_components.")
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if node.module and node.module.startswith("tars_components."):
                    yield node.lineno, node.module.removeprefix("tars_components.")
                elif node.module == "tars_components":
                    yield node.lineno, "__init__"
                continue
            base = package[: len(package) - (node.level - 1)]
            if node.module:
                yield node.lineno, ".".join([*base, node.module])
            else:
                for alias in node.names:
                    yield node.lineno, ".".join([*base, alias.name])


def _folder(module: str) -> str:
    """The folder (package) a module or package name lives in; ``""`` for the root."""
    parts = module.split(".")
    if PACKAGE.joinpath(*parts).is_dir():
        return module
    return ".".join(parts[:-1])


def _imports() -> Iterator[tuple[str, int, str, str]]:
    """``(file, line, importer, imported)`` for every import inside the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module, is_package = _module(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, target in _targets(module, is_package, tree):
            yield str(path.relative_to(ROOT)), line, module, target


def _upward(imports: Iterator[tuple[str, int, str, str]]) -> list[str]:
    found = []
    for file, line, module, target in imports:
        if _floor(target) > _floor(module):
            found.append(f"{file}:{line}: {module} imports {target}")
    return found


def _cycles(
    imports: Iterator[tuple[str, int, str, str]], key: Callable[[str], str]
) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for _, _, module, target in imports:
        source, dest = key(module), key(target)
        graph.setdefault(source, set())
        if source != dest:
            graph[source].add(dest)
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return [error.args[1]]
    return []


def test_imports_only_go_down() -> None:
    assert _upward(_imports()) == []


def test_no_rooms_import_each_other() -> None:
    assert _cycles(_imports(), _room) == []


def test_no_folders_import_each_other() -> None:
    assert _cycles(_imports(), _folder) == []


def test_the_root_holds_the_public_surface_only() -> None:
    root = {path.stem for path in PACKAGE.glob("*.py")}
    assert root == ROOT_MODULES
    rooms = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert rooms == ROOMS
    assert all(len(floor) == 1 for floor in LAYERS if not set(floor) <= ROOT_MODULES)


def test_the_layer_test_sees_an_upward_import_and_a_cycle() -> None:
    tree = ast.parse(
        "from ..rules import validate\nfrom .documents import identify\n"
        "if TYPE_CHECKING:\n    from ..jobs.render import Rendered\n"
    )
    found = [target for _, target in _targets("loading.load", False, tree)]
    assert found == ["rules", "loading.documents", "jobs.render"]
    upward = _upward(iter([("f", 1, "loading.load", target) for target in found]))
    assert upward == ["f:1: loading.load imports rules", "f:1: loading.load imports jobs.render"]
    pairs = [("a", 1, "rules.x", "loading.y"), ("b", 2, "loading.y", "rules.z")]
    assert _cycles(iter(pairs), _room) != []
