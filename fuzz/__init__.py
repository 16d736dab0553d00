"""The fuzz harness of tars-components (docs/development.md#fuzzing).

``python -m fuzz --cases N --seed S`` runs N cases on every entry point (each CLI command,
the dynamic provider over gRPC, the components under Pulumi mocks, the component provider's
``Construct`` over gRPC) and checks, for each case:

* **no crash**: exit 0, 1 or 2 (an OK or INVALID_ARGUMENT answer), never a traceback;
* **no leak**: the case's secret markers appear in no output, message, written file (but a
  file created 0600), registration or provider answer;
* **determinism**: the same case run twice gives byte-identical output;
* **no partial output**: nothing is written when the command fails.

It prints one line per entry point (cases, crashes, leaks, nondeterminism, partial outputs)
and the first findings of each kind, and exits 1 when anything was found.
"""

from __future__ import annotations

from .harness import Findings, Tally, run

__all__ = ["Findings", "Tally", "run"]
