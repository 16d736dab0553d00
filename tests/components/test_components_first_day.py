"""A Pulumi user's first day (issue 17.6): a component given arguments that make no valid
document is refused like a rule error (``<Kind> '<name>': field: CODE: message``, one line
per problem, a ``pulumi.RunError`` so that ``pulumi preview`` prints no traceback), before
anything of it is registered."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from tars_components.components import (
    ComponentError,
    TAccount,
    TAccountArgs,
    TConfig,
    TFramework,
    TFrameworkArgs,
    TFrameworkConfigArgsDict,
    TImage,
    TServer,
    TTemplate,
    TTree,
)
from tars_components.components import args_taccount as taccount_args
from tars_components.components.shapes import RoleValue
from tars_components.components.testing import Recording, record
from tars_components.loading.documents import parse_document
from tars_components.models.taccount import Role
from tars_components.settings.options import Mode, Options

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


# --- typed building, Inputs where values are placed, docstrings that match the rules --------

FRAMEWORK_FIELDS: TFrameworkConfigArgsDict = {
    "imageBuild": {"executor": {"image": "reg.example.com/tars/kaniko:v1.4.0"}},
    "imageUpload": {"registry": "reg.example.com/shop"},
    "nodeImage": {"image": "reg.example.com/tars/tarsnode:v1.4.0"},
}


def _framework_program(config: Any) -> Callable[[], None]:
    def program() -> None:
        TFramework(
            "fw",
            TFrameworkArgs(
                namespace=NAMESPACE,
                config=config,
                options=Options(namespace=NAMESPACE, mode=Mode.CRD),
            ),
        )

    return program


def test_a_framework_config_given_as_its_typed_fields_is_the_document() -> None:
    document = parse_document(
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TFrameworkConfig",
            "metadata": {"name": "tars-framework", "namespace": NAMESPACE},
            **FRAMEWORK_FIELDS,
        },
        NAMESPACE,
    )
    typed = record(_framework_program(FRAMEWORK_FIELDS))
    parsed = record(_framework_program(document))
    assert {r.urn: r.inputs for r in typed.registrations} == {
        r.urn: r.inputs for r in parsed.registrations
    }
    [config] = typed.kubernetes()
    assert config.inputs["nodeImage"]["image"] == "reg.example.com/tars/tarsnode:v1.4.0"


def test_a_v1beta2_framework_config_is_recognised_by_its_image_registry() -> None:
    fields: TFrameworkConfigArgsDict = {
        "imageRegistry": {"registry": "reg.example.com/shop"},
        "nodeImage": {"image": "reg.example.com/tars/tarsnode:v1.4.0"},
    }
    args = TFrameworkArgs(namespace=NAMESPACE, config=fields)
    config = args.config_document(NAMESPACE)
    assert config is not None and config.api_version == "k8s.tars.io/v1beta2"
    assert config.name == "tars-framework" and config.registry is not None


def _server_program(wrap: Callable[[str], Any], mode: Mode) -> Callable[[], None]:
    def program() -> None:
        fw = TFramework(
            "fw",
            TFrameworkArgs(
                namespace=NAMESPACE,
                config=FRAMEWORK_FIELDS,
                templates={"tars.cpp": "tars.cpp"},
                options=Options(namespace=NAMESPACE, mode=mode),
            ),
        )
        TServer(
            "srv",
            framework=fw,
            app="Shop",
            server="Order",
            tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
            labels={"team": wrap("blue")},
            annotations={"owner": wrap("shop-team")},
        )

    return program


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_server_labels_and_annotations_take_outputs(mode: Mode) -> None:
    plain = record(_server_program(lambda v: v, mode))
    lifted = record(_server_program(pulumi.Output.from_input, mode))
    # Registration order is the SDK's (an Output defers a registration): compare by URN.
    assert {r.urn: r.inputs for r in lifted.kubernetes()} == {
        r.urn: r.inputs for r in plain.kubernetes()
    }
    assert len(lifted.kubernetes()) == 2  # Service and StatefulSet, or config and TServer
    if mode == Mode.CRD:
        [server] = [r for r in lifted.kubernetes() if r.type.endswith(":TServer")]
        assert server.inputs["metadata"]["labels"]["team"] == "blue"
        assert server.inputs["metadata"]["annotations"]["owner"] == "shop-team"


def test_the_taccount_docs_and_types_name_the_roles_ta003_accepts() -> None:
    roles = {role.value for role in Role}
    assert set(typing.get_args(RoleValue)) == roles
    assert "authorization" in TAccountArgs.__dataclass_fields__
    source = inspect.getsource(taccount_args)
    start = source.index("    authorization: Sequence[AuthorizationArgsDict]")
    docstring = source[start : source.index('"""', source.index('"""', start) + 3)]
    named = set(re.findall(r"``(\w+)``", docstring))
    assert roles <= named and not (named - roles - {"role", "flag"}), named
