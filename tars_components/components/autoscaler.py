"""``tars:index:TServerAutoscaler``: a TServer whose replica count an ``autoscaling/v2``
HorizontalPodAutoscaler owns (docs/pulumi/deploy.md#replicas-owned-by-someone-else)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..models.vocabulary import ANNOTATION_MAX_REPLICAS, ANNOTATION_MIN_REPLICAS
from .args import TServerArgs
from .failure import ArgumentProblems, refusing
from .server import TServer

MAX_REPLICAS = 99
"""The largest bound ``tars.io/MaxReplicas`` takes (the webhook's ``^[1-9]?[0-9]$``)."""


class TServerAutoscaler(pulumi.ComponentResource):
    """A :class:`TServer` and the HorizontalPodAutoscaler that scales it.

    The HPA targets the server's scale subresource: the TServer's (``spec.k8s.replicas``) in
    crd mode, the StatefulSet's in expand mode (:attr:`TServer.scale_target_ref`). The server's
    replicas are handed over: their ownership is ``external`` (never applied, ignored:
    docs/concepts/ownership.md), and its ``tars.io/MinReplicas`` / ``tars.io/MaxReplicas``
    annotations are the HPA's bounds, so the TarsK8S webhook's clamp and the HPA agree.

    * ``server``: the server's arguments (any ``replicas`` in them is what the object starts
      with in expand mode; the HPA raises it to ``min_replicas``);
    * ``min_replicas``/``max_replicas``: the bounds, 1 ≤ min ≤ max ≤ 99;
    * ``metrics``: the HPA's ``spec.metrics``; defaults to 80 % average CPU utilization;
    * ``behavior``: the HPA's ``spec.behavior``, if any.

    Attributes: :attr:`server` (the TServer component), :attr:`hpa`.
    """

    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        server: TServerArgs,
        min_replicas: int,
        max_replicas: int,
        metrics: Sequence[Mapping[str, Any]] | None = None,
        behavior: Mapping[str, Any] | None = None,
    ) -> None:
        """``TServerAutoscaler(name, opts, server=TServerArgs(...), min_replicas=2,
        max_replicas=10)``."""
        with refusing(f"TServerAutoscaler {resource_name!r}"):
            _check_bounds(min_replicas, max_replicas)
            super().__init__("tars:index:TServerAutoscaler", resource_name, None, opts)
            annotations = dict(server.annotations or {})
            annotations[ANNOTATION_MIN_REPLICAS] = str(min_replicas)
            annotations[ANNOTATION_MAX_REPLICAS] = str(max_replicas)
            ownership = dict(server.field_ownership or {})
            ownership["replicas"] = "external"
            args = replace(server, field_ownership=ownership)
            if server.document is not None:
                meta = server.document.metadata
                merged = {**(meta.annotations or {}), **annotations}
                document = server.document.model_copy(
                    update={"metadata": meta.model_copy(update={"annotations": merged})}
                )
                args = replace(args, document=document)
            else:
                args = replace(args, annotations=annotations)
            self.server = TServer(resource_name, args, pulumi.ResourceOptions(parent=self))
            """The TServer component."""
            target = self.server.scale_target_ref
            if target is None:
                raise ArgumentProblems(
                    ["server: a DaemonSet or an unreleased server has nothing to scale"]
                )
            spec: Any = {
                "scaleTargetRef": dict(target),
                "minReplicas": min_replicas,
                "maxReplicas": max_replicas,
                "metrics": list(metrics) if metrics is not None else [_CPU],
            }
            if behavior is not None:
                spec["behavior"] = dict(behavior)
            self.hpa = k8s.autoscaling.v2.HorizontalPodAutoscaler(
                f"{resource_name}-hpa",
                metadata=_metadata(self.server),
                spec=spec,
                opts=pulumi.ResourceOptions(
                    parent=self, provider=self.server._provider, depends_on=[self.server]
                ),
            )
            """The ``autoscaling/v2`` HorizontalPodAutoscaler."""
            self.register_outputs({"scaleTarget": target})


def _metadata(server: TServer) -> Any:
    return {"name": server.object_name, "namespace": server.namespace}


_CPU = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
}


def _check_bounds(low: int, high: int) -> None:
    problems = []
    if isinstance(low, bool) or not isinstance(low, int) or not 1 <= low <= MAX_REPLICAS:
        problems.append(f"min_replicas: {low!r} is not a count from 1 to {MAX_REPLICAS}")
    if isinstance(high, bool) or not isinstance(high, int) or not 1 <= high <= MAX_REPLICAS:
        problems.append(f"max_replicas: {high!r} is not a count from 1 to {MAX_REPLICAS}")
    if not problems and low > high:
        problems.append(f"min_replicas {low} is greater than max_replicas {high}")
    if problems:
        raise ArgumentProblems(problems)


__all__ = ["MAX_REPLICAS", "TServerAutoscaler"]
