"""The TarsK8S mutating webhook as pure functions (docs/concepts/webhooks.md), one module per kind:
:mod:`.tserver` (M-TS1…M-TS14), :mod:`.ttemplate` (M-TT1…M-TT2), :mod:`.tconfig`,
:mod:`.timage`, :mod:`.ttree` and :mod:`.taccount`; the labels it sets in :mod:`.labels`.

Deliberate differences, all for deterministic output: the clock is never read (a TServer's
``release.time``, a TConfig's ``version`` and ``updateTime``, a TImage release's
``createTime`` are left as written), the rejections of M-TS8/M-TS13 are not raised here (the
rules report TS019/TS020), and a TAccount password is hashed with the salt that ``hashing``
gives the account. Mutation copies only what it changes; the input documents are never
modified.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..loading.document_set import DocumentSet
from ..models import (
    FRAMEWORK_CONFIG_NAME,
    Document,
    TAccountDocument,
    TConfigDocument,
    TImageDocument,
    TServerDocument,
    TTemplateDocument,
    TTreeDocument,
)
from ..models.vocabulary import (
    ANNOTATION_MAX_REPLICAS,
    ANNOTATION_MIN_REPLICAS,
    LABEL_ACTIVATED,
    LABEL_APP,
    LABEL_CONFIG_NAME,
    LABEL_DEACTIVATE,
    LABEL_DELETING,
    LABEL_IMAGE_TYPE,
    LABEL_PARENT,
    LABEL_POD_SEQ,
    LABEL_SERVER,
    LABEL_SERVER_ID,
    LABEL_SUBTYPE,
    LABEL_TEMPLATE,
    LABEL_VERSION,
    SUPPORTED_PREFIX,
)
from ..secrets.hashing import AccountHashing
from .taccount import mutate_account
from .tconfig import mutate_config
from .timage import mutate_image
from .tserver import mutate_server, replica_bounds, replica_count
from .ttemplate import mutate_template
from .ttree import mutate_tree


def mutate(stack: DocumentSet) -> DocumentSet:
    """Every document of the stack as the TarsK8S mutating webhook would admit it."""
    return _admitted(stack, every_kind=True)


def mutate_workloads(stack: DocumentSet) -> DocumentSet:
    """The TServers and TTemplates of the stack (what the workloads are built from) as the
    webhook would admit them; the other documents as they are (their admission needs what only
    an output has: a TAccount's salt, its password's secret value)."""
    return _admitted(stack, every_kind=False)


def _admitted(stack: DocumentSet, every_kind: bool) -> DocumentSet:
    documents: list[Document] = []
    for doc in stack.documents:
        if isinstance(doc, TServerDocument):
            doc = mutate_server(doc, stack.framework(doc.namespace))
        elif isinstance(doc, TTemplateDocument):
            doc = mutate_template(doc)
        elif every_kind:
            doc = mutate_kind(doc)  # TConfig, TImage, TTree, TAccount
        documents.append(doc)
    return stack.with_documents(documents)


def mutate_kind(
    doc: Document,
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> Document:
    """One document of a wave-2 kind as the webhook admits it on create; others unchanged
    (``secrets`` and ``hashing``: see :func:`mutate_account`)."""
    if isinstance(doc, TConfigDocument):
        return mutate_config(doc)
    if isinstance(doc, TImageDocument):
        return mutate_image(doc)
    if isinstance(doc, TTreeDocument):
        return mutate_tree(doc)
    if isinstance(doc, TAccountDocument):
        return mutate_account(doc, secrets, hashing)
    return doc


__all__ = [
    "ANNOTATION_MAX_REPLICAS",
    "ANNOTATION_MIN_REPLICAS",
    "FRAMEWORK_CONFIG_NAME",
    "LABEL_ACTIVATED",
    "LABEL_APP",
    "LABEL_CONFIG_NAME",
    "LABEL_DEACTIVATE",
    "LABEL_DELETING",
    "LABEL_IMAGE_TYPE",
    "LABEL_PARENT",
    "LABEL_POD_SEQ",
    "LABEL_SERVER",
    "LABEL_SERVER_ID",
    "LABEL_SUBTYPE",
    "LABEL_TEMPLATE",
    "LABEL_VERSION",
    "SUPPORTED_PREFIX",
    "mutate",
    "mutate_account",
    "mutate_config",
    "mutate_image",
    "mutate_kind",
    "mutate_server",
    "mutate_template",
    "mutate_tree",
    "mutate_workloads",
    "replica_bounds",
    "replica_count",
]
