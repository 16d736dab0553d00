"""Field ownership (TO…, docs/concepts/ownership.md): the server annotation that hands
fields to another manager is well formed (TO001), and in expand mode the fields it names have a
place of their own in the objects (TO002)."""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..models.live import LiveState
from ..models.ownership import (
    ANNOTATION,
    FieldOwnership,
    Ownership,
    display_name,
    object_paths,
    server_ownership,
)
from ..settings.options import Mode, Options
from .common import unreadable_annotations

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
    return unreadable_annotations(stack, ANNOTATION, FieldOwnership.parse, TO001)


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


TO003 = rule(
    "TO003",
    ERROR,
    "TServer",
    "a HorizontalPodAutoscaler in the cluster scales a server whose replicas the stack "
    "manages (read at preview)",
    origin="tars-components",
)


def autoscaled_violations(
    stack: DocumentSet, live: LiveState, options: Options, kind: str
) -> Iterator[Violation]:
    """TO003 for each TServer that a live HPA scales (its ``kind`` object is the HPA's
    target) while its replicas are ``managed``: every ``up`` would set the stack's count
    back, against the HPA, and conflict with the manager that scaled it."""
    for server in stack.servers:
        hpa = live.autoscaler_of(kind, server.namespace, server.name)
        owned = server_ownership(server.annotations, options.field_ownership).of("k8s.replicas")
        if hpa is None or owned is not Ownership.MANAGED or server.spec.k8s.daemon_set:
            continue
        running = live.replicas(kind, (server.namespace, server.name))
        yield TO003.at(
            server,
            ("spec", "k8s", "replicas"),
            f"HorizontalPodAutoscaler {hpa} scales {kind} {server.name} ({running} replica(s) "
            f"live) while the stack manages replicas ({server.spec.k8s.replicas}): hand the "
            "count to it with replicas=external in tars:fieldOwnership or the server's "
            "tars-components.io/field-ownership annotation (TServerAutoscaler does so)",
        )


def check_ownership(stack: DocumentSet, options: Options) -> list[Violation]:
    """Every TO violation of a stack for this output."""
    return [*annotation_violations(stack), *expand_mode_violations(stack, options)]


__all__ = [
    "annotation_violations",
    "autoscaled_violations",
    "check_ownership",
    "expand_mode_violations",
]
