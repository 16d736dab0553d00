"""The webhook for TServers: M-TS1…M-TS14 (docs/concepts/webhooks.md#tserver). ``release.time`` is
never filled from the clock (M-TS11; output must be deterministic), and the rejections of
M-TS8/M-TS13 are not raised here: the value is left alone and the rules report TS019/TS020."""

from __future__ import annotations

import re

from ..models import V1BETA3, TFrameworkConfigDocument, TServerDocument
from ..models.vocabulary import (
    ANNOTATION_MAX_REPLICAS,
    ANNOTATION_MIN_REPLICAS,
    LABEL_APP,
    LABEL_SERVER,
    LABEL_SERVER_ID,
    LABEL_SUBTYPE,
    LABEL_TEMPLATE,
    TARS_ACTIVE_GATE,
)

REPLICA_ANNOTATION = re.compile(r"^[1-9]?[0-9]$")
"""A replica count the webhook reads from an annotation (0 to 99)."""


def replica_count(value: object) -> int | None:
    """A ``tars.io/MinReplicas``/``MaxReplicas`` value as a number; None unless it matches
    ``^[1-9]?[0-9]$`` (M-TS8)."""
    if isinstance(value, str) and REPLICA_ANNOTATION.fullmatch(value):
        return int(value)
    return None


def replica_bounds(server: TServerDocument) -> tuple[int | None, int | None] | None:
    """``(min, max)`` from the replica annotations (None where absent); None when malformed
    (M-TS8: either does not match ``^[1-9]?[0-9]$``, or min > max)."""
    bounds: list[int | None] = []
    for key in (ANNOTATION_MIN_REPLICAS, ANNOTATION_MAX_REPLICAS):
        value = server.annotations.get(key)
        count = replica_count(value)
        if value is not None and count is None:
            return None
        bounds.append(count)
    low, high = bounds
    if low is not None and high is not None and low > high:
        return None
    return low, high


def mutate_server(
    server: TServerDocument, framework: TFrameworkConfigDocument | None
) -> TServerDocument:
    """M-TS1…M-TS14 on one TServer. ``framework`` is the namespace's ``tars-framework``."""
    spec, k8s, release = server.spec, server.spec.k8s, server.spec.release
    v1beta3 = server.api_version == V1BETA3

    labels = dict(server.labels)
    labels[LABEL_APP] = spec.app  # M-TS1
    labels[LABEL_SERVER] = spec.server  # M-TS2
    labels[LABEL_SUBTYPE] = spec.sub_type  # M-TS3
    k8s_update: dict[str, object] = {}
    if spec.tars is not None:
        labels[LABEL_TEMPLATE] = spec.tars.template  # M-TS4
        if v1beta3:  # M-TS5
            user_gates = [g for g in k8s.readiness_gates or [] if g != TARS_ACTIVE_GATE]
            k8s_update["readiness_gates"] = [TARS_ACTIVE_GATE, *_unique(user_gates)]
        else:
            k8s_update["readiness_gate"] = TARS_ACTIVE_GATE
    else:
        labels.pop(LABEL_TEMPLATE, None)  # M-TS6
        if v1beta3 and k8s.readiness_gates:
            k8s_update["readiness_gates"] = _unique(k8s.readiness_gates)

    if k8s.host_ports or k8s.host_ipc:  # M-TS7
        k8s_update["not_stacked"] = True

    if release is None:  # M-TS9
        k8s_update["replicas"] = 0
    else:
        bounds = replica_bounds(server)  # M-TS8: malformed bounds are reported as TS019
        if bounds is not None:  # M-TS10
            low, high = bounds
            replicas = k8s.replicas
            if low is not None:
                replicas = max(replicas, low)
            if high is not None:
                replicas = min(replicas, high)
            k8s_update["replicas"] = replicas
        # M-TS11 (release.time = now) is deliberately not applied: output must be deterministic.
        if v1beta3:
            labels[LABEL_SERVER_ID] = release.id  # M-TS12
        release_update: dict[str, object] = {}
        # M-TS13; without a framework config the rules report TS020
        if spec.tars is not None and not release.node_image and framework is not None:
            release_update["node_image"] = framework.node_image.image
            release_update["node_secret"] = framework.node_image.secret
        if spec.normal is not None and (release.node_image or release.node_secret):
            release_update["node_image"] = None  # M-TS14
            release_update["node_secret"] = None
        if release_update:
            release = release.model_copy(update=release_update)

    meta = server.metadata.model_copy(update={"labels": labels})
    spec_update: dict[str, object] = {"release": release}
    if k8s_update:
        spec_update["k8s"] = k8s.model_copy(update=k8s_update)
    mutated = server.model_copy(
        update={"metadata": meta, "spec": spec.model_copy(update=spec_update)}
    )
    mutated.with_source(server.source)
    return mutated


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))
