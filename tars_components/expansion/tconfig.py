"""TConfigs as ConfigMaps (expand mode, ``Options.tconfig_config_maps``): the activated
TConfigs of each TServer become one ConfigMap, since expand mode has no controller that
serves them to the pods."""

from __future__ import annotations

from typing import Any

from ..loading.document_set import DocumentSet
from ..models import MASTER, TConfigDocument, TServerDocument
from ..models.vocabulary import LABEL_APP, LABEL_SERVER

CONFIG_MAP_SUFFIX = "-tconfig"


def config_maps(stack: DocumentSet) -> list[dict[str, Any]]:
    """One ConfigMap per TServer with activated TConfigs: ``data`` maps each app-level and
    master config name to its content (the server's own config wins over an app-level one of
    the same name) and each node-level config to ``pod-<podSeq>.<configName>``. Named
    ``<server name>-tconfig``, in the server's namespace; sorted keys."""
    out: list[dict[str, Any]] = []
    for server in stack.servers:
        data = _server_configs(server, stack.configs)
        if not data:
            continue
        out.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": f"{server.name}{CONFIG_MAP_SUFFIX}",
                    "namespace": server.namespace,
                    "labels": {LABEL_APP: server.spec.app, LABEL_SERVER: server.spec.server},
                },
                "data": dict(sorted(data.items())),
            }
        )
    return out


def _server_configs(server: TServerDocument, configs: list[TConfigDocument]) -> dict[str, str]:
    data: dict[str, str] = {}
    ns, app = server.namespace, server.spec.app
    for config in configs:
        if (
            config.activated
            and config.namespace == ns
            and config.app == app
            and config.is_app_level
        ):
            data.setdefault(config.config_name, config.config_content)
    for config in configs:
        if (
            config.activated
            and config.namespace == ns
            and config.app == app
            and config.server == server.spec.server
        ):
            key = config.config_name
            if config.pod_seq != MASTER:
                key = f"pod-{config.pod_seq}.{config.config_name}"
            data[key] = config.config_content
    return data


__all__ = ["CONFIG_MAP_SUFFIX", "config_maps"]
