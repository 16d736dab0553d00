"""The webhook for TTrees: M-TR* (docs/concepts/webhooks.md#timage)."""

from __future__ import annotations

from ..models import (
    TTreeDocument,
)


def mutate_tree(tree: TTreeDocument) -> TTreeDocument:
    """M-TR1: an app whose ``businessRef`` names no business gets ``""``."""
    names = {b.name for b in tree.businesses}
    apps = [
        app
        if app.business_ref == "" or app.business_ref in names
        else app.model_copy(update={"business_ref": ""})
        for app in tree.apps
    ]
    mutated = tree.model_copy(update={"apps": apps})
    mutated.with_source(tree.source)
    return mutated
