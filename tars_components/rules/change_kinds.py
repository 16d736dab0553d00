"""Change rules of the wave-2 kinds (reference §6.3, §6.6, §7.1): TC001, TC003, TC004,
TC007, TC008, TC009, TR006, TR007, called by :func:`.change.validate_change`.

An update is a document of both stacks (same kind, namespace and name); a deletion is one of
the previous stack only, reported at the ``metadata.name`` of its previous document.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..errors import Violation
from ..models import MASTER, TREE_NAME, Document, TConfig, TTree
from ..mutation_kinds import LABEL_DELETING
from ..stack import Stack
from .registry import ERROR, WARNING, lookup, rule

Key = tuple[str, str, str]

_CONFIG_IMMUTABLE = (
    ("app", "app"),
    ("server", "server"),
    ("podSeq", "pod_seq"),
    ("configName", "config_name"),
    ("version", "version"),
    ("updateTime", "update_time"),
    ("updatePerson", "update_person"),
    ("updateReason", "update_reason"),
)


def _key(doc: Document) -> Key:
    return doc.kind, doc.namespace, doc.name


TR007 = rule(
    "TR007", ERROR, "TTree", "tars-tree is never deleted", origin="controller", change=True
)


def kind_changes(previous: Stack, current: Stack) -> Iterator[Violation]:
    """The wave-2 change rules."""
    before: dict[Key, Document] = {}
    for doc in previous.documents:
        before.setdefault(_key(doc), doc)
    # a document that failed its schema is still there: reported at its field, not removed
    now = {_key(doc) for doc in current.documents}
    now.update((r.kind, r.namespace, r.name) for r in current.rejected)
    for config in current.configs:
        old = before.get(_key(config))
        if isinstance(old, TConfig):
            yield from _config_update(old, config, current)
    for config in previous.configs:
        if _key(config) not in now:
            yield from _config_deletion(config, current)
    for tree in current.trees:
        old = before.get(_key(tree))
        if isinstance(old, TTree):
            yield from _apps_removed(old, tree, current)
    for tree in previous.trees:
        if tree.name == TREE_NAME and _key(tree) not in now:
            yield TR007.at(
                tree,
                "metadata.name",
                f"TTree {tree.name} is removed: only the TarsK8S controller may delete it",
            )


TC001 = rule(
    "TC001",
    ERROR,
    "TConfig",
    "app, server, podSeq, configName, version, updateTime, updatePerson and updateReason never "
    "change",
    origin="seed",
    change=True,
)
TC004 = rule(
    "TC004",
    ERROR,
    "TConfig",
    "configContent never changes (create a new version instead)",
    origin="seed",
    change=True,
)
TC007 = rule(
    "TC007",
    ERROR,
    "TConfig",
    "activated never goes from true to false (activate another version instead)",
    origin="controller",
    change=True,
)
TC008 = rule(
    "TC008",
    ERROR,
    "TConfig",
    "a TConfig being deleted (tars.io/Deleting) is not updated",
    origin="controller",
    change=True,
)


def _config_update(old: TConfig, new: TConfig, current: Stack) -> Iterator[Violation]:
    """TC008, TC001, TC004, TC007.

    A version that goes from activated to not activated while another version of the same
    file is activated in the same change is what the controller does itself when that other
    version is activated (reference §7.1): not a TC007."""
    if LABEL_DELETING in old.labels and old.to_dict() != new.to_dict():
        yield TC008.at(
            new,
            "metadata.name",
            f"TConfig {new.name} is being deleted (label {LABEL_DELETING}): it cannot be updated",
        )
    for field, attr in _CONFIG_IMMUTABLE:
        was, now = getattr(old, attr), getattr(new, attr)
        if was != now:
            yield TC001.at(new, field, f"{field} is immutable: was {was}, now {now}")
    if old.config_content != new.config_content:
        yield TC004.at(
            new,
            "configContent",
            "configContent is immutable: create a new TConfig (a new version) and activate it",
        )
    if old.activated and not new.activated and not _replaced(new, current):
        yield TC007.at(
            new,
            "activated",
            "activated cannot go from true to false: activate another version of "
            f"{new.config_name} instead (it deactivates this one)",
        )


def _replaced(config: TConfig, current: Stack) -> bool:
    """Whether another version of ``config``'s file and podSeq is activated in ``current``."""
    return bool(current.activated_versions.get(config.activation_key, frozenset()) - {config.name})


TC003 = rule(
    "TC003",
    ERROR,
    "TConfig",
    "an activated master is not deleted while node-level configs of the file remain, unless a new "
    "master version is activated in the same change",
    origin="seed",
    change=True,
)
TC009 = rule(
    "TC009",
    WARNING,
    "TConfig",
    "deleting the activated version deletes every version of the file (and is refused during 48 s "
    "after its creation); not when a new version replaces it in the same change",
    origin="controller",
    change=True,
)


def _config_deletion(config: TConfig, current: Stack) -> Iterator[Violation]:
    """TC003 and TC009 for a removed TConfig.

    A removed version whose successor (same file and podSeq) is activated in the same change
    is a rollout, not a cascade: activating the successor labels this version
    ``tars.io/Deactivate`` (v1.4.1 ``prepareActiveTConfig``), Pulumi deletes removed resources
    after creating and updating the others, and the delete webhook admits a deactivating
    version without marking the file's other versions for deletion."""
    if not config.activated or _replaced(config, current):
        return
    if config.pod_seq == MASTER:
        nodes = [
            c.name
            for c in current.configs
            if c.config_key == config.config_key and c.pod_seq != MASTER
        ]
        if nodes:
            yield TC003.at(
                config,
                "metadata.name",
                f"activated master TConfig {config.name} is removed but node-level configs "
                f"{', '.join(nodes)} still reference it",
            )
    scope = "version" if config.pod_seq == MASTER else f"podSeq {config.pod_seq} version"
    yield TC009.at(
        config,
        "metadata.name",
        f"removing the activated TConfig {config.name} makes the controller delete every "
        f"{scope} of {config.config_name} (app {config.app}, server {config.server or '-'}); "
        "the webhook refuses it during 48 s after creation",
    )


TR006 = rule(
    "TR006",
    ERROR,
    "TTree",
    "an app is not removed from the tree while TServers of that app exist",
    origin="controller",
    change=True,
)


def _apps_removed(old: TTree, new: TTree, current: Stack) -> Iterator[Violation]:
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


def without_create_only(violations: Iterable[Violation], previous: Stack) -> list[Violation]:
    """The violations minus those of create-only rules (TC002, TC005, TC006, TR001, TR002)
    about objects the previous stack already has: for them the change is an update."""
    existing = {_key(doc) for doc in previous.documents}
    existing.update((r.kind, r.namespace, r.name) for r in previous.rejected)
    return [
        v
        for v in violations
        if not (
            (declared := lookup(v.code)) is not None
            and declared.create_only
            and (v.kind, v.namespace, v.name) in existing
        )
    ]
