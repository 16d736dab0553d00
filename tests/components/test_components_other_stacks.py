"""Other stacks' outputs as the framework's ``namespace`` and ``templates`` (issue #33 item 5):
``pulumi.Input`` values such as a ``StackReference``'s outputs.

* A namespace and templates given as known Outputs register exactly what the plain values
  register (same URNs, kinds and values, every component kind, both modes), and the
  stand-in the pure core sees never reaches a registration or an output.
* The stand-in is exact: the expansion of every stack of the project built for the stand-in,
  with the stand-in replaced, is the expansion built for the namespace.
* Templates known only through an Output still feed the rules (TS010, TT002) and the
  parent chain; in a preview where they or the namespace are unknown, the same resources
  are registered.
* ``PlatformStack`` reads what the project's program exports.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pytest
from support.engines.components import output, registered, same, unknown

from tars_components.components import (
    ComponentError,
    PlatformStack,
    TAccount,
    TConfig,
    TFramework,
    TImage,
    TServer,
    TServerRelease,
    TTemplate,
    TTree,
)
from tars_components.components.namespace_input import STAND_IN, replaced
from tars_components.components.platform_stack import namespace_among, templates_in
from tars_components.components.testing import (
    Recording,
    RecordingMocks,
    ValidationFailed,
    record,
    strip_secrets,
)
from tars_components.loading.load import load_texts
from tars_components.models import TServerDocument
from tars_components.pipeline import crd_documents, expand
from tars_components.settings.options import Mode, Options

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "shop"
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
CONFIG: dict[str, Any] = {
    "imageBuild": {"executor": {"image": "reg.example.com/tars.tarskaniko:v1"}},
    "imageUpload": {"registry": "reg.example.com/upload"},
    "nodeImage": {"image": "reg.example.com/tars.tarsnode:v1", "secret": "node-secret"},
}
SALT_KEY = "a-salt-key-of-thirty-two-bytes-long!"
Wrap = Callable[[Any], Any]


def every_kind(namespace: Any, templates: Any, mode: Mode) -> None:
    """A framework and one component of every kind in it, a server whose app is an Output
    (declared in an ``apply``) among them."""
    fw = TFramework(
        "fw",
        namespace=namespace,
        config=CONFIG,  # type: ignore[arg-type]
        templates=templates,
        options=Options(mode=mode),
    )
    shop_cpp = TTemplate(
        "shop.cpp", framework=fw, template_name="shop.cpp", parent="tars.cpp", content="<tars/>"
    )
    tars = {"template": "shop.cpp", "servants": [{"name": "OrderObj", "port": 10000}]}
    order = TServer(
        "order",
        framework=fw,
        app="Shop",
        server="Order",
        tars=tars,
        k8s={"replicas": 2, "abilityAffinity": "ServerRequired"},
        release={"id": "v1", "image": "reg.example.com/shop/order:v1"},
    )
    pay = TServer(
        "pay",
        framework=fw,
        app=output("Shop"),
        server="Pay",
        tars={"template": "tars.cpp", "servants": [{"name": "PayObj", "port": 10000}]},
        k8s={"replicas": 1},
        release={"id": "v1", "image": "reg.example.com/shop/pay:v1"},
    )
    outputs: dict[str, Any] = {
        "fw.namespace": fw.namespace,
        "fw.objects": fw.objects,
        "fw.manifests": fw.manifests,
        "chain": shop_cpp.parent_chain,
        "template.objects": shop_cpp.objects,
        "order.namespace": order.namespace,
        "order.objects": order.objects,
        "order.manifests": order.manifests,
        "pay.objects": pay.objects,
        "pay.manifests": pay.manifests,
    }
    if mode == Mode.CRD:
        kinds = [
            TConfig(
                "conf",
                framework=fw,
                app="Shop",
                server="Order",
                config_name="order.conf",
                config_content="threads=8",
                version="1",
                activated=True,
            ),
            TImage(
                "image",
                framework=fw,
                image_type="server",
                releases=[{"id": "v1", "image": "reg.example.com/shop/order:v1"}],
                name="shop-order",
            ),
            TTree("tree", framework=fw, apps=[{"name": "Shop", "businessRef": ""}]),
            TAccount(
                "account",
                framework=fw,
                username="admin",
                password=pulumi.Output.secret("hunter2-pw"),
                salt_key=SALT_KEY,
                authorization=[{"role": "admin", "flag": "*"}],
            ),
        ]
        for component in kinds:
            name = component._name  # type: ignore[attr-defined]
            outputs[f"{name}.namespace"] = component.namespace
            outputs[f"{name}.objects"] = component.objects
        release = TServerRelease(
            "cart-release",
            framework=fw,
            server=server_document("Cart"),  # declared by another program
            release={"id": "v2", "image": "reg.example.com/shop/cart:v2"},
        )
        outputs["release.namespace"] = release.namespace
    for key, value in outputs.items():
        pulumi.export(key, value)


def server_document(server: str, namespace: str | None = None) -> TServerDocument:
    metadata = {"name": f"shop-{server.lower()}"}
    if namespace is not None:
        metadata["namespace"] = namespace
    return TServerDocument.model_validate(
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TServer",
            "metadata": metadata,
            "spec": {
                "app": "Shop",
                "server": server,
                "subType": "normal",
                "normal": {},
                "k8s": {},
            },
        }
    )


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_outputs_register_exactly_what_plain_values_register(mode: Mode) -> None:
    plain = record(lambda: every_kind(NAMESPACE, TEMPLATES, mode))
    lifted = record(lambda: every_kind(output(NAMESPACE), output(TEMPLATES), mode))
    assert registered(lifted) == registered(plain)
    assert strip_secrets(lifted.outputs) == strip_secrets(plain.outputs)
    assert (
        lifted.outputs["order.objects"]
        == [
            "v1/Service:shop/shop-order",
            "apps/v1/StatefulSet:shop/shop-order",
        ]
        or mode == Mode.CRD
    )
    assert lifted.outputs["chain"] == ["shop.cpp", "tars.cpp", "tars.default"]
    # The stand-in of the pure core reaches nothing: no input, output or log line.
    assert lifted.plaintext(STAND_IN) == []
    assert len(lifted.kubernetes()) == len(plain.kubernetes()) > 0


def test_the_namespace_reaches_every_place_the_core_puts_it() -> None:
    recording = record(lambda: every_kind(output("tars-other"), TEMPLATES, Mode.EXPAND))
    [sts] = [r for r in recording.kubernetes() if r.name == "order-statefulset"]
    assert sts.inputs["metadata"]["namespace"] == "tars-other"
    terms = sts.inputs["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    keys = {e["key"] for t in terms for e in t["matchExpressions"]}
    assert keys == {"tars.io/node.tars-other", "tars.io/ability.tars-other.Shop-Order"}
    [validation] = [r for r in recording.validations() if r.name == "order-validation"]
    assert validation.inputs["namespace"] == "tars-other"
    assert '"namespace":"tars-other"' in validation.inputs["document"]
    assert validation.outputs["mutated"]["metadata"]["namespace"] == "tars-other"


def _stack_texts(stack: str, namespace: str) -> dict[str, str]:
    """The stack directory's files, its namespace written as ``namespace``."""
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8").replace(
            f"tars-{stack}", namespace
        )
        for path in sorted((ROOT / "stacks" / stack).glob("*.y*ml"))
    }


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_the_stand_in_replaced_is_the_expansion_of_the_namespace(stack: str) -> None:
    real = load_texts(_stack_texts(stack, "tars-x"), "tars-x")
    stood_in = load_texts(_stack_texts(stack, STAND_IN), STAND_IN)
    assert real.servers
    options = Options(namespace="tars-x")
    objects = expand(real, options)
    assert replaced(expand(stood_in, Options(namespace=STAND_IN)), "tars-x") == objects
    assert any("tars.io/node.tars-x" in str(o) for o in objects)
    crd = Options(namespace="tars-x", mode=Mode.CRD)
    assert replaced(
        crd_documents(stood_in, Options(namespace=STAND_IN, mode=Mode.CRD)), "tars-x"
    ) == crd_documents(real, crd)


def server_on(template: str, templates: Any) -> Callable[[], None]:
    def program() -> None:
        fw = TFramework("fw", namespace=output(NAMESPACE), config=CONFIG, templates=templates)  # type: ignore[arg-type]
        TTemplate("mine", framework=fw, template_name="mine", parent="tars.cpp", content="<tars/>")
        TServer(
            "srv",
            framework=fw,
            app="Shop",
            server="Order",
            tars={"template": template, "servants": [{"name": "OrderObj", "port": 10000}]},
        )

    return program


@pytest.mark.parametrize("wrap", [same, output], ids=["plain", "output"])
def test_templates_known_only_through_an_output_feed_the_rules(wrap: Wrap) -> None:
    record(server_on("tars.cpp", wrap(TEMPLATES)))  # a template of the other stack
    record(server_on("mine", wrap(TEMPLATES)))  # one of this program, whose parent is there
    with pytest.raises(ValidationFailed, match=r"srv-validation.*TS010"):
        record(server_on("tars.java", wrap(TEMPLATES)))
    # a template whose parent the other stack lacks: TT002, the run's only failure (under
    # mocks a run may end at its first failed check, before the others are checked)
    with pytest.raises(ValidationFailed, match=r"mine-validation.*TT002"):
        record(server_on("tars.default", wrap({"tars.default": "tars.default"})))


def test_a_declared_template_wins_over_one_of_the_output() -> None:
    def program() -> None:
        fw = TFramework(
            "fw",
            namespace=output(NAMESPACE),
            config=CONFIG,  # type: ignore[arg-type]
            templates=output({**TEMPLATES, "shop.cpp": "tars.default"}),
        )
        mine = TTemplate(
            "shop.cpp", framework=fw, template_name="shop.cpp", parent="tars.cpp", content=""
        )
        pulumi.export("chain", mine.parent_chain)

    assert record(program).outputs["chain"] == ["shop.cpp", "tars.cpp", "tars.default"]


def test_an_unknown_namespace_and_templates_register_the_same_resources_in_a_preview() -> None:
    known = record(lambda: every_kind(NAMESPACE, TEMPLATES, Mode.EXPAND), preview=True)
    unknowns = record(lambda: every_kind(unknown(), unknown(), Mode.EXPAND), preview=True)
    assert sorted((r.type, r.urn) for r in unknowns.registrations) == sorted(
        (r.type, r.urn) for r in known.registrations
    )


def framework_program(**args: Any) -> Callable[[], None]:
    def program() -> None:
        TFramework("fw", config=CONFIG, **args)

    return program


def test_options_namespace_beside_an_output_namespace_is_refused() -> None:
    with pytest.raises(ComponentError, match=r"namespace: an Output, and options\.namespace"):
        record(framework_program(namespace=output("shop"), options=Options(namespace="shop")))


def test_a_document_with_its_own_namespace_is_refused_naming_the_output() -> None:
    server = server_document("Order", "shop")

    def program() -> None:
        fw = TFramework("fw", namespace=output("shop"), config=CONFIG)  # type: ignore[arg-type]
        TServer("srv", framework=fw, document=server)

    with pytest.raises(ComponentError, match=r"framework's namespace, an Output \(leave"):
        record(program)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"namespace": output("Shop_Dev")}, r"namespace: the value given \(text of 8 characters"),
        ({"namespace": output(5)}, r"namespace: the value given \(not text\)"),
        ({"templates": output(["tars.cpp"])}, r"templates: expected \{template name: parent"),
    ],
)
def test_a_bad_value_fails_naming_the_argument_not_the_value(
    given: dict[str, Any], message: str
) -> None:
    with pytest.raises(Exception, match=message) as raised:
        record(framework_program(**{"namespace": output("shop"), **given}))
    assert "Shop_Dev" not in str(raised.value)


# --- PlatformStack -----------------------------------------------------------------------

PLATFORM = "organization/tars/dev"


def platform_outputs(namespaces: list[str]) -> dict[str, Any]:
    """What the project's program exports (``__main__.py``), for ``namespaces``."""
    return {
        "mode": "expand",
        "namespaces": namespaces,
        "templates": {
            f"{ns}/{name}": chain
            for ns in namespaces
            for name, chain in (
                ("tars.default", ["tars.default"]),
                ("tars.cpp", ["tars.cpp", "tars.default"]),
            )
        },
        "servers": {f"{ns}/shop-order": [f"v1/Service:{ns}/shop-order"] for ns in namespaces},
        "objects": [f"v1/Service:{ns}/shop-order" for ns in namespaces],
    }


def read_platform(outputs: dict[str, Any], namespace: str | None = None) -> Recording:
    def program() -> None:
        platform = PlatformStack(PLATFORM, namespace=namespace)
        for key in ("namespace", "namespaces", "mode", "templates", "template_names", "servers"):
            pulumi.export(key, getattr(platform, key))
        pulumi.export("objects", platform.objects)

    return record(program, mock=RecordingMocks(stack_outputs={PLATFORM: outputs}))


def test_platform_stack_reads_the_programs_outputs() -> None:
    found = read_platform(platform_outputs(["tars-dev"])).outputs
    assert found == {
        "namespace": "tars-dev",
        "namespaces": ["tars-dev"],
        "mode": "expand",
        "templates": TEMPLATES,
        "template_names": ["tars.cpp", "tars.default"],
        "servers": ["shop-order"],
        "objects": ["v1/Service:tars-dev/shop-order"],
    }


def test_platform_stack_of_several_namespaces_takes_the_one_named() -> None:
    outputs = platform_outputs(["tars-dev", "tars-base"])
    assert read_platform(outputs, "tars-base").outputs["objects"] == [
        "v1/Service:tars-base/shop-order"
    ]
    with pytest.raises(Exception, match=r"has 2 namespaces \(tars-dev, tars-base\): name one"):
        read_platform(outputs)
    with pytest.raises(Exception, match=r"no framework in namespace 'tars-x'"):
        read_platform(outputs, "tars-x")


def test_platform_stack_of_another_program_says_so() -> None:
    with pytest.raises(Exception, match=r"its output '\w+' is missing .* tars program"):
        read_platform({"orderImage": "reg.example.com/o:v1"})


def test_the_readers_are_pure() -> None:
    chains = {"a/x": ["x", "y", "z"], "a/r": ["r"], "b/x": ["x"]}
    assert templates_in("s", chains, "a") == {"x": "y", "r": "r"}
    assert namespace_among("s", ["a"], None) == "a"


def test_a_consumer_takes_the_framework_of_the_projects_own_dev_stack() -> None:
    """The project's program, run for dev, exports what a program of one's own takes through
    ``PlatformStack``; its servers land in dev's namespace, on dev's templates."""
    config = {"tars:namespace": "tars-dev", "tars:stackDir": "stacks/dev"}
    exported = record(lambda: runpy.run_path(str(ROOT / "__main__.py")), config=config).outputs

    def program() -> None:
        platform = PlatformStack(PLATFORM)
        fw = TFramework(
            "shop",
            namespace=platform.namespace,
            templates=platform.templates,
            config=CONFIG,  # type: ignore[arg-type]
        )
        srv = TServer(
            "team-server",
            framework=fw,
            app="Team",
            server="Server",
            tars={"template": "tars.java", "servants": [{"name": "TeamObj", "port": 10000}]},
            release={"id": "v1", "image": "reg.example.com/team/server:v1"},
        )
        pulumi.export("objects", srv.objects)

    mock = RecordingMocks(stack_outputs={PLATFORM: exported})
    recording = record(program, mock=mock)
    assert recording.outputs["objects"] == [
        "v1/Service:tars-dev/team-server",
        "apps/v1/StatefulSet:tars-dev/team-server",
    ]
    reference = next(r for r in recording.registrations if r.type.endswith("StackReference"))
    for obj in recording.kubernetes():
        assert reference.urn in obj.dependencies  # the engine orders them after it
