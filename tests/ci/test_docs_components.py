"""The component reference (``docs/hooks_components.py``): one generated page per component of
the package schema, and examples in Python, TypeScript and YAML that cannot drift from it.

Every example names only inputs the schema has, with the types it gives them (nested objects,
lists, maps and enums included), gives every required input, and reads only outputs the
component has. The Python examples also pass only arguments of the Python ``...Args`` classes
and run under Pulumi's mocks (rules and all); the TypeScript ones type-check against the SDK
``pulumi install`` generates, on the real engine (``tests/e2e/test_languages.py``)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import runpy
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tars_components.components.testing import record

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PREFIX = "tars:index:"


class Expression:
    """A value an example computes (a variable, a call, an interpolation): any type."""

    def __repr__(self) -> str:
        return "<expression>"


EXPRESSION = Expression()


def hooks() -> ModuleType:
    """``docs/hooks_components.py`` as a module (MkDocs loads it from its path)."""
    spec = importlib.util.spec_from_file_location("docs_components", DOCS / "hooks_components.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = hooks()
SCHEMA: dict[str, Any] = HOOKS.schema()
KINDS: list[str] = HOOKS.kinds(SCHEMA)


def resource(kind: str) -> dict[str, Any]:
    """The schema's resource of a component."""
    found: dict[str, Any] = SCHEMA["resources"][f"{PREFIX}{kind}"]
    return found


def problems(value: Any, spec: Mapping[str, Any], path: str) -> Iterator[str]:
    """What in ``value`` the schema's ``spec`` does not admit, each with its path."""
    if value is EXPRESSION or value is None:
        return
    ref = spec.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith("#/types/"):
            return  # pulumi.json#/Any
        type_ = SCHEMA["types"][ref.removeprefix("#/types/")]
        if "enum" in type_:
            allowed = [e["value"] for e in type_["enum"]]
            if value not in allowed:
                yield f"{path}: {value!r} is not one of {allowed}"
            return
        yield from object_problems(
            value, type_.get("properties", {}), type_.get("required", []), path
        )
        return
    kind = spec.get("type")
    if kind == "array":
        if not isinstance(value, list):
            yield f"{path}: {value!r} is not a list"
            return
        for index, item in enumerate(value):
            yield from problems(item, spec.get("items") or {}, f"{path}[{index}]")
    elif kind == "object":
        if not isinstance(value, dict):
            yield f"{path}: {value!r} is not an object"
            return
        values = spec.get("additionalProperties")
        for key, item in value.items():
            yield from problems(item, values or {}, f"{path}.{key}")
    elif kind in TYPES and (
        not isinstance(value, TYPES[kind]) or (kind != "boolean" and isinstance(value, bool))
    ):
        yield f"{path}: {value!r} is not a {kind}"


TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
}


def object_problems(
    value: Any, properties: Mapping[str, Any], required: list[str], path: str
) -> Iterator[str]:
    """What the schema does not admit in an object of ``properties``."""
    if not isinstance(value, dict):
        yield f"{path}: {value!r} is not an object"
        return
    where = f"{path}." if path else ""
    for key, item in value.items():
        if key not in properties:
            yield f"{where}{key}: not a property (the schema has {sorted(properties)})"
        else:
            yield from problems(item, properties[key], f"{where}{key}")
    for key in required:
        if key not in value:
            yield f"{where}{key}: required, not given"


def inputs_problems(kind: str, inputs: Any, where: str) -> list[str]:
    """What the schema does not admit in the inputs of one component."""
    found = resource(kind)
    return list(
        object_problems(inputs, found["inputProperties"], found.get("requiredInputs", []), where)
    )


def example(kind: str, suffix: str) -> str:
    """The text of a component's example in one language."""
    path: Path = HOOKS.example_path(kind, suffix)
    return path.read_text(encoding="utf-8")


# --- YAML -----------------------------------------------------------------------------------

_INTERPOLATION = re.compile(r"\$\{([^}.]+)\.([^}]+)\}")


def yaml_value(value: Any) -> Any:
    """A YAML example's value, interpolations (``${...}``) as expressions."""
    if isinstance(value, str) and "${" in value:
        return EXPRESSION
    if isinstance(value, dict):
        return {key: yaml_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [yaml_value(item) for item in value]
    return value


@pytest.mark.parametrize("kind", KINDS)
def test_the_yaml_example_uses_the_schema(kind: str) -> None:
    program = yaml.safe_load(example(kind, "yaml"))
    assert program["runtime"] == "yaml"
    kinds: dict[str, str] = {}
    found: list[str] = []
    for name, declared in program["resources"].items():
        token = declared["type"]
        assert token.startswith(PREFIX), (name, token)
        kinds[name] = token.removeprefix(PREFIX)
        properties = yaml_value(declared.get("properties", {}))
        found += inputs_problems(kinds[name], properties, f"{name}: ")
    assert kind in kinds.values()
    outputs = [m.groups() for m in _INTERPOLATION.finditer(str(program.get("outputs", {})))]
    for name, output in outputs:
        if output not in resource(kinds[name])["properties"]:
            found.append(f"outputs: {name}.{output} is not an output of {kinds[name]}")
    assert found == []


# --- TypeScript -----------------------------------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<number>-?\d+(?:\.\d+)?)'
    r"|(?P<name>[A-Za-z_$][\w$]*)|(?P<punct>[{}\[\](),:.;=<>!?+\-*/|&]))"
)


def tokens(source: str) -> list[tuple[str, str]]:
    """The tokens of a TypeScript example (comments left out): ``(kind, text)``."""
    source = re.sub(r"(^|\s)//[^\n]*", r"\1", source)
    found: list[tuple[str, str]] = []
    position = 0
    while position < len(source.rstrip()):
        match = _TOKEN.match(source, position)
        assert match is not None, f"cannot read {source[position : position + 40]!r}"
        kind = match.lastgroup
        assert kind is not None
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


class Reader:
    """Reads the object literals of a TypeScript example (what the components are given)."""

    def __init__(self, source: str) -> None:
        self.tokens = tokens(source)
        self.at = 0

    def peek(self) -> tuple[str, str]:
        """The next token, ``("end", "")`` after the last."""
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self, text: str | None = None) -> str:
        """Consume the next token (which must be ``text`` when given) and return it."""
        kind, found = self.peek()
        assert kind != "end", "unexpected end"
        assert text is None or found == text, f"expected {text!r}, got {found!r}"
        self.at += 1
        return found

    def value(self) -> Any:
        """A literal (object, array, string, number, boolean) or an expression."""
        kind, text = self.peek()
        if text == "{" and kind == "punct":
            return self.object()
        if text == "[" and kind == "punct":
            return self.array()
        if kind in ("string", "number") or text in ("true", "false"):
            end = self.at + 1
            if end < len(self.tokens) and self.tokens[end][1] in (",", "}", "]", ")"):
                self.take()
                if kind == "string":
                    return ast.literal_eval(text)
                return text == "true" if text in ("true", "false") else ast.literal_eval(text)
        return self.expression()

    def expression(self) -> Expression:
        """Skip an expression, up to the end of the value it is."""
        depth = 0
        while True:
            kind, text = self.peek()
            if kind == "end" or (depth == 0 and text in (",", "}", "]", ")")):
                return EXPRESSION
            if kind == "punct" and text in "([{":
                depth += 1
            elif kind == "punct" and text in ")]}":
                depth -= 1
            self.take()

    def object(self) -> dict[str, Any]:
        """An object literal: its keys and values."""
        self.take("{")
        found: dict[str, Any] = {}
        while self.peek()[1] != "}":
            kind, key = self.peek()
            self.take()
            name = ast.literal_eval(key) if kind == "string" else key
            self.take(":")
            found[name] = self.value()
            if self.peek()[1] == ",":
                self.take(",")
        self.take("}")
        return found

    def array(self) -> list[Any]:
        """An array literal: its items."""
        self.take("[")
        found: list[Any] = []
        while self.peek()[1] != "]":
            found.append(self.value())
            if self.peek()[1] == ",":
                self.take(",")
        self.take("]")
        return found

    def components(self) -> Iterator[tuple[str, str, Any]]:
        """``(variable, kind, inputs)`` of each ``const x = new tars.Kind("name", {...})``."""
        while self.at < len(self.tokens):
            if self.tokens[self.at : self.at + 3] == [
                ("name", "new"),
                ("name", "tars"),
                ("punct", "."),
            ]:
                variable = self.tokens[self.at - 2][1] if self.at >= 2 else ""
                self.at += 3
                kind = self.take()
                self.take("(")
                self.value()  # the resource name
                self.take(",")
                yield variable, kind, self.value()
            else:
                self.at += 1


@pytest.mark.parametrize("kind", KINDS)
def test_the_typescript_example_uses_the_schema(kind: str) -> None:
    source = example(kind, "ts")
    assert 'import * as tars from "@tars-components/tars";' in source
    kinds: dict[str, str] = {}
    found: list[str] = []
    for variable, declared, inputs in Reader(source).components():
        kinds[variable] = declared
        found += inputs_problems(declared, inputs, f"{variable}: ")
    assert kind in kinds.values()
    for variable, output in re.findall(r"^export const \w+ = (\w+)\.(\w+);$", source, re.M):
        if output not in resource(kinds[variable])["properties"]:
            found.append(f"export: {variable}.{output} is not an output of {kinds[variable]}")
    assert found == []


# --- Python ---------------------------------------------------------------------------------


def python_value(node: ast.expr) -> Any:
    """A Python example's literal (dicts, lists, constants); anything else an expression."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
        if all(isinstance(k, str) for k in keys):
            return {k: python_value(v) for k, v in zip(keys, node.values, strict=True)}
        return EXPRESSION
    if isinstance(node, (ast.List, ast.Tuple)):
        return [python_value(item) for item in node.elts]
    return EXPRESSION


def camel(name: str) -> str:
    """A Python argument's name as the schema spells it (``config_name`` → ``configName``)."""
    return re.sub(r"_([a-z])", lambda m: m[1].upper(), name)


def args_class(kind: str) -> Any:
    """The Python ``...Args`` class of a component."""
    if kind in HOOKS.PLATFORM:
        from tars_components.components import platform

        return getattr(platform, f"{kind}Args")
    import tars_components

    return getattr(tars_components, f"{kind}Args")


@pytest.mark.parametrize("kind", KINDS)
def test_the_python_example_uses_the_python_api_and_the_schema(kind: str) -> None:
    tree = ast.parse(example(kind, "py"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    made = {c.func.id for c in calls}  # type: ignore[attr-defined]
    assert {kind, f"{kind}Args"} <= made
    found: list[str] = []
    for call in calls:
        name = call.func.id  # type: ignore[attr-defined]
        declared = name.removesuffix("Args")
        if not name.endswith("Args") or declared not in KINDS:
            continue
        parameters = inspect.signature(args_class(declared)).parameters
        properties = resource(declared)["inputProperties"]
        given = {camel(k.arg): python_value(k.value) for k in call.keywords if k.arg}
        for keyword in call.keywords:
            if keyword.arg not in parameters:
                found.append(f"{name}: {keyword.arg} is not an argument of {name}")
        schema_part = {k: v for k, v in given.items() if k in properties}
        for problem in inputs_problems(declared, schema_part, f"{name}: "):
            if "required, not given" not in problem:  # the framework is passed positionally
                found.append(problem)
    assert found == []


@pytest.mark.parametrize("kind", KINDS)
def test_the_python_example_runs_under_mocks(kind: str) -> None:
    mock = None
    if kind in HOOKS.PLATFORM:
        from support.builders.platform_values import TlsMocks

        mock = TlsMocks()
    path = HOOKS.example_path(kind, "py")
    recording = record(
        lambda: runpy.run_path(str(path)),
        config={"tars:adminPassword": "Correct-Horse-4417"},
        mock=mock,
    )
    assert recording.of_type(f"{PREFIX}{kind}"), [r.type for r in recording.registrations]
    assert recording.plaintext("Correct-Horse-4417") == []


# --- the pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_has_every_input_and_output_and_the_three_examples(kind: str) -> None:
    page = HOOKS.component_markdown(kind, SCHEMA)
    found = resource(kind)
    inputs = page[page.index("## Inputs") : page.index("## Outputs")]
    outputs = page[page.index("## Outputs") :].split("## Types")[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (yes)? \|", inputs, re.M)
    assert [name for name, _, _ in rows] == list(found["inputProperties"])
    assert {name for name, _, flag in rows if flag} == set(found.get("requiredInputs", []))
    assert re.findall(r"^\| `(\w+)` \|", outputs, re.M) == list(found["properties"])
    for title, suffix, language in HOOKS.LANGUAGES:
        assert f'=== "{title}"\n\n    ```{language}\n' in page
        first = example(kind, suffix).splitlines()[0]
        assert f"    {first}\n" in page


def test_a_type_is_a_link_to_its_section_and_every_section_is_there() -> None:
    page = HOOKS.component_markdown("TServer", SCHEMA)
    for name in ("TarsSpec", "Servant", "K8sSpec", "Release", "SubType"):
        assert f"[{name}](#{name.lower()})" in page
        assert f"\n### {name}\n" in page
    assert HOOKS.type_text({"type": "array", "items": {"type": "string"}}) == "list of string"
    assert HOOKS.type_text({"type": "object", "additionalProperties": {"type": "string"}}) == (
        "map of string"
    )
    assert HOOKS.type_text({"$ref": "pulumi.json#/Any"}) == "any"


def test_the_nav_gets_a_page_per_component_after_the_index() -> None:
    nav: list[Any] = [
        {"Home": "index.md"},
        {"Pulumi": [{"Component reference": [HOOKS.INDEX]}]},
    ]
    HOOKS.on_config({"nav": nav})
    entries = nav[1]["Pulumi"][0]["Component reference"]
    assert entries[0] == HOOKS.INDEX
    assert entries[1:] == [{kind: f"pulumi/components/{kind.lower()}.md"} for kind in KINDS]
    with pytest.raises(ValueError, match="component reference"):
        HOOKS.on_config({"nav": [{"Home": "index.md"}]})


def test_nothing_generated_is_committed() -> None:
    committed = {p.name for p in (DOCS / "pulumi" / "components").iterdir()}
    assert committed == {"index.md"}
    examples = {p.name for p in (DOCS / "examples").iterdir()}
    expected = {f"{kind}.{suffix}" for kind in KINDS for _, suffix, _ in HOOKS.LANGUAGES}
    assert examples == expected
