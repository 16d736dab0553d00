"""The README and the documentation site: what they promise holds.

The site is built with ``mkdocs build --strict`` (a broken link, anchor or API reference fails
it); the rules page is generated from the rule registry; the README's commands, example and
links are the ones a reader can run and follow; the docs' test example passes.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tars_components.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def codes() -> list[str]:
    """The registry's codes, in its order (``RULES`` is a mapping or an iterable of rules)."""
    rules = RULES.values() if isinstance(RULES, dict) else RULES
    return [rule.code for rule in rules]


def module_at(path: Path, name: str) -> ModuleType:
    """The Python file at ``path`` (a hook or a tool, not a package module) as a module."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def hooks() -> ModuleType:
    """``docs/hooks.py``."""
    return module_at(DOCS / "hooks.py", "docs_hooks")


def blocks(text: str) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced code block, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def test_the_readme_is_short_and_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    assert blocks(text)[:2] == [
        ("sh", "pip install . && tars-components render --stack dev --out out/dev\n"),
        ("sh", "pip install '.[test]' && python -m pytest\n"),
    ]


def test_every_relative_link_of_the_readme_and_contributing_exists() -> None:
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
        assert links, name
        for link in links:
            assert (ROOT / link).exists(), (name, link)


def test_the_readme_example_is_what_validate_prints(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    example = text[text.index("## An example") :]
    [(_, document), (_, session)] = [b for b in blocks(example) if b[0] in ("yaml", "text")][:2]
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "orderserver.yaml").write_text(document, encoding="utf-8")
    command, *expected = session.splitlines()
    assert command.startswith("$ tars-components ")
    result = subprocess.run(
        [sys.executable, "-m", "tars_components", *command.split()[2:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert (result.stdout + result.stderr).splitlines() == expected


def test_the_rules_page_is_generated_from_the_registry() -> None:
    table = hooks().rules_markdown()
    rows = re.findall(r"^\| (T[A-Z]\d{3}) \|", table, flags=re.MULTILINE)
    assert rows == codes()
    page = (DOCS / "rules" / "index.md").read_text(encoding="utf-8")
    assert "<!-- rules-table -->" in page
    # No hand-written copy of the table to drift from the registry.
    assert not re.search(r"^\| T[A-Z]\d{3} \|", page, flags=re.MULTILINE)


def test_a_rules_row_says_change_and_create_only() -> None:
    table = hooks().rules_markdown()
    rules = RULES.values() if isinstance(RULES, dict) else RULES
    for rule in rules:
        [row] = [line for line in table.splitlines() if line.startswith(f"| {rule.code} |")]
        cells = [cell.strip() for cell in row.strip("|").split(" | ")]
        assert cells[-2:] == ["yes" if rule.change else "", "yes" if rule.create_only else ""]


def test_the_testing_page_example_passes(tmp_path: Path) -> None:
    text = (DOCS / "pulumi" / "testing.md").read_text(encoding="utf-8")
    [program] = [body for lang, body in blocks(text) if lang == "python"]
    (tmp_path / "test_example.py").write_text(program, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_the_site_builds_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install '.[docs]')")
    pytest.importorskip("material", reason="mkdocs-material is not installed")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={
            "PYTHONPATH": str(ROOT),
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "NO_MKDOCS_2_WARNING": "1",
        },
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    rules = (site / "rules" / "index.html").read_text(encoding="utf-8")
    for code in codes():
        assert f"<td>{code}</td>" in rules, code
    api = (site / "api" / "reference" / "index.html").read_text(encoding="utf-8")
    assert "TServer" in api and "Options" in api
    assert re.findall(r":[a-z]+:<code>", api) == []  # no raw reStructuredText role
    assert [p.name for p in site.rglob("*") if p.suffix == ".pyc" or p.name == "__pycache__"] == []
    for page in DOCS.rglob("*.md"):
        relative = page.relative_to(DOCS)
        folder = relative.parent if page.name == "index.md" else relative.with_suffix("")
        assert (site / folder / "index.html").is_file(), page
    # the component reference: a generated page per component, none of the example files
    for kind in ("tframework", "tserver", "taccount", "tarsframeworkinstall"):
        text = (site / "pulumi" / "components" / kind / "index.html").read_text(encoding="utf-8")
        assert "Inputs" in text and "Outputs" in text and "tabbed-set" in text, kind
    assert [p.name for p in site.rglob("*") if p.suffix in (".ts", ".py")] == []
    # the diagrams: Mermaid source blocks, drawn by the theme in the browser
    for built in ("index.html", "concepts/rollout/index.html", "pulumi/pr-review/index.html"):
        assert '<pre class="mermaid"><code>' in (site / built).read_text(encoding="utf-8"), built


def layout() -> ModuleType:
    """``tools/docs_layout.py``."""
    return module_at(ROOT / "tools" / "docs_layout.py", "docs_layout")


def test_the_layout_check_tells_clipped_from_scrolled_content() -> None:
    tool = layout()

    def box(overflow: str, scroll: float, container: object = None, **more: float) -> object:
        return tool.Box(
            page="p/index.html",
            selector="pre",
            section="",
            text="x",
            overflow_x=overflow,
            left=100.0,
            right=more.get("right", 700.0),
            client_width=600.0,
            scroll_width=scroll,
            container=container,
            column_right=more.get("column"),
        )

    hidden, auto = tool.Container("hidden", 700.0, "div"), tool.Container("auto", 700.0, "div")
    # fits: nothing to say
    assert tool.clipping(box("visible", 600.0)) is None
    assert tool.clipping(box("hidden", 600.5)) is None  # rounding
    # its own overflow hides content
    assert "hides 200 px" in tool.clipping(box("hidden", 800.0))
    assert "hides" in tool.clipping(box("clip", 800.0))
    # a scroll container: reachable, not clipped, but scrolls sideways
    assert tool.clipping(box("auto", 1800.0)) is None
    assert tool.scrolled(box("auto", 1800.0)) and not tool.scrolled(box("auto", 600.0))
    # spilling content: fine inside a scroll container, clipped by a hiding one
    assert tool.clipping(box("visible", 800.0, auto)) is None
    assert "cut off by div" in tool.clipping(box("visible", 800.0, hidden))
    # past the content column (under the sidebar) or the viewport, with nothing to scroll
    assert "past the content column" in tool.clipping(box("visible", 800.0, column=750.0))
    assert tool.clipping(box("visible", 640.0, column=750.0)) is None
    assert "beyond the viewport" in tool.clipping(box("visible", 1300.0), 1280)
    assert "beyond the viewport" in tool.clipping(box("visible", 100.0, right=1400.0), 1280)


def test_the_layout_check_reads_the_measurement_of_a_page(tmp_path: Path) -> None:
    tool = layout()
    page = tmp_path / "index.html"
    page.write_text(
        '<html><head></head><body><pre class="mermaid"><code>flowchart LR</code></pre>'
        "</body></html>",
        encoding="utf-8",
    )
    tool.instrument(page, "mermaid.min.js")
    text = page.read_text(encoding="utf-8")
    assert '<script src="mermaid.min.js"></script></head>' in text
    assert "const DIAGRAMS = 1;" in text
    measured = {
        "viewport": 1280,
        "drawn": 1,
        "diagrams": 2,
        "boxes": [
            {
                "selector": "code",
                "section": "usage",
                "text": "a < b & c",
                "overflowX": "auto",
                "left": 10,
                "right": 700,
                "clientWidth": 690,
                "scrollWidth": 900,
                "container": {"overflowX": "hidden", "right": 720, "selector": "div.x"},
                "columnRight": 720,
            }
        ],
    }
    dom = (
        f'<body><script type="application/json" id="{tool.REPORT_ID}">'
        f"{html.escape(json.dumps(measured), quote=False)}</script></body>"
    )
    report = tool.parse_report("p/index.html", dom)
    assert (report.viewport, report.drawn, report.undrawn) == (1280.0, 1, 1)
    [found] = report.boxes
    assert found.text == "a < b & c" and found.container.overflow_x == "hidden"
    assert tool.scrolled(found) and tool.clipping(found) is None
    with pytest.raises(ValueError, match="no measurement"):
        tool.parse_report("p/index.html", "<body></body>")
