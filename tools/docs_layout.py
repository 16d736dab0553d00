"""Find content of the documentation site that a reader cannot see at 1280 px.

Builds the site (``mkdocs build --strict``; or takes a built one with ``--site``), then loads
every page in a headless Chromium at 1280x800 and measures each code block, table, diagram
and image of the content: an element is **clipped** when part of it can be reached by no
scrolling, that is

* its own ``overflow-x`` is ``hidden`` or ``clip`` and its content is wider than its box;
* or its content spills out of its box (``overflow-x: visible``), with no scroll container
  around it, past the edge of the first ancestor that clips (``hidden``/``clip``), past the
  content column (under the sidebar), or past the right edge of the viewport.

Content inside a scroll container (``overflow-x: auto`` or ``scroll``: Material's code blocks
and table wrappers) is reachable and counted as *scrolled*, not clipped. Closed
``<details>`` are opened and every tab of a tab set is shown in turn, so their content is
measured too. Mermaid diagrams are drawn in the browser from Mermaid's CDN, which a machine
without network access cannot reach: give a local ``mermaid.min.js`` with ``--mermaid-js``
to draw and measure them (without it they are left out and counted as not drawn).

Prints one line per clipped element and per element that scrolls sideways (page, the section
it is in, the element, by how many pixels) and a summary; exits 1 when anything is clipped
(with ``--no-scroll``, also when anything scrolls sideways), 2 when the site cannot be built
or the browser cannot measure a page. ``--screenshots DIR`` also saves a 1280x800 screenshot
of each page. The decision itself, :func:`clipping`, is pure and unit-tested
(``tests/ci/test_docs.py``); the browser run is this script::

    python tools/docs_layout.py [--site DIR] [--chromium PATH] [--mermaid-js FILE]

Needs Chromium (Debian: ``apt-get install chromium``); run as root it passes
``--no-sandbox``.
"""

from __future__ import annotations

import argparse
import dataclasses
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 1280
HEIGHT = 800
TOLERANCE = 1.0
"""Pixels of overflow taken as rounding, not clipping."""
SCROLLING = frozenset({"auto", "scroll"})
CLIPPING = frozenset({"hidden", "clip"})
REPORT_ID = "docs-layout-report"
SELECTOR = (
    "pre, code, table, .md-typeset__scrollwrap, .md-typeset__table, .highlight, "
    ".tabbed-set, div.mermaid, img, svg"
)
"""What is measured, inside the page's content (``.md-content``)."""
BROWSER_FLAGS = (
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
"""Flags of every Chromium run: headless, and no background connections (a closed network
refuses them, slowly). Scrollbars are hidden so they take no width, as on touch screens."""
SKIPPED = ("assets/", "search/")


@dataclass(frozen=True)
class Container:
    """The first ancestor of a measured element whose ``overflow-x`` is not ``visible``."""

    overflow_x: str
    right: float
    """Its right edge, in viewport pixels."""
    selector: str


@dataclass(frozen=True)
class Box:
    """One measured element of a page, in viewport pixels."""

    page: str
    selector: str
    """``tag#id.class``: which element."""
    section: str
    """The id of the heading the element is under (empty above the first)."""
    text: str
    """The start of its text, to find it on the page."""
    overflow_x: str
    left: float
    right: float
    client_width: float
    scroll_width: float
    container: Container | None = None
    column_right: float | None = None
    """The right edge of the page's content column (``.md-content``, where the sidebar
    begins), if any."""

    @classmethod
    def from_json(cls, page: str, data: Mapping[str, Any]) -> Box:
        """A box as the page's measurement script reports it."""
        found = data.get("container")
        container = (
            Container(str(found["overflowX"]), float(found["right"]), str(found["selector"]))
            if isinstance(found, Mapping)
            else None
        )
        return cls(
            page=page,
            selector=str(data["selector"]),
            section=str(data.get("section", "")),
            text=str(data.get("text", "")),
            overflow_x=str(data["overflowX"]),
            left=float(data["left"]),
            right=float(data["right"]),
            client_width=float(data["clientWidth"]),
            scroll_width=float(data["scrollWidth"]),
            container=container,
            column_right=None if data.get("columnRight") is None else float(data["columnRight"]),
        )

    @property
    def content_right(self) -> float:
        """Where its content ends: its left edge plus the wider of its box and its content."""
        return self.left + max(self.scroll_width, self.right - self.left)


def clipping(box: Box, viewport_width: float = WIDTH) -> str | None:
    """Why part of ``box`` cannot be seen by any scrolling, or None when all of it can."""
    overflow = box.scroll_width - box.client_width
    if box.overflow_x in CLIPPING and overflow > TOLERANCE:
        return f"overflow-x {box.overflow_x} hides {overflow:.0f} px of its content"
    if box.overflow_x in SCROLLING:
        return None
    container = box.container
    if container is not None:
        if container.overflow_x in SCROLLING:
            return None
        beyond = box.content_right - container.right
        if beyond > TOLERANCE:
            return (
                f"{beyond:.0f} px cut off by {container.selector} "
                f"(overflow-x {container.overflow_x})"
            )
        return None
    if box.column_right is not None:
        beyond = box.content_right - box.column_right
        if beyond > TOLERANCE:
            return f"{beyond:.0f} px past the content column (under the sidebar), unscrollable"
    beyond = box.content_right - viewport_width
    if beyond > TOLERANCE:
        return f"{beyond:.0f} px beyond the viewport, in no scroll container"
    return None


def scrolled(box: Box) -> bool:
    """True when ``box`` is a scroll container whose content is wider than it (reachable by
    scrolling sideways)."""
    return box.overflow_x in SCROLLING and box.scroll_width - box.client_width > TOLERANCE


MEASURE = r"""
(() => {
  const SELECTOR = %(selector)s;
  const REPORT_ID = %(report_id)s;
  const DIAGRAMS = %(diagrams)d;
  // Mermaid's source blocks, marked before the theme takes their class off to draw them
  document.querySelectorAll("pre.mermaid").forEach((pre) => { pre.dataset.diagram = "1"; });
  const describe = (el) => {
    let text = el.tagName.toLowerCase();
    if (el.id) text += "#" + el.id;
    const classes = [...el.classList].slice(0, 2);
    if (classes.length) text += "." + classes.join(".");
    return text;
  };
  const headings = () => [
    ...document.querySelectorAll(".md-content :is(h1, h2, h3)[id]"),
  ];
  const section = (el, found) => {
    let id = "";
    for (const h of found) {
      if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) id = h.id;
    }
    return id;
  };
  const container = (el) => {
    for (let p = el.parentElement; p && p !== document.documentElement; p = p.parentElement) {
      const overflowX = getComputedStyle(p).overflowX;
      if (overflowX !== "visible") {
        return {overflowX, right: p.getBoundingClientRect().right, selector: describe(p)};
      }
    }
    return null;
  };
  const column = document.querySelector(".md-content");
  const columnRight = column ? column.getBoundingClientRect().right : null;
  const measure = (root, seen, boxes, found) => {
    for (const el of root.querySelectorAll(SELECTOR)) {
      const rect = el.getBoundingClientRect();
      const hidden = rect.width === 0 && rect.height === 0;
      if (seen.has(el) || hidden || el.closest("pre[data-diagram]")) {
        continue;  // measured already, not displayed, or a diagram's source
      }
      seen.add(el);
      boxes.push({
        selector: describe(el),
        section: section(el, found),
        text: (el.textContent || el.getAttribute("alt") || "").trim().slice(0, 60),
        overflowX: getComputedStyle(el).overflowX,
        left: rect.left,
        right: rect.right,
        clientWidth: el.clientWidth || rect.width,
        scrollWidth: el.scrollWidth || rect.width,
        container: container(el),
        columnRight,
      });
    }
  };
  const report = () => {
    const content = document.querySelector(".md-content") || document.body;
    content.querySelectorAll("details").forEach((d) => { d.open = true; });
    const seen = new Set();
    const boxes = [];
    const found = headings();
    measure(content, seen, boxes, found);
    for (const set of content.querySelectorAll(".tabbed-set")) {
      for (const input of set.querySelectorAll(":scope > input")) {
        input.checked = true;
        measure(set, seen, boxes, found);
      }
    }
    const out = document.createElement("script");
    out.type = "application/json";
    out.id = REPORT_ID;
    out.textContent = JSON.stringify({
      viewport: window.innerWidth,
      drawn: content.querySelectorAll("div.mermaid").length,
      diagrams: DIAGRAMS,
      boxes,
    });
    document.body.appendChild(out);
  };
  let tries = 0;
  const wait = () => {
    const drawn = document.querySelectorAll(".md-content div.mermaid").length;
    if (drawn < DIAGRAMS && typeof mermaid !== "undefined" && tries++ < 100) {
      setTimeout(wait, 100);
    }
    else report();
  };
  window.addEventListener("load", () => setTimeout(wait, 200));
})();
"""


@dataclass(frozen=True)
class PageReport:
    """What one page measured."""

    page: str
    viewport: float
    boxes: list[Box]
    drawn: int
    """Mermaid diagrams drawn (and measured)."""
    undrawn: int
    """Mermaid diagrams left as text (no Mermaid script)."""


def build_site(site: Path) -> None:
    """``mkdocs build --strict`` of the repository into ``site``; exits 2 on failure."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(2)


def site_pages(site: Path) -> list[Path]:
    """Every page of a built site (``index.html`` files; assets and search left out)."""
    pages = []
    for page in sorted(site.rglob("index.html")):
        relative = page.relative_to(site).as_posix()
        if not relative.startswith(SKIPPED):
            pages.append(page)
    return pages


def instrument(page: Path, mermaid: str | None) -> None:
    """Add the measurement script (and, given, the local Mermaid script) to ``page``."""
    text = page.read_text(encoding="utf-8")
    script = MEASURE % {
        "selector": json.dumps(SELECTOR),
        "report_id": json.dumps(REPORT_ID),
        "diagrams": text.count('<pre class="mermaid">'),
    }
    head = f'<script src="{mermaid}"></script>' if mermaid else ""
    if head:
        text = text.replace("</head>", f"{head}</head>", 1)
    text = text.replace("</body>", f"<script>{script}</script></body>", 1)
    page.write_text(text, encoding="utf-8")


def browser_command(chromium: str, profile: Path, width: int, height: int) -> list[str]:
    """The Chromium command line, up to the action and the page."""
    flags = [chromium, *BROWSER_FLAGS, f"--user-data-dir={profile}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return [*flags, f"--window-size={width},{height}"]


_REPORT = re.compile(rf'<script type="application/json" id="{REPORT_ID}">(.*?)</script>', re.S)


def parse_report(page: str, dom: str) -> PageReport:
    """The measurement a page's dumped DOM carries; ValueError when it has none."""
    found = _REPORT.search(dom)
    if found is None:
        raise ValueError(f"{page}: the page reported no measurement")
    data = json.loads(html.unescape(found.group(1)))
    return PageReport(
        page=page,
        viewport=float(data["viewport"]),
        boxes=[Box.from_json(page, box) for box in data["boxes"]],
        drawn=int(data["drawn"]),
        undrawn=int(data["diagrams"]) - int(data["drawn"]),
    )


def measure(command: Sequence[str], site: Path, page: Path, budget_ms: int) -> PageReport:
    """Load ``page`` in the browser and return what its measurement script reported."""
    name = page.relative_to(site).as_posix()
    done = subprocess.run(
        [*command, f"--virtual-time-budget={budget_ms}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"{name}: chromium exited {done.returncode}: {done.stderr[-500:]}")
    return parse_report(name, done.stdout)


def screenshot(command: Sequence[str], site: Path, page: Path, folder: Path) -> None:
    """Save a screenshot of ``page`` (the viewport) in ``folder``."""
    folder_name = page.relative_to(site).parent.as_posix()
    name = "index" if folder_name == "." else folder_name.replace("/", "_")
    target = f"--screenshot={folder / name}.png"
    subprocess.run(
        [*command, "--virtual-time-budget=3000", target, page.as_uri()],
        capture_output=True,
        timeout=120,
        check=False,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Build (or take) the site, measure every page, print what is clipped; the exit status
    (0 nothing clipped, 1 something clipped, 2 cannot measure)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--mermaid-js", type=Path, help="a local mermaid.min.js (Mermaid 11)")
    parser.add_argument("--width", type=int, default=WIDTH)
    parser.add_argument("--height", type=int, default=HEIGHT)
    parser.add_argument("--budget-ms", type=int, default=8000, help="virtual time per page")
    parser.add_argument("--screenshots", type=Path, help="save a screenshot of each page here")
    parser.add_argument("--json", action="store_true", help="print every box as JSON lines")
    parser.add_argument("--page", action="append", help="only pages whose path starts so")
    parser.add_argument(
        "--no-scroll",
        action="store_true",
        help="also fail when content can be reached only by scrolling sideways",
    )
    args = parser.parse_args(argv)
    if shutil.which(args.chromium) is None:
        print(f"no browser: {args.chromium} not found (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="docs-layout-") as temp:
        site = Path(temp) / "site"
        if args.site:
            shutil.copytree(args.site, site)
        else:
            build_site(site)
        mermaid = None
        if args.mermaid_js:
            shutil.copy(args.mermaid_js, site / "mermaid.min.js")
            mermaid = (site / "mermaid.min.js").as_uri()
        pages = [
            page
            for page in site_pages(site)
            if not args.page or page.relative_to(site).as_posix().startswith(tuple(args.page))
        ]
        for page in pages:
            instrument(page, mermaid)
        command = browser_command(args.chromium, Path(temp) / "profile", args.width, args.height)
        reports: list[PageReport] = []
        try:
            for page in pages:
                reports.append(measure(command, site, page, args.budget_ms))
                if args.screenshots:
                    args.screenshots.mkdir(parents=True, exist_ok=True)
                    screenshot(command, site, page, args.screenshots)
        except (ValueError, subprocess.TimeoutExpired) as exc:
            print(f"cannot measure: {exc}", file=sys.stderr)
            return 2
    return summarize(reports, args.json, args.no_scroll)


def summarize(reports: Sequence[PageReport], as_json: bool = False, no_scroll: bool = False) -> int:
    """Print each clipped element (and each that scrolls sideways) and the figures; 1 when
    anything is clipped (or, with ``no_scroll``, scrolls sideways), else 0."""
    boxes = [box for report in reports for box in report.boxes]
    clipped = sideways = 0
    for report in reports:
        for box in report.boxes:
            if as_json:
                print(json.dumps(dataclasses.asdict(box)))
            where = f"{box.page}#{box.section}" if box.section else box.page
            why = clipping(box, report.viewport)
            if why is not None:
                clipped += 1
                print(f"clipped: {where}: {box.selector} {box.text[:40]!r}: {why}")
            elif scrolled(box):
                sideways += 1
                hidden = box.scroll_width - box.client_width
                print(f"scrolls: {where}: {box.selector} {box.text[:40]!r}: {hidden:.0f} px")
    drawn = sum(r.drawn for r in reports)
    undrawn = sum(r.undrawn for r in reports)
    print(
        f"{len(reports)} pages at {int(reports[0].viewport) if reports else WIDTH} px: "
        f"{len(boxes)} elements checked, {clipped} clipped, {sideways} scroll sideways; "
        f"{drawn} diagrams drawn, {undrawn} not drawn" + (" (no --mermaid-js)" if undrawn else "")
    )
    return 1 if clipped or (no_scroll and sideways) else 0


if __name__ == "__main__":
    raise SystemExit(main())
