"""The fuzz harness on a small budget (docs/development.md#fuzzing): a few dozen cases per
entry point, each checked for crashes, leaks of its planted secrets, nondeterminism and
partial output. A finding fails the test with the first examples of each entry point."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fuzz.harness import TARGETS, run  # noqa: E402

CASES = 25


@pytest.mark.parametrize("target", TARGETS)
def test_no_crash_no_leak_same_output_nothing_partial(target: str) -> None:
    [tally] = run([target], cases=CASES, seed=20261203).values()
    assert tally.cases > 0
    assert tally.found == 0, "\n".join([tally.line(target), *tally.examples])


def test_a_planted_leak_is_found() -> None:
    """The harness sees what it looks for: a printed marker counts as a leak."""
    from fuzz.cases import Case
    from fuzz.harness import Tally, check
    from fuzz.targets import Outcome

    tally = Tally()
    case = Case(0, "zqsek0000000x000000")
    leaked = Outcome(1, "spec.password: 'zqsek0000000x000000p' is not valid")
    check(tally, case, leaked, Outcome(1, "another text"))
    crashed = Outcome(70, "Traceback (most recent call last):", crashed=True)
    check(tally, case, crashed, None)
    partial = Outcome(1, "", {"a.yaml": (0o644, b"x")}, wrote_on_failure=True)
    check(tally, case, partial, None)
    secret_file = Outcome(0, "", {"s.yaml": (0o600, b"zqsek0000000x000000s")})
    check(tally, case, secret_file, None)
    plain_file = Outcome(0, "", {"s.yaml": (0o644, b"zqsek0000000x000000s")})
    check(tally, case, plain_file, None)
    assert (tally.crashes, tally.leaks, tally.nondeterministic, tally.partial) == (1, 2, 1, 1)
