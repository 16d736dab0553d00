"""TTree rules that look at one stack (docs/rules/index.md, docs/concepts/ownership.md).

TR001/TR002 are create rules: the tree is named ``tars-tree`` and there is one. TR003/TR004
refuse duplicate business and app names. TR005 (a ``businessRef`` naming no business) is a
warning: the webhook blanks such a reference (M-TR1) before validating. TR009 warns when a
TServer's app is missing from the tree, which the controller then appends (so the live tree
drifts from the declared one). TR008 (the CRD schema) is reported by the loader; TR006 and
TR007 compare versions and live in :mod:`.change`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..models import TREE_NAME, TTreeDocument
from .common import by_key, key_of, keys_present, repeats

TR002 = rule(
    "TR002", ERROR, "TTree", "one tars-tree per namespace", origin="controller", create_only=True
)


@check()
def check_trees(stack: DocumentSet) -> Iterator[Violation]:
    """Every one-stack TTree rule (TR001-TR005, TR009)."""
    for tree in stack.trees:
        yield from _named(tree)
        yield from _unique_businesses(tree)
        yield from _unique_apps(tree)
        yield from _business_refs(tree)
    named = [t for t in stack.trees if t.name == TREE_NAME]
    for later, _ in repeats(named, lambda t: t.namespace):
        yield TR002.at(
            later,
            "metadata.name",
            f"TTree {TREE_NAME} already exists in namespace {later.namespace}",
        )
    yield from _servers_in_tree(stack, named)


TR001 = rule(
    "TR001", ERROR, "TTree", "the TTree is named tars-tree", origin="controller", create_only=True
)


def _named(tree: TTreeDocument) -> Iterator[Violation]:
    """TR001."""
    if tree.name != TREE_NAME:
        yield TR001.at(
            tree,
            "metadata.name",
            f"a TTree must be named {TREE_NAME} (TarsK8S refuses to create any other)",
        )


TR003 = rule("TR003", ERROR, "TTree", "business names are unique", origin="controller")


def _unique_businesses(tree: TTreeDocument) -> Iterator[Violation]:
    """TR003."""
    indexed = list(enumerate(tree.businesses))
    for (i, business), _ in repeats(indexed, lambda item: item[1].name):
        yield TR003.at(tree, ("businesses", i, "name"), f"business {business.name} is duplicated")


TR004 = rule("TR004", ERROR, "TTree", "app names are unique", origin="controller")


def _unique_apps(tree: TTreeDocument) -> Iterator[Violation]:
    """TR004."""
    indexed = list(enumerate(tree.apps))
    for (i, app), _ in repeats(indexed, lambda item: item[1].name):
        yield TR004.at(tree, ("apps", i, "name"), f"app {app.name} is duplicated")


TR005 = rule(
    "TR005",
    WARNING,
    "TTree",
    "an app's businessRef names a business (else the webhook blanks it)",
    origin="controller",
)


def _business_refs(tree: TTreeDocument) -> Iterator[Violation]:
    """TR005 (warning)."""
    names = {b.name for b in tree.businesses}
    for i, app in enumerate(tree.apps):
        if app.business_ref and app.business_ref not in names:
            yield TR005.at(
                tree,
                ("apps", i, "businessRef"),
                f'business {app.business_ref} does not exist: the webhook sets businessRef to ""',
            )


TR009 = rule(
    "TR009",
    WARNING,
    "TTree",
    "a TServer's app is listed in tars-tree (the controller appends it otherwise)",
    origin="tars-components",
)


def _servers_in_tree(stack: DocumentSet, trees: list[TTreeDocument]) -> Iterator[Violation]:
    """TR009 (warning): the controller appends every TServer app missing from the tree."""
    by_namespace = {t.namespace: t for t in reversed(trees)}
    reported: set[tuple[str, str]] = set()
    for server in stack.servers:
        tree = by_namespace.get(server.namespace)
        key = (server.namespace, server.spec.app)
        if tree is None or key in reported:
            continue
        if server.spec.app not in {a.name for a in tree.apps}:
            reported.add(key)
            yield TR009.at(
                server,
                "spec.app",
                f"app {server.spec.app} is not in TTree {tree.name}: the controller appends "
                "it, so the live tree differs from the declared one; add it to apps",
            )


# --- changes (compared with the previous stack) ---------------------------------------------


TR006 = rule(
    "TR006",
    ERROR,
    "TTree",
    "an app is not removed from the tree while TServers of that app exist",
    origin="controller",
    change=True,
)


def _apps_removed(
    old: TTreeDocument, new: TTreeDocument, current: DocumentSet
) -> Iterator[Violation]:
    """TR006."""
    kept = {a.name for a in new.apps}
    for app in old.apps:
        if app.name not in kept and (new.namespace, app.name) in current.server_apps:
            yield TR006.at(
                new,
                "apps",
                f"app {app.name} is removed from the tree but TServers of app {app.name} "
                "still exist",
            )


TR007 = rule(
    "TR007", ERROR, "TTree", "tars-tree is never deleted", origin="controller", change=True
)


@check(Need.PREVIOUS)
def tree_changes(previous: DocumentSet, current: DocumentSet) -> Iterator[Violation]:
    """The TTree change rules: apps still used are not removed (TR006), tars-tree is never
    deleted (TR007)."""
    before = by_key(previous.documents)
    now = keys_present(current)
    for tree in current.trees:
        old = before.get(key_of(tree))
        if isinstance(old, TTreeDocument):
            yield from _apps_removed(old, tree, current)
    for tree in previous.trees:
        if tree.name == TREE_NAME and key_of(tree) not in now:
            yield TR007.at(
                tree,
                "metadata.name",
                f"TTree {tree.name} is removed: only the TarsK8S controller may delete it",
            )
