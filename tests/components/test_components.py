"""TFramework, TTemplate and TServer under ``pulumi.runtime.set_mocks``: what they register,
with which inputs and which resource options (dependencies, provider, ignoreChanges, …)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from pulumi.output import Unknown
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    normal_server,
    plain,
    stack_text,
    tars_server,
    template,
)
from support.engines.components import unknown

from tars_components.components import (
    TFramework,
    TFrameworkArgs,
    TServer,
    TServerArgs,
    TTemplate,
    TTemplateArgs,
    components_from_stack,
)
from tars_components.components.testing import (
    DuplicateUrn,
    Recording,
    RecordingMocks,
    Registration,
    ValidationFailed,
    record,
)
from tars_components.expansion import convert
from tars_components.fileio.yaml_writer import dump
from tars_components.loading.documents import parse_document
from tars_components.loading.load import load_texts
from tars_components.models import V1BETA2, V1BETA3, TFrameworkConfigDocument, TServerDocument
from tars_components.mutation import mutate_server, mutate_template
from tars_components.pipeline import expand, expand_server
from tars_components.settings.options import Mode, Options

VALIDATION = "pulumi-python:dynamic/tars:TarsValidation"
CONFIG: TFrameworkConfigDocument = parse_document(FRAMEWORK)  # type: ignore[assignment]
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
TYPES = {
    "Service": "kubernetes:core/v1:Service",
    "StatefulSet": "kubernetes:apps/v1:StatefulSet",
    "DaemonSet": "kubernetes:apps/v1:DaemonSet",
}


def doc(raw: dict[str, Any]) -> Any:
    return parse_document(raw, NAMESPACE)


def framework(
    name: str = "fw", opts: pulumi.ResourceOptions | None = None, **args: Any
) -> TFramework:
    args.setdefault("namespace", NAMESPACE)
    args.setdefault("config", CONFIG)
    args.setdefault("templates", TEMPLATES)
    return TFramework(name, TFrameworkArgs(**args), opts)


def one(recording: Recording, type_: str) -> Registration:
    [found] = recording.of_type(type_)
    return found


def validation_of(recording: Recording, component: str) -> Registration:
    """The validation resource of a component (registration order is not declaration order)."""
    [found] = [r for r in recording.validations() if r.name == f"{component}-validation"]
    return found


# --- the tree ----------------------------------------------------------------------------


def test_type_tokens_and_parent_child_tree() -> None:
    def program() -> None:
        fw = framework()
        TTemplate("tpl", TTemplateArgs(fw, template_name="shop.cpp", parent="tars.cpp"))
        TServer("srv", TServerArgs(fw, document=doc(tars_server())))

    recording = record(program)
    fw = one(recording, "tars:index:TFramework")
    tpl = one(recording, "tars:index:TTemplate")
    srv = one(recording, "tars:index:TServer")
    assert "pulumi:pulumi:Stack" in fw.parent
    assert tpl.parent == srv.parent == fw.urn
    assert {r.type for r in recording.children(srv)} == {
        VALIDATION,
        "kubernetes:core/v1:Service",
        "kubernetes:apps/v1:StatefulSet",
    }
    assert [r.type for r in recording.children(tpl)] == [VALIDATION]
    assert [r.type for r in recording.children(fw) if r.custom] == [VALIDATION]
    assert {r.name for r in recording.children(srv)} == {
        "srv-validation",
        "srv-service",
        "srv-statefulset",
    }


def test_explicit_parent_in_opts_wins_over_the_framework() -> None:
    def program() -> None:
        fw = framework()
        group = pulumi.ComponentResource("test:index:Group", "group")
        TServer(
            "srv",
            TServerArgs(fw, document=doc(tars_server())),
            pulumi.ResourceOptions(parent=group),
        )

    recording = record(program)
    assert one(recording, "tars:index:TServer").parent == one(recording, "test:index:Group").urn


# --- expand mode: the objects are the expansion's ------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        tars_server(),
        normal_server(),
        tars_server(daemonSet=True),
        tars_server(hostPorts=[{"nameRef": "DemoTest1Obj", "port": 30001}]),
    ],
    ids=["tars", "normal", "daemonset", "hostports"],
)
def test_registered_objects_are_the_expansion(raw: dict[str, Any]) -> None:
    server = doc(raw)
    recording = record(lambda: TServer("srv", TServerArgs(framework(), document=server)))
    expected = expand_server(server, CONFIG, Options(namespace=NAMESPACE))
    registered = recording.kubernetes()
    assert sorted(r.type for r in registered) == sorted(TYPES[o["kind"]] for o in expected)
    assert {r.inputs["metadata"]["name"] for r in registered} == {server.object_name}
    by_kind = {r.inputs["kind"]: plain(r.inputs) for r in registered}
    assert by_kind == {o["kind"]: o for o in expected}


def test_options_reach_the_expansion() -> None:
    options = Options(namespace=NAMESPACE, tars_readiness_gate=False, delay_bind=False)
    server = doc(tars_server(hostPorts=[{"nameRef": "DemoTest1Obj", "port": 30001}]))
    recording = record(
        lambda: TServer("srv", TServerArgs(framework(options=options), document=server))
    )
    sts = one(recording, "kubernetes:apps/v1:StatefulSet")
    assert plain(sts.inputs) == expand_server(server, CONFIG, options)[1]
    assert "volumeClaimTemplates" not in sts.inputs["spec"]
    assert "readinessGates" not in sts.inputs["spec"]["template"]["spec"]


def test_server_outputs() -> None:
    server = doc(tars_server())

    def program() -> None:
        srv = TServer("srv", TServerArgs(framework(), document=server))
        pulumi.export("objectName", srv.object_name)
        pulumi.export("objects", srv.objects)
        pulumi.export("manifests", srv.manifests)
        pulumi.export("mutated", srv.mutated)

    outputs = record(program).outputs
    assert outputs["objectName"] == "test-demotest"
    assert outputs["objects"] == [
        "v1/Service:tars-dev/test-demotest",
        "apps/v1/StatefulSet:tars-dev/test-demotest",
    ]
    assert plain(outputs["manifests"]) == expand_server(server, CONFIG, Options(NAMESPACE))
    assert plain(outputs["mutated"]) == mutate_server(server, CONFIG).to_dict()


# --- validation first ------------------------------------------------------------------


def test_one_validation_per_document_and_every_object_depends_on_it() -> None:
    def program() -> None:
        fw = framework(options=Options(namespace=NAMESPACE, mode=Mode.CRD))
        TTemplate("tpl", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))
        TServer("a", TServerArgs(fw, document=doc(tars_server())))
        TServer("b", TServerArgs(fw, document=doc(normal_server())))

    recording = record(program)
    components = [
        r for r in recording.registrations if r.type.startswith("tars:index:") and not r.custom
    ]
    assert len(components) == 4
    for component in components:
        children = recording.children(component)
        [validation] = [r for r in children if r.type == VALIDATION]
        objects = [r for r in children if r.type.startswith("kubernetes:")]
        assert objects, component.name
        for obj in objects:
            assert validation.urn in obj.dependencies, obj.name
    assert len(recording.validations()) == 4


def test_validation_inputs_carry_what_the_rules_need() -> None:
    server = doc(tars_server())

    def program() -> None:
        fw = framework()
        TTemplate("tpl", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))
        TServer("first", TServerArgs(fw, document=doc(normal_server())))
        TServer("srv", TServerArgs(fw, document=server))

    recording = record(program)
    validation = validation_of(recording, "srv")
    inputs = plain(validation.inputs)
    # A document without pulumi.Input leaves crosses as its JSON text (one string to serialize).
    assert json.loads(inputs["document"]) == server.to_dict()
    assert inputs["namespace"] == NAMESPACE
    # Only the facts its verdict depends on: its own template, the default node image, no
    # server name it collides with; nothing about the other template or server.
    assert inputs["templates"] == {"tars.cpp": "tars.default"}
    assert inputs["frameworkNodeImage"] == FRAMEWORK["nodeImage"]
    # Empty facts are not sent at all (the provider reads an absent fact as empty).
    assert "serverNames" not in inputs and "secretFields" not in inputs
    tpl = plain(validation_of(recording, "tpl").inputs)
    assert tpl["templates"] == TEMPLATES  # its ancestors
    assert "frameworkNodeImage" not in tpl and "serverNames" not in tpl
    assert plain(validation.outputs["mutated"]) == mutate_server(server, CONFIG).to_dict()


def test_validation_failed_names_every_failed_resource() -> None:
    """A test sees what ``pulumi preview`` shows: each resource whose check failed, by name,
    with its rule codes; not only the first one."""
    first, second = tars_server(), tars_server(server="Other")
    first["spec"]["tars"]["template"] = "missing"  # TS010
    second["spec"]["tars"]["servants"][0]["port"] = 19385  # TS006, tarsnode's port

    def program() -> None:
        fw = framework()
        TServer("one", TServerArgs(fw, document=doc(first)))
        TServer("two", TServerArgs(fw, document=doc(second)))

    with pytest.raises(ValidationFailed) as raised:
        record(program)
    assert sorted(raised.value.resources) == ["one-validation", "two-validation"]
    lines = sorted(str(raised.value).splitlines())
    assert lines[0].startswith("one-validation (pulumi-python:dynamic/tars:TarsValidation): ")
    assert "TS010" in lines[0] and "TS006" in lines[1]
    assert lines[1].startswith("two-validation (")


def test_a_rule_error_applies_no_object() -> None:
    bad = tars_server()
    bad["spec"]["tars"]["template"] = "missing"  # TS010
    recording = Recording()
    with pytest.raises(ValidationFailed, match="TS010"):
        record(
            lambda: TServer("srv", TServerArgs(framework(), document=doc(bad))),
            recording=recording,
        )
    assert one(recording, "tars:index:TServer")
    assert recording.kubernetes() == []


def test_context_known_in_advance_makes_declaration_order_irrelevant() -> None:
    stack = load_texts(
        {"a.yaml": dump(tars_server()), "b.yaml": dump(template("tars.cpp", "tars.default"))},
        NAMESPACE,
    )
    root = doc(template("tars.default"))

    def program() -> None:
        fw = framework(templates={}, documents=[*stack.documents, root])
        TServer("srv", TServerArgs(fw, document=stack.servers[0]))  # before its template
        TTemplate("cpp", TTemplateArgs(fw, document=stack.templates[0]))
        TTemplate("root", TTemplateArgs(fw, document=root))

    recording = record(program)
    assert len(recording.kubernetes()) == 2
    assert validation_of(recording, "srv").inputs["templates"] == {"tars.cpp": "tars.default"}
    assert validation_of(recording, "cpp").inputs["templates"] == {"tars.default": "tars.default"}


def test_duplicate_server_names_fail_ts017() -> None:
    def program() -> None:
        fw = framework()
        TServer("one", TServerArgs(fw, document=doc(tars_server())))
        TServer("two", TServerArgs(fw, document=doc(tars_server(app="test"))))

    with pytest.raises(ValidationFailed, match="TS017"):
        record(program)


# --- pulumi.Input values -----------------------------------------------------------------


def test_output_image_reaches_the_container() -> None:
    def program() -> None:
        images = pulumi.StackReference("acme/images/prod")
        TServer(
            "srv",
            TServerArgs(
                framework(),
                app="Test",
                server="DemoTest",
                tars={"template": "tars.cpp", "servants": [{"name": "AObj", "port": 10000}]},
                release={
                    "id": images.get_output("release"),
                    "image": images.get_output("image"),
                    "nodeImage": images.get_output("node"),
                },
            ),
        )

    outputs = {"release": "v7", "image": "reg.example.com/x:v7", "node": "reg.example.com/n:v2"}
    mocks = RecordingMocks(stack_outputs={"acme/images/prod": outputs})
    recording = record(program, mock=mocks)
    sts = one(recording, "kubernetes:apps/v1:StatefulSet")
    pod = sts.inputs["spec"]["template"]
    [main] = pod["spec"]["containers"]
    [tarsnode] = pod["spec"]["initContainers"]
    assert main["image"] == "reg.example.com/x:v7"
    assert tarsnode["image"] == "reg.example.com/n:v2"
    assert pod["metadata"]["labels"]["tars.io/ServerID"] == "v7"
    validation = validation_of(recording, "srv")
    assert validation.inputs["document"]["spec"]["release"]["image"] == "reg.example.com/x:v7"


def test_unknown_image_in_a_preview_is_placed_without_apply() -> None:
    def program() -> None:
        TServer(
            "srv",
            TServerArgs(
                framework(),
                app="Test",
                server="DemoTest",
                tars={"template": "tars.cpp", "servants": [{"name": "AObj", "port": 10000}]},
                release={"id": "v1", "image": unknown()},
            ),
        )

    recording = record(program, preview=True)
    sts = one(recording, "kubernetes:apps/v1:StatefulSet")
    [main] = sts.inputs["spec"]["template"]["spec"]["containers"]
    assert isinstance(main["image"], Unknown)
    validation = validation_of(recording, "srv")
    assert isinstance(validation.inputs["document"]["spec"]["release"]["image"], Unknown)


# --- resource options --------------------------------------------------------------------


def test_a_provider_in_opts_reaches_every_child() -> None:
    def program() -> None:
        cluster = k8s.Provider("cluster", render_yaml_to_directory="out")
        other = k8s.Provider("other", render_yaml_to_directory="out2")
        fw = framework(
            opts=pulumi.ResourceOptions(provider=cluster),
            options=Options(namespace=NAMESPACE, mode=Mode.CRD),
        )
        TTemplate("tpl", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))
        TServer("srv", TServerArgs(fw, document=doc(tars_server())))
        TServer(
            "own",
            TServerArgs(fw, document=doc(normal_server())),
            pulumi.ResourceOptions(provider=other),
        )

    recording = record(program)
    cluster = next(r for r in recording.registrations if r.name == "cluster")
    other = next(r for r in recording.registrations if r.name == "other")
    objects = recording.kubernetes()
    assert len(objects) == 4  # TFrameworkConfig, TTemplate, two TServers
    for obj in objects:
        expected = other if obj.name.startswith("own") else cluster
        assert obj.provider_urn == expected.urn, obj.name
    assert all(not v.provider for v in recording.validations())


def test_external_replicas_ignore_changes_on_replicas() -> None:
    def program() -> None:
        fw = framework(external_replicas=True)
        TServer("sts", TServerArgs(fw, document=doc(tars_server())))
        TServer("ds", TServerArgs(fw, document=doc(tars_server(server="Agent", daemonSet=True))))
        TServer(
            "own",
            TServerArgs(fw, document=doc(normal_server()), external_replicas=False),
        )
        crd = framework("crd", options=Options(NAMESPACE, mode=Mode.CRD), external_replicas=True)
        TServer("cr", TServerArgs(crd, document=doc(tars_server())))

    recording = record(program)
    ignored = {r.name: r.ignore_changes for r in recording.kubernetes()}
    assert ignored == {
        "sts-service": (),
        "sts-statefulset": ("spec.replicas",),
        "ds-daemonset": (),
        "own-service": (),
        "own-statefulset": (),
        "crd-tframeworkconfig": (),
        "cr-tserver": ("spec.k8s.replicas",),
    }


def skip_await_annotations(recording: Recording) -> dict[str, str | None]:
    """The ``pulumi.com/skipAwait`` annotation of every Kubernetes resource, by name."""
    return {
        r.name: (r.inputs["metadata"].get("annotations") or {}).get("pulumi.com/skipAwait")
        for r in recording.kubernetes()
    }


def test_skip_await_annotates_workloads() -> None:
    def program() -> None:
        fw = framework(skip_await=True)
        TServer("sts", TServerArgs(fw, document=doc(tars_server())))
        TServer("ds", TServerArgs(fw, document=doc(tars_server(server="Agent", daemonSet=True))))
        TServer("off", TServerArgs(fw, document=doc(normal_server()), skip_await=False))

    recording = record(program)
    annotated = skip_await_annotations(recording)
    assert annotated == {
        "sts-service": None,
        "sts-statefulset": "true",
        "ds-daemonset": "true",
        "off-service": None,
        "off-statefulset": None,
    }


def test_skip_await_defaults_to_the_options() -> None:
    on = Options(namespace=NAMESPACE, skip_await=True)

    def program() -> None:
        fw = TFramework("fw", TFrameworkArgs(options=on, config=CONFIG, templates=TEMPLATES))
        TServer("sts", TServerArgs(fw, document=doc(tars_server())))
        TServer("ds", TServerArgs(fw, document=doc(tars_server(server="Agent", daemonSet=True))))
        off = framework("off", options=on, skip_await=False)
        TServer("plain", TServerArgs(off, document=doc(normal_server())))

    recording = record(program)
    annotated = skip_await_annotations(recording)
    assert annotated == {
        "sts-service": None,
        "sts-statefulset": "true",
        "ds-daemonset": "true",
        "plain-service": None,
        "plain-statefulset": None,
    }


def test_components_from_stack_keep_skip_await_of_the_options() -> None:
    stack = load_texts(
        {"a.yaml": stack_text(FRAMEWORK, template("tars.cpp"), tars_server())}, NAMESPACE
    )
    options = Options(namespace=NAMESPACE, skip_await=True)
    recording = record(lambda: components_from_stack(stack, options=options))
    key = lambda o: (o["kind"], o["metadata"]["name"])  # noqa: E731
    expected = sorted(expand(stack, options), key=key)
    assert sorted((plain(r.inputs) for r in recording.kubernetes()), key=key) == expected
    [sts] = recording.of_type(TYPES["StatefulSet"])
    assert sts.inputs["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}
    unset = record(lambda: components_from_stack(stack, options=options, skip_await=False))
    [sts] = unset.of_type(TYPES["StatefulSet"])
    assert set(sts.inputs["metadata"]["annotations"]) == {"pulumi.com/waitFor"}


def test_protect_and_retain_on_delete_pass_through() -> None:
    def program() -> None:
        fw = framework(opts=pulumi.ResourceOptions(retain_on_delete=True))
        TServer(
            "kept",
            TServerArgs(fw, document=doc(tars_server())),
            pulumi.ResourceOptions(protect=True),
        )
        TServer(
            "free",
            TServerArgs(fw, document=doc(normal_server())),
            pulumi.ResourceOptions(retain_on_delete=False),
        )

    recording = record(program)
    options = {r.name: (r.protect, r.retain_on_delete) for r in recording.kubernetes()}
    assert options == {
        "kept-service": (True, True),
        "kept-statefulset": (True, True),
        "free-service": (False, False),
        "free-statefulset": (False, False),
    }
    validation = validation_of(recording, "kept")
    assert validation.protect


def test_component_depends_on_reaches_the_objects_through_validation() -> None:
    def program() -> None:
        gate = k8s.core.v1.Namespace("ns", metadata={"name": NAMESPACE})
        TServer(
            "srv",
            TServerArgs(framework(), document=doc(tars_server())),
            pulumi.ResourceOptions(depends_on=[gate]),
        )

    recording = record(program)
    gate = one(recording, "kubernetes:core/v1:Namespace")
    validation = validation_of(recording, "srv")
    assert gate.urn in validation.dependencies


def test_retain_on_delete_reaches_crd_mode_templates_and_the_framework_config() -> None:
    def program() -> None:
        fw = framework(
            opts=pulumi.ResourceOptions(retain_on_delete=True),
            options=Options(namespace=NAMESPACE, mode=Mode.CRD),
        )
        TTemplate("kept", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))
        TTemplate(
            "free",
            TTemplateArgs(fw, document=doc(template("web.cpp", "tars.cpp"))),
            pulumi.ResourceOptions(retain_on_delete=False),
        )

    recording = record(program)
    retained = {r.name: r.retain_on_delete for r in recording.kubernetes()}
    assert retained == {
        "fw-tframeworkconfig": True,
        "kept-ttemplate": True,
        "free-ttemplate": False,
    }


def test_template_validations_are_deleted_with_the_framework() -> None:
    def program() -> None:
        fw = framework()
        TTemplate("tpl", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))
        TServer("srv", TServerArgs(fw, document=doc(tars_server())))

    recording = record(program)
    fw = one(recording, "tars:index:TFramework")
    assert validation_of(recording, "tpl").deleted_with == fw.urn
    # Servers and the config have no delete rule: they go when they go.
    assert validation_of(recording, "srv").deleted_with == ""
    assert validation_of(recording, "fw").deleted_with == ""


def test_every_component_registers_its_outputs() -> None:
    def program() -> None:
        fw = framework()
        TTemplate("tpl", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))
        TServer("srv", TServerArgs(fw, document=doc(tars_server())))

    recording = record(program)
    keys = {
        r.type: set(recording.component_outputs[r.urn])
        for r in recording.registrations
        if r.type.startswith("tars:index:")
    }
    # ``manifests`` and a server's ``mutated`` stay attributes (Outputs) but are not stored
    # again in the component's state: the objects and the validation resource hold them.
    assert keys == {
        "tars:index:TFramework": {"namespace", "mode", "objects"},
        "tars:index:TTemplate": {"templateName", "parentTemplate", "parentChain", "objects"},
        "tars:index:TServer": {"objectName", "namespace", "objects"},
    }
    srv = recording.component_outputs[one(recording, "tars:index:TServer").urn]
    assert srv["objects"] == [
        "v1/Service:tars-dev/test-demotest",
        "apps/v1/StatefulSet:tars-dev/test-demotest",
    ]


# --- crd mode ----------------------------------------------------------------------------


@pytest.mark.parametrize("api_version", [V1BETA3, V1BETA2])
def test_crd_mode_applies_the_mutated_documents(api_version: str) -> None:
    server = doc(tars_server())
    shop = doc(template("shop.cpp", "tars.cpp"))
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=api_version)

    def program() -> None:
        fw = framework(options=options)
        TTemplate("tpl", TTemplateArgs(fw, document=shop))
        TServer("srv", TServerArgs(fw, document=server))

    recording = record(program)
    by_kind = {r.inputs["kind"]: r for r in recording.kubernetes()}
    assert set(by_kind) == {"TFrameworkConfig", "TTemplate", "TServer"}
    for kind, expected in (
        ("TServer", mutate_server(server, CONFIG).to_dict()),
        ("TTemplate", mutate_template(shop).to_dict()),
        ("TFrameworkConfig", CONFIG.to_dict()),
    ):
        registered = by_kind[kind]
        assert registered.type == f"kubernetes:{api_version}:{kind}"
        assert plain(registered.inputs) == convert(expected, api_version)
    assert "nodeImage" in by_kind["TFrameworkConfig"].inputs  # top-level fields kept
    assert by_kind["TServer"].inputs["spec"]["release"]["nodeImage"] == CONFIG.node_image.image


def test_crd_mode_places_input_values_too() -> None:
    def program() -> None:
        fw = framework(options=Options(namespace=NAMESPACE, mode=Mode.CRD))
        TServer(
            "srv",
            TServerArgs(
                fw,
                app="Test",
                server="DemoTest",
                tars={"template": "tars.cpp", "servants": [{"name": "AObj", "port": 10000}]},
                release={"id": "v1", "image": pulumi.Output.from_input("reg.example.com/x:v1")},
            ),
        )

    [server] = record(program).of_type(f"kubernetes:{V1BETA3}:TServer")
    assert server.inputs["spec"]["release"]["image"] == "reg.example.com/x:v1"


def test_template_outputs_and_parent_chain() -> None:
    def program() -> None:
        fw = framework()
        shop = TTemplate("tpl", TTemplateArgs(fw, template_name="shop.cpp", parent="tars.cpp"))
        pulumi.export("chain", shop.parent_chain)
        pulumi.export("objects", shop.objects)

    outputs = record(program).outputs
    assert outputs["chain"] == ["shop.cpp", "tars.cpp", "tars.default"]
    assert outputs["objects"] == []


# --- names -------------------------------------------------------------------------------


def test_logical_names_are_unique_across_namespaces_and_clusters() -> None:
    other = copy.deepcopy(tars_server())
    other["metadata"]["namespace"] = "tars-qa"
    texts = {
        "a.yaml": "---\n".join(dump(d) for d in (FRAMEWORK, template("tars.cpp"), tars_server())),
        "b.yaml": "---\n".join(
            dump(d)
            for d in (
                {**FRAMEWORK, "metadata": {"name": "tars-framework", "namespace": "tars-qa"}},
                {**template("tars.cpp"), "metadata": {"name": "tars.cpp", "namespace": "tars-qa"}},
                other,
            )
        ),
    }
    stack = load_texts(texts, NAMESPACE)

    def program() -> None:
        for cluster in ("eu", "us"):
            provider = k8s.Provider(cluster, render_yaml_to_directory=f"out/{cluster}")
            components_from_stack(
                stack, opts=pulumi.ResourceOptions(provider=provider), prefix=f"{cluster}/"
            )

    recording = record(program)
    urns = [r.urn for r in recording.registrations]
    assert len(urns) == len(set(urns))
    objects = recording.kubernetes()
    assert len(objects) == 8  # 2 clusters x 2 namespaces x (Service, StatefulSet)
    for obj in objects:
        cluster = obj.name.split("/")[0]
        assert obj.provider_urn.endswith(f"::{cluster}")
    assert {r.name for r in recording.of_type("tars:index:TServer")} == {
        "eu/tars-dev/test-demotest",
        "eu/tars-qa/test-demotest",
        "us/tars-dev/test-demotest",
        "us/tars-qa/test-demotest",
    }


# --- args --------------------------------------------------------------------------------


def test_server_fields_build_the_same_document() -> None:
    raw = tars_server()
    built: list[TServerDocument] = []

    def program() -> None:
        spec = raw["spec"]
        srv = TServer(
            "srv",
            TServerArgs(
                framework(),
                app=spec["app"],
                server=spec["server"],
                tars=spec["tars"],
                k8s=spec["k8s"],
                release=spec["release"],
            ),
        )
        built.append(srv.document)

    record(program)
    assert built[0].to_dict() == doc(raw).to_dict()


def test_template_fields_default_to_a_root() -> None:
    args = TTemplateArgs(framework=None, template_name="tars.default")  # type: ignore[arg-type]
    built = args.to_document(NAMESPACE)
    assert built.spec.parent == "tars.default"
    assert built.spec.content == ""


def test_args_reject_contradictions_and_invalid_documents() -> None:
    with pytest.raises(TypeError, match="either document or fields"):
        TServerArgs(None, document=doc(tars_server()), app="X").to_document(NAMESPACE)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="app and server"):
        TServerArgs(None).to_document(NAMESPACE)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"spec\.tars\.servants"):
        TServerArgs(
            None,  # type: ignore[arg-type]
            app="Test",
            server="X",
            tars={"template": "tars.cpp", "servants": [{"name": "1bad", "port": 1}]},
        ).to_document(NAMESPACE)
    with pytest.raises(ValueError, match="not in the framework's namespace"):
        TServerArgs(None, document=doc(tars_server())).to_document("elsewhere")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"differs from options\.namespace"):
        TFrameworkArgs(namespace="a", options=Options(namespace="b")).resolved_options()


def test_record_fails_on_duplicate_urns_like_the_engine() -> None:
    def program() -> None:
        fw = framework()
        TServer("srv", TServerArgs(fw, document=doc(tars_server())))
        TServer("srv", TServerArgs(fw, document=doc(normal_server())))

    with pytest.raises(DuplicateUrn, match=r"Duplicate resource URN .*::srv"):
        record(program)

    def distinct() -> None:  # same name, other parent or type: other URNs
        fw = framework()
        TServer("srv", TServerArgs(fw, document=doc(tars_server())))
        TTemplate("srv", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))))

    assert len(record(distinct).of_type("tars:index:TServer")) == 1
