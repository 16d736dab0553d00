"""``python -m fuzz``: see the package docstring."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .harness import TARGETS, run


def main(argv: list[str] | None = None) -> int:
    """Run the harness; exit 1 when anything was found."""
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    parser.add_argument("--cases", type=int, default=100, help="cases per entry point")
    parser.add_argument("--seed", type=int, default=0, help="seed of the case generator")
    parser.add_argument(
        "--target",
        action="append",
        choices=TARGETS,
        help="an entry point (repeatable; default: all of them)",
    )
    parser.add_argument(
        "--twice-every",
        type=int,
        default=1,
        metavar="K",
        help="run every K-th case twice for the determinism check (0: never; default 1)",
    )
    parser.add_argument(
        "--save",
        metavar="DIR",
        help="write the files of the first cases of each finding to DIR/<target>-<case>/",
    )
    args = parser.parse_args(argv)
    findings = run(
        args.target or TARGETS,
        args.cases,
        args.seed,
        args.twice_every,
        progress=lambda line: print(line, flush=True),
    )
    found = False
    for name, tally in findings.items():
        for example in tally.examples:
            print(f"  {name}: {example}")
        found = found or bool(tally.found)
        if args.save:
            for case in tally.cases_found:
                folder = Path(args.save) / f"{name}-{case.index}"
                folder.mkdir(parents=True, exist_ok=True)
                for file, text in case.files.items():
                    (folder / file).write_text(text, encoding="utf-8")
    total = sum(t.cases for t in findings.values())
    print(f"total: {total} cases, {sum(t.found for t in findings.values())} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
