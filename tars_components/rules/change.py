"""Rules that compare two versions of a stack: TS001, TS002, TT003, TT005 (docs/rules/index.md).

Objects are matched by ``(kind, namespace, name)``. A changed TServer is reported at the field
of its current document; a removed TTemplate, which exists only in the previous stack, at the
``metadata.name`` of its previous document.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, Need, check, lookup, rule
from ..loading.document_set import DocumentSet
from ..models import TServerDocument, TTemplateDocument
from .common import by_key, key_of, keys_present

_IMMUTABLE = (("app", "app"), ("server", "server"), ("subType", "sub_type"))
_SECTIONS = ("tars", "normal")


@check(Need.PREVIOUS)
def server_and_template_changes(previous: DocumentSet, current: DocumentSet) -> Iterator[Violation]:
    """TS001, TS002 (a TServer's fixed fields and sections), TT003, TT005 (a removed TTemplate
    still in use)."""
    before = by_key(previous.documents)
    for server in current.servers:
        old = before.get(key_of(server))
        if isinstance(old, TServerDocument):
            yield from _immutable_fields(old, server)
            yield from _frozen_sections(old, server)
    for template in _removed_templates(previous, current):
        yield from _still_a_parent(template, current)
        yield from _still_used(template, current)


TS001 = rule(
    "TS001",
    ERROR,
    "TServer",
    "spec.app, spec.server and spec.subType never change",
    origin="seed",
    change=True,
)


def _immutable_fields(old: TServerDocument, new: TServerDocument) -> Iterator[Violation]:
    """TS001."""
    for field, attr in _IMMUTABLE:
        was, now = getattr(old.spec, attr), getattr(new.spec, attr)
        if was != now:
            yield TS001.at(new, ("spec", field), f"spec.{field} is immutable: was {was}, now {now}")


TS002 = rule(
    "TS002",
    ERROR,
    "TServer",
    "spec.tars and spec.normal are never added or removed",
    origin="seed",
    change=True,
)


def _frozen_sections(old: TServerDocument, new: TServerDocument) -> Iterator[Violation]:
    """TS002: the sections present when the server was created stay as they are."""
    for section in _SECTIONS:
        had = getattr(old.spec, section) is not None
        has = getattr(new.spec, section) is not None
        if had != has:
            change = "added" if has else "removed"
            yield TS002.at(
                new,
                ("spec", section),
                f"spec.{section} cannot be {change}: delete and recreate the TServer instead",
            )


def _removed_templates(previous: DocumentSet, current: DocumentSet) -> Iterator[TTemplateDocument]:
    for template in previous.templates:
        if template.name not in current.template_names(template.namespace):
            yield template


TT003 = rule(
    "TT003",
    ERROR,
    "TTemplate",
    "a removed TTemplate is no remaining template's parent",
    origin="seed",
    change=True,
)


def _still_a_parent(template: TTemplateDocument, current: DocumentSet) -> Iterator[Violation]:
    """TT003."""
    children = current.template_children(template.namespace, template.name)
    if children:
        yield TT003.at(
            template,
            "metadata.name",
            f"TTemplate {template.name} is removed but is still the parent of "
            f"{', '.join(children)}",
        )


TT005 = rule(
    "TT005",
    ERROR,
    "TTemplate",
    "a removed TTemplate is not named by a TServer's spec.tars.template",
    origin="controller",
    change=True,
)


def _still_used(template: TTemplateDocument, current: DocumentSet) -> Iterator[Violation]:
    """TT005."""
    users = current.template_servers(template.namespace, template.name)
    if users:
        yield TT005.at(
            template,
            "metadata.name",
            f"TTemplate {template.name} is removed but TServer {', '.join(users)} still uses it",
        )


def without_create_only(violations: Iterable[Violation], previous: DocumentSet) -> list[Violation]:
    """The violations minus those of create-only rules (TC002, TC005, TC006, TR001, TR002)
    about objects the previous stack already has: for them the change is an update."""
    existing = keys_present(previous)
    return [
        v
        for v in violations
        if not (
            (declared := lookup(v.code)) is not None
            and declared.create_only
            and (v.kind, v.namespace, v.name) in existing
        )
    ]
