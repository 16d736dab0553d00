"""Each stage runs from one place (docs/development.md, "The map"): the functions of the
override, rollout and mutation stages are imported only by ``tars_components.stages``, which
composes them in their fixed order, and a cluster's documents (``stages.for_cluster``) only by
the pipeline's one run for every target; everything else (expansion, the jobs, the
components) takes what the run, :func:`tars_components.stages.prepare` or ``prepare_server``
returns.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "tars_components"

STAGES = {
    "mutation": {"mutate", "mutate_server", "mutate_template", "mutate_workloads"},
    "mutation.tserver": {"mutate_server"},
    "mutation.ttemplate": {"mutate_template"},
    "stages.rollouts": {"apply_rollouts", "rolled_out"},
    "stages.overrides": {"cluster_stack", "apply_fields"},
    "stages.running": {"with_running"},
    "stages": {"for_cluster", "with_running"},
}
"""The stage functions, by the module they are imported from."""

RUNS_TARGETS = {"for_cluster": "pipeline", "with_running": "pipeline"}
"""Stages the one run for every target calls (and only it): by name, the room allowed."""

ALLOWED = {
    "stages": "composes the stages",
    "mutation": "the webhook itself",
    "__init__": "the public mutate(), the webhook as a function",
    "provider.verdicts": "answers what the webhook admits for one document of any kind",
    "expansion.crd": "the target version's defaults after a conversion, part of converting",
}
"""Importers allowed, and why: a module of one of these rooms or one of these modules."""


def _imports(path: Path) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of each ``from ... import name`` of the package."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    package = list(parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 0:
            if not (node.module or "").startswith("tars_components."):
                continue
            module = (node.module or "").removeprefix("tars_components.")
        else:
            base = package[: len(package) - (node.level - 1)]
            module = ".".join([*base, *([node.module] if node.module else [])])
        found.extend((node.lineno, module, alias.name) for alias in node.names)
    return found


def _allowed(importer: str) -> bool:
    return any(importer == a or importer.startswith(f"{a}.") for a in ALLOWED)


def test_only_the_stages_run_a_stage() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        importer = ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)
        for line, module, name in _imports(path):
            if _allowed(importer) or importer.split(".")[0] == RUNS_TARGETS.get(name):
                continue
            if name in STAGES.get(module, set()):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module}.{name}")
    assert not offenders, "a stage run outside tars_components.stages:\n" + "\n".join(offenders)
