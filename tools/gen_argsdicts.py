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

from tars_components.models import K8sSpec, NormalSpec, Release, TarsSpec

ROOTS = (TarsSpec, NormalSpec, K8sSpec, Release)


def _type(annotation: Any, todo: list[type[BaseModel]]) -> str:
    """The TypedDict value type of a model field annotation."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _type(typing.get_args(annotation)[0], todo)
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        names = list(dict.fromkeys(_type(a, todo) for a in parts))
        return names[0] if len(names) == 1 else " | ".join(names)
    if origin is list:
        (item,) = typing.get_args(annotation)
        return f"Sequence[{_type(item, todo)}]"
    if origin is dict:
        return "Mapping[str, pulumi.Input[str]]"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in todo:
            todo.append(annotation)
        return f"pulumi.Input[{annotation.__name__}ArgsDict]"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return "pulumi.Input[str]"
    if annotation in (int, bool, str):
        return f"pulumi.Input[{annotation.__name__}]"
    return "pulumi.Input[str]"


def generate() -> str:
    """The module text."""
    todo: list[type[BaseModel]] = list(ROOTS)
    blocks: list[str] = []
    done = 0
    while done < len(todo):
        model = todo[done]
        done += 1
        lines = [f"class {model.__name__}ArgsDict(TypedDict, total=False):"]
        lines.append(f'    """:class:`~tars_components.models.{model.__name__}` as a mapping."""')
        lines.append("")
        # The alias generator's key: models build lazily (``defer_build``), and before a
        # build some pydantic versions (2.6) have not applied the generator to the fields yet.
        generator = model.model_config.get("alias_generator")
        for name, info in model.model_fields.items():
            key = info.alias or (generator(name) if callable(generator) else name)
            lines.append(f"    {key}: {_type(info.annotation, todo)}")
        blocks.append("\n".join(lines))
    names = [f"{m.__name__}ArgsDict" for m in todo]
    header = '''"""Section shapes as TypedDicts (``...ArgsDict``, as pulumi-kubernetes generates
them): camelCase keys as in YAML, every leaf a ``pulumi.Input``, and so is every nested shape
and list item. Generated from the pydantic models by ``tools/gen_argsdicts.py``; do not edit.
Type checkers then refuse a misspelled key. At run time the models check plain values; a
placed Output (release image, env value, quantity) is placed as it is, any other Output makes
the TServer expand its document once the values are known; the validation resource checks
every value once it is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

import pulumi
'''
    all_list = "\n".join(f'    "{n}",' for n in sorted(names))
    return header + "\n\n" + "\n\n\n".join(blocks) + f"\n\n\n__all__ = [\n{all_list}\n]\n"


if __name__ == "__main__":
    sys.stdout.write(generate())
