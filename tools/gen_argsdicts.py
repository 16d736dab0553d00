"""Generate ``tars_components/components/shapes.py``: one ``TypedDict`` per section model
(``K8sSpecArgsDict`` …), as pulumi-kubernetes generates its ``...ArgsDict`` shapes, from the
pydantic models (camelCase keys, every leaf a ``pulumi.Input``).

Usage: ``python tools/gen_argsdicts.py > tars_components/components/shapes.py``; a test checks
that the committed file is what this prints.
"""

from __future__ import annotations

import enum
import sys
import types
import typing
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel

from tars_components.models import (
    Authorization,
    Business,
    ImageRelease,
    ImageType,
    K8sSpec,
    NormalSpec,
    Release,
    SubType,
    TarsSpec,
    TFrameworkConfig,
    TreeApp,
)

INPUT_ROOTS: tuple[type[BaseModel], ...] = (TarsSpec, NormalSpec, K8sSpec, Release)
"""The TServer sections: every leaf a ``pulumi.Input``."""

PLAIN_ROOTS: tuple[type[BaseModel], ...] = (
    TFrameworkConfig,
    ImageRelease,
    Business,
    TreeApp,
    Authorization,
)
"""Sections of the other kinds, whose fields the components take as plain values (only a
field that the model itself accepts deferred, typed ``Any``, stays a ``pulumi.Input``)."""

PLAIN_FIELDS = {("K8sSpec", "daemon_set")}
"""Fields of input shapes that decide which resources exist, hence plain."""

EXTRA_ENUMS: tuple[type[enum.Enum], ...] = (SubType, ImageType)
"""Enums of component arguments outside the sections (``sub_type``, ``image_type``)."""

ENVELOPE = ("api_version", "kind", "metadata")
"""Document fields that a section shape leaves out (the component fills them in)."""


ENUMS: dict[str, type[enum.Enum]] = {}
"""The enums met while generating, by alias name (``AbilityAffinityValue``)."""


def _literal(annotation: type[enum.Enum], inputs: bool) -> str:
    alias = f"{annotation.__name__}Value"
    ENUMS[alias] = annotation
    return f"{alias} | pulumi.Output[str]" if inputs else alias


def _aliases() -> list[str]:
    """One ``Literal`` alias per enum, a value per line (kept so by the trailing comma)."""
    blocks = []
    for alias, annotation in ENUMS.items():
        values = "".join(f'    "{member.value}",\n' for member in annotation)
        doc = f'"""The values of :class:`~tars_components.models.{annotation.__name__}`."""'
        blocks.append(f"{alias} = Literal[\n{values}]\n{doc}")
    return blocks


def _type(annotation: Any, todo: list[type[BaseModel]], inputs: bool) -> str:
    """The TypedDict value type of a model field annotation."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _type(typing.get_args(annotation)[0], todo, inputs)
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        names = list(dict.fromkeys(_type(a, todo, inputs) for a in parts))
        return names[0] if len(names) == 1 else " | ".join(names)
    if origin is list:
        (item,) = typing.get_args(annotation)
        return f"Sequence[{_type(item, todo, inputs)}]"
    if origin is dict:
        _, value = typing.get_args(annotation)
        return f"Mapping[str, {_type(value, todo, inputs)}]"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in todo:
            todo.append(annotation)
        name = f"{annotation.__name__}ArgsDict"
        return f"pulumi.Input[{name}]" if inputs else name
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _literal(annotation, inputs)
    if annotation in (int, bool, str):
        return f"pulumi.Input[{annotation.__name__}]" if inputs else annotation.__name__
    return "pulumi.Input[str]"  # ``Any``: a value the model accepts deferred


def _blocks(
    roots: tuple[type[BaseModel], ...], inputs: bool, seen: list[type[BaseModel]]
) -> list[str]:
    """One TypedDict per model reachable from ``roots`` (not in ``seen`` yet)."""
    todo: list[type[BaseModel]] = list(roots)
    blocks: list[str] = []
    done = 0
    while done < len(todo):
        model = todo[done]
        done += 1
        if model in seen:
            continue
        seen.append(model)
        lines = [f"class {model.__name__}ArgsDict(TypedDict, total=False):"]
        what = "the document's fields" if model is TFrameworkConfig else "a mapping"
        lines.append(f'    """:class:`~tars_components.models.{model.__name__}` as {what}."""')
        lines.append("")
        # The alias generator's key: models build lazily (``defer_build``), and before a
        # build some pydantic versions (2.6) have not applied the generator to the fields yet.
        generator = model.model_config.get("alias_generator")
        for name, info in model.model_fields.items():
            if model is TFrameworkConfig and name in ENVELOPE:
                continue
            key = info.alias or (generator(name) if callable(generator) else name)
            plain = not inputs or (model.__name__, name) in PLAIN_FIELDS
            value = _type(info.annotation, todo, not plain)
            value = f"Required[{value}]" if info.is_required() else value
            lines.append(f"    {key}: {value}")
        blocks.append("\n".join(lines))
    return blocks


def generate() -> str:
    """The module text."""
    seen: list[type[BaseModel]] = []
    ENUMS.clear()
    for extra in EXTRA_ENUMS:
        _literal(extra, False)
    blocks = _blocks(INPUT_ROOTS, True, seen) + _blocks(PLAIN_ROOTS, False, seen)
    aliases = _aliases()
    blocks = aliases + blocks
    todo = seen
    names = [f"{m.__name__}ArgsDict" for m in todo] + list(ENUMS)
    header = '''"""Section shapes as TypedDicts (``...ArgsDict``, as pulumi-kubernetes generates
them), camelCase keys as in YAML. Generated from the pydantic models by
``tools/gen_argsdicts.py``; do not edit.

Type checkers refuse a misspelled key, a missing required key (``Required``: a servant
without ``port``) and a value outside an enum (``Literal``: ``abilityAffinity: "Sometimes"``).
In the TServer sections every leaf is a ``pulumi.Input`` (an enum: one of its values or an
``Output[str]``), and so is every nested shape, but ``k8s.daemonSet``, which decides which
resources exist. At run time the models check plain values; a placed Output (release image,
env value, quantity) is placed as it is, any other Output makes the TServer expand its
document once the values are known; the validation resource checks every value once it is
known. The shapes of the other kinds (``TFrameworkConfigArgsDict``, TImage releases, the
TTree, TAccount authorizations) take plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypedDict

import pulumi
from typing_extensions import Required
'''
    all_list = "\n".join(f'    "{n}",' for n in sorted(names))
    return header + "\n" + "\n\n\n".join(blocks) + f"\n\n\n__all__ = [\n{all_list}\n]\n"


if __name__ == "__main__":
    sys.stdout.write(generate())
