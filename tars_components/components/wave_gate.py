"""``WaveGate``: between two waves of a cluster inventory, ``pulumi up`` waits for the wave
before to be Ready within ``tars:waves`` (docs/pulumi/clusters.md, "Waves"; the watch and the
verdict are :mod:`tars_components.jobs.waves`).

:func:`tars_components.components.clusters.clusters_from_stack` registers one after each wave
that needs it (``depends_on`` the wave's components) and makes the next wave depend on it. Its
``create``/``update`` polls each cluster's servers (their workloads, or their TServers in crd
mode) until Ready or ``timeoutSeconds``, fails when more clusters are not Ready than
``allowed``, else pauses ``pauseSeconds``; a preview never waits. It runs again when the wave's
objects change (``revision``, a digest of them).

Type token ``pulumi-python:dynamic/tars:WaveGate``; inputs ``wave``, ``clusters`` (cluster to
the objects it watches), ``kubeconfigs`` (a secret: cluster to its provider's kubeconfig,
``""`` for the ambient context of its name), ``revision``, ``allowed``, ``pauseSeconds``,
``timeoutSeconds``; outputs the same but the kubeconfigs, and ``failed`` (cluster to why).
"""

from __future__ import annotations

import functools
import time
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from ..jobs.waves import Watched, verdict, watch_wave

RESOURCE_TYPE = "pulumi-python:dynamic/tars:WaveGate"
"""The type token of :class:`WaveGate`."""
KEYS = ("wave", "clusters", "revision", "allowed", "pauseSeconds", "timeoutSeconds")
"""The inputs whose change makes the gate wait again."""


def _pass(props: dict[str, Any]) -> dict[str, Any]:
    clusters = {
        name: [Watched(o["apiVersion"], o["kind"], o["namespace"], o["name"]) for o in objects]
        for name, objects in (props.get("clusters") or {}).items()
    }
    kubeconfigs = {k: v for k, v in (props.get("kubeconfigs") or {}).items()}
    findings = watch_wave(clusters, kubeconfigs, float(props["timeoutSeconds"]))
    result = verdict(int(props["wave"]), findings, int(props["allowed"]))
    if not result.ok:
        raise RuntimeError("\n".join(result.lines))
    time.sleep(float(props.get("pauseSeconds") or 0))
    outputs = {k: props.get(k) for k in KEYS}
    return {**outputs, "failed": dict(result.failed)}


class WaveGateProvider(pulumi.dynamic.ResourceProvider):
    """Create and update wait for the wave; diff says whether it changed."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """Wait for the wave; the id is ``wave-<n>``."""
        return pulumi.dynamic.CreateResult(f"wave-{props['wave']}", _pass(props))

    def update(
        self, _id: str, _olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.UpdateResult:
        """Wait again: the wave changed."""
        return pulumi.dynamic.UpdateResult(_pass(news))

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A change when the wave or the settings changed; never a replacement (new
        credentials alone change nothing)."""
        changed = [key for key in KEYS if olds.get(key) != news.get(key)]
        return pulumi.dynamic.DiffResult(changes=bool(changed), replaces=[])


class WaveGate(pulumi.dynamic.Resource, module="tars", name="WaveGate"):
    """The wait after one wave (module doc)."""

    def __init__(
        self,
        name: str,
        wave: int,
        clusters: pulumi.Input[dict[str, list[dict[str, str]]]],
        kubeconfigs: pulumi.Input[dict[str, str]],
        revision: pulumi.Input[str],
        allowed: int,
        pause_seconds: int,
        timeout_seconds: int,
        opts: pulumi.ResourceOptions,
    ) -> None:
        args: dict[str, Any] = {
            "wave": wave,
            "clusters": clusters,
            "kubeconfigs": pulumi.Output.secret(kubeconfigs),
            "revision": revision,
            "allowed": allowed,
            "pauseSeconds": pause_seconds,
            "timeoutSeconds": timeout_seconds,
            "failed": None,
            PROVIDER_KEY: _serialized_provider(),
        }
        pulumi.CustomResource.__init__(self, RESOURCE_TYPE, name, args, opts)


@functools.cache
def _serialized_provider() -> str:
    """The SDK's own serialization of :class:`WaveGateProvider`."""
    return str(serialize_provider(WaveGateProvider()))


__all__ = ["RESOURCE_TYPE", "WaveGate", "WaveGateProvider"]
