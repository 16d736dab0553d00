"""Rules about the output rather than one document: two objects rendered to one file name
(TS026, TT008, TF004, TX004) and the kinds expand mode cannot render (TX001).

The file layout itself is the expansion's (:mod:`tars_components.rules.layout`); it finds
the collisions and reports them through :func:`file_collision`.
"""

from __future__ import annotations

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, Need, Subject, check, rule
from ..loading.document_set import DocumentSet
from ..models import TConfigDocument
from ..settings.options import Mode, Options
from .taccount import unresolved_credentials
from .tframework import unresolved_expand

TS026 = rule(
    "TS026",
    ERROR,
    "TServer",
    "no two TServers' objects share an output file name (render's file layout)",
    origin="tars-components",
)
TT008 = rule(
    "TT008",
    ERROR,
    "TTemplate",
    "crd mode: no two TTemplates share an output file name (e.g. b-c in namespace a and c in "
    "namespace a-b)",
    origin="tars-components",
)
TF004 = rule(
    "TF004",
    ERROR,
    "TFrameworkConfig",
    "crd mode: no two TFrameworkConfigs share an output file name",
    origin="tars-components",
)
TX004 = rule(
    "TX004",
    ERROR,
    "any",
    "no two objects share an output file name (TConfig, TImage, TTree, TAccount and plain "
    "objects; e.g. b-c in namespace a and c in namespace a-b)",
    origin="tars-components",
)

_COLLISION_RULES = {"TServer": TS026, "TTemplate": TT008, "TFrameworkConfig": TF004}
"""The collision rule of each kind; TX004 for TConfig, TImage, TTree, TAccount and plain
objects."""


def file_collision(item: Subject, first: Subject, path: str) -> Violation:
    """``item`` renders to the file ``path`` that ``first`` (another object) already takes."""
    return _COLLISION_RULES.get(item.kind, TX004).at(
        item,
        "metadata.name",
        f"{item.kind} {item.namespace}/{item.name} renders to the same "
        f"file as {first.kind} {first.namespace}/{first.name} ({path}); rename one of "
        "them",
    )


TX001 = rule(
    "TX001",
    WARNING,
    "TConfig, TImage, TTree, TAccount",
    "expand mode has no controller for these kinds: they are skipped (one warning per kind)",
    origin="tars-components",
)


def expand_mode_warnings(stack: DocumentSet) -> list[Violation]:
    """TX001 once per wave-2 kind present: expand mode emits no object for it."""
    found: list[Violation] = []
    for docs in (stack.configs, stack.images, stack.trees, stack.accounts):
        if docs:
            first = docs[0]
            hint = (
                " (--tconfig-configmaps renders TConfigs as ConfigMaps)"
                if isinstance(first, TConfigDocument)
                else ""
            )
            found.append(
                TX001.at(
                    first,
                    "kind",
                    f"{len(docs)} {first.kind} object(s) skipped: expand mode has no TarsK8S "
                    f"controller to read them; use --mode crd{hint}",
                )
            )
    return found


@check(Need.OPTIONS)
def kind_violations(stack: DocumentSet, options: Options) -> list[Violation]:
    """What the output mode says about the wave-2 kinds: TA006 and TF006 (crd mode,
    credentials and ``expand`` values from Pulumi config secrets), TX001 (expand mode skips
    them)."""
    if options.mode == Mode.CRD:
        return [*unresolved_credentials(stack), *unresolved_expand(stack)]
    return expand_mode_warnings(stack)


__all__ = ["expand_mode_warnings", "file_collision"]
