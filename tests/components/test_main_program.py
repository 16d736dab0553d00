"""The project's ``__main__.py`` run under ``pulumi.runtime.set_mocks`` with each stack's
config: it registers exactly what ``tars-components render --stack <env>`` writes, fails
before declaring anything when a rule fails, and builds prod (crd mode)."""

from __future__ import annotations

import gc
import runpy
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from support.builders.documents import plain, tars_server

from tars_components.cli import main as cli
from tars_components.components.testing import Recording, RecordingMocks, record
from tars_components.fileio.yaml_writer import dump
from tars_components.jobs.config import read_stack_config
from tars_components.jobs.render import render_path
from tars_components.loading.load import load_stack
from tars_components.pipeline import crd_documents, expand

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = str(ROOT / "__main__.py")


def stack_config(env: str, **overrides: Any) -> dict[str, Any]:
    """The ``config`` block of ``Pulumi.<env>.yaml`` with overrides (keys without ``tars:``)."""
    data = yaml.safe_load((ROOT / f"Pulumi.{env}.yaml").read_text(encoding="utf-8"))
    config = dict(data["config"])
    config.update({f"tars:{key}": value for key, value in overrides.items()})
    return config


def run(env: str, recording: Recording | None = None, **overrides: Any) -> Recording:
    return record(
        lambda: runpy.run_path(PROGRAM),
        config=stack_config(env, **overrides),
        stack=env,
        recording=recording,
    )


@pytest.fixture(scope="module")
def dev() -> Recording:
    return run("dev")


@pytest.fixture(scope="module")
def prod() -> Recording:
    return run("prod")


def test_dev_registers_exactly_what_render_writes(dev: Recording, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli(["render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(out)]) == 0
    written = {
        str(path.relative_to(out)): yaml.safe_load(path.read_text(encoding="utf-8"))
        for path in sorted(out.rglob("*.yaml"))
    }
    registered = {render_path(r.inputs): plain(r.inputs) for r in dev.kubernetes()}
    assert len(registered) == len(dev.kubernetes())
    assert registered.keys() == written.keys()
    for path, obj in written.items():
        assert registered[path] == obj, path


def test_dev_objects_are_typed_resources_with_explicit_names(dev: Recording) -> None:
    kinds = {r.type for r in dev.kubernetes()}
    assert kinds == {
        "kubernetes:core/v1:Service",
        "kubernetes:apps/v1:StatefulSet",
        "kubernetes:apps/v1:DaemonSet",
    }
    for obj in dev.kubernetes():
        meta = obj.inputs["metadata"]
        assert meta["namespace"] == "tars-dev"
        assert obj.name == f"tars-dev/{meta['name']}-{obj.inputs['kind'].lower()}"


def test_skip_await_config_annotates_workloads_as_render_does(tmp_path: Path) -> None:
    recording = run("dev", skipAwait="true")
    workloads = [r for r in recording.kubernetes() if r.inputs["kind"] != "Service"]
    assert {r.inputs["kind"] for r in workloads} == {"StatefulSet", "DaemonSet"}
    for obj in recording.kubernetes():
        annotations = obj.inputs["metadata"].get("annotations") or {}
        expected = "true" if obj in workloads else None
        assert annotations.get("pulumi.com/skipAwait") == expected, obj.name

    out = tmp_path / "out"
    args = ["render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(out)]
    assert cli([*args, "--skip-await"]) == 0
    written = {
        str(path.relative_to(out)): yaml.safe_load(path.read_text(encoding="utf-8"))
        for path in sorted(out.rglob("*.yaml"))
    }
    assert {render_path(r.inputs): plain(r.inputs) for r in recording.kubernetes()} == written
    settings = read_stack_config("dev", ROOT)
    expected_objects = expand(
        load_stack(settings.stack_dir, settings.options.namespace),
        replace(settings.options, skip_await=True),
    )
    assert sorted(map(render_path, expected_objects)) == sorted(written)
    for obj in expected_objects:
        assert written[render_path(obj)] == obj


def test_dev_writes_through_render_yaml_to_directory(dev: Recording) -> None:
    [provider] = dev.of_type("pulumi:providers:kubernetes")
    assert provider.inputs["renderYamlToDirectory"] == "out/dev-pulumi"
    assert "context" not in provider.inputs
    assert {r.provider_urn for r in dev.kubernetes()} == {provider.urn}


def test_dev_tree_and_validations(dev: Recording) -> None:
    stack = load_stack(ROOT / "stacks/dev", "tars-dev")
    [framework] = dev.of_type("tars:index:TFramework")
    servers = dev.of_type("tars:index:TServer")
    templates = dev.of_type("tars:index:TTemplate")
    assert framework.name == "tars-dev"
    assert sorted(s.name for s in servers) == sorted(f"tars-dev/{s.name}" for s in stack.servers)
    assert sorted(t.name for t in templates) == sorted(
        f"tars-dev/{t.name}" for t in stack.templates
    )
    assert {c.parent for c in [*servers, *templates]} == {framework.urn}
    # one validation per document (servers, templates, the framework config)
    assert len(dev.validations()) == len(stack.documents)
    for server in servers:
        children = dev.children(server)
        [validation] = [c for c in children if c.type.startswith("pulumi-python:dynamic")]
        for obj in children:
            if obj.type.startswith("kubernetes:"):
                assert validation.urn in obj.dependencies


def test_dev_stack_outputs(dev: Recording) -> None:
    assert dev.outputs["mode"] == "expand"
    assert dev.outputs["namespaces"] == ["tars-dev"]
    assert dev.outputs["renderDir"] == "out/dev-pulumi"
    assert dev.outputs["servers"]["tars-dev/base-logagent"] == [
        "apps/v1/DaemonSet:tars-dev/base-logagent"
    ]
    assert dev.outputs["templates"]["tars-dev/shop.cpp"] == ["shop.cpp", "tars.cpp", "tars.default"]
    assert sorted(dev.outputs["objects"]) == sorted(
        f"{r.inputs['apiVersion']}/{r.inputs['kind']}:tars-dev/{r.inputs['metadata']['name']}"
        for r in dev.kubernetes()
    )
    assert any("TS015" in w for w in dev.warnings())


def names_only(value: Any) -> bool:
    """Names and lists or mappings of names: no object, no manifest."""
    if isinstance(value, str):
        return "\n" not in value and len(value) < 256
    if isinstance(value, list):
        return all(names_only(v) for v in value)
    if isinstance(value, dict):
        return "apiVersion" not in value and all(names_only(v) for v in value.values())
    return False


def test_stack_outputs_are_names_never_manifests(dev: Recording, prod: Recording) -> None:
    # what another stack reads through a StackReference (PlatformStack): small, whatever
    # the number of objects (a manifest would put every object's spec in the state twice)
    for recording in (dev, prod):
        assert set(recording.outputs) <= {
            "mode",
            "namespaces",
            "servers",
            "templates",
            "objects",
            "renderDir",
        }
        assert names_only(recording.outputs), recording.outputs


def test_prod_builds_custom_resources_in_crd_mode(prod: Recording) -> None:
    settings = read_stack_config("prod", ROOT)
    expected = crd_documents(load_stack(settings.stack_dir, "tars-prod"), settings.options)
    registered = prod.kubernetes()
    assert {r.type.rsplit(":", 1)[0] for r in registered} == {"kubernetes:k8s.tars.io/v1beta3"}
    key = lambda o: (o["kind"], o["metadata"]["name"])  # noqa: E731
    assert sorted((plain(r.inputs) for r in registered), key=key) == sorted(expected, key=key)
    [provider] = prod.of_type("pulumi:providers:kubernetes")
    assert provider.inputs == {"context": "tars-prod"}
    for obj in registered:
        replicas = ("spec.k8s.replicas",) if obj.inputs["kind"] == "TServer" else ()
        assert obj.ignore_changes == replicas
        assert obj.provider_urn == provider.urn


def test_rule_errors_stop_the_program_before_anything_is_declared(tmp_path: Path) -> None:
    bad = tars_server()
    bad["spec"]["tars"]["servants"].append({"name": "NodeObj", "port": 10001})  # TS004, TS005
    (tmp_path / "bad.yaml").write_text(dump(bad), encoding="utf-8")
    recording = Recording()
    with pytest.raises(pulumi.RunError, match="nothing is applied"):
        run("dev", recording, stackDir=str(tmp_path), namespace="tars-dev")
    assert recording.registrations == []
    errors = [message for level, message in recording.log if level == "ERROR"]
    assert any("TS004" in e for e in errors)
    assert any("TS005" in e for e in errors)
    assert any("TS010" in e for e in errors)  # template tars.cpp is not in the stack


def test_unreadable_stack_stops_the_program(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("kind: [", encoding="utf-8")
    recording = Recording()
    with pytest.raises(pulumi.RunError, match="cannot load"):
        run("dev", recording, stackDir=str(tmp_path))
    assert recording.registrations == []
    assert any("invalid YAML" in m for level, m in recording.log if level == "ERROR")


@pytest.mark.parametrize(
    "setting", [{"mode": "apply"}, {"protect": "maybe"}, {"liveChecks": "sometimes"}]
)
def test_invalid_config_stops_the_program(setting: dict[str, str]) -> None:
    recording = Recording()
    with pytest.raises(pulumi.RunError, match="invalid tars"):
        run("dev", recording, **setting)
    assert recording.registrations == []


def test_protect_and_retain_on_delete_reach_every_object() -> None:
    recording = run("dev", protect=True, retainOnDelete=True)
    for obj in [*recording.kubernetes(), *recording.validations()]:
        assert obj.protect, obj.name
    assert all(obj.retain_on_delete for obj in recording.kubernetes())
    assert not any(obj.protect for obj in run("dev").kubernetes())


def test_previous_stack_dir_grows_a_claim_in_place(tmp_path: Path) -> None:
    """A claim template that grew since the previous stack: the StatefulSet keeps it (no
    replacement) and the claim is patched (docs/concepts/storage.md)."""
    previous = tmp_path / "previous"
    shutil.copytree(ROOT / "stacks/dev", previous)
    portal = previous / "40-web-portal.yaml"
    text = portal.read_text(encoding="utf-8")
    portal.write_text(text.replace("storage: 5Gi", "storage: 1Gi"), encoding="utf-8")
    recording = run("dev", previousStackDir=str(previous), expandableStorageClasses="standard")
    assert [w for w in recording.warnings() if "will be replaced" in w] == []
    [patch] = recording.of_type("kubernetes:core/v1:PersistentVolumeClaimPatch")
    assert patch.inputs["metadata"]["name"] == "uploads-web-portal-0"
    assert patch.inputs["spec"] == {"resources": {"requests": {"storage": "5Gi"}}}
    [statefulset] = [
        r
        for r in recording.of_type("kubernetes:apps/v1:StatefulSet")
        if r.inputs["metadata"]["name"] == "web-portal"
    ]
    [template] = statefulset.inputs["spec"]["volumeClaimTemplates"]
    assert template["spec"]["resources"]["requests"] == {"storage": "1Gi"}


def test_previous_stack_dir_runs_the_change_rules(tmp_path: Path) -> None:
    previous = tmp_path / "previous"
    shutil.copytree(ROOT / "stacks/dev", previous)
    portal = previous / "40-web-portal.yaml"
    text = portal.read_text(encoding="utf-8")
    portal.write_text(text.replace("app: Web", "app: Site"), encoding="utf-8")
    recording = Recording()
    with pytest.raises(pulumi.RunError, match="nothing is applied"):
        run("dev", recording, previousStackDir=str(previous))
    assert recording.registrations == []
    assert any("TS001" in m for level, m in recording.log if level == "ERROR")


def test_crd_mode_refuses_what_the_target_version_cannot_take(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "stacks" / "dev", tmp_path / "dev")
    # a v1beta2 TFrameworkConfig has no imageBuild.executor, which v1beta3 (crd mode) requires
    v1beta2 = {
        "apiVersion": "k8s.tars.io/v1beta2",
        "kind": "TFrameworkConfig",
        "metadata": {"name": "tars-framework", "namespace": "tars-dev"},
        "imageRegistry": {"registry": "docker.tarsyun.com/tars-dev"},
        "nodeImage": {"image": "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.0"},
    }
    (tmp_path / "dev" / "00-framework.yaml").write_text(dump(v1beta2), encoding="utf-8")
    assert run("dev", stackDir=str(tmp_path / "dev")).registrations  # fine in expand mode
    recording = Recording()
    with pytest.raises(pulumi.RunError, match="nothing is applied"):
        run("dev", recording, stackDir=str(tmp_path / "dev"), mode="crd")
    assert recording.registrations == []
    errors = [message for level, message in recording.log if level == "ERROR"]
    assert any(" TF001 error TFrameworkConfig " in e and " imageBuild: " in e for e in errors)


def test_the_program_runs_with_the_collector_off_and_freezes_its_heap() -> None:
    collecting_while_declared: list[bool] = []
    collecting_at_registration: list[bool] = []
    frozen_at_registration: list[int] = []

    def watch(args: pulumi.ResourceTransformationArgs) -> None:
        collecting_while_declared.append(gc.isenabled())  # runs in each constructor

    class Watching(RecordingMocks):
        def new_resource(self, args: Any) -> tuple[str | None, dict[str, Any]]:
            frozen_at_registration.append(gc.get_freeze_count())
            collecting_at_registration.append(gc.isenabled())
            return super().new_resource(args)

    def program() -> None:
        pulumi.runtime.register_stack_transformation(watch)
        runpy.run_path(PROGRAM)

    record(program, config=stack_config("dev"), mock=Watching())
    assert collecting_while_declared and not any(collecting_while_declared)
    assert collecting_at_registration and not any(collecting_at_registration)
    # The registrations run once the body has declared everything: by then the declared heap
    # is frozen too (the interpreter's last collection at exit skips it) ...
    assert max(frozen_at_registration) > 0
    # ... and once the run is over the test process gets them back, collector on.
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_the_program_and_validate_check_a_stack_through_the_one_pipeline_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tars-components validate --previous`` and the program with ``tars:previousStackDir``
    report the same violations because both call :func:`pipeline.validate` (load, check,
    change rules, create-only dropped for known documents) and nothing else."""
    import tars_components.pipeline as pipeline

    current, previous = tmp_path / "current", tmp_path / "previous"
    shutil.copytree(ROOT / "stacks" / "dev", current)
    deactivated = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TConfig",
        "metadata": {"name": "web-portal-conf", "labels": {"tars.io/Deactivate": "Deactivating"}},
        "app": "Web",
        "server": "Portal",
        "configName": "portal.conf",
        "configContent": "<tars></tars>",
        "podSeq": "m",
        "activated": True,
    }
    (current / "70-config.yaml").write_text(dump(deactivated), encoding="utf-8")  # TC005 new
    shutil.copytree(current, previous)
    portal = previous / "40-web-portal.yaml"
    portal.write_text(portal.read_text(encoding="utf-8").replace("app: Web", "app: Site"))

    results: list[pipeline.Validation] = []
    real = pipeline.validate

    def spy(*args: Any, **kwargs: Any) -> pipeline.Validation:
        results.append(real(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(pipeline, "validate", spy)
    recording = Recording()
    with pytest.raises(pulumi.RunError, match="nothing is applied"):
        run("dev", recording, stackDir=str(current), previousStackDir=str(previous))
    assert recording.registrations == []
    logged = sorted(m for level, m in recording.log if level in ("ERROR", "WARNING"))

    args = ["validate", str(current), "--namespace", "tars-dev", "--previous", str(previous)]
    capsys.readouterr()
    assert cli(args) == 1
    printed = capsys.readouterr().out.splitlines()

    assert len(results) == 2  # one call each, the program's first
    program, command = ([v.format() for v in r.violations] for r in results)
    assert program == command == printed
    assert logged == sorted(printed)
    codes = {v.code for v in results[0].violations}
    assert {"TS001", "TS015"} <= codes  # a change rule error, a warning of the stack itself
    assert "TC005" not in codes  # the previous stack has this TConfig: an update, not a create
    assert cli(["validate", str(current), "--namespace", "tars-dev"]) == 1
    assert " TC005 error TConfig tars-dev/web-portal-conf " in capsys.readouterr().out
