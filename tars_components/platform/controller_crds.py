"""The eleven CRDs of the chart, built from the project's models (docs/crds.md), with served and
storage versions from the values and the installation's CA in their conversion webhooks."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from ..crds import CRD_KINDS as CRD_SPECS
from ..crds import crd_document
from .values import ControllerValues, Crds

_STORAGE_FALLBACK = frozenset({"TFrameworkConfig", "TFrameworkKey"})
"""CRDs without a v1beta1 version: the chart stores them as v1beta3 when crds.storage is
v1beta1."""


@cache
def _crd_template(kind: str) -> dict[str, Any]:
    return crd_document(next(spec for spec in CRD_SPECS if spec.kind == kind))


def crd(kind: str, values: ControllerValues | Crds, ca_bundle: str) -> dict[str, Any]:
    """One CRD of the chart with ``served``/``storage`` from ``crds.servers``/``crds.storage``
    (exactly as the chart's templates compute them; ``values`` the chart's, or their ``crds``)
    and the CA in its conversion webhook."""
    doc = copy.deepcopy(_crd_template(kind))
    versions_of = values if isinstance(values, Crds) else values.crds
    servers, storage = versions_of.servers, versions_of.storage
    versions = []
    for version in doc["spec"]["versions"]:
        name = version["name"]
        stored = name == storage or (
            kind in _STORAGE_FALLBACK and name == "v1beta3" and storage == "v1beta1"
        )
        rest = {k: v for k, v in version.items() if k != "name"}
        versions.append({"name": name, "served": name in servers, "storage": stored, **rest})
    doc["spec"]["versions"] = versions
    conversion = doc["spec"].get("conversion") or {}
    if conversion.get("strategy") == "Webhook":
        conversion["webhook"]["clientConfig"]["caBundle"] = ca_bundle
    return doc


CRD_KINDS = tuple(spec.kind for spec in CRD_SPECS)


def crds(values: ControllerValues | Crds, ca_bundle: str) -> list[dict[str, Any]]:
    """The eleven CRDs, in kind order (``Crds()`` and no CA: the chart's defaults, as a
    Karmada hand-over writes them for members that do not have them yet)."""
    return [crd(kind, values, ca_bundle) for kind in CRD_KINDS]
