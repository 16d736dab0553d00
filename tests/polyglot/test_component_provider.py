"""The component provider driven as the Pulumi engine drives it: ``plugin/__main__.py`` in a
subprocess, ``GetSchema`` and ``Construct`` over gRPC, its registrations recorded by a test
resource monitor (tests/support/engines/component_provider.py). Each component is constructed from
plain JSON arguments, as a TypeScript or YAML program sends them, and what it registers below
itself is compared with what the Python API registers for the same input under mocks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import bcrypt
import grpc
import pulumi
import pytest
import yaml
from pulumi.output import Unknown
from pulumi.runtime import rpc
from pulumi.runtime.proto import errors_pb2, provider_pb2, status_pb2
from support.builders.platform_values import CONTROLLER_VALUES, FRAMEWORK_VALUES
from support.engines.component_provider import (
    DYNAMIC_PROVIDER,
    PLUGIN,
    Child,
    ComponentProviderProcess,
    RecordingEngine,
    python_children,
)
from support.engines.grpc_provider import from_struct, to_struct, with_props

from tars_components import components as python
from tars_components.components import ComponentError, platform
from tars_components.components.testing import plaintext_paths, record
from tars_components.platform.certificates import generate_ca
from tars_components.polyglot import components as served
from tars_components.polyglot.host import comparable
from tars_components.settings.options import Mode, Options

pytest.importorskip("pulumi.provider.experimental.component", reason="needs pulumi>=3.166")

ROOT = PLUGIN.parent
NODE_IMAGE = "reg.example.com/tars/tarsnode:v1.4.0"
CONFIG = {
    "nodeImage": {"image": NODE_IMAGE},
    "imageBuild": {"executor": {"image": "reg.example.com/tars/kaniko:v1.4.0"}},
    "imageUpload": {"registry": "reg.example.com/shop"},
}
TEMPLATES = {"tars.cpp": "tars.default", "tars.default": "tars.default"}
EXPAND = "shop-dev"
CRD = "shop-crd"

SERVER: dict[str, Any] = {
    "app": "Shop",
    "server": "Order",
    "tars": {
        "template": "tars.cpp",
        "profile": "<tars><application>\n</application></tars>",
        "servants": [
            {"name": "OrderObj", "port": 10000, "thread": 5},
            {"name": "AdminObj", "port": 10001, "isTcp": True},
        ],
    },
    "k8s": {
        "replicas": 2,
        "env": [{"name": "LOG_LEVEL", "value": "debug"}],
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
    },
    "release": {"id": "v1", "image": "reg.example.com/shop/order:v1"},
    "labels": {"team": "shop"},
}


@pytest.fixture(scope="module")
def engine() -> Iterator[RecordingEngine]:
    test_engine = RecordingEngine()
    yield test_engine
    test_engine.stop()


@pytest.fixture(scope="module")
def plugin(engine: RecordingEngine) -> Iterator[ComponentProviderProcess]:
    with ComponentProviderProcess(engine) as process:
        for name, namespace, mode in (("fw", EXPAND, "expand"), ("fw-crd", CRD, "crd")):
            process.construct(
                "tars:index:TFramework",
                name,
                {"namespace": namespace, "config": CONFIG, "templates": TEMPLATES, "mode": mode},
            )
        yield process


def python_framework(namespace: str) -> python.TFramework:
    mode = Mode.CRD if namespace == CRD else Mode.EXPAND
    return python.TFramework(
        "fw" if namespace == EXPAND else "fw-crd",
        python.TFrameworkArgs(
            namespace=namespace,
            config=dict(CONFIG),  # type: ignore[arg-type]
            templates=TEMPLATES,
            options=Options(namespace=namespace, mode=mode),
        ),
    )


def grpc_children(
    plugin: ComponentProviderProcess, type_: str, name: str, args: dict[str, Any]
) -> list[Child]:
    response = plugin.construct(type_, name, args)
    assert response.urn.endswith(f"{type_}::{name}")
    return plugin.engine.children_of(response.urn)


def refusal(error: grpc.RpcError) -> list[tuple[str, str]]:
    """``(property path, reason)`` of each entry of an ``InputPropertiesError`` status."""
    metadata = dict(error.trailing_metadata() or ())  # type: ignore[attr-defined]
    status = status_pb2.Status.FromString(metadata["grpc-status-details-bin"])
    found = errors_pb2.InputPropertiesError()
    assert status.details[0].Unpack(found)
    return [(e.property_path, e.reason) for e in found.errors]


def test_get_schema_serves_the_committed_schema(plugin: ComponentProviderProcess) -> None:
    served = plugin.schema()
    committed = json.loads((PLUGIN / "schema.json").read_text(encoding="utf-8"))
    assert comparable(served) == comparable(committed)
    kinds = ("TAccount", "TConfig", "TFramework", "TImage", "TServer", "TTemplate", "TTree")
    platform_kinds = ("TarsController", "TarsFrameworkInstall")
    assert sorted(served["resources"]) == [f"tars:index:{k}" for k in (*kinds, *platform_kinds)]


def test_a_tserver_from_plain_json_registers_what_the_python_program_registers(
    plugin: ComponentProviderProcess,
) -> None:
    children = grpc_children(plugin, "tars:index:TServer", "order", {"framework": EXPAND, **SERVER})

    def program() -> None:
        fw = python_framework(EXPAND)
        python.TServer("order", framework=fw, **SERVER)

    assert [(c.type, c.name) for c in children] == [
        ("kubernetes:apps/v1:StatefulSet", "order-statefulset"),
        ("kubernetes:core/v1:Service", "order-service"),
        ("tars:index:TarsValidation", "order-validation"),
    ]
    assert children == python_children(program, "tars:index:TServer", "order")
    statefulset = children[0].inputs
    assert statefulset["spec"]["replicas"] == 2
    assert statefulset["metadata"]["name"] == "shop-order"


def test_a_tservers_outputs_are_the_python_components(plugin: ComponentProviderProcess) -> None:
    """``manifests`` and ``scaleTargetRef`` as Python programs read them (an HPA's target)."""
    response = plugin.construct(
        "tars:index:TServer", "outputs", {"framework": EXPAND, **SERVER, "server": "Outputs"}
    )
    state = from_struct(response.state)

    def program() -> None:
        srv = python.TServer(
            "outputs", framework=python_framework(EXPAND), **{**SERVER, "server": "Outputs"}
        )
        pulumi.export("manifests", srv.manifests)
        pulumi.export("scaleTargetRef", srv.scale_target_ref)

    expected = record(program).outputs
    assert (
        state["scaleTargetRef"]
        == expected["scaleTargetRef"]
        == {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "name": "shop-outputs",
        }
    )
    assert state["manifests"] == expected["manifests"]
    assert [m["kind"] for m in state["manifests"]] == ["Service", "StatefulSet"]
    assert (state["objectName"], state["namespace"]) == ("shop-outputs", EXPAND)


def test_a_tserver_in_crd_mode_registers_the_custom_resource_the_python_program_does(
    plugin: ComponentProviderProcess,
) -> None:
    args = {**SERVER, "app": "Shop", "server": "Cart", "subType": "tars"}
    children = grpc_children(plugin, "tars:index:TServer", "cart", {"framework": CRD, **args})

    def program() -> None:
        fw = python_framework(CRD)
        fields = {k: v for k, v in args.items() if k != "subType"}
        python.TServer("cart", framework=fw, sub_type="tars", **fields)

    assert [c.type for c in children] == [
        "kubernetes:k8s.tars.io/v1beta3:TServer",
        "tars:index:TarsValidation",
    ]
    assert children == python_children(program, "tars:index:TServer", "cart")


def test_a_duplicate_servant_port_fails_construct_with_ts004_at_its_argument(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    tars = dict(SERVER["tars"])
    tars["servants"] = [{"name": "OrderObj", "port": 10000}, {"name": "AdminObj", "port": 10000}]
    before = len(engine.registrations)
    with pytest.raises(grpc.RpcError) as caught:
        plugin.construct(
            "tars:index:TServer",
            "dup",
            {"framework": EXPAND, **SERVER, "app": "Shop", "server": "Dup", "tars": tars},
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    errors = refusal(caught.value)
    assert errors == [
        ("tars.servants[1].port", "TS004: port 10000 is already used by servant OrderObj")
    ]
    assert "TS004" in caught.value.details()  # type: ignore[attr-defined]
    assert "Traceback" not in caught.value.details()  # type: ignore[attr-defined]
    assert len(engine.registrations) == before  # nothing registered


def test_an_argument_the_crd_refuses_fails_construct_naming_field_and_code(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    before = len(engine.registrations)
    with pytest.raises(grpc.RpcError) as caught:
        plugin.construct(
            "tars:index:TServer",
            "bad",
            {"framework": EXPAND, **SERVER, "server": "Bad", "important": 99},
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert refusal(caught.value) == [("important", "TS021: 99 is above the maximum 20")]
    details = caught.value.details()  # type: ignore[attr-defined]
    assert details.startswith("TServer 'bad': important: TS021: ")
    assert "Traceback" not in details
    assert len(engine.registrations) == before


def test_a_component_of_an_undeclared_framework_is_refused(
    plugin: ComponentProviderProcess,
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        plugin.construct("tars:index:TServer", "lost", {"framework": "nowhere", **SERVER})
    details = caught.value.details()  # type: ignore[attr-defined]
    assert "no TFramework named 'nowhere' or of namespace 'nowhere'" in details
    assert f"fw ({EXPAND})" in details
    assert f"fw-crd ({CRD})" in details


def test_a_framework_is_named_by_resource_name_when_two_share_a_namespace(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    for name in ("east", "west"):
        plugin.construct(
            "tars:index:TFramework",
            name,
            {"namespace": "shop-twice", "config": CONFIG, "templates": TEMPLATES},
        )
    with pytest.raises(grpc.RpcError) as caught:
        plugin.construct("tars:index:TServer", "twice", {"framework": "shop-twice", **SERVER})
    details = caught.value.details()  # type: ignore[attr-defined]
    assert "2 TFrameworks have namespace 'shop-twice' (east, west)" in details
    response = plugin.construct(
        "tars:index:TServer", "twice", {"framework": "west", **SERVER, "server": "Twice"}
    )
    children = engine.children_of(response.urn)
    statefulset = next(c for c in children if c.type == "kubernetes:apps/v1:StatefulSet")
    assert statefulset.inputs["metadata"]["namespace"] == "shop-twice"


DOCUMENTS: list[tuple[str, str, dict[str, Any], Callable[[python.TFramework], Any]]] = [
    (
        "TTemplate",
        "tpl",
        {"templateName": "tars.shop", "content": "<tars></tars>", "parent": "tars.cpp"},
        lambda fw: python.TTemplate(
            "tpl",
            framework=fw,
            template_name="tars.shop",
            content="<tars></tars>",
            parent="tars.cpp",
        ),
    ),
    (
        "TConfig",
        "cfg",
        {"app": "Shop", "server": "Order", "configName": "order.conf", "configContent": "a=1"},
        lambda fw: python.TConfig(
            "cfg",
            framework=fw,
            app="Shop",
            server="Order",
            config_name="order.conf",
            config_content="a=1",
        ),
    ),
    (
        "TImage",
        "img",
        {
            "name": "shop-order",
            "imageType": "server",
            "releases": [{"id": "v1", "image": "reg.example.com/shop/order:v1"}],
        },
        lambda fw: python.TImage(
            "img",
            framework=fw,
            name="shop-order",
            image_type="server",
            releases=[{"id": "v1", "image": "reg.example.com/shop/order:v1"}],
        ),
    ),
    (
        "TTree",
        "tree",
        {
            "businesses": [{"name": "shop", "show": "Shop", "weight": 1}],
            "apps": [{"name": "Shop", "businessRef": "shop"}],
        },
        lambda fw: python.TTree(
            "tree",
            framework=fw,
            businesses=[{"name": "shop", "show": "Shop", "weight": 1}],
            apps=[{"name": "Shop", "businessRef": "shop"}],
        ),
    ),
    (
        "TAccount",
        "admin",
        {
            "username": "admin",
            "bcryptPassword": "$2a$10$abcdefghijklmnopqrstuu5Y3vJ5S2nKzq1QvQ9VwQ9X0X0X0X0Xa",
            "authorization": [{"role": "admin", "flag": "*"}],
        },
        lambda fw: python.TAccount(
            "admin",
            framework=fw,
            username="admin",
            bcrypt_password="$2a$10$abcdefghijklmnopqrstuu5Y3vJ5S2nKzq1QvQ9VwQ9X0X0X0X0Xa",
            authorization=[{"role": "admin", "flag": "*"}],
        ),
    ),
]


@pytest.mark.parametrize(
    ("kind", "name", "args", "build"), DOCUMENTS, ids=[d[0] for d in DOCUMENTS]
)
def test_each_component_registers_what_the_python_program_registers(
    plugin: ComponentProviderProcess,
    kind: str,
    name: str,
    args: dict[str, Any],
    build: Callable[[python.TFramework], Any],
) -> None:
    children = grpc_children(plugin, f"tars:index:{kind}", name, {"framework": CRD, **args})
    expected = python_children(lambda: build(python_framework(CRD)), f"tars:index:{kind}", name)
    assert children == expected
    assert children[-1].type == "tars:index:TarsValidation"
    assert any(c.type == f"kubernetes:k8s.tars.io/v1beta3:{kind}" for c in children)


def test_the_yaml_example_constructs_through_the_provider(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    program = yaml.safe_load((ROOT / "examples" / "yaml" / "Pulumi.yaml").read_text("utf-8"))
    defaults = {key: spec["default"] for key, spec in program["config"].items()}

    def resolved(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("${") and value.endswith("}"):
            return defaults[value[2:-1]]
        if isinstance(value, dict):
            return {k: resolved(v) for k, v in value.items()}
        if isinstance(value, list):
            return [resolved(v) for v in value]
        return value

    urns = {}
    for name, resource in program["resources"].items():
        # named apart from the other tests' resources: one provider process serves them all
        response = plugin.construct(
            resource["type"], f"yaml-{name}", resolved(resource["properties"])
        )
        urns[name] = response.urn
    children = engine.children_of(urns["shop-order"])
    assert [c.type for c in children] == [
        "kubernetes:apps/v1:StatefulSet",
        "kubernetes:core/v1:Service",
        "tars:index:TarsValidation",
    ]
    image = children[0].inputs["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == defaults["orderImage"]


def output_value(
    value: Any = None, secret: bool = False, dependencies: tuple[str, ...] = ()
) -> Any:
    """An output value as the engine sends one in ``Construct`` inputs (no value: unknown)."""
    found: dict[str, Any] = {
        rpc._special_sig_key: rpc._special_output_value_sig,
        "dependencies": list(dependencies),
    }
    if value is not None:
        found["value"] = value
    if secret:
        found["secret"] = True
    return found


def test_a_preview_with_an_unknown_image_constructs_and_leaves_the_image_unknown(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    image = output_value(dependencies=("urn:pulumi:dev::tars::docker:index:Image::order",))
    args = {**SERVER, "server": "Later", "release": {"id": "v2", "image": image}}
    response = plugin.construct(
        "tars:index:TServer", "later", {"framework": CRD, **args}, preview=True
    )
    children = engine.children_of(response.urn)
    assert [c.type for c in children] == [
        "kubernetes:k8s.tars.io/v1beta3:TServer",
        "tars:index:TarsValidation",
    ]
    release = children[0].inputs["spec"]["release"]
    assert release["id"] == "v2"
    assert isinstance(release["image"], Unknown)


def test_a_secret_password_stays_secret_in_every_registration_and_output(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    password = "s3cr3t-Passw0rd"
    args = {
        "framework": CRD,
        "username": "ops",
        "password": output_value(password, secret=True),
        "authorization": [{"role": "operator", "flag": "Shop"}],
    }
    response = plugin.construct("tars:index:TAccount", "ops", args, preview=True)
    children = engine.children_of(response.urn)
    assert {c.type for c in children} >= {
        "tars:index:TarsValidation",
        "kubernetes:k8s.tars.io/v1beta3:TAccount",
    }
    leaks = [
        f"{r.type}::{r.name} {path}"
        for r in engine.registrations
        for path in plaintext_paths(from_struct(r.object), password)
    ]
    leaks += plaintext_paths(from_struct(response.state), password)
    assert leaks == []


def test_the_platform_install_registers_what_the_python_program_registers(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    ca = generate_ca()
    controller_args = {
        "values": CONTROLLER_VALUES,
        "caCertPem": ca.cert_pem,
        "caKeyPem": output_value(ca.key_pem, secret=True),
    }
    install_args = {
        "values": FRAMEWORK_VALUES,
        "namespace": "tars-install",
        "controller": "tars",
        "nodes": ["node-a"],
    }
    controller = plugin.construct("tars:index:TarsController", "tars", controller_args)
    install = plugin.construct("tars:index:TarsFrameworkInstall", "install", install_args)

    def program() -> None:
        tars = platform.TarsController(
            "tars",
            platform.TarsControllerArgs(
                values=CONTROLLER_VALUES,
                ca_cert_pem=ca.cert_pem,
                ca_key_pem=pulumi.Output.secret(ca.key_pem),
            ),
        )
        platform.TarsFrameworkInstall(
            "install",
            platform.TarsFrameworkInstallArgs(
                values=FRAMEWORK_VALUES,
                namespace="tars-install",
                controller=tars,
                nodes=["node-a"],
            ),
        )

    controller_children = engine.children_of(controller.urn)
    assert controller_children == python_children(program, "tars:index:TarsController", "tars")
    install_children = engine.children_of(install.urn)
    assert install_children == python_children(
        program, "tars:index:TarsFrameworkInstall", "install"
    )
    assert "kubernetes:core/v1:NodePatch" in {c.type for c in install_children}
    key_line = ca.key_pem.strip().splitlines()[1]
    assert [
        p for r in engine.registrations for p in plaintext_paths(from_struct(r.object), key_line)
    ] == []


def test_an_install_naming_an_undeclared_controller_is_refused(
    plugin: ComponentProviderProcess,
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        plugin.construct(
            "tars:index:TarsFrameworkInstall",
            "lost-install",
            {"values": FRAMEWORK_VALUES, "namespace": "tars-lost", "controller": "nowhere"},
        )
    details = caught.value.details()  # type: ignore[attr-defined]
    assert "controller: no TarsController named 'nowhere'" in details
    assert "Traceback" not in details


WRONG_TYPES = {
    "tserver-labels-a-number": ("TServer", {**SERVER, "labels": 5}, "labels", "must be an object"),
    "tserver-replicas-a-string": (
        "TServer",
        {**SERVER, "k8s": {**SERVER["k8s"], "replicas": "two"}},  # type: ignore[dict-item]
        "k8s.replicas",
        "must be an integer, got a string",
    ),
    "taccount-username-a-number": (
        "TAccount",
        {"username": 5, "password": "Hunter2-planted"},
        "username",
        "must be a string, got a number",
    ),
    "tconfig-config-name-a-boolean": (
        "TConfig",
        {"app": "Shop", "configName": True, "configContent": "x"},
        "configName",
        "must be a string, got a boolean",
    ),
    "tserver-k8s-misspelt": (
        "TServer",
        {**SERVER, "k8s": {**SERVER["k8s"], "replics": 2}},  # type: ignore[dict-item]
        "k8s.replics",
        "unknown property (did you mean replicas?)",
    ),
    "tserver-port-a-string": (
        "TServer",
        {**SERVER, "tars": {**SERVER["tars"], "servants": [{"name": "A", "port": "10000"}]}},  # type: ignore[dict-item]
        "tars.servants[0].port",
        "must be an integer, got a string",
    ),
    "taccount-without-username": (
        "TAccount",
        {"password": "Hunter2-planted"},
        "username",
        "Missing required input 'username'",
    ),
}


@pytest.mark.parametrize(
    ("kind", "args", "path", "reason"), WRONG_TYPES.values(), ids=WRONG_TYPES.keys()
)
def test_a_wrong_json_type_is_invalid_argument_at_its_property_the_same_every_run(
    engine: RecordingEngine,
    plugin: ComponentProviderProcess,
    kind: str,
    args: dict[str, Any],
    path: str,
    reason: str,
) -> None:
    before = len(engine.registrations)
    details = []
    for _ in range(2):
        with pytest.raises(grpc.RpcError) as caught:
            plugin.construct(f"tars:index:{kind}", "wrong", {"framework": EXPAND, **args})
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
        [(found_path, found_reason)] = refusal(caught.value)
        assert found_path == path and reason in found_reason
        details.append(caught.value.details())  # type: ignore[attr-defined]
    assert details[0] == details[1]
    assert "Traceback" not in details[0] and " at 0x" not in details[0]
    assert "Hunter2-planted" not in details[0]
    assert len(engine.registrations) == before


def plugin_resource(engine: RecordingEngine, kind: str, name: str) -> tuple[str, Any]:
    """The URN and the registered inputs (as the engine sends them on) of the plugin's own
    ``kind`` resource ``name``."""
    found = next(
        r for r in engine.registrations if r.type == f"tars:index:{kind}" and r.name == name
    )
    return engine.urn_of(found.parent, found.type, found.name), found.object


def test_the_plugin_serves_its_validation_resources_itself(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    """A program in another language has no Python for a ``pulumi-python`` dynamic provider
    (pulumi/pulumi#5455): the plugin registers ``tars:index:TarsValidation`` and answers its
    check, diff and create with the rules of a Python program's dynamic provider."""
    plugin.construct(
        "tars:index:TServer", "served", {"framework": EXPAND, **SERVER, "server": "Served"}
    )
    urn, inputs = plugin_resource(engine, "TarsValidation", "served-validation")
    assert DYNAMIC_PROVIDER not in from_struct(inputs)

    checked = plugin.stub.Check(provider_pb2.CheckRequest(urn=urn, olds=to_struct({}), news=inputs))
    assert list(checked.failures) == []
    assert checked.inputs == inputs

    document = json.loads(from_struct(inputs)["document"])
    document["spec"]["tars"]["servants"][1]["port"] = 10000
    clashing = with_props(inputs, document=json.dumps(document))
    refused = plugin.stub.Check(
        provider_pb2.CheckRequest(urn=urn, olds=to_struct({}), news=clashing)
    )
    assert [(f.property, f.reason) for f in refused.failures] == [
        (
            "spec.tars.servants[1].port",
            "TS004: port 10000 is already used by servant OrderObj",
        )
    ]

    created = plugin.stub.Create(provider_pb2.CreateRequest(urn=urn, properties=inputs))
    assert created.id == f"TServer/{EXPAND}/shop-served"
    mutated = from_struct(created.properties)["mutated"]
    assert mutated["spec"]["k8s"]["replicas"] == 2
    same = plugin.stub.Diff(
        provider_pb2.DiffRequest(urn=urn, id=created.id, olds=created.properties, news=inputs)
    )
    assert same.changes == provider_pb2.DiffResponse.DIFF_NONE
    with pytest.raises(grpc.RpcError) as refusal:
        plugin.stub.Create(provider_pb2.CreateRequest(urn=urn, properties=clashing))
    assert "TS004" in str(refusal.value.details())


def test_the_plugins_validation_keeps_a_secret_input_secret(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    password = bcrypt.hashpw(b"plugin-Passw0rd", bcrypt.gensalt(rounds=4)).decode()
    args = {
        "framework": CRD,
        "username": "plugin",
        "bcryptPassword": output_value(password, secret=True),
        "authorization": [{"role": "operator", "flag": "Shop"}],
    }
    plugin.construct("tars:index:TAccount", "plugin", args)
    urn, inputs = plugin_resource(engine, "TarsValidation", "plugin-validation")
    registered = next(r for r in engine.registrations if r.name == "plugin-validation")
    # what the engine makes secret itself: the outputs the registration names
    engine_secret = set(registered.additionalSecretOutputs)
    # the digest of a secret input is a secret too (a short secret could be found by trying)
    assert engine_secret >= {"mutated", "violations", "warnings", "inputsDigest"}
    created = plugin.stub.Create(provider_pb2.CreateRequest(urn=urn, properties=inputs))
    updated = plugin.stub.Update(
        provider_pb2.UpdateRequest(urn=urn, id=created.id, olds=created.properties, news=inputs)
    )
    for response in (created, updated):
        outputs = from_struct(response.properties)
        assert "document" not in outputs  # not stored twice: its digest stands in for it
        plain = plaintext_paths(outputs, password)
        assert plain and {p.split(".", 1)[0] for p in plain} <= engine_secret


def test_the_plugin_draws_a_taccount_salt_once(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    args = {
        "framework": CRD,
        "username": "salted",
        "password": output_value("salted-Passw0rd", secret=True),
        "authorization": [{"role": "operator", "flag": "Shop"}],
    }
    plugin.construct("tars:index:TAccount", "salted", args, preview=True)
    urn, inputs = plugin_resource(engine, "TAccountSalt", "salted-salt")
    created = plugin.stub.Create(provider_pb2.CreateRequest(urn=urn, properties=inputs))
    salt = rpc.unwrap_rpc_secret(from_struct(created.properties)["salt"])
    assert isinstance(salt, str) and len(salt) == 22
    kept = plugin.stub.Diff(
        provider_pb2.DiffRequest(urn=urn, id=created.id, olds=created.properties, news=inputs)
    )
    assert kept.changes == provider_pb2.DiffResponse.DIFF_NONE
    other = with_props(inputs, accountName="someone-else")
    moved = plugin.stub.Diff(
        provider_pb2.DiffRequest(urn=urn, id=created.id, olds=created.properties, news=other)
    )
    assert list(moved.replaces) == ["accountName"]


def test_the_plugin_refuses_a_resource_it_does_not_serve(plugin: ComponentProviderProcess) -> None:
    urn = "urn:pulumi:dev::tars::tars:index:Nothing::x"
    with pytest.raises(grpc.RpcError) as refusal:
        plugin.stub.Check(
            provider_pb2.CheckRequest(urn=urn, olds=to_struct({}), news=to_struct({}))
        )
    assert refusal.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_a_controller_needs_its_ca_where_pulumi_tls_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The plugin leaves pulumi-tls out (its provider is downloaded from get.pulumi.com):
    there, a controller without a CA is refused at ``caCertPem``, saying what to give."""
    monkeypatch.setattr(served, "_has_tls", lambda: False)
    errors: list[str] = []

    def program() -> None:
        try:
            served.TarsController("no-ca", {"values": CONTROLLER_VALUES})  # type: ignore[typeddict-item]
        except ComponentError as exc:
            errors.append(str(exc))

    recording = record(program)
    assert errors == [
        "TarsController 'no-ca': caCertPem: required here, with caKeyPem: the plugin does not "
        "install pulumi-tls, whose provider would be downloaded from get.pulumi.com "
        "(docs/pulumi/multi-language.md); give the webhook CA"
    ]
    assert not [r for r in recording.registrations if r.type.startswith("kubernetes:")]


def test_a_secret_expand_value_stays_secret(
    engine: RecordingEngine, plugin: ComponentProviderProcess
) -> None:
    """TarsWeb's settings in ``expand`` (a database password) from another language, as a
    secret: the TFrameworkConfig carries it (TarsWeb reads it there), as a secret."""
    secret = "db-Passw0rd-from-ts"
    config = {**CONFIG, "expand": {"nativeDBConfig": output_value(secret, secret=True)}}
    args = {"namespace": "shop-expand-secret", "config": config, "mode": "crd"}
    response = plugin.construct("tars:index:TFramework", "fw-secret", args)
    children = engine.children_of(response.urn)
    (framework,) = [c for c in children if c.type.endswith(":TFrameworkConfig")]
    assert framework.inputs["expand"] == {"secret": {"nativeDBConfig": secret}}
    leaks = [
        f"{r.type}::{r.name} {path}"
        for r in engine.registrations
        for path in plaintext_paths(from_struct(r.object), secret)
    ]
    assert leaks == []
