"""``ClaimResize``: ``pulumi up`` waits for grown claims to reach their new capacity, and
restarts, one at a time, the pods whose volume grows only offline (docs/concepts/storage.md,
"Waiting for the new capacity"; the sequence is :func:`tars_components.jobs.resize.finish_resize`).

The TServer component registers one after the claims' patches of a server whose claims grow
in place (``depends_on`` them), when the program read the cluster it deploys to
(``Options.live_context``: the project's program sets it); the provider reaches the cluster
with the same kubeconfig context. A preview never waits or restarts anything.

Type token ``pulumi-python:dynamic/tars:ClaimResize`` (``tars:index:ClaimResize`` when the
component provider plugin serves it); inputs ``namespace``, ``context`` (``""``: the
kubeconfig's current one), ``claims`` (``[{name, storage, pod}]``) and ``timeout`` (seconds);
outputs the same and ``restarted`` (the pods restarted, in order). A change of the claims is
an update that waits again.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from ..jobs.resize import TIMEOUT, ApiView, ClaimTarget, ResizeError, finish_resize
from ..kubeapi import ApiClient, LiveReadError, connection
from ..provider.hosting import register

RESOURCE_TYPE = "pulumi-python:dynamic/tars:ClaimResize"
"""The type token of :class:`ClaimResize`."""
KEYS = ("namespace", "context", "claims", "timeout")


def _finish(props: dict[str, Any]) -> dict[str, Any]:
    targets = [ClaimTarget(c["name"], c["storage"], c["pod"]) for c in props["claims"]]
    try:
        conn = connection(props.get("context") or None, os.environ)
        view = ApiView(ApiClient(conn), str(props["namespace"]))
        done = finish_resize(view, targets, float(props.get("timeout") or TIMEOUT))
    except (ResizeError, LiveReadError) as exc:
        raise RuntimeError(f"claims of {props['namespace']}: {exc}") from None
    return {**props, **done}


class ClaimResizeProvider(pulumi.dynamic.ResourceProvider):
    """Create and update run the sequence; diff says whether an input changed."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """Wait (and restart) for the claims; the id is ``<namespace>/<first claim>``."""
        first = props["claims"][0]["name"] if props["claims"] else "none"
        return pulumi.dynamic.CreateResult(f"{props['namespace']}/{first}", _finish(props))

    def update(
        self, _id: str, _olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        """Wait again: the claims grew once more."""
        return pulumi.dynamic.UpdateResult(_finish(news))

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A change when an input differs; never a replacement."""
        changed = [key for key in KEYS if olds.get(key) != news.get(key)]
        return pulumi.dynamic.DiffResult(changes=bool(changed), replaces=[])


class ClaimResize(pulumi.dynamic.Resource, module="tars", name="ClaimResize"):
    """The wait for one server's grown claims (module doc)."""

    def __init__(
        self,
        name: str,
        namespace: str,
        context: str,
        claims: Sequence[ClaimTarget],
        opts: pulumi.ResourceOptions,
        timeout: float = TIMEOUT,
    ) -> None:
        args: dict[str, Any] = {
            "namespace": namespace,
            "context": context,
            "claims": [{"name": c.name, "storage": c.storage, "pod": c.pod} for c in claims],
            "timeout": timeout,
            "restarted": None,
            PROVIDER_KEY: _serialized_provider(),
        }
        register(self, self._resource_type_name, name, args, opts)


@functools.cache
def _serialized_provider() -> str:
    """The SDK's own serialization of :class:`ClaimResizeProvider`."""
    return str(serialize_provider(ClaimResizeProvider()))


__all__ = ["RESOURCE_TYPE", "ClaimResize", "ClaimResizeProvider"]
