"""Rules about the plain Kubernetes objects of a stack (passed through unchanged).

TX003: two objects with one apiVersion, kind, namespace and name would overwrite each other.
A collision with what a TServer's expansion creates is checked in expand mode by
:func:`tars_components.pipeline.check`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import Violation
from ..stack import Stack
from .common import repeats, report


def check_objects(stack: Stack) -> Iterator[Violation]:
    """TX003 among the plain objects."""
    for later, first in repeats(
        stack.objects, lambda o: (o.api_version, o.kind, o.namespace, o.name)
    ):
        where = f" ({first.source.file})" if first.source else ""
        yield report(
            later,
            "TX003",
            "metadata.name",
            f"{later.kind} {later.namespace}/{later.name} is already defined{where}",
        )
