"""TConfig admission rules that look at one stack (reference §6.3, §7.1).

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

from ..errors import Violation
from ..models import MASTER, TConfig, TServer
from ..mutation_kinds import LABEL_DEACTIVATE, LABEL_DELETING
from ..stack import Stack
from .common import repeats, same_names
from .registry import ERROR, WARNING, rule

TC013 = rule(
    "TC013",
    ERROR,
    "TConfig",
    "one TConfig per name in a namespace (a second would replace the first)",
    origin="tars-components",
)


def check_configs(stack: Stack) -> Iterator[Violation]:
    """Every one-stack TConfig rule (TC002, TC005, TC006, TC010, TC012, TC013)."""
    masters = {
        c.config_key for c in stack.configs if c.pod_seq == MASTER and c.activated and _live(c)
    }
    for config in stack.configs:
        yield from _create_labels(config)
        yield from _app_level_master(config)
        if not _rejected(
            TConfig.KIND,
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


def _live(config: TConfig) -> bool:
    return LABEL_DEACTIVATE not in config.labels and LABEL_DELETING not in config.labels


TC005 = rule(
    "TC005",
    ERROR,
    "TConfig",
    "a new TConfig carries no tars.io/Deactivate or tars.io/Deleting label",
    origin="controller",
    create_only=True,
)


def _create_labels(config: TConfig) -> Iterator[Violation]:
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


def _app_level_master(config: TConfig) -> Iterator[Violation]:
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
)


def _master_exists(config: TConfig, masters: set[tuple[str, str, str, str]]) -> Iterator[Violation]:
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


def _server_exists(config: TConfig, stack: Stack) -> Iterator[Violation]:
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


def _rejected(kind: str, stack: Stack, namespace: str, **identity: str) -> bool:
    """Whether a document of ``kind`` with this identity is in the stack but failed its
    schema: it is reported there, at its field, and not again as missing here."""
    return any(
        r.kind == kind
        and r.namespace == namespace
        and all(r.identity.get(key) == value for key, value in identity.items())
        for r in stack.rejected
    )


def _rejected_server(config: TConfig, stack: Stack) -> bool:
    return _rejected(TServer.KIND, stack, config.namespace, app=config.app, server=config.server)


TC010 = rule(
    "TC010",
    ERROR,
    "TConfig",
    "at most one activated version per app, server, configName and podSeq",
    origin="controller",
)


def _one_activated(configs: list[TConfig]) -> Iterator[Violation]:
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
