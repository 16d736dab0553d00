"""The table of Kubernetes kind facts: every typed class it names exists in pulumi_kubernetes
with the apiVersion the table gives, and the derived views agree with the table."""

from __future__ import annotations

import pulumi_kubernetes as k8s

from tars_components.components.kube import typed_class
from tars_components.models.kind_facts import (
    CLUSTER_SCOPED_KINDS,
    EXPANDED_KINDS,
    KIND_FACTS,
    REPLICAS_PATHS,
    api_version_of,
)


def test_every_named_class_is_the_pulumi_class_of_that_api_version_and_kind() -> None:
    named = [facts for facts in KIND_FACTS.values() if facts.pulumi_class]
    assert len(named) == 17  # the charts' 16 kinds and StatefulSet
    for facts in named:
        assert facts.api_version is not None
        cls = typed_class(facts.api_version, facts.kind)
        assert cls is not None and cls.__name__ == facts.kind
        assert cls.__module__.startswith(f"{k8s.__name__}.")
        assert typed_class("other/v9", facts.kind) is None  # the apiVersion must match too


def test_expansion_kinds_only_when_asked() -> None:
    assert [typed_class(api_version_of(k, ""), k, EXPANDED_KINDS) for k in EXPANDED_KINDS] == [
        k8s.core.v1.Service,
        k8s.apps.v1.StatefulSet,
        k8s.apps.v1.DaemonSet,
    ]
    assert typed_class("apps/v1", "Deployment", EXPANDED_KINDS) is None
    assert typed_class("apps/v1", "Deployment") is k8s.apps.v1.Deployment


def test_views_of_the_table() -> None:
    assert "Namespace" in CLUSTER_SCOPED_KINDS and "ClusterRoleBinding" in CLUSTER_SCOPED_KINDS
    assert "Service" not in CLUSTER_SCOPED_KINDS and "RoleBinding" not in CLUSTER_SCOPED_KINDS
    assert REPLICAS_PATHS == {"StatefulSet": "spec.replicas", "TServer": "spec.k8s.replicas"}
    assert api_version_of("TServer", "k8s.tars.io/v1beta2") == "k8s.tars.io/v1beta2"
    assert api_version_of("DaemonSet", "x") == "apps/v1"
