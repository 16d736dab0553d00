"""The documents that pass through as objects of their own, in both modes.

* crd mode: TTree, TImages, TConfigs and TAccounts (in that order, each in load order) as the
  custom resources the webhook admits (:mod:`tars_components.mutation`); their schemas
  are the same in v1beta2 and v1beta3, so converting is setting ``apiVersion``. Expand mode
  has no controller for them (:func:`tars_components.rules.output.expand_mode_warnings`).
* plain objects (:class:`~tars_components.loading.document_set.KubeObject`) pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..loading.document_set import DocumentSet
from ..models import Document
from ..mutation import mutate_kind
from ..secrets.hashing import AccountHashing
from ..settings.options import Options


def kind_documents(
    stack: DocumentSet,
    options: Options = Options(),
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> list[dict[str, Any]]:
    """The TTrees, TImages, TConfigs and TAccounts as custom resources of
    ``options.crd_api_version``. ``secrets`` resolves ``{configSecret: KEY}`` credentials,
    ``hashing`` salts the TAccount passwords (see
    :func:`tars_components.mutation.taccount.mutate_account`)."""
    ordered: list[Document] = [*stack.trees, *stack.images, *stack.configs, *stack.accounts]
    out = []
    for doc in ordered:
        body = mutate_kind(doc, secrets, hashing).to_dict()
        body["apiVersion"] = options.crd_api_version
        out.append(body)
    return out


def plain_objects(stack: DocumentSet) -> list[dict[str, Any]]:
    """The plain Kubernetes objects, unchanged (copies), in load order."""
    return [obj.to_dict() for obj in stack.objects]


__all__ = ["kind_documents", "plain_objects"]
