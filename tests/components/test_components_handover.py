"""The release-only path and the HPA handover (docs/pulumi/deploy.md): ``TServerRelease``
patches only ``spec.release`` under its own field manager after the same rules;
``TServerAutoscaler`` hands the replicas to an ``autoscaling/v2`` HPA."""

from __future__ import annotations

from typing import Any

import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, tars_server

from tars_components.components import (
    TFramework,
    TFrameworkArgs,
    TServerArgs,
    TServerAutoscaler,
    TServerRelease,
)
from tars_components.components.testing import record
from tars_components.loading.documents import parse_document
from tars_components.models import TFrameworkConfigDocument
from tars_components.settings.options import Mode, Options

CONFIG: TFrameworkConfigDocument = parse_document(FRAMEWORK)  # type: ignore[assignment]
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
PATCH = "kubernetes:k8s.tars.io/v1beta3:TServerPatch"
HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
MANAGER = "pulumi.com/patchFieldManager"


def framework(mode: Mode = Mode.CRD) -> TFramework:
    return TFramework(
        "fw",
        TFrameworkArgs(
            namespace=NAMESPACE,
            config=CONFIG,
            templates=TEMPLATES,
            options=Options(NAMESPACE, mode=mode),
        ),
    )


def doc(raw: dict[str, Any]) -> Any:
    return parse_document(raw, NAMESPACE)


def test_the_release_patch_applies_only_the_release_under_its_own_manager() -> None:
    def program() -> None:
        TServerRelease(
            "ci",
            framework=framework(),
            server=doc(tars_server()),
            release={"id": "v2", "image": "reg.example.com/test.demotest:v2"},
        )

    recording = record(program, stack="ci")
    [patch] = recording.of_type(PATCH)
    assert patch.inputs["metadata"]["name"] == "test-demotest"
    assert patch.inputs["metadata"]["annotations"] == {MANAGER: "tars-release-ci"}
    assert list(patch.inputs["spec"]) == ["release"]
    release = patch.inputs["spec"]["release"]
    assert (release["id"], release["image"]) == ("v2", "reg.example.com/test.demotest:v2")
    assert release["nodeImage"]  # as the webhook admits it: the framework's tarsnode image
    [validation] = [v for v in recording.validations() if v.name == "ci-validation"]
    assert validation.name in {d.split("::")[-1] for d in patch.dependencies}


def test_a_release_the_rules_refuse_is_not_patched() -> None:
    def program() -> None:
        TServerRelease(
            "ci",
            framework=framework(),
            server=doc(tars_server()),
            release={"id": "v2", "image": "Not An Image!"},
            field_manager="pipeline",
        )

    with pytest.raises(Exception, match=r"TServerRelease 'ci'.*release\.image"):
        record(program)


def test_a_field_manager_can_be_named() -> None:
    def program() -> None:
        TServerRelease(
            "ci",
            framework=framework(),
            server=doc(tars_server()),
            release={"id": "v3", "image": "reg.example.com/test.demotest:v3"},
            field_manager="gitlab-ci",
        )

    [patch] = record(program).of_type(PATCH)
    assert patch.inputs["metadata"]["annotations"] == {MANAGER: "gitlab-ci"}


@pytest.mark.parametrize(
    ("mode", "kind", "path"),
    [(Mode.CRD, "TServer", "spec.k8s.replicas"), (Mode.EXPAND, "StatefulSet", "spec.replicas")],
)
def test_the_autoscaler_hands_the_replicas_to_its_hpa(mode: Mode, kind: str, path: str) -> None:
    def program() -> None:
        TServerAutoscaler(
            "order",
            server=TServerArgs(framework(mode), document=doc(tars_server(replicas=2))),
            min_replicas=2,
            max_replicas=8,
        )

    recording = record(program)
    [hpa] = recording.of_type(HPA)
    spec = hpa.inputs["spec"]
    assert spec["scaleTargetRef"]["kind"] == kind
    assert spec["scaleTargetRef"]["name"] == "test-demotest"
    assert (spec["minReplicas"], spec["maxReplicas"]) == (2, 8)
    [target] = [r for r in recording.kubernetes() if r.type.endswith(f":{kind}")]
    assert target.ignore_changes == (path,)
    applied = target.inputs["spec"]["k8s"] if kind == "TServer" else target.inputs["spec"]
    assert "replicas" not in applied
    [validation] = [v for v in recording.validations() if v.name == "order-validation"]
    text = str(validation.inputs["document"])
    assert "tars.io/MinReplicas" in text and "tars.io/MaxReplicas" in text
    if kind == "TServer":
        annotations = target.inputs["metadata"]["annotations"]
        assert annotations["tars.io/MinReplicas"] == "2"
        assert annotations["tars.io/MaxReplicas"] == "8"


@pytest.mark.parametrize(
    ("low", "high", "message"),
    [(0, 5, "min_replicas: 0"), (3, 100, "max_replicas: 100"), (6, 5, "greater than")],
)
def test_the_autoscaler_refuses_bounds_the_webhook_cannot_hold(
    low: int, high: int, message: str
) -> None:
    def program() -> None:
        TServerAutoscaler(
            "order",
            server=TServerArgs(framework(), document=doc(tars_server())),
            min_replicas=low,
            max_replicas=high,
        )

    with pytest.raises(Exception, match=message):
        record(program)
