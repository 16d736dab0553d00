"""Field ownership in the components (docs/concepts/ownership.md): a field another manager
owns is ignored (``ignore_changes``) and, when ``external``, left out of the applied object;
the objects of such a server carry the stack's stable field manager."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, tars_server

from tars_components.components import TFramework, TFrameworkArgs, TServer, TServerArgs
from tars_components.components.testing import record
from tars_components.loading.documents import parse_document
from tars_components.models import TFrameworkConfigDocument
from tars_components.settings.options import Mode, Options

CONFIG: TFrameworkConfigDocument = parse_document(FRAMEWORK)  # type: ignore[assignment]
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
MANAGER = "pulumi.com/patchFieldManager"
FORCE = "pulumi.com/patchForce"
LABEL = 'metadata.labels["tars.io/ServerID"]'
"""The webhook derives this label from release.id: it goes with the release."""


def framework(mode: Mode, ownership: Any = None, name: str = "fw") -> TFramework:
    options = Options(NAMESPACE, mode=mode, field_ownership=ownership or {})
    return TFramework(
        name,
        TFrameworkArgs(namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES, options=options),
    )


def doc(raw: dict[str, Any]) -> Any:
    return parse_document(raw, NAMESPACE)


@pytest.mark.parametrize(
    ("mode", "kind", "path"),
    [(Mode.CRD, "TServer", "spec.k8s.replicas"), (Mode.EXPAND, "StatefulSet", "spec.replicas")],
)
def test_external_replicas_are_ignored_and_not_applied(mode: Mode, kind: str, path: str) -> None:
    def program() -> None:
        fw = framework(mode, {"replicas": "external"})
        TServer("order", TServerArgs(fw, document=doc(tars_server(replicas=3))))

    recording = record(program, stack="prod")
    [target] = [r for r in recording.kubernetes() if r.type.endswith(f":{kind}")]
    assert target.ignore_changes == (path,)
    spec = target.inputs["spec"]
    assert "replicas" not in (spec["k8s"] if kind == "TServer" else spec)
    annotations = target.inputs["metadata"]["annotations"]
    assert annotations[MANAGER] == "tars-components-prod"
    # applied with force: the fields Pulumi applied under its random manager pass to the stable
    # one instead of conflicting with it (tests/e2e/test_crd_mode.py, on a real API server)
    assert annotations[FORCE] == "true"


def test_initial_replicas_are_applied_then_ignored() -> None:
    def program() -> None:
        fw = framework(Mode.CRD)
        TServer(
            "order",
            TServerArgs(
                fw, document=doc(tars_server(replicas=3)), field_ownership={"replicas": "initial"}
            ),
        )

    [server] = [r for r in record(program).kubernetes() if r.type.endswith(":TServer")]
    assert server.ignore_changes == ("spec.k8s.replicas",)
    assert server.inputs["spec"]["k8s"]["replicas"] == 3


def test_release_external_by_annotation_leaves_the_release_to_tarsweb() -> None:
    raw = tars_server()
    raw["metadata"]["annotations"] = {"tars-components.io/field-ownership": "release=external"}

    def program() -> None:
        TServer("order", TServerArgs(framework(Mode.CRD), document=doc(raw)))

    recording = record(program)
    [server] = [r for r in recording.kubernetes() if r.type.endswith(":TServer")]
    assert server.ignore_changes == ("spec.release", LABEL)
    assert "release" not in server.inputs["spec"]
    assert "tars.io/ServerID" not in (server.inputs["metadata"].get("labels") or {})
    # validated by the same rules: the validation resource saw the release
    [validation] = [v for v in recording.validations() if v.name == "order-validation"]
    document = validation.inputs["document"]
    document = json.loads(document) if isinstance(document, str) else document
    assert document["spec"]["release"]["image"] == "reg.example.com/test.demotest:v1"


def test_managed_servers_are_untouched() -> None:
    def program() -> None:
        TServer("order", TServerArgs(framework(Mode.CRD), document=doc(tars_server())))

    [server] = [r for r in record(program).kubernetes() if r.type.endswith(":TServer")]
    assert server.ignore_changes == ()
    assert "release" in server.inputs["spec"]
    annotations = server.inputs["metadata"].get("annotations") or {}
    assert MANAGER not in annotations and FORCE not in annotations


def test_external_replicas_is_the_alias_of_initial() -> None:
    def program() -> None:
        fw = framework(Mode.EXPAND)
        TServer("a", TServerArgs(fw, document=doc(tars_server()), external_replicas=True))

    [sts] = [r for r in record(program).kubernetes() if r.type.endswith(":StatefulSet")]
    assert sts.ignore_changes == ("spec.replicas",)
    assert sts.inputs["spec"]["replicas"] == 1


def test_a_bad_field_ownership_argument_is_refused_naming_it() -> None:
    def program() -> None:
        fw = framework(Mode.CRD)
        TServer(
            "a", TServerArgs(fw, document=doc(tars_server()), field_ownership={"color": "external"})
        )

    with pytest.raises(Exception, match="field_ownership: unknown field 'color'"):
        record(program)


def test_deferred_server_leaves_out_external_fields() -> None:
    def program() -> None:
        fw = framework(Mode.CRD, {"release": "external"})
        TServer(
            "order",
            framework=fw,
            app=pulumi.Output.from_input("Test"),
            server="DemoTest",
            tars={"template": "tars.cpp", "servants": [{"name": "DemoTest1Obj", "port": 10001}]},
            k8s={"replicas": 2},
            release={"id": "v1", "image": "reg.example.com/test.demotest:v1"},
        )

    [server] = [r for r in record(program).kubernetes() if r.type.endswith(":TServer")]
    assert server.ignore_changes == ("spec.release", LABEL)
    assert "release" not in server.inputs["spec"]


def test_after_a_cluster_read_external_fields_are_given_up_unless_held() -> None:
    """With the cluster read (``held_fields`` known), an ``external`` field is left out and
    not ignored, so server-side apply drops it from Pulumi's manager; one the cluster shows
    held by this stack alone stays ignored (pulumi-kubernetes keeps it at its live value)."""

    def declared(held: frozenset[tuple[str, str, str]]) -> tuple[str, ...]:
        def program() -> None:
            options = Options(
                NAMESPACE,
                mode=Mode.CRD,
                field_ownership={"replicas": "external"},
                held_fields=held,
            )
            fw = TFramework(
                "fw",
                TFrameworkArgs(
                    namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES, options=options
                ),
            )
            TServer("order", TServerArgs(fw, document=doc(tars_server(replicas=3))))

        [server] = [r for r in record(program).kubernetes() if r.type.endswith(":TServer")]
        assert "replicas" not in server.inputs["spec"]["k8s"]
        return server.ignore_changes

    name = parse_document(tars_server(), NAMESPACE).object_name
    assert declared(frozenset()) == ()
    assert declared(frozenset({(NAMESPACE, name, "spec.k8s.replicas")})) == ("spec.k8s.replicas",)


def test_a_server_found_applied_with_kubectl_takes_the_stack_manager() -> None:
    name = parse_document(tars_server(), NAMESPACE).object_name

    def program() -> None:
        options = Options(
            NAMESPACE, mode=Mode.CRD, stack_manager_servers=frozenset({(NAMESPACE, name)})
        )
        fw = TFramework(
            "fw",
            TFrameworkArgs(
                namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES, options=options
            ),
        )
        TServer("order", TServerArgs(fw, document=doc(tars_server())))

    [server] = [
        r for r in record(program, stack="prod").kubernetes() if r.type.endswith(":TServer")
    ]
    annotations = server.inputs["metadata"]["annotations"]
    assert annotations[MANAGER] == "tars-components-prod"
    assert server.ignore_changes == ()
