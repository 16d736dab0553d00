"""The fuzz loop: cases drawn by hypothesis, run on each entry point, outcomes checked."""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .cases import Case, mutate, stack_case, values_case
from .targets import (
    CLI_TARGETS,
    CONSTRUCT_KINDS,
    Construct,
    Outcome,
    Provider,
    construct_inputs,
    run_cli,
    run_components,
)

ROOT = Path(__file__).resolve().parents[1]
TARGETS = (*CLI_TARGETS, "provider", "components", "construct")
"""Every entry point, by the name ``--target`` takes."""

SOFT = "acknq"
"""Marker suffixes planted under a key that names a secret in a plain object: never in a
message, but a plain object's own rendered file or registration holds what the user wrote."""


@dataclass
class Tally:
    """The figures of one entry point."""

    cases: int = 0
    crashes: int = 0
    leaks: int = 0
    nondeterministic: int = 0
    partial: int = 0
    examples: list[str] = field(default_factory=list)
    cases_found: list[Case] = field(default_factory=list)
    """The cases of the first findings (``--save`` writes their files)."""

    @property
    def found(self) -> int:
        """Findings of every kind."""
        return self.crashes + self.leaks + self.nondeterministic + self.partial

    def note(self, kind: str, case: Case, detail: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.examples) < 5:
            text = " ".join(detail.split())[:400]
            self.examples.append(f"{kind} (case {case.index}): {text}")
            if case not in self.cases_found:
                self.cases_found.append(case)

    def line(self, name: str) -> str:
        """One line of the report."""
        return (
            f"{name:<11} cases {self.cases:>6}  crashes {self.crashes}  leaks {self.leaks}  "
            f"nondeterministic {self.nondeterministic}  partial outputs {self.partial}"
        )


Findings = dict[str, Tally]


def _leaks(case: Case, outcome: Outcome) -> list[str]:
    """Where the case's markers show: in the text a user sees (any marker); in a written file
    not created 0600, or a stored value (a strict marker only)."""
    found: list[str] = []
    marker = case.marker.lower()
    strict = re.compile(re.escape(marker) + f"[^{SOFT}]")
    if marker in outcome.text.lower():
        at = outcome.text.lower().index(marker)
        found.append(f"printed: …{outcome.text[max(0, at - 160) : at + 40]}…")
    for name, (mode, data) in outcome.files.items():
        text = data.decode("utf-8", "replace").lower()
        if strict.search(text) and mode & 0o077:
            found.append(f"file {name} (mode {mode:o}) holds a secret")
    if outcome.stored is not None and strict.search(repr(outcome.stored).lower()):
        stored = repr(outcome.stored)
        at = stored.lower().index(marker)
        found.append(f"stored in plaintext: …{stored[max(0, at - 200) : at + 40]}…")
    return found


def check(tally: Tally, case: Case, first: Outcome | None, second: Outcome | None) -> None:
    """Count one case's findings."""
    if first is None:
        return
    tally.cases += 1
    if first.crashed:
        tally.note("crashes", case, f"{first.code}: {first.text[-600:]}")
    for where in _leaks(case, first):
        tally.note("leaks", case, where)
    if first.wrote_on_failure:
        tally.note("partial", case, f"exit {first.code} with {sorted(first.files)[:3]}")
    if second is not None and second.comparable() != first.comparable():
        tally.note("nondeterministic", case, f"{first.code}/{second.code}: {first.text[:200]}")


def _drive(cases: int, seed: int, body: Callable[[st.DataObject, int], None]) -> None:
    """Run ``body(data, index)`` on ``cases`` hypothesis draws, reproducibly from ``seed``."""
    counter = iter(range(cases * 10))

    @hypothesis_seed(seed)
    @settings(
        max_examples=cases,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=False,
        print_blob=False,
    )
    @given(st.data())
    def each(data: st.DataObject) -> None:
        body(data, next(counter))

    each()


def run(
    targets: Iterable[str] = TARGETS,
    cases: int = 100,
    seed: int = 0,
    twice_every: int = 1,
    progress: Callable[[str], None] | None = None,
) -> Findings:
    """Fuzz each of ``targets`` with ``cases`` cases; every ``twice_every``-th case is run
    twice for the determinism check."""
    sys.path.insert(0, str(ROOT / "tests"))  # tests/support: the engine side of gRPC
    findings: Findings = {}
    with tempfile.TemporaryDirectory(prefix="tars-fuzz-") as scratch:
        base = Path(scratch)
        os.environ["XDG_STATE_HOME"] = str(base / "state")  # the machine key of render
        for target in targets:
            started = time.monotonic()
            tally = findings[target] = Tally()
            _fuzz_one(target, tally, cases, seed, twice_every, base / target)
            if progress is not None:
                progress(f"{tally.line(target)}  ({time.monotonic() - started:.0f} s)")
    return findings


def _fuzz_one(
    target: str, tally: Tally, cases: int, seed: int, twice_every: int, work: Path
) -> None:
    salt = seed & 0xFFFFFF

    def twice(index: int) -> bool:
        return twice_every > 0 and index % twice_every == 0

    if target in CLI_TARGETS:

        def body(data: st.DataObject, index: int) -> None:
            case = _cli_case(target, data, index, salt)
            first = run_cli(target, case, work)
            second = run_cli(target, case, work) if twice(index) else None
            check(tally, case, first, second)

        _drive(cases, seed, body)
    elif target == "components":

        def components(data: st.DataObject, index: int) -> None:
            case = stack_case(data, index, salt)
            first = run_components(case)
            second = run_components(case) if twice(index) else None
            check(tally, case, first, second)

        _drive(cases, seed, components)
    elif target == "provider":
        provider = Provider()
        try:

            def answers(data: st.DataObject, index: int) -> None:
                case = stack_case(data, index, salt)
                first = provider.run(case)
                second = provider.run(case) if twice(index) and first is not None else None
                check(tally, case, first, second)

            _drive(cases, seed, answers)
        finally:
            provider.close()
    elif target == "construct":
        construct = Construct()
        try:

            def constructs(data: st.DataObject, index: int) -> None:
                case = stack_case(data, index, salt)
                kind = data.draw(st.sampled_from(CONSTRUCT_KINDS))
                inputs: Any = construct_inputs(kind, case.marker)
                for _ in range(data.draw(st.integers(0, 3))):
                    inputs = mutate(data, inputs, case.marker)
                inputs = _json_keys(inputs)
                if not isinstance(inputs, dict):
                    return
                first = construct.run(case, kind, inputs)
                if first.code == "unsendable":
                    return
                # a constructed component stays in the deployment (its names are taken):
                # only a refusal, which leaves nothing, is asked again
                again = twice(index) and first.code != "OK"
                second = construct.run(case, kind, inputs) if again else None
                check(tally, case, first, second)

            _drive(cases, seed, constructs)
        finally:
            construct.close()
    else:
        raise ValueError(f"unknown target {target!r}: one of {', '.join(TARGETS)}")


def _cli_case(target: str, data: st.DataObject, index: int, salt: int) -> Case:
    if target in ("controller", "framework"):
        return values_case(data, index, salt, target)
    if target == "convert" and data.draw(st.booleans()):
        return values_case(data, index, salt, "helm")
    case = stack_case(data, index, salt)
    if target == "convert":  # documents of an older version, to upgrade
        case.files = {
            k: v.replace("k8s.tars.io/v1beta3", "k8s.tars.io/v1beta2")
            for k, v in case.files.items()
        }
    return case


def _json_keys(value: Any) -> Any:
    """``value`` with every mapping key as text (JSON, and so Construct, has only these)."""
    if isinstance(value, dict):
        return {str(k): _json_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_keys(v) for v in value]
    return value


__all__ = ["TARGETS", "Findings", "Tally", "check", "run"]
