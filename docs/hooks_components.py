"""MkDocs hooks: the component reference, one page per component of the multi-language
package, generated from its schema at build time.

The schema is the one the component provider serves
(:func:`tars_components.polyglot.host.package_schema`, what ``plugin/schema.json`` holds).
Each page ``pulumi/components/<kind>.md`` has the component's description, an example in
Python, TypeScript and Pulumi YAML (tabs; the files ``docs/examples/<Kind>.py|.ts|.yaml``,
which ``tests/ci/test_docs_components.py`` checks against the same schema and runs), its
Inputs and Outputs tables, and the object types and enums those refer to. The pages are added
to the nav after ``pulumi/components/index.md``, whose marker ``<!-- components-table -->``
becomes the list of components. Nothing generated is committed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
EXAMPLES = DOCS / "examples"
SECTION = "pulumi/components"
INDEX = f"{SECTION}/index.md"
MARKER = "<!-- components-table -->"
PREFIX = "tars:index:"
LANGUAGES = (
    ("Python", "py", "python"),
    ("TypeScript", "ts", "typescript"),
    ("YAML", "yaml", "yaml"),
)
"""``(tab title, file suffix, fence language)`` of each example, in tab order."""
PLATFORM = frozenset({"TarsController", "TarsFrameworkInstall"})
"""The components whose Python classes live in ``tars_components.components.platform``."""


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The package schema the component provider serves (computed once per build)."""
    from tars_components.polyglot.host import package_schema

    return package_schema()


def kinds(package: Mapping[str, Any] | None = None) -> list[str]:
    """The components of the schema, in its order (``TServer``, ...)."""
    resources = (package or schema())["resources"]
    return [token.removeprefix(PREFIX) for token in resources]


def page_path(kind: str) -> str:
    """The page of a component, relative to the docs directory."""
    return f"{SECTION}/{kind.lower()}.md"


def example_path(kind: str, suffix: str) -> Path:
    """The example file of a component in one language."""
    return EXAMPLES / f"{kind}.{suffix}"


def _cell(text: str) -> str:
    """A description as one table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _first_sentence(text: str) -> str:
    """The first sentence of a description, as one line."""
    line = " ".join(text.split())
    end = line.find(". ")
    return line if end < 0 else line[: end + 1]


def type_text(prop: Mapping[str, Any]) -> str:
    """A property's type as the tables show it: ``string``, ``list of string``, ``map of
    string``, or a link to an object type or enum of the page (``[TarsSpec](#tarsspec)``)."""
    ref = prop.get("$ref")
    if isinstance(ref, str):
        if ref.startswith("#/types/"):
            name = ref.removeprefix("#/types/").removeprefix(PREFIX)
            return f"[{name}](#{name.lower()})"
        return "any"
    kind = prop.get("type")
    if kind == "array":
        return f"list of {type_text(prop.get('items') or {})}"
    if kind == "object":
        values = prop.get("additionalProperties")
        return f"map of {type_text(values)}" if isinstance(values, Mapping) else "object"
    return str(kind or "any")


def referenced_types(
    properties: Mapping[str, Any], package: Mapping[str, Any], seen: list[str]
) -> Iterator[str]:
    """The type tokens ``properties`` refer to, directly or through other types, each once
    (``seen`` collects them), in the order they are first met."""
    for prop in properties.values():
        yield from _refs(prop, package, seen)


def _refs(prop: Any, package: Mapping[str, Any], seen: list[str]) -> Iterator[str]:
    if not isinstance(prop, Mapping):
        return
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/types/"):
        token = ref.removeprefix("#/types/")
        if token not in seen:
            seen.append(token)
            yield token
            yield from referenced_types(
                package["types"][token].get("properties", {}), package, seen
            )
    for key in ("items", "additionalProperties"):
        yield from _refs(prop.get(key), package, seen)


def properties_table(properties: Mapping[str, Any], required: list[str]) -> str:
    """The Markdown table of an object's properties: name, type, required, description."""
    lines = ["| Name | Type | Required | Description |", "|---|---|---|---|"]
    for name, prop in properties.items():
        flag = "yes" if name in required else ""
        lines.append(
            f"| `{name}` | {type_text(prop)} | {flag} | {_cell(prop.get('description', ''))} |"
        )
    return "\n".join(lines)


def outputs_table(properties: Mapping[str, Any], required: list[str]) -> str:
    """The Markdown table of a component's outputs: name, type, description (an output that
    may be unset says so)."""
    lines = ["| Name | Type | Description |", "|---|---|---|"]
    for name, prop in properties.items():
        unset = "" if name in required else " May be unset."
        description = _cell(prop.get("description", "")) + unset
        lines.append(f"| `{name}` | {type_text(prop)} | {description.strip()} |")
    return "\n".join(lines)


def enum_table(type_: Mapping[str, Any]) -> str:
    """An enum's values: a table when they have descriptions, else one line."""
    values = type_["enum"]
    if not any(value.get("description") for value in values):
        return "Values: " + ", ".join(f"`{value['value']}`" for value in values) + "."
    lines = ["| Value | Description |", "|---|---|"]
    for value in type_["enum"]:
        lines.append(f"| `{value['value']}` | {_cell(value.get('description', ''))} |")
    return "\n".join(lines)


def python_class(kind: str) -> str:
    """Where a Python program imports the component from."""
    module = "tars_components.components.platform" if kind in PLATFORM else "tars_components"
    return f"{module}.{kind}"


def examples_markdown(kind: str) -> str:
    """The example of a component, one tab per language (``pymdownx.tabbed``)."""
    parts = []
    for title, suffix, language in LANGUAGES:
        path = example_path(kind, suffix)
        if not path.is_file():
            raise FileNotFoundError(f"{kind} has no {title} example: {path}")
        code = path.read_text(encoding="utf-8").rstrip("\n")
        body = "\n".join(f"    {line}" if line else "" for line in code.splitlines())
        parts.append(f'=== "{title}"\n\n    ```{language}\n{body}\n    ```\n')
    return "\n".join(parts)


def component_markdown(kind: str, package: Mapping[str, Any] | None = None) -> str:
    """The whole page of one component."""
    package = package or schema()
    resource = package["resources"][f"{PREFIX}{kind}"]
    inputs = resource.get("inputProperties", {})
    outputs = resource.get("properties", {})
    lines = [
        f"# {kind}",
        "",
        resource.get("description", "").strip(),
        "",
        f"Type token `{PREFIX}{kind}`. Python programs use `{python_class(kind)}` with "
        f"`{kind}Args`: the same arguments with snake_case names, and the `TFramework` "
        "object itself where the other languages name it "
        "([Use in your own program](../own-program.md)). The other languages reach it "
        "through the component provider "
        "([From every Pulumi language](../multi-language.md): `pulumi package add`, which "
        "also writes a YAML program's `packages:` entry).",
        "",
        "## Example",
        "",
        examples_markdown(kind),
        "## Inputs",
        "",
        properties_table(inputs, resource.get("requiredInputs", [])),
        "",
        "## Outputs",
        "",
        outputs_table(outputs, resource.get("required", [])),
        "",
    ]
    seen: list[str] = []
    tokens = [*referenced_types(inputs, package, seen), *referenced_types(outputs, package, seen)]
    if tokens:
        lines += ["## Types", ""]
    for token in tokens:
        type_ = package["types"][token]
        lines += [f"### {token.removeprefix(PREFIX)}", "", type_.get("description", "").strip(), ""]
        if "enum" in type_:
            lines += [enum_table(type_), ""]
        else:
            table = properties_table(type_.get("properties", {}), type_.get("required", []))
            lines += [table, ""]
    return "\n".join(lines)


def index_markdown(package: Mapping[str, Any] | None = None) -> str:
    """The table of every component of the index page: its page and what it is."""
    package = package or schema()
    lines = ["| Component | What it is |", "|---|---|"]
    for kind in kinds(package):
        description = package["resources"][f"{PREFIX}{kind}"].get("description", "")
        lines.append(f"| [{kind}]({kind.lower()}.md) | {_cell(_first_sentence(description))} |")
    return "\n".join(lines) + "\n"


def on_config(config: Any, **_: Any) -> Any:
    """Add a page per component to the nav, after the component reference's index page."""
    for entry in _nav_lists(config["nav"] or []):
        if INDEX in entry:
            at = entry.index(INDEX) + 1
            entry[at:at] = [{kind: page_path(kind)} for kind in kinds()]
            break
    else:
        raise ValueError(f"mkdocs.yml's nav has no {INDEX} for the component reference")
    return config


def _nav_lists(nav: list[Any]) -> Iterator[list[Any]]:
    """Every list of the nav, the nav itself first."""
    yield nav
    for item in nav:
        if isinstance(item, dict):
            for value in item.values():
                if isinstance(value, list):
                    yield from _nav_lists(value)


def on_files(files: Any, config: Any, **_: Any) -> Any:
    """Add the generated page of every component to the site's files."""
    from mkdocs.structure.files import File

    for kind in kinds():
        files.append(File.generated(config, page_path(kind), content=component_markdown(kind)))
    return files


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the index page's marker with the table of components."""
    if page.file.src_uri != INDEX:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{INDEX} has no {MARKER} marker for the generated table")
    return markdown.replace(MARKER, index_markdown())
