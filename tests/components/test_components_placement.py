"""No wrong-cluster fallback (issue 16.6): every Kubernetes object a component registers goes
to the Kubernetes provider of the framework it belongs to, whatever ``parent`` the component
is given; a parent that would send it elsewhere when the framework uses the default provider
is refused before anything is registered. Checked on the provider reference the mock monitor
receives, with two providers, for every component kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, stack_text, tars_server, template
from support.builders.namespace_documents import account, config, image, tree
from support.builders.platform_values import CONTROLLER_VALUES, FRAMEWORK_VALUES, TlsMocks

from tars_components.components import (
    KubernetesObject,
    TAccount,
    TAccountArgs,
    TConfig,
    TConfigArgs,
    TFramework,
    TFrameworkArgs,
    TImage,
    TImageArgs,
    TServer,
    TServerArgs,
    TTemplate,
    TTemplateArgs,
    TTree,
    TTreeArgs,
    components_from_stack,
)
from tars_components.components.failure import ComponentError
from tars_components.components.platform import (
    TarsController,
    TarsControllerArgs,
    TarsFrameworkInstall,
    TarsFrameworkInstallArgs,
)
from tars_components.components.testing import Recording, Registration, record
from tars_components.loading.documents import parse_document
from tars_components.loading.load import load_texts
from tars_components.models import TFrameworkConfigDocument
from tars_components.settings.options import Mode, Options

CONFIG: TFrameworkConfigDocument = parse_document(FRAMEWORK, NAMESPACE)  # type: ignore[assignment]
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "settings", "namespace": NAMESPACE},
    "data": {"region": "eu"},
}
COMPONENT_TYPES = (
    "TTemplate",
    "TServer",
    "TConfig",
    "TImage",
    "TTree",
    "TAccount",
)


class Group(pulumi.ComponentResource):
    """A user's own grouping component, unrelated to any framework."""

    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("acme:index:Group", name, None, opts)


def doc(raw: dict[str, Any]) -> Any:
    return parse_document(raw, NAMESPACE)


def provider_of(recording: Recording, name: str) -> Registration:
    return next(r for r in recording.registrations if r.name == name and "providers" in r.type)


def declare_every_kind(fw: TFramework, prefix: str, opts: pulumi.ResourceOptions | None) -> None:
    """One component of every kind of the framework, each with ``opts``."""
    TTemplate(
        f"{prefix}tpl", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))), opts
    )
    TServer(f"{prefix}srv", TServerArgs(fw, document=doc(tars_server())), opts)
    TConfig(f"{prefix}cfg", TConfigArgs(fw, document=doc(config())), opts)
    TImage(f"{prefix}img", TImageArgs(fw, document=doc(image())), opts)
    TTree(f"{prefix}tree", TTreeArgs(fw, document=doc(tree())), opts)
    TAccount(
        f"{prefix}acct",
        TAccountArgs(fw, document=doc(account("ops", password={"configSecret": "pw"}))),
        opts,
    )
    KubernetesObject(f"{prefix}settings", CONFIG_MAP, opts, framework=fw)


def framework(name: str, opts: pulumi.ResourceOptions | None, mode: Mode = Mode.CRD) -> TFramework:
    return TFramework(
        name,
        TFrameworkArgs(
            namespace=NAMESPACE,
            config=CONFIG,
            templates=TEMPLATES,
            options=Options(namespace=NAMESPACE, mode=mode),
        ),
        opts,
    )


@pytest.mark.parametrize("group_provider", [False, True], ids=["bare-group", "group-with-b"])
def test_a_server_under_an_unrelated_parent_goes_to_its_frameworks_provider(
    group_provider: bool,
) -> None:
    """The acceptance case: framework on provider ``a``, the server's parent an unrelated
    ComponentResource (with no provider, or with ``b``): Service and StatefulSet get ``a``."""

    def program() -> None:
        a = k8s.Provider("a", render_yaml_to_directory="out/a")
        b = k8s.Provider("b", render_yaml_to_directory="out/b")
        fw = framework("fw", pulumi.ResourceOptions(provider=a), Mode.EXPAND)
        group = Group("group", pulumi.ResourceOptions(provider=b) if group_provider else None)
        TServer(
            "srv",
            TServerArgs(fw, document=doc(tars_server())),
            pulumi.ResourceOptions(parent=group),
        )

    recording = record(program)
    a = provider_of(recording, "a")
    objects = recording.kubernetes()
    assert sorted(o.type for o in objects) == [
        "kubernetes:apps/v1:StatefulSet",
        "kubernetes:core/v1:Service",
    ]
    [group] = recording.of_type("acme:index:Group")
    [server] = recording.of_type("tars:index:TServer")
    assert server.parent == group.urn  # the user's parent is kept
    for obj in objects:
        assert obj.provider_urn == a.urn, obj.name


def test_every_kind_goes_to_its_frameworks_provider_whatever_its_parent() -> None:
    """Two frameworks on two providers; every component of each is parented under a group on
    the other provider: each object goes to its own framework's provider."""

    def program() -> None:
        a = k8s.Provider("a", render_yaml_to_directory="out/a")
        b = k8s.Provider("b", render_yaml_to_directory="out/b")
        group_a = Group("group-a", pulumi.ResourceOptions(provider=a))
        group_b = Group("group-b", pulumi.ResourceOptions(provider=b))
        fw_a = framework("fw-a", pulumi.ResourceOptions(provider=a))
        fw_b = framework("fw-b", pulumi.ResourceOptions(parent=group_b))  # b, inherited
        declare_every_kind(fw_a, "a-", pulumi.ResourceOptions(parent=group_b))
        declare_every_kind(fw_b, "b-", pulumi.ResourceOptions(parent=group_a))

    recording = record(program, config={"tars:pw": "not-a-real-password"})
    urn = {name: provider_of(recording, name).urn for name in ("a", "b")}
    objects = recording.kubernetes()
    kinds = sorted(o.type.rsplit(":", 1)[1] for o in objects if o.name.startswith("a-"))
    assert kinds == sorted(
        ["TTemplate", "TServer", "TConfig", "TImage", "TTree", "TAccount", "ConfigMap"]
    )
    assert len(objects) == 2 * (len(kinds) + 1)  # and each framework's TFrameworkConfig
    for obj in objects:
        owner = "a" if obj.name.startswith(("a-", "fw-a")) else "b"
        assert obj.provider_urn == urn[owner], obj.name
    # the components keep the parent they were given
    groups = {r.urn: r.name for r in recording.of_type("acme:index:Group")}
    for kind in COMPONENT_TYPES:
        for component in recording.of_type(f"tars:index:{kind}"):
            expected = "group-b" if component.name.startswith("a-") else "group-a"
            assert groups[component.parent] == expected, component.name


def test_the_frameworks_lookup_of_an_existing_config_uses_its_provider() -> None:
    def program() -> None:
        a = k8s.Provider("a", render_yaml_to_directory="out/a")
        b = k8s.Provider("b", render_yaml_to_directory="out/b")
        group = Group("group", pulumi.ResourceOptions(provider=b))
        TFramework(
            "fw",
            TFrameworkArgs(
                namespace=NAMESPACE,
                options=Options(namespace=NAMESPACE, mode=Mode.CRD),
                existing_config=True,
            ),
            pulumi.ResourceOptions(parent=group, provider=a),
        )

    recording = record(program)
    [lookup] = [r for r in recording.registrations if r.read]
    assert lookup.provider_urn == provider_of(recording, "a").urn


DECLARE: dict[str, Callable[[TFramework, pulumi.ResourceOptions], Any]] = {
    "TTemplate": lambda fw, o: TTemplate(
        "x", TTemplateArgs(fw, document=doc(template("shop.cpp", "tars.cpp"))), o
    ),
    "TServer": lambda fw, o: TServer("x", TServerArgs(fw, document=doc(tars_server())), o),
    "TServer-fields": lambda fw, o: TServer(
        "x",
        o,
        framework=fw,
        app="Shop",
        server="Order",
        tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
    ),
    "TConfig": lambda fw, o: TConfig("x", TConfigArgs(fw, document=doc(config())), o),
    "TImage": lambda fw, o: TImage("x", TImageArgs(fw, document=doc(image())), o),
    "TTree": lambda fw, o: TTree("x", TTreeArgs(fw, document=doc(tree())), o),
    "TAccount": lambda fw, o: TAccount(
        "x", TAccountArgs(fw, document=doc(account("ops", bcryptPassword="x" * 60))), o
    ),
    "KubernetesObject": lambda fw, o: KubernetesObject("x", CONFIG_MAP, o, framework=fw),
}


@pytest.mark.parametrize("kind", sorted(DECLARE))
def test_a_parent_on_another_cluster_than_a_default_provider_framework_is_refused(
    kind: str,
) -> None:
    """The framework uses the default provider, which no option can name: a parent with a
    provider would send the component elsewhere, so nothing of it is registered."""
    recording = Recording()

    def program() -> None:
        b = k8s.Provider("b", render_yaml_to_directory="out/b")
        fw = framework("fw", None)
        group = Group("group", pulumi.ResourceOptions(provider=b))
        DECLARE[kind](fw, pulumi.ResourceOptions(parent=group))

    with pytest.raises(ComponentError) as raised:
        record(program, recording=recording)
    assert isinstance(raised.value, pulumi.RunError)  # preview prints it without a traceback
    [problem] = raised.value.problems
    assert "'group'" in problem and "'b'" in problem and "default Kubernetes provider" in problem
    assert str(raised.value) == problem  # what the language host prints: one line
    assert not [r for r in recording.registrations if r.name == "x" or r.parent.endswith("::x")]


@pytest.mark.parametrize("kind", sorted(DECLARE))
def test_a_parent_without_a_provider_is_fine_for_a_default_provider_framework(
    kind: str,
) -> None:
    def program() -> None:
        fw = framework("fw", None)
        DECLARE[kind](fw, pulumi.ResourceOptions(parent=Group("group")))

    recording = record(program, config={"tars:pw": "x"})
    mine = [r for r in recording.kubernetes() if r.name.startswith("x")]
    assert mine
    assert all(not r.provider_urn.endswith("::b") for r in mine)
    assert all(r.provider == "" for r in mine)  # the default provider


def test_a_provider_named_in_the_components_own_opts_is_used() -> None:
    """An explicit provider is the caller's choice by name (not a fallback): it is kept."""

    def program() -> None:
        a = k8s.Provider("a", render_yaml_to_directory="out/a")
        b = k8s.Provider("b", render_yaml_to_directory="out/b")
        fw = framework("fw", pulumi.ResourceOptions(provider=a))
        group = Group("group", pulumi.ResourceOptions(provider=a))
        declare_every_kind(fw, "own-", pulumi.ResourceOptions(parent=group, providers=[b]))

    recording = record(program)
    b = provider_of(recording, "b")
    own = [r for r in recording.kubernetes() if r.name.startswith("own-")]
    assert len(own) == 7
    assert all(r.provider_urn == b.urn for r in own)


def test_a_stack_with_a_parent_on_another_cluster_stays_on_its_provider() -> None:
    """components_from_stack: frameworks, their components and the plain objects all go to
    the provider in ``opts``, although the parent given there has another one."""
    documents = [
        FRAMEWORK,
        template("tars.default"),
        template("tars.cpp", "tars.default"),
        tars_server(),
        config(),
        image(),
        tree(),
        CONFIG_MAP,
    ]
    stack = load_texts({"s.yaml": stack_text(*documents)}, NAMESPACE)

    def program() -> None:
        providers = {c: k8s.Provider(c, render_yaml_to_directory=f"out/{c}") for c in "ab"}
        groups = {
            c: Group(f"group-{c}", pulumi.ResourceOptions(provider=providers[c])) for c in "ab"
        }
        for cluster, other in (("a", "b"), ("b", "a")):
            components_from_stack(
                stack,
                Options(namespace=NAMESPACE, mode=Mode.CRD),
                pulumi.ResourceOptions(provider=providers[cluster], parent=groups[other]),
                prefix=f"{cluster}/",
            )

    recording = record(program)
    objects = recording.kubernetes()
    assert len(objects) == 2 * 8  # config, 2 templates, server, TConfig, TImage, TTree, ConfigMap
    for obj in objects:
        cluster = obj.name.split("/")[0]
        assert obj.provider_urn == provider_of(recording, cluster).urn, obj.name


def platform_program(install_opts: Callable[[Any, Any, Any], pulumi.ResourceOptions]) -> None:
    a = k8s.Provider("a", render_yaml_to_directory="out/a")
    b = k8s.Provider("b", render_yaml_to_directory="out/b")
    group = Group("group", pulumi.ResourceOptions(provider=b))
    controller = TarsController(
        "tars", TarsControllerArgs(values=CONTROLLER_VALUES), pulumi.ResourceOptions(provider=a)
    )
    TarsFrameworkInstall(
        "fw",
        TarsFrameworkInstallArgs(
            values=FRAMEWORK_VALUES, namespace="tars-dev", controller=controller, nodes=["n1"]
        ),
        install_opts(a, b, group),
    )


@pytest.mark.parametrize(
    "install_opts",
    [
        lambda a, b, group: pulumi.ResourceOptions(parent=group),
        lambda a, b, group: None,
        lambda a, b, group: pulumi.ResourceOptions(parent=group, provider=a),
    ],
    ids=["parent-on-b", "no-opts", "explicit-same"],
)
def test_a_framework_install_goes_to_its_controllers_cluster(
    install_opts: Callable[[Any, Any, Any], pulumi.ResourceOptions],
) -> None:
    recording = record(lambda: platform_program(install_opts), mock=TlsMocks())
    a = provider_of(recording, "a")
    objects = recording.kubernetes()
    [install] = recording.of_type("tars:index:TarsFrameworkInstall")
    installed = [o for o in objects if o.name.startswith("fw-")]
    assert len(installed) > 10 and any(o.type.endswith("NodePatch") for o in installed)
    assert len(objects) > len(installed)  # the controller's too
    for obj in objects:
        assert obj.provider_urn == a.urn, obj.name
    assert install.parent != recording.of_type("tars:index:TarsController")[0].urn


def test_a_framework_install_on_another_provider_than_its_controller_is_refused() -> None:
    recording = Recording()
    with pytest.raises(ComponentError, match="TarsFrameworkInstall 'fw'") as raised:
        record(
            lambda: platform_program(lambda a, b, group: pulumi.ResourceOptions(provider=b)),
            mock=TlsMocks(),
            recording=recording,
        )
    [problem] = raised.value.problems
    assert "'b'" in problem and "TarsController 'tars'" in problem and "'a'" in problem
    assert not recording.of_type("tars:index:TarsFrameworkInstall")
