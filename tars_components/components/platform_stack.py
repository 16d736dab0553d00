"""``PlatformStack``: a stack of the project's own program (``__main__.py``: the platform
team's stacks, one per environment) read through a ``pulumi.StackReference``, its outputs as
typed Outputs for a program of one's own (docs/pulumi/other-stacks.md)::

    platform = PlatformStack("acme/tars/prod")
    framework = TFramework(
        "shop",
        TFrameworkArgs(namespace=platform.namespace, templates=platform.templates, config=...),
    )

What the program exports, and so what this reads, is small: names, never manifests
(``mode``; ``namespaces``; ``templates``, each ``<namespace>/<name>`` with its parent chain;
``servers``, each ``<namespace>/<name>`` with its objects; ``objects``, every object as
``apiVersion/kind:namespace/name``). A stack reference's outputs are known in a preview (the
engine reads the other stack's last deployment), so the components' rules run on them then.

The reading of the outputs is pure (:func:`namespace_among`, :func:`templates_in`, ...): an
output that the other stack does not have, or that is not of its shape, fails the program
with a sentence naming the stack and the output.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

NAMESPACES = "namespaces"
"""Output of the program: the namespaces of its frameworks, in declaration order."""
TEMPLATES = "templates"
"""Output of the program: ``{"<namespace>/<name>": [name, parent, …, root]}``."""
SERVERS = "servers"
"""Output of the program: ``{"<namespace>/<name>": [object id, …]}``."""
OBJECTS = "objects"
"""Output of the program: every object applied, ``apiVersion/kind:namespace/name``."""
MODE = "mode"
"""Output of the program: ``expand`` or ``crd``."""


class PlatformStack:
    """The outputs of a stack of the ``tars`` program (``__main__.py``), read through a
    ``pulumi.StackReference``: the framework's ``namespace`` and its ``templates``, ready for
    :class:`~tars_components.components.TFrameworkArgs`, and the other names it exports.

    * ``stack_name``: the stack, fully qualified as the backend names it
      (``<organization>/<project>/<stack>``; ``organization/tars/dev`` on a file backend).
    * ``namespace``: the framework to take, when the stack has several; defaults to its only
      one (a stack of several namespaces fails the program, naming them).
    * ``name``: the ``StackReference``'s resource name; defaults to ``stack_name``.

    Every attribute is an Output, known in a preview as at ``pulumi up``.
    """

    def __init__(
        self,
        stack_name: str,
        namespace: str | None = None,
        name: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        self.reference = pulumi.StackReference(name or stack_name, stack_name, opts)
        """The ``pulumi.StackReference`` itself (for outputs of a program of one's own)."""

        def output(key: str) -> pulumi.Output[Any]:
            return self.reference.get_output(key)

        self.namespaces: pulumi.Output[list[str]] = output(NAMESPACES).apply(
            lambda value: names(stack_name, NAMESPACES, value)
        )
        """The namespaces of the stack's frameworks."""
        self.namespace: pulumi.Output[str] = self.namespaces.apply(
            lambda found: namespace_among(stack_name, found, namespace)
        )
        """The framework's namespace: for ``TFrameworkArgs.namespace``."""
        self.mode: pulumi.Output[str] = output(MODE).apply(
            lambda value: text(stack_name, MODE, value)
        )
        """``expand`` or ``crd``: how the stack applies its documents."""
        self.templates: pulumi.Output[dict[str, str]] = pulumi.Output.all(
            self.namespace, output(TEMPLATES)
        ).apply(lambda given: templates_in(stack_name, given[1], given[0]))
        """The namespace's templates, ``{name: parent}``: for ``TFrameworkArgs.templates``."""
        self.template_names: pulumi.Output[list[str]] = self.templates.apply(sorted)
        """The names of the namespace's templates, sorted."""
        self.servers: pulumi.Output[list[str]] = pulumi.Output.all(
            self.namespace, output(SERVERS)
        ).apply(lambda given: servers_in(stack_name, given[1], given[0]))
        """The ``metadata.name`` of the namespace's TServers, sorted."""
        self.objects: pulumi.Output[list[str]] = pulumi.Output.all(
            self.namespace, output(OBJECTS)
        ).apply(lambda given: objects_in(stack_name, given[1], given[0]))
        """The objects the stack applied in the namespace (``apiVersion/kind:namespace/name``),
        in its order."""


def _missing(stack: str, key: str, shape: str) -> ValueError:
    return ValueError(
        f"stack {stack}: its output {key!r} is missing or not {shape}: is it a stack of the "
        "tars program (tars-components' __main__.py), deployed with this version?"
    )


def names(stack: str, key: str, value: Any) -> list[str]:
    """The output ``key`` of ``stack``: a list of text."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _missing(stack, key, "a list of names")
    return list(value)


def text(stack: str, key: str, value: Any) -> str:
    """The output ``key`` of ``stack``: text."""
    if not isinstance(value, str):
        raise _missing(stack, key, "text")
    return value


def namespace_among(stack: str, namespaces: list[str], wanted: str | None) -> str:
    """``wanted`` when ``stack`` has that namespace, else the stack's only namespace.

    Raises ValueError naming the stack's namespaces when there is no such one."""
    if wanted is not None:
        if wanted in namespaces:
            return wanted
        raise ValueError(
            f"stack {stack} has no framework in namespace {wanted!r} "
            f"(its namespaces: {', '.join(namespaces) or 'none'})"
        )
    if len(namespaces) == 1:
        return namespaces[0]
    raise ValueError(
        f"stack {stack} has {len(namespaces)} namespaces ({', '.join(namespaces) or 'none'}): "
        "name one (PlatformStack(..., namespace=...))"
    )


def _keyed(stack: str, key: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise _missing(stack, key, "a mapping of <namespace>/<name> keys")
    return value


def _in_namespace(key: str, namespace: str) -> str | None:
    """The name of a ``<namespace>/<name>`` key of ``namespace``, else None."""
    prefix = f"{namespace}/"
    return key[len(prefix) :] if key.startswith(prefix) else None


def templates_in(stack: str, value: Any, namespace: str) -> dict[str, str]:
    """``{name: parent}`` of the templates of ``namespace`` in the ``templates`` output of
    ``stack`` (each key's parent chain: its second name, or its own for a root)."""
    found: dict[str, str] = {}
    for key, chain in _keyed(stack, TEMPLATES, value).items():
        name = _in_namespace(key, namespace)
        if name is None:
            continue
        if not isinstance(chain, list) or not all(isinstance(c, str) for c in chain) or not chain:
            raise _missing(stack, TEMPLATES, "a mapping of parent chains")
        found[name] = chain[1] if len(chain) > 1 else chain[0]
    return found


def servers_in(stack: str, value: Any, namespace: str) -> list[str]:
    """The TServer names of ``namespace`` in the ``servers`` output of ``stack``, sorted."""
    return sorted(
        name
        for key in _keyed(stack, SERVERS, value)
        if (name := _in_namespace(key, namespace)) is not None
    )


def objects_in(stack: str, value: Any, namespace: str) -> list[str]:
    """The object ids of ``namespace`` in the ``objects`` output of ``stack``."""
    return [o for o in names(stack, OBJECTS, value) if f":{namespace}/" in o]


__all__ = [
    "PlatformStack",
    "names",
    "namespace_among",
    "objects_in",
    "servers_in",
    "templates_in",
    "text",
]
