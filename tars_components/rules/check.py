"""The rules that look at one stack, in report order."""

from __future__ import annotations

from ..kernel.errors import Violation, sorted_violations
from ..loading.document_set import DocumentSet
from .objects import check_objects
from .ownership import annotation_violations
from .rollout import check_rollouts
from .taccount import check_accounts
from .tconfig import check_configs
from .tdeploy import check_requests
from .tframework import check_frameworks
from .timage import check_images
from .tserver import check_servers
from .ttemplate import check_templates
from .ttree import check_trees


def validate(stack: DocumentSet) -> list[Violation]:
    """All violations of a stack, in report order: the schema violations the loader found
    (TS021, TT006, TF001, TT001) and every rule of :data:`RULES` that looks at one stack.

    The result is the same whether or not the stack was mutated
    (:func:`tars_components.mutation.mutate`).
    """
    found: list[Violation] = list(stack.violations)
    found.extend(check_servers(stack))
    found.extend(check_templates(stack))
    found.extend(check_frameworks(stack))
    found.extend(check_configs(stack))
    found.extend(check_images(stack))
    found.extend(check_trees(stack))
    found.extend(check_accounts(stack))
    found.extend(check_objects(stack))
    found.extend(check_requests(stack))  # TDeploy
    found.extend(annotation_violations(stack))  # field ownership, TO001
    found.extend(check_rollouts(stack))  # Rollout
    return sorted_violations(found)


__all__ = ["validate"]
