"""TTemplate admission rules TT001, TT002, TT004 and TT007 (docs/rules/index.md).

TT003 and TT005 are about removing a template and live in :mod:`.change`; TT006 (the CRD
schema) and a missing or empty parent (TT001) are reported by the loader.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, FACT_TEMPLATES, check, rule
from ..loading.document_set import DocumentSet
from ..loading.schema_rules import TT001
from ..models import TTemplateDocument
from .common import same_names

TT007 = rule(
    "TT007",
    ERROR,
    "TTemplate",
    "one TTemplate per name in a namespace (a second would replace the first)",
    origin="tars-components",
)


@check()
def check_templates(stack: DocumentSet) -> Iterator[Violation]:
    """Every TTemplate rule of one stack (TT001, TT002, TT004, TT007)."""
    for template in stack.templates:
        yield from _parent_set(template)
        yield from _parent_exists(template, stack)
    yield from _parent_cycles(stack.templates)
    yield from same_names(stack.templates, TT007)


def _parent_set(template: TTemplateDocument) -> Iterator[Violation]:
    """TT001 for what the loader cannot see (models built in code without validation)."""
    if not template.spec.parent:
        yield TT001.at(template, "spec.parent", "must not be empty")


TT002 = rule(
    "TT002",
    ERROR,
    "TTemplate",
    "spec.parent is the template itself or a TTemplate of the namespace",
    origin="seed",
    facts=(FACT_TEMPLATES,),
)


def _parent_exists(template: TTemplateDocument, stack: DocumentSet) -> Iterator[Violation]:
    """TT002: a root names itself; any other parent must exist in the namespace."""
    parent = template.spec.parent
    if (
        parent
        and parent != template.name
        and parent not in stack.template_names(template.namespace)
    ):
        yield TT002.at(
            template,
            "spec.parent",
            f"parent TTemplate {parent} does not exist in namespace {template.namespace}",
        )


TT004 = rule(
    "TT004",
    ERROR,
    "TTemplate",
    "parent chains have no cycle",
    origin="seed",
    facts=(FACT_TEMPLATES,),
)


def _parent_cycles(templates: list[TTemplateDocument]) -> Iterator[Violation]:
    """TT004: once for every template on a parent cycle, at its spec.parent."""
    namespaces: dict[str, dict[str, TTemplateDocument]] = {}
    for template in templates:
        namespaces.setdefault(template.namespace, {}).setdefault(template.name, template)
    for by_name in namespaces.values():
        parents = {name: t.spec.parent for name, t in by_name.items()}
        for cycle in parent_cycles(parents):
            for i, name in enumerate(cycle):
                chain = [*cycle[i:], *cycle[:i], name]
                yield TT004.at(
                    by_name[name],
                    "spec.parent",
                    f"parent chain loops: {' -> '.join(chain)}",
                )


def parent_cycles(parents: Mapping[str, str]) -> list[list[str]]:
    """The cycles of a ``name -> parent`` map, each in chain order from the node where the
    walk entered it. A root (its own parent) and a missing parent end a chain."""
    done: set[str] = set()
    cycles: list[list[str]] = []
    for start in parents:
        path: list[str] = []
        position: dict[str, int] = {}
        node = start
        while node in parents and node not in done and node not in position:
            position[node] = len(path)
            path.append(node)
            if parents[node] == node:
                break
            node = parents[node]
        else:
            if node in position:
                cycles.append(path[position[node] :])
        done.update(path)
    return cycles
