"""Kubernetes quantities in the form the API server stores them.

The controller reads a TServer's quantities into ``resource.Quantity`` values and writes them
into the StatefulSet, so the cluster holds their canonical form (``cpu: "0.5"`` becomes
``500m``, ``1.5Gi`` becomes ``1536Mi``). Writing that form makes the rendered object equal to
what the cluster stores, and a comparison with a live object shows no false change. The rules
are apimachinery's ``Quantity.String``: the format of the suffix is kept (binary, decimal or
exponent); a binary quantity under 1024 or with a fraction is written as a decimal one; a
decimal mantissa is the integer left when the exponent is rounded down to a multiple of three;
precision finer than a nano unit is rounded up.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exponent>[eE][+-]?[0-9]+)|(?P<decimal>[numkMGTPE]?))"
)
_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15}
_DECIMAL_EXPONENTS["E"] = 18
_DECIMAL_SUFFIXES = {exponent: suffix for suffix, exponent in _DECIMAL_EXPONENTS.items()}
_NANO = Fraction(1, 10**9)


def canonical_quantity(value: Any) -> Any:
    """``value`` in the API server's canonical form when it is a quantity (an ``int`` or a
    quantity string); anything else (a deferred value, a malformed string) unchanged."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return value
    match = _QUANTITY.fullmatch(str(value))
    if match is None:
        return value
    amount = Fraction(match["number"])
    if match["binary"]:
        amount *= 1024 ** _BINARY.index(match["binary"])
    elif match["exponent"]:
        amount *= Fraction(10) ** int(match["exponent"][1:])
    else:
        amount *= Fraction(10) ** _DECIMAL_EXPONENTS[match["decimal"]]
    if match["sign"] == "-":
        amount = -amount
    if amount % _NANO:
        amount = Fraction(-((-amount) // _NANO)) * _NANO  # round up to a nano unit
    if match["binary"] and abs(amount) >= 1024 and amount.denominator == 1:
        return _binary(int(amount))
    return _decimal(amount, exponent_form=bool(match["exponent"]))


def _binary(amount: int) -> str:
    power = 0
    while power < len(_BINARY) - 1 and amount % 1024 == 0:
        amount //= 1024
        power += 1
    return f"{amount}{_BINARY[power]}"


def _decimal(amount: Fraction, exponent_form: bool) -> str:
    if amount == 0:
        return "0"
    exponent = -9
    mantissa = int(amount / _NANO)  # exact: rounded to a nano unit above
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3  # round the exponent down to a multiple of three
    mantissa *= 10**shift
    exponent -= shift
    if exponent_form:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    if exponent > 18:
        mantissa *= 10 ** (exponent - 18)
        exponent = 18
    return f"{mantissa}{_DECIMAL_SUFFIXES[exponent]}"


def canonical_resources(resources: dict[str, Any]) -> dict[str, Any]:
    """``resources`` (``requests``, ``limits`` and their quantities) in canonical form."""
    return {
        key: (
            {name: canonical_quantity(q) for name, q in value.items()}
            if isinstance(value, dict)
            else value
        )
        for key, value in resources.items()
    }
