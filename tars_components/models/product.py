"""The product's own API group, ``tars-components.io/v1alpha1``: stack-only documents that are
loaded and checked like the TarsK8S kinds and never emitted (docs/concepts/rollout.md,
docs/concepts/clusters.md).

* ``Rollout``: the canary steps of one TServer (:mod:`tars_components.models.rollout`), read by
  the loader's Rollout collector;
* ``ClusterOverride``: what differs on some clusters (:mod:`tars_components.rules.clusters`),
  kept on the stack as a plain object for the cluster fan-out.
"""

from __future__ import annotations

PRODUCT_GROUP = "tars-components.io"
PRODUCT_API_VERSION = f"{PRODUCT_GROUP}/v1alpha1"
"""The apiVersion of every document of the product's group."""
ROLLOUT_KIND = "Rollout"
CLUSTER_OVERRIDE_KIND = "ClusterOverride"
PRODUCT_KINDS = (ROLLOUT_KIND, CLUSTER_OVERRIDE_KIND)
"""The kinds of the product's group, in the order messages list them."""
