"""A Pulumi user's first day (issue 17.6): a component given arguments that make no valid
document is refused like a rule error (``<Kind> '<name>': field: CODE: message``, one line
per problem, a ``pulumi.RunError`` so that ``pulumi preview`` prints no traceback), before
anything of it is registered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from tars_components.components import (
    ComponentError,
    TAccount,
    TConfig,
    TFramework,
    TFrameworkArgs,
    TImage,
    TServer,
    TTemplate,
    TTree,
)
from tars_components.components.testing import Recording, record
from tars_components.options import Options

NAMESPACE = "shop"


def framework() -> TFramework:
    return TFramework("fw", TFrameworkArgs(namespace=NAMESPACE, templates={"tars.cpp": "tars.cpp"}))


BAD: dict[str, tuple[Callable[[TFramework], Any], list[str]]] = {
    "TServer": (
        lambda fw: TServer(
            "x",
            pulumi.ResourceOptions(),
            framework=fw,
            app="Shop",
            server="Order",
            sub_type="weird",
            tars={"template": "tars.cpp", "servants": [{"name": "OrderObj"}]},  # type: ignore[typeddict-item]
            k8s={"abilityAffinity": "Sometimes"},  # type: ignore[typeddict-item]
        ),
        [
            "TServer 'x': spec.subType: TS021: 'weird' is not one of 'tars' or 'normal'",
            "TServer 'x': spec.tars.servants[0].port: TS021: required field is missing",
            "TServer 'x': spec.k8s.abilityAffinity: TS021: 'Sometimes' is not one of "
            "'AppRequired', 'ServerRequired', 'AppOrServerPreferred' or 'None'",
        ],
    ),
    "TTemplate": (
        lambda fw: TTemplate("x", framework=fw, template_name="shop.cpp", parent=""),
        ["TTemplate 'x': spec.parent: TT001: must not be empty"],
    ),
    "TConfig": (
        lambda fw: TConfig("x", framework=fw, app="Shop", config_name="a.conf", pod_seq="x"),
        ["TConfig 'x': podSeq: TC011: 'x' is not valid: expected pattern ^(m|0|[1-9][0-9]?)$"],
    ),
    "TImage": (
        lambda fw: TImage("x", framework=fw, name="shop-order", image_type="bogus"),  # type: ignore[arg-type]
        ["TImage 'x': imageType: TI001: 'bogus' is not one of 'base', 'server' or 'node'"],
    ),
    "TTree": (
        lambda fw: TTree("x", framework=fw, businesses=[{"name": "Shop"}]),  # type: ignore[typeddict-item]
        ["TTree 'x': businesses[0].show: TR008: required field is missing"],
    ),
    "TAccount": (
        lambda fw: TAccount(
            "x",
            framework=fw,
            username="ops",
            bcrypt_password=pulumi.Output.secret("x" * 60),
            authorization=[{"role": "visitor", "flag": "*"}],  # type: ignore[typeddict-item]
        ),
        [
            "TAccount 'x': spec.authorization[0].role: TA003: 'visitor' is not one of "
            "'admin', 'operator' or 'developer'"
        ],
    ),
    "TFramework": (
        lambda fw: TFramework("x", TFrameworkArgs(namespace="a", options=Options(namespace="b"))),
        ["TFramework 'x': namespace: 'a' differs from options.namespace 'b'"],
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_schema_error_in_a_constructor_reads_like_a_rule_error(kind: str) -> None:
    declare, expected = BAD[kind]
    recording = Recording()
    errors: list[ComponentError] = []

    def program() -> None:
        fw = framework()
        try:
            declare(fw)
        except ComponentError as exc:
            errors.append(exc)

    record(program, recording=recording)
    [error] = errors
    # What the Python language host prints for a RunError: its message, no traceback.
    assert isinstance(error, pulumi.RunError) and isinstance(error, ValueError)
    assert list(error.problems) == expected
    assert str(error) == "\n".join(expected)
    assert [r.name for r in recording.registrations] == ["fw"]  # nothing of "x"


def test_an_uncaught_component_error_fails_the_program_with_its_message() -> None:
    with pytest.raises(ComponentError, match=r"^TTemplate 'x': spec\.parent: TT001: "):
        record(lambda: BAD["TTemplate"][0](framework()))
