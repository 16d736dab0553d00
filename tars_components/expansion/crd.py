"""crd mode: the mutated TarsK8S documents as custom resources, in the chosen served version.

Only TServer and TFrameworkConfig differ between v1beta2 and v1beta3 (docs/concepts/mapping.md,
docs/rules/index.md#codes); the conversion follows the TarsK8S conversion webhook, including the
``tars.io/Conversion.1b21b3`` annotation that carries what v1beta2 cannot express.
"""

from __future__ import annotations

from typing import Any

from ..models import (
    V1BETA2,
    V1BETA3,
    Document,
    TFrameworkConfigDocument,
    TServerDocument,
)
from ..models.conversion import convert
from ..models.vocabulary import CONVERSION_ANNOTATION
from ..mutation import mutate_server
from ..mutation.tframework import resolve_expand
from ..rules.crd_mode import conversion_violations, refused_statefulset_violations
from ..settings.options import Options
from ..stages import Prepared
from .awaits import WAIT_FOR_ANNOTATION, tserver_wait_for


def custom_resources(prepared: Prepared, options: Options = Options()) -> list[dict[str, Any]]:
    """The TFrameworkConfigs, TTemplates and TServers of a prepared stack (in that order, each
    in load order) as the custom resources of ``options.crd_api_version`` that the TarsK8S
    webhook admits, each TServer at its Rollout's step."""
    stack = prepared.stack
    ordered: list[Document] = [*stack.frameworks, *stack.templates, *stack.servers]
    return [crd_document(doc, stack.framework(doc.namespace), options) for doc in ordered]


def crd_document(
    document: Document, framework: TFrameworkConfigDocument | None, options: Options
) -> dict[str, Any]:
    """One prepared document as its custom resource of ``options.crd_api_version``.

    A TServer, admitted as written (so v1beta3 gates survive in the conversion annotation), is
    converted, then defaulted as the target version's webhook admits the converted object
    (e.g. v1beta3 adds ``tars.io/ServerID``: part of the conversion, not a second run of the
    mutation stage); ``framework`` is its namespace's ``tars-framework`` config. Its
    claim templates keep only the metadata both CRD versions declare (labels, annotations):
    the API server would prune a ``name`` or ``namespace`` (the seed's example has them).
    """
    version = options.crd_api_version
    if isinstance(document, TServerDocument):
        converted = convert(document.to_dict(), version)
        target = TServerDocument.model_validate(converted)
        built = _without_pruned_claim_metadata(mutate_server(target, framework).to_dict())
        if options.await_tservers and not options.skip_await and not document.spec.k8s.daemon_set:
            meta = built["metadata"]
            meta["annotations"] = {
                **(meta.get("annotations") or {}),
                WAIT_FOR_ANNOTATION: tserver_wait_for(),
            }
        return built
    if isinstance(document, TFrameworkConfigDocument):
        document = resolve_expand(document)  # a reference left unresolved: its placeholder
    return convert(document.to_dict(), version)


_CLAIM_TEMPLATE_METADATA = ("labels", "annotations")
"""What the TServer CRD (v1beta2 and v1beta3) declares in a persistentVolumeClaimTemplate's
metadata; anything else is pruned by the API server."""


def _without_pruned_claim_metadata(server: dict[str, Any]) -> dict[str, Any]:
    """``server`` with each claim template's metadata cut to labels and annotations (an
    emptied metadata left out), in place."""
    for mount in (server.get("spec") or {}).get("k8s", {}).get("mounts") or []:
        template = (mount.get("source") or {}).get("persistentVolumeClaimTemplate")
        if not isinstance(template, dict) or not isinstance(template.get("metadata"), dict):
            continue
        kept = {k: v for k, v in template["metadata"].items() if k in _CLAIM_TEMPLATE_METADATA}
        if kept:
            template["metadata"] = kept
        else:
            del template["metadata"]
    return server


__all__ = [
    "CONVERSION_ANNOTATION",
    "V1BETA2",
    "V1BETA3",
    "conversion_violations",
    "convert",
    "crd_document",
    "custom_resources",
    "refused_statefulset_violations",
]
