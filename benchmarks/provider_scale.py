"""Check cost of the validation provider over the real gRPC path (a script, not a test).

For namespaces of 10, 100 and 1,000 documents (default; the stack of ``render_scale.py``), it
builds every document's validation inputs as the components do, starts ``python -m
pulumi.dynamic`` (what the engine runs for Python dynamic providers), and calls ``Check`` for
every document, as ``pulumi preview`` does. It prints, per size, the median and total Check
time and the median per document over the floor measured in the same run: a ``Check`` of the
smallest document of the stack (the ``tars.default`` template). Target: the median Check time
per document over the floor is flat from 10 to 1,000 documents (within 1.3x). Exit code 1
when missed.

Usage::

    python benchmarks/provider_scale.py
    python benchmarks/provider_scale.py --sizes 10 1000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import render_scale  # noqa: E402  (benchmarks/ is the script's directory)
from support.engines.grpc_provider import PROVIDER_KEY, DynamicProviderProcess, to_struct  # noqa: E402

DEFAULT_SIZES = (10, 100, 1000)
TARGET_FLATNESS = 1.3


def all_inputs(stack_dir: Path, namespace: str) -> list[tuple[str, Any]]:
    """``(urn, property struct)`` of every document's validation resource."""
    from pulumi.dynamic.dynamic import serialize_provider

    from tars_components.loading.load import load_stack
    from tars_components.provider import (
        DOCUMENT,
        NamespaceFacts,
        TarsValidationProvider,
        document_text,
    )

    stack = load_stack(stack_dir, namespace)
    facts = NamespaceFacts.of_stack(stack, namespace)
    positions = {id(s): i for i, s in enumerate(stack.servers)}
    provider = serialize_provider(TarsValidationProvider())
    found = []
    for doc in stack.documents:
        props = facts.inputs(doc, positions.get(id(doc), 0)).to_props()
        # As the components send a document without pulumi.Input leaves: its JSON text.
        props[DOCUMENT] = document_text(props[DOCUMENT]) or props[DOCUMENT]
        urn = f"urn:pulumi:bench::tars::pulumi-python:dynamic/tars:TarsValidation::{doc.name}"
        found.append((urn, to_struct({**props, PROVIDER_KEY: provider})))
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 1 when the per-document Check time is not flat."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    args = parser.parse_args(argv)
    namespace = render_scale.NAMESPACE
    medians: dict[int, float] = {}
    print(
        f"{'documents':>9} {'median ms':>10} {'p90 ms':>7} {'total s':>8} "
        f"{'floor ms':>9} {'median/floor':>13}"
    )
    with tempfile.TemporaryDirectory() as tmp, DynamicProviderProcess(REPO) as provider:
        provider.configure({"tars:namespace": namespace})
        for size in args.sizes:
            stack_dir = Path(tmp) / f"s{size}"
            servers = max(size - len(render_scale.FRAMEWORK_DOCS), 1)
            render_scale.generate_stack(stack_dir, servers)
            inputs = all_inputs(stack_dir, namespace)
            for urn, struct in inputs[:20]:  # warm up (imports, caches of the first calls)
                provider.check(urn, None, struct)
            times = []
            for urn, struct in inputs:
                start = time.perf_counter()
                _, failures = provider.check(urn, None, struct)
                times.append(time.perf_counter() - start)
                if failures:
                    raise SystemExit(f"{urn}: {failures[0]}")
            floor_urn, floor_struct = next(i for i in inputs if i[0].endswith("::tars.default"))
            floors = []
            for _ in range(20):
                start = time.perf_counter()
                provider.check(floor_urn, None, floor_struct)
                floors.append(time.perf_counter() - start)
            median = statistics.median(times)
            floor = statistics.median(floors)
            medians[size] = median / floor
            p90 = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else median
            print(
                f"{len(inputs):>9} {1000 * median:>10.2f} {1000 * p90:>7.2f} "
                f"{sum(times):>8.2f} {1000 * floor:>9.2f} {median / floor:>13.2f}"
            )
    small, large = min(medians), max(medians)
    flatness = medians[large] / medians[small]
    print(f"median Check per document over the floor, at {large} / at {small}: {flatness:.2f}x")
    return 0 if flatness <= TARGET_FLATNESS else 1


if __name__ == "__main__":
    sys.exit(main())
