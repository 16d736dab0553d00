"""``tars:installFramework`` and ``tars:installController``: a stack turns the framework
install of its namespace, and the controller, on."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tars_components.components.testing import record
from tars_components.jobs.config import (
    controller_values_from_config,
    framework_install_from_config,
)
from tars_components.kernel.errors import UsageError
from tars_components.platform import FrameworkValues, build_framework
from tars_components.platform.job import read_values

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = str(ROOT / "__main__.py")


def dev_config(**overrides: Any) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    config = dict(data["config"])
    config.update({f"tars:{k}": v for k, v in overrides.items()})
    return config


def test_the_dev_stack_shows_the_setting_off() -> None:
    config = dev_config()
    assert config["tars:installFramework"] == "false"
    assert (ROOT / config["tars:frameworkValues"]).is_file()
    off = record(lambda: runpy.run_path(PROGRAM), config=config, stack="dev")
    assert not off.of_type("tars:index:TarsFrameworkInstall")


def test_install_framework_declares_the_namespace_framework() -> None:
    recording = record(
        lambda: runpy.run_path(PROGRAM),
        config=dev_config(installFramework="true", frameworkLocalVolumeNodes="node-1"),
        stack="dev",
    )
    [install] = recording.of_type("tars:index:TarsFrameworkInstall")
    children = [r for r in recording.children(install) if r.type.startswith("kubernetes:")]
    values = read_values(ROOT / "platform/framework.values.yaml", FrameworkValues)
    expected = build_framework(values, "tars-dev").objects
    names = {(r.type.rsplit(":", 1)[1], r.inputs["metadata"]["name"]) for r in children}
    assert {(o["kind"], o["metadata"]["name"]) for o in expected} <= names
    assert ("NodePatch", "node-1") in names
    [provider] = recording.of_type("pulumi:providers:kubernetes")
    assert {r.provider_urn for r in children} == {provider.urn}


def test_a_bad_setting_stops_the_program() -> None:
    with pytest.raises(Exception, match="installFramework"):
        record(
            lambda: runpy.run_path(PROGRAM),
            config=dev_config(installFramework="maybe"),
            stack="dev",
        )


def test_install_controller_on_the_one_cluster_comes_first() -> None:
    """Without clusters: the controller (its CA the program's own), then the framework after
    it, then the stack's components after both."""
    recording = record(
        lambda: runpy.run_path(PROGRAM),
        config=dev_config(installController="true", installFramework="true"),
        stack="dev",
    )
    [controller] = recording.of_type("tars:index:TarsController")
    [ca] = recording.of_type("pulumi-python:dynamic/tars:WebhookCa")
    assert (controller.name, ca.name) == ("tars-controller", "tars-webhook-ca")
    [install] = recording.of_type("tars:index:TarsFrameworkInstall")
    crds = {
        r.urn for r in recording.children(controller) if r.type.endswith("CustomResourceDefinition")
    }
    framework = next(r for r in recording.registrations if r.name == "tars-dev" and not r.custom)
    assert crds <= set(framework.dependencies)
    assert {r.urn for r in recording.children(install)} <= set(framework.dependencies)


def test_a_bad_controller_setting_stops_the_program() -> None:
    with pytest.raises(Exception, match="invalid tars:installController"):
        record(
            lambda: runpy.run_path(PROGRAM),
            config=dev_config(installController="true", controllerValues="missing.yaml"),
            stack="dev",
        )


def test_config_parsing() -> None:
    assert controller_values_from_config({}) is None
    assert controller_values_from_config({"installController": "false"}) is None
    on = controller_values_from_config({"installController": "true"})
    assert on == "platform/controller.values.yaml"
    assert controller_values_from_config(
        {"installController": 1, "controllerValues": "c.yaml"}
    ) == ("c.yaml")
    with pytest.raises(UsageError, match="tars:installController must be true or false"):
        controller_values_from_config({"installController": "perhaps"})
    assert framework_install_from_config({}, "ns") is None
    assert framework_install_from_config({"installFramework": "false"}, "ns") is None
    on = framework_install_from_config(
        {"installFramework": True, "frameworkNodes": "a, b", "frameworkValues": "v.yaml"}, "ns"
    )
    assert on is not None
    assert (on.values_file, on.namespace, on.nodes) == ("v.yaml", "ns", ("a", "b"))
    with pytest.raises(UsageError):
        framework_install_from_config({"installFramework": "perhaps"}, "ns")


def test_nodes_per_cluster_parse_from_a_mapping() -> None:
    on = framework_install_from_config(
        {"installFramework": "true", "frameworkNodes": '{"sh": "n1, n2", "bj": "n7"}'}, "ns"
    )
    assert on is not None
    assert on.for_cluster("sh").nodes == ("n1", "n2")
    assert on.for_cluster("bj").nodes == ("n7",)
    assert on.for_cluster("gz").nodes == ()  # a cluster the mapping leaves out: none labelled
    plain = framework_install_from_config({"installFramework": "true", "frameworkNodes": "a"}, "ns")
    assert plain is not None and plain.for_cluster("sh").nodes == ("a",)
    with pytest.raises(UsageError, match="tars:frameworkNodes"):
        framework_install_from_config({"installFramework": "true", "frameworkNodes": "{x"}, "ns")
