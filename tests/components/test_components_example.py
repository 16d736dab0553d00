"""``examples/consumer``: a program of one's own that imports tars_components, run under
``pulumi.runtime.set_mocks`` with its image from config and from another stack."""

from __future__ import annotations

import runpy
from pathlib import Path

import yaml

from tars_components.components.testing import Recording, RecordingMocks, record

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "consumer"
PROJECT = "tars-consumer"


def run(config: dict[str, str], mock: RecordingMocks | None = None) -> Recording:
    return record(
        lambda: runpy.run_path(str(EXAMPLE / "__main__.py")),
        config={f"{PROJECT}:{key}": value for key, value in config.items()},
        project=PROJECT,
        mock=mock,
    )


def order_image(recording: Recording) -> str:
    [sts] = [
        r
        for r in recording.of_type("kubernetes:apps/v1:StatefulSet")
        if r.inputs["metadata"]["name"] == "shop-orderserver"
    ]
    [main] = [
        c
        for c in sts.inputs["spec"]["template"]["spec"]["containers"]
        if c["name"] == "shop-orderserver"
    ]
    return main["image"]


def test_project_files_install_the_library() -> None:
    project = yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["name"] == PROJECT
    assert project["runtime"] == {
        "name": "python",
        "options": {"toolchain": "pip", "virtualenv": "venv"},
    }
    lines = (EXAMPLE / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert "../.." in lines  # not -e: mypy cannot follow setuptools' editable finder
    config = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    assert set(config["config"]) == {
        f"{PROJECT}:{k}" for k in ("namespace", "renderDir", "orderImage")
    }


def test_image_from_config() -> None:
    recording = run({"orderImage": "reg.example.com/shop/order:v1", "renderDir": "out"})
    assert order_image(recording) == "reg.example.com/shop/order:v1"
    assert {r.type for r in recording.registrations if r.type.startswith("tars:")} == {
        "tars:index:TFramework",
        "tars:index:TTemplate",
        "tars:index:TServer",
    }
    assert len(recording.of_type("tars:index:TServer")) == 2
    assert len(recording.validations()) == 4  # framework config, template, two servers
    assert recording.outputs["templateChain"] == ["shop.cpp", "tars.cpp", "tars.default"]
    assert recording.outputs["objects"] == [
        "v1/Service:shop-dev/shop-orderserver",
        "apps/v1/StatefulSet:shop-dev/shop-orderserver",
        "v1/Service:shop-dev/web-portal",
        "apps/v1/StatefulSet:shop-dev/web-portal",
    ]


def test_image_from_another_stack() -> None:
    mock = RecordingMocks(
        stack_outputs={"acme/images/prod": {"orderImage": "reg.example.com/o:v9"}}
    )
    recording = run({"imagesStack": "acme/images/prod"}, mock)
    assert order_image(recording) == "reg.example.com/o:v9"


def test_framework_from_the_platform_stack() -> None:
    platform = {
        "mode": "expand",
        "namespaces": ["shop-prod"],
        "templates": {
            "shop-prod/tars.default": ["tars.default"],
            "shop-prod/tars.cpp": ["tars.cpp", "tars.default"],
        },
        "servers": {},
        "objects": [],
    }
    mock = RecordingMocks(stack_outputs={"acme/tars/prod": platform})
    config = {"platformStack": "acme/tars/prod", "orderImage": "reg.example.com/o:v1"}
    recording = run(config, mock)
    assert recording.outputs["namespace"] == "shop-prod"
    assert recording.outputs["templateChain"] == ["shop.cpp", "tars.cpp", "tars.default"]
    assert [r.inputs["metadata"]["namespace"] for r in recording.kubernetes()] == ["shop-prod"] * 4
    # The platform's tars-framework is its own: the consumer never applies one (crd mode
    # reads the cluster's)
    crd = run({**config, "mode": "crd"}, RecordingMocks(stack_outputs={"acme/tars/prod": platform}))
    assert sorted(r.inputs["kind"] for r in crd.kubernetes()) == ["TServer", "TServer", "TTemplate"]
    [read] = [r for r in crd.registrations if r.name == "shop-tars-framework"]
    assert read.read and read.inputs["id"] == "shop-prod/tars-framework"


def test_crd_mode() -> None:
    recording = run({"orderImage": "reg.example.com/shop/order:v1", "mode": "crd"})
    assert sorted(r.inputs["kind"] for r in recording.kubernetes()) == [
        "TFrameworkConfig",
        "TServer",
        "TServer",
        "TTemplate",
    ]
