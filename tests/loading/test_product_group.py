"""The product's own group (``tars-components.io/v1alpha1``) holds two stack-only kinds, a
Rollout and a ClusterOverride, which load side by side; any other kind of the group is a load
error naming both."""

from __future__ import annotations

import pytest

from tars_components.kernel.errors import LoadError
from tars_components.loading.load import load_texts

ROLLOUT = """\
apiVersion: tars-components.io/v1alpha1
kind: Rollout
metadata: {name: shop-orderserver}
spec:
  steps: [1, "100%"]
  step: 0
  stable: {id: v1, image: registry.example.com/shop/orderserver:v1}
"""

OVERRIDE = """\
apiVersion: tars-components.io/v1alpha1
kind: ClusterOverride
metadata: {name: bj-replicas}
spec:
  clusters: [bj]
  replicas: 3
"""


def test_a_rollout_and_a_cluster_override_load_side_by_side() -> None:
    stack = load_texts({"a.yaml": ROLLOUT + "---\n" + OVERRIDE}, "tars-dev")
    assert [(r.namespace, r.name) for r in stack.rollouts] == [("tars-dev", "shop-orderserver")]
    assert [(o.kind, o.name) for o in stack.objects] == [("ClusterOverride", "bj-replicas")]


def test_another_kind_of_the_group_is_a_load_error_naming_both_kinds() -> None:
    with pytest.raises(LoadError) as caught:
        load_texts({"a.yaml": OVERRIDE.replace("ClusterOverride", "ClusterOverrides")})
    message = str(caught.value)
    assert "a.yaml:1" in message and "'ClusterOverrides'" in message
    assert "expected one of Rollout, ClusterOverride" in message
