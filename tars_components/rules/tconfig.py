"""TConfig admission rules that look at one stack (docs/rules/index.md, docs/concepts/namespace.md).

Every document of a stack is a create unless ``validate --previous`` knows it (see
:func:`tars_components.rules.change.without_create_only`), so the create rules TC002, TC005
and TC006 apply. TC010 keeps at most one activated version per (app, server, configName,
podSeq): the webhook would deactivate all but the last one created, which under parallel
creation is not even deterministic. TC012 (a warning: TarsK8S does not check it, and a live
namespace keeps the configs of removed servers, so an export must still load) ties a
server's config to a TServer of the stack;
TC013 refuses two TConfigs with one name. TC011 (the CRD schema) is reported by the loader;
TC001, TC003, TC004 and TC007-TC009 compare versions and live in :mod:`.change`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, FACT_CONFIG_MASTER, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..models import MASTER, TConfigDocument, TServerDocument
from ..models.vocabulary import LABEL_DEACTIVATE, LABEL_DELETING
from .common import by_key, key_of, keys_present, repeats, same_names

TC013 = rule(
    "TC013",
    ERROR,
    "TConfig",
    "one TConfig per name in a namespace (a second would replace the first)",
    origin="tars-components",
)


@check()
def check_configs(stack: DocumentSet) -> Iterator[Violation]:
    """Every one-stack TConfig rule (TC002, TC005, TC006, TC010, TC012, TC013)."""
    masters = {
        c.config_key for c in stack.configs if c.pod_seq == MASTER and c.activated and _live(c)
    }
    for config in stack.configs:
        yield from _create_labels(config)
        yield from _app_level_master(config)
        if not _rejected(
            TConfigDocument.KIND,
            stack,
            config.namespace,
            app=config.app,
            server=config.server,
            configName=config.config_name,
            podSeq=MASTER,
        ):
            yield from _master_exists(config, masters)
        yield from _server_exists(config, stack)
    yield from _one_activated(stack.configs)
    yield from same_names(stack.configs, TC013)


def _live(config: TConfigDocument) -> bool:
    return LABEL_DEACTIVATE not in config.labels and LABEL_DELETING not in config.labels


TC005 = rule(
    "TC005",
    ERROR,
    "TConfig",
    "a new TConfig carries no tars.io/Deactivate or tars.io/Deleting label",
    origin="controller",
    create_only=True,
)


def _create_labels(config: TConfigDocument) -> Iterator[Violation]:
    """TC005: the controller's labels cannot be set by a create."""
    for label in (LABEL_DEACTIVATE, LABEL_DELETING):
        if label in config.labels:
            yield TC005.at(
                config,
                ("metadata", "labels", label),
                f"label {label} cannot be set when a TConfig is created (the controller sets "
                "it while deactivating or deleting versions)",
            )


TC006 = rule(
    "TC006",
    ERROR,
    "TConfig",
    "an app-level config (server empty) has podSeq m",
    origin="controller",
    create_only=True,
)


def _app_level_master(config: TConfigDocument) -> Iterator[Violation]:
    """TC006."""
    if config.is_app_level and config.pod_seq != MASTER:
        yield TC006.at(
            config,
            "podSeq",
            f"app level tconfig does not support master/slave: podSeq must be m, not "
            f"{config.pod_seq} (or set server)",
        )


TC002 = rule(
    "TC002",
    ERROR,
    "TConfig",
    "a node-level config (podSeq 0..99) needs the activated master (podSeq m) of the same app, "
    "server and configName",
    origin="seed",
    create_only=True,
    facts=(FACT_CONFIG_MASTER,),
)


def _master_exists(
    config: TConfigDocument, masters: set[tuple[str, str, str, str]]
) -> Iterator[Violation]:
    """TC002: a node-level config needs the activated master of the same file."""
    if config.pod_seq != MASTER and config.config_key not in masters:
        yield TC002.at(
            config,
            "podSeq",
            f"no activated master tconfig found: podSeq {config.pod_seq} needs an activated "
            f"TConfig with app {config.app}, server {config.server}, configName "
            f"{config.config_name} and podSeq m",
        )


TC012 = rule(
    "TC012",
    WARNING,
    "TConfig",
    "a server's config names a TServer of the stack (server empty: an app-level config); a "
    "warning, as a live namespace keeps the configs of removed servers",
    origin="tars-components",
)


def _server_exists(config: TConfigDocument, stack: DocumentSet) -> Iterator[Violation]:
    """TC012: a server's config belongs to a TServer of the stack (app-level configs to an
    app, which needs no object)."""
    if config.is_app_level or _rejected_server(config, stack):
        return
    if (config.namespace, config.app, config.server) not in stack.server_keys:
        yield TC012.at(
            config,
            "server",
            f"no TServer with app {config.app} and server {config.server} in namespace "
            f'{config.namespace}: add it, or make this an app-level config (server: "")',
        )


def _rejected(kind: str, stack: DocumentSet, namespace: str, **identity: str) -> bool:
    """Whether a document of ``kind`` with this identity is in the stack but failed its
    schema: it is reported there, at its field, and not again as missing here."""
    return any(
        r.kind == kind
        and r.namespace == namespace
        and all(r.identity.get(key) == value for key, value in identity.items())
        for r in stack.rejected
    )


def _rejected_server(config: TConfigDocument, stack: DocumentSet) -> bool:
    return _rejected(
        TServerDocument.KIND, stack, config.namespace, app=config.app, server=config.server
    )


TC010 = rule(
    "TC010",
    ERROR,
    "TConfig",
    "at most one activated version per app, server, configName and podSeq",
    origin="controller",
)


def _one_activated(configs: list[TConfigDocument]) -> Iterator[Violation]:
    """TC010: one activated version per (app, server, configName, podSeq)."""
    activated = [c for c in configs if c.activated]
    for later, first in repeats(activated, lambda c: c.activation_key):
        yield TC010.at(
            later,
            "activated",
            f"TConfig {first.name} is already the activated version of {later.config_name} "
            f"(app {later.app}, server {later.server or '-'}, podSeq {later.pod_seq}): "
            "activate one version, set activated: false on the others",
        )


# --- changes (compared with the previous stack) ---------------------------------------------


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


def _config_update(
    old: TConfigDocument, new: TConfigDocument, current: DocumentSet
) -> Iterator[Violation]:
    """TC008, TC001, TC004, TC007.

    A version that goes from activated to not activated while another version of the same
    file is activated in the same change is what the controller does itself when that other
    version is activated (docs/concepts/namespace.md): not a TC007."""
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


def _replaced(config: TConfigDocument, current: DocumentSet) -> bool:
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


def _config_deletion(config: TConfigDocument, current: DocumentSet) -> Iterator[Violation]:
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


@check(Need.PREVIOUS)
def config_changes(previous: DocumentSet, current: DocumentSet) -> Iterator[Violation]:
    """The TConfig change rules: updates (TC001, TC004, TC007, TC008) and deletions (TC003,
    TC009)."""
    before = by_key(previous.documents)
    now = keys_present(current)
    for config in current.configs:
        old = before.get(key_of(config))
        if isinstance(old, TConfigDocument):
            yield from _config_update(old, config, current)
    for config in previous.configs:
        if key_of(config) not in now:
            yield from _config_deletion(config, current)
