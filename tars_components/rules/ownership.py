"""Field ownership (TO…, docs/concepts/ownership.md): the server annotation that hands
fields to another manager is well formed (TO001), and in expand mode the fields it names have a
place of their own in the objects (TO002)."""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..models.ownership import (
    ANNOTATION,
    FieldOwnership,
    display_name,
    object_paths,
    server_ownership,
)
from ..secrets.redaction import quote
from ..settings.options import Mode, Options

TO001 = rule(
    "TO001",
    ERROR,
    "TServer",
    f"the {ANNOTATION} annotation is field=managed|initial|external entries naming TServer fields",
    origin="tars-components",
)


@check()
def annotation_violations(stack: DocumentSet) -> Iterator[Violation]:
    """TO001 for each TServer whose ownership annotation does not parse."""
    for server in stack.servers:
        raw = server.annotations.get(ANNOTATION)
        if raw is None:
            continue
        path = ("metadata", "annotations", ANNOTATION)
        try:
            FieldOwnership.parse(raw)
        except ValueError as exc:
            yield TO001.at(server, path, f"{quote(raw, path)}: {exc}")


TO002 = rule(
    "TO002",
    WARNING,
    "TServer",
    "expand mode: a field handed to another manager has a place of its own in the objects "
    "(only replicas has; the pod template is applied whole)",
    origin="tars-components",
)


@check(Need.OPTIONS)
def expand_mode_violations(stack: DocumentSet, options: Options) -> Iterator[Violation]:
    """TO002 for each TServer field not ``managed`` that expand mode cannot leave to another
    manager (every field but the replica count shapes the pod template)."""
    if options.mode != Mode.EXPAND:
        return
    for server in stack.servers:
        ownership = server_ownership(server.annotations, options.field_ownership)
        for field, owner in ownership.not_managed():
            if not object_paths("StatefulSet", field):
                yield TO002.at(
                    server,
                    ("spec", *field.split(".")),
                    f"{display_name(field)} is {owner} but expand mode applies it inside the "
                    "pod template, which Pulumi owns: the setting has no effect (use crd mode "
                    "to share the field with TarsWeb or a pipeline)",
                )


def check_ownership(stack: DocumentSet, options: Options) -> list[Violation]:
    """Every TO violation of a stack for this output."""
    return [*annotation_violations(stack), *expand_mode_violations(stack, options)]


__all__ = ["annotation_violations", "check_ownership", "expand_mode_violations"]
