"""The TarsK8S CustomResourceDefinitions, built from the project's own code.

Each served version's ``openAPIV3Schema`` comes from the pydantic models (through the editor
schemas of :mod:`tars_components.crds.editor_schema`, so ``validate``, the editors and the API
server apply the same rules) plus what only a CRD says (:mod:`.overlays`: ``oneOf``, ``status``);
the kinds the project does not model are described in :mod:`.untyped`; names, versions, printer
columns, subresources and conversion are in :mod:`.kinds`. How the result differs from the v1.4.1
chart's CRDs, and why, is in ``docs/crds.md``.
"""

from __future__ import annotations

import copy
from typing import Any

from .definitions import CRD_KINDS, GROUP, LATEST, WEBHOOK_NAMESPACE, WEBHOOK_SERVICE, CrdKind
from .editor_schema import kind_schema
from .overlays import apply_overlays
from .structural import structural
from .untyped import TENDPOINT, TEXITED_RECORD, TFRAMEWORK_KEY, tplugin

_UNTYPED = {
    "TEndpoint": lambda version: TENDPOINT,
    "TExitedRecord": lambda version: TEXITED_RECORD,
    "TFrameworkKey": lambda version: TFRAMEWORK_KEY,
    "TPlugin": tplugin,
}
_DOCUMENT_FIELDS = ("apiVersion", "kind", "metadata")


def openapi_schema(kind: str, version: str) -> dict[str, Any]:
    """The ``openAPIV3Schema`` of one kind in one version (``v1beta1`` … ``v1beta3``)."""
    if kind in _UNTYPED:
        return copy.deepcopy(_UNTYPED[kind](version))
    # the models know v1beta2 and v1beta3; v1beta1 (never written here) takes v1beta2's shape
    modelled = "v1beta2" if version == "v1beta1" else version
    schema = structural(kind_schema(kind, f"{GROUP}/{modelled}"))
    props = schema["properties"]
    for name in (*_DOCUMENT_FIELDS, "status"):
        props.pop(name, None)
    required = [r for r in schema.get("required", []) if r not in _DOCUMENT_FIELDS]
    schema.pop("required", None)
    if required:
        schema["required"] = required
    return apply_overlays(kind, version, schema)


def _version(spec: CrdKind, version: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": version}
    if version != LATEST:
        out["deprecated"] = True
        out["deprecationWarning"] = (
            f"{GROUP}/{version} {spec.kind} is deprecated; please migrate to "
            f"{GROUP}/{LATEST} {spec.kind}"
        )
    if spec.subresources is not None:
        out["subresources"] = copy.deepcopy(spec.subresources)
    if version in spec.columns:
        out["additionalPrinterColumns"] = [dict(c) for c in spec.columns[version]]
    out["schema"] = {"openAPIV3Schema": openapi_schema(spec.kind, version)}
    return out


def crd_document(spec: CrdKind) -> dict[str, Any]:
    """One CRD, without ``served``/``storage`` and without the conversion webhook's
    ``caBundle`` (the controller install sets them)."""
    names: dict[str, Any] = {
        "kind": spec.kind,
        "listKind": f"{spec.kind}List",
        "plural": spec.plural,
        "singular": spec.kind.lower(),
    }
    if spec.short_names:
        names["shortNames"] = list(spec.short_names)
    conversion: dict[str, Any] = {"strategy": "None"}
    if spec.webhook_conversion:
        conversion = {
            "strategy": "Webhook",
            "webhook": {
                "conversionReviewVersions": ["v1"],
                "clientConfig": {
                    "service": {
                        "name": WEBHOOK_SERVICE,
                        "namespace": WEBHOOK_NAMESPACE,
                        "path": "/conversion",
                    }
                },
            },
        }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": spec.name,
            # helm keeps CRDs on uninstall; so does the platform component (retain_on_delete)
            "annotations": {"helm.sh/resource-policy": "keep"},
        },
        "spec": {
            "conversion": conversion,
            "group": GROUP,
            "names": names,
            "scope": "Namespaced",
            "versions": [_version(spec, v) for v in spec.versions],
        },
    }


def crd_documents() -> dict[str, dict[str, Any]]:
    """``{kind: CRD}`` of the eleven TarsK8S kinds, in kind order."""
    return {spec.kind: crd_document(spec) for spec in CRD_KINDS}


__all__ = ["CRD_KINDS", "crd_document", "crd_documents", "openapi_schema"]
