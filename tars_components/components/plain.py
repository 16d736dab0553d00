"""Plain Kubernetes objects of a stack (ServiceAccount, Secret, ConfigMap, Ingress, …) as one
``pulumi_kubernetes`` resource per object, passed through unchanged in both modes.

One resource per object rather than ``yaml.v2.ConfigGroup``: a ConfigGroup is a remote
component whose children the Kubernetes provider registers itself, so the program could not
name them as ``import --pulumi`` does, give each the framework as parent, nor be compared with
``render`` under mocks. A resource registers every top-level field of the object under the type
token of the Kubernetes provider (``kubernetes:core/v1:ConfigMap``,
``kubernetes:networking.k8s.io/v1:Ingress``), exactly what the typed classes send. The data of
a ``Secret`` (or an object whose kind names a secret in any casing) is registered as a Pulumi
secret (``data``, ``stringData``), and so is any value under a key that names a credential in
any object (``dbPassword``, ``authentication``, ``tokens``). These objects are not
validated by the TarsK8S rules (the API server's schema applies).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from ..models.kind_facts import CLUSTER_SCOPED_KINDS
from ..secrets.redaction import holds_secrets, names_secret, secret_like
from .placement import place
from .scope import HasScope

SECRET_FIELDS = ("data", "stringData")


def type_token(api_version: str, kind: str) -> str:
    """``kubernetes:<group>/<version>:<Kind>`` (``core`` for the core group)."""
    group_version = api_version if "/" in api_version else f"core/{api_version}"
    return f"kubernetes:{group_version}:{kind}"


def plain_name(obj: Mapping[str, Any], prefix: str = "") -> str:
    """Logical name of a plain object: ``<prefix><namespace>/<name>-<kind>``, or
    ``<prefix><name>-<kind>`` for a cluster-scoped object (what ``import --pulumi`` writes)."""
    meta = obj.get("metadata") or {}
    name = f"{meta['name']}-{str(obj['kind']).lower()}"
    namespace = meta.get("namespace") if obj["kind"] not in CLUSTER_SCOPED_KINDS else None
    return f"{prefix}{namespace}/{name}" if namespace else f"{prefix}{name}"


class KubernetesObject(pulumi.CustomResource):
    """One plain Kubernetes object, registered with every top-level field as given.

    With a ``framework``, the object belongs to it: it is the framework's child unless
    ``opts.parent`` names another resource, and it goes to the framework's Kubernetes provider
    whatever that parent's is (:mod:`~tars_components.components.placement`)."""

    def __init__(
        self,
        resource_name: str,
        obj: Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        framework: HasScope | None = None,
    ) -> None:
        api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
        if not (obj.get("metadata") or {}).get("name"):
            raise ValueError(f"{kind} without metadata.name: objects are never auto-named")
        if framework is not None:
            opts, _ = place(
                opts, framework.scope.resource, f"{kind} {resource_name!r}", component=False
            )
        props: dict[str, Any] = dict(obj)
        secret: list[str] = []
        if (api_version == "v1" and kind == "Secret") or secret_like(obj):
            secret = [key for key in SECRET_FIELDS if key in props]
            for key in secret:
                props[key] = pulumi.Output.secret(props[key])
        for key, value in props.items():
            if key in secret:
                continue
            if _is_credential(key, value):  # a top-level ``token: ...``, whatever the kind
                props[key] = pulumi.Output.secret(value)
                secret.append(key)
            elif _holds_credentials(value):
                props[key] = _credentials_secret(value)
                secret.append(key)
        merged = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=secret or None)
        )
        super().__init__(type_token(api_version, kind), resource_name, props, merged)


def _is_credential(key: Any, value: Any) -> bool:
    """A key whose value is a credential in any object: it names a secret (but ``secret``,
    the name of a pull Secret in most objects) or holds credentials (``authentication``,
    ``tokens``)."""
    if isinstance(key, str) and key.lower() == "secret":
        return False
    return names_secret(key, value) or holds_secrets(key)


def _holds_credentials(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(
            _is_credential(key, item) or _holds_credentials(item) for key, item in value.items()
        )
    if isinstance(value, list):
        return any(_holds_credentials(item) for item in value)
    return False


def _credentials_secret(value: Any) -> Any:
    """``value`` with every credential in it a Pulumi secret (so the state holds it
    encrypted, whatever the object's kind)."""
    if isinstance(value, Mapping):
        return {
            key: pulumi.Output.secret(item)
            if _is_credential(key, item)
            else _credentials_secret(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_credentials_secret(item) for item in value]
    return value


__all__ = ["KubernetesObject", "plain_name", "type_token"]
