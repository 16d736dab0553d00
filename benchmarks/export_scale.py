"""Scale benchmark of loading and validating a live namespace export (a script, not a test).

For each size (default 500 and 5,000 objects) it writes a ``kind: List`` export like
``kubectl get … -o yaml`` (the framework chart's objects plus business TServers, TImages,
TConfig histories and TAccounts, every object with live-cluster fields; see
``tests/support/builders/export.py``) and times, best of ``--repeat`` runs:

* ``floor``: ``yaml.load(text, Loader=CSafeLoader)`` of the same text (parsing only);
* ``load+validate``: :func:`load_texts` then :func:`pipeline.check` (what ``validate`` does);
* ``render crd``: the whole crd build (mutation, crd documents, YAML text of every object);
* ``import``: :func:`import_texts` (the stack files of ``tars-components import``).

It prints each as seconds and as a ratio to the floor, and the per-object cost, so that
linear cost shows as a flat per-object figure across sizes.

Usage::

    python benchmarks/export_scale.py
    python benchmarks/export_scale.py --sizes 5000 --repeat 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from support.builders.export import NAMESPACE, export_text  # noqa: E402
from timing import best_wall_time  # noqa: E402

from tars_components.jobs.importer import import_texts  # noqa: E402
from tars_components.jobs.render import render_files  # noqa: E402
from tars_components.loading.load import load_texts  # noqa: E402
from tars_components.pipeline import build, check  # noqa: E402
from tars_components.settings.options import Mode, Options  # noqa: E402

# chart objects, tree, accounts and the TEndpoint of tests/support/builders/export.py
FIXED_OBJECTS = 69
PER_SERVER = 6
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def measure(objects: int, repeat: int) -> dict[str, float]:
    """Seconds of each stage for an export of about ``objects`` objects."""
    business = max(1, (objects - FIXED_OBJECTS) // PER_SERVER)
    text = export_text(business)
    count = len(yaml.load(text, Loader=_LOADER)["items"])
    texts = {"export.yaml": text}
    options = Options(namespace=NAMESPACE, mode=Mode.CRD)

    def validate() -> None:
        stack = load_texts(texts, NAMESPACE)
        assert not [v for v in check(stack, options) if v.is_error]

    def render() -> None:
        render_files(build(load_texts(texts, NAMESPACE), options).objects)

    return {
        "objects": count,
        "floor": best_wall_time(lambda: yaml.load(text, Loader=_LOADER), repeat),
        "load+validate": best_wall_time(validate, repeat),
        "render crd": best_wall_time(render, repeat),
        "import": best_wall_time(lambda: import_texts(texts, NAMESPACE), repeat),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'objects':>8} {'stage':<14} {'seconds':>8} {'x floor':>8} {'us/object':>10}")
    for size in args.sizes:
        figures = measure(size, args.repeat)
        count = int(figures.pop("objects"))
        floor = figures["floor"]
        for stage, seconds in figures.items():
            print(
                f"{count:>8} {stage:<14} {seconds:>8.3f} {seconds / floor:>8.2f} "
                f"{seconds / count * 1e6:>10.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
