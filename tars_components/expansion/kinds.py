"""Output of the wave-2 kinds and of plain Kubernetes objects.

* crd mode: TTree, TImages, TConfigs and TAccounts (in that order, each in load order) as the
  custom resources the webhook admits (:mod:`tars_components.mutation`); their schemas
  are the same in v1beta2 and v1beta3, so converting is setting ``apiVersion``.
* expand mode has no controller for them: :func:`expand_mode_warnings` gives one TX001 per
  kind present; optionally (``Options.tconfig_config_maps``) the activated TConfigs of each
  TServer become one ConfigMap.
* plain objects (:class:`~tars_components.document_set.KubeObject`) pass through in both modes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..document_set import DocumentSet
from ..models import MASTER, Document, TConfigDocument, TServerDocument
from ..mutation import LABEL_APP, LABEL_SERVER, mutate_kind
from ..options import Options
from ..rules.output import expand_mode_warnings
from ..secrets import AccountHashing

CONFIG_MAP_SUFFIX = "-tconfig"


def kind_documents(
    stack: DocumentSet,
    options: Options = Options(),
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> list[dict[str, Any]]:
    """The TTrees, TImages, TConfigs and TAccounts as custom resources of
    ``options.crd_api_version``. ``secrets`` resolves ``{configSecret: KEY}`` credentials,
    ``hashing`` salts the TAccount passwords (see
    :func:`tars_components.mutation.taccount.mutate_account`)."""
    ordered: list[Document] = [*stack.trees, *stack.images, *stack.configs, *stack.accounts]
    out = []
    for doc in ordered:
        body = mutate_kind(doc, secrets, hashing).to_dict()
        body["apiVersion"] = options.crd_api_version
        out.append(body)
    return out


def plain_objects(stack: DocumentSet) -> list[dict[str, Any]]:
    """The plain Kubernetes objects, unchanged (copies), in load order."""
    return [obj.to_dict() for obj in stack.objects]


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


__all__ = [
    "CONFIG_MAP_SUFFIX",
    "config_maps",
    "expand_mode_warnings",
    "kind_documents",
    "plain_objects",
]
