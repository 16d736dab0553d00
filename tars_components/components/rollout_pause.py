"""``RolloutPause``: a Rollout's timed pause, held by ``pulumi up`` (docs/concepts/rollout.md,
"Gates").

A Rollout's ``spec.pauses`` item with ``seconds`` says: once this step's pods are Ready, hold
that long before the step counts as done (a soak, Argo Rollouts' and Kruise Rollout's
``pause: {duration}``). The TServer component registers one of these after its workload
(``depends_on``, which Pulumi awaits) at such a step; its ``create`` or ``update`` sleeps the
seconds, so ``pulumi up`` returns only after the soak, and a later ``up`` that moves to the
next step cannot start before. A preview never sleeps; a step without a pause has no
resource (the last one is deleted, which holds nothing).

Type token ``pulumi-python:dynamic/tars:RolloutPause`` (``tars:index:RolloutPause`` when the
component provider plugin serves it); inputs ``server`` (``namespace/name``), ``step``,
``release`` (the release the step rolls out) and ``seconds``: a change of any is an update
that holds again. The provider class lives here so that ``pulumi.dynamic`` pickles it by
reference.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from ..provider.hosting import register

RESOURCE_TYPE = "pulumi-python:dynamic/tars:RolloutPause"
"""The type token of :class:`RolloutPause`."""
KEYS = ("server", "step", "release", "seconds")


class RolloutPauseProvider(pulumi.dynamic.ResourceProvider):
    """Create and update hold ``seconds``; diff says whether any input changed."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """Hold, then record the pause; the id is ``<server>@<step>``."""
        time.sleep(float(props["seconds"]))
        return pulumi.dynamic.CreateResult(f"{props['server']}@{props['step']}", dict(props))

    def update(
        self, _id: str, _olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        """Hold again (another step, release or duration)."""
        time.sleep(float(news["seconds"]))
        return pulumi.dynamic.UpdateResult(dict(news))

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A change when an input differs; never a replacement."""
        changed = [key for key in KEYS if olds.get(key) != news.get(key)]
        return pulumi.dynamic.DiffResult(changes=bool(changed), replaces=[])


class RolloutPause(pulumi.dynamic.Resource, module="tars", name="RolloutPause"):
    """The timed pause of one TServer's Rollout step (module doc)."""

    def __init__(
        self,
        name: str,
        server: str,
        step: int,
        release: str,
        seconds: int,
        opts: pulumi.ResourceOptions,
    ) -> None:
        args: dict[str, Any] = {
            "server": server,
            "step": step,
            "release": release,
            "seconds": seconds,
            PROVIDER_KEY: _serialized_provider(),
        }
        register(self, self._resource_type_name, name, args, opts)


@functools.cache
def _serialized_provider() -> str:
    """The SDK's own serialization of :class:`RolloutPauseProvider`."""
    return str(serialize_provider(RolloutPauseProvider()))


__all__ = ["RESOURCE_TYPE", "RolloutPause", "RolloutPauseProvider"]
