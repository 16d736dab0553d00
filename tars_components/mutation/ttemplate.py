"""The webhook for TTemplates: M-TT1…M-TT2 (docs/concepts/webhooks.md#ttemplate)."""

from __future__ import annotations

from ..models import (
    TTemplateDocument,
)
from ..models.vocabulary import LABEL_PARENT


def mutate_template(template: TTemplateDocument) -> TTemplateDocument:
    """M-TT1/M-TT2: label ``tars.io/Parent`` when the template is not a root, else remove it."""
    labels = dict(template.labels)
    if template.spec.parent != template.name:
        labels[LABEL_PARENT] = template.spec.parent  # M-TT1
    else:
        labels.pop(LABEL_PARENT, None)  # M-TT2
    meta = template.metadata.model_copy(update={"labels": labels or None})
    mutated = template.model_copy(update={"metadata": meta})
    mutated.with_source(template.source)
    return mutated
