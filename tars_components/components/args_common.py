"""What every arguments class shares: the two constructor forms of a component
(:func:`split_args`), and building a document from fields (metadata, schema errors as
:class:`~tars_components.components.failure.ArgumentProblems`, the framework's namespace).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pulumi

from ..kernel.errors import LoadError
from ..loading.document_set import DocumentSet
from ..loading.documents import SchemaError, parse_document
from ..models import Document, TarsModel
from .failure import ArgumentProblems
from .namespace_input import STAND_IN

A = TypeVar("A")
D = TypeVar("D", bound=Document)


def split_args(
    kind: type[A], owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[A, pulumi.ResourceOptions | None]:
    """The arguments object and the resource options of a component constructor called either
    as ``C(name, CArgs(...), opts)`` or as ``C(name, opts, field=..., ...)`` (the two forms of
    pulumi-kubernetes resources). Unknown keywords raise TypeError."""
    given = kwargs.pop("args", None)
    if given is None and args and isinstance(args[0], kind):
        given, args = args[0], args[1:]
    opts = kwargs.pop("opts", None)
    if args:
        if opts is not None or len(args) > 1:
            raise TypeError(f"{owner}() takes (name, args, opts) or (name, opts, **fields)")
        opts = args[0]
    if opts is not None and not isinstance(opts, pulumi.ResourceOptions):
        raise TypeError(f"{owner}(): opts must be a pulumi.ResourceOptions, got {opts!r}")
    if given is not None:
        if kwargs:
            raise TypeError(f"{owner}(): give args or fields, not both ({', '.join(kwargs)})")
        if not isinstance(given, kind):
            raise TypeError(f"{owner}(): args must be a {kind.__name__}")
        return given, opts
    return kind(**kwargs), opts


def no_fields(owner: str, fields: Mapping[str, Any]) -> None:
    """TypeError when a field is given besides a whole document."""
    given = [name for name, value in fields.items() if value is not None]
    if given:
        raise TypeError(f"{owner}: give either document or fields, not both ({', '.join(given)})")


def in_namespace(document: D, namespace: str) -> D:
    """The document in the framework's namespace (set when it has none)."""
    own = document.metadata.namespace
    if own is not None and own != namespace:
        framework = (
            "namespace, an Output (leave metadata.namespace out: the document takes it)"
            if namespace == STAND_IN
            else f"namespace {namespace!r}"
        )
        raise ArgumentProblems(
            [
                f"metadata.namespace: {document.kind} {own}/{document.name} is not in the "
                f"framework's {framework}"
            ]
        )
    placed = DocumentSet.of([document], namespace).documents[0]
    assert isinstance(placed, type(document))
    return placed


def given_or_built(
    owner: str,
    given: D | None,
    fields: Mapping[str, Any],
    namespace: str,
    build: Callable[[], D],
) -> D:
    """The whole document given (in ``namespace``, no field besides it), else ``build()``."""
    if given is not None:
        no_fields(owner, fields)
        return in_namespace(given, namespace)
    return build()


def drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without the keys whose value is None (fields left to their defaults)."""
    return {key: value for key, value in values.items() if value is not None}


def build_metadata(
    name: pulumi.Input[str],
    namespace: str,
    labels: Mapping[str, pulumi.Input[str]] | None,
    annotations: Mapping[str, pulumi.Input[str]] | None,
) -> dict[str, Any]:
    """``metadata`` of a document built from fields."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def as_mapping(value: Any) -> Any:
    """A model as its camelCase mapping (placed ``pulumi.Input`` values kept as they are)."""
    return value.to_dict() if isinstance(value, TarsModel) else value


def parse_built(raw: dict[str, Any], namespace: str, kind: type[D]) -> D:
    """The document of ``raw``; :class:`ArgumentProblems` with one ``field: CODE: message``
    line per schema error (as the validation resource reports rule errors) otherwise."""
    try:
        doc = parse_document(raw, namespace)
    except LoadError as exc:
        raise ArgumentProblems([p.message for p in exc.problems]) from None
    except SchemaError as exc:
        errors = [v for v in exc.violations if v.is_error]
        raise ArgumentProblems([f"{v.field}: {v.code}: {v.message}" for v in errors]) from None
    if not isinstance(doc, kind):  # pragma: no cover - the kind is fixed above
        raise TypeError(f"expected a {kind.KIND}, got {doc.kind}")
    return doc


__all__ = [
    "as_mapping",
    "build_metadata",
    "drop_none",
    "given_or_built",
    "in_namespace",
    "no_fields",
    "parse_built",
    "split_args",
]
