"""Field ownership rules and the build (docs/concepts/ownership.md): TO001 (the annotation is
well formed), TO002 (expand mode cannot leave a pod-template field to another manager), and
``render``/``diff`` honouring the ownership as the components do."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.builders.documents import FRAMEWORK, NAMESPACE, load, stack_text, tars_server, template
from support.engines.cli import run

from tars_components.diff.stacks import diff_stacks
from tars_components.jobs.config import effective_ownership, settings_from_config
from tars_components.kernel.errors import UsageError
from tars_components.models.ownership import FieldOwnership, Ownership
from tars_components.pipeline import build, check
from tars_components.settings.options import Mode, Options

ANNOTATION = "tars-components.io/field-ownership"


def annotated(value: str, **k8s: Any) -> dict[str, Any]:
    raw = tars_server(**k8s)
    raw["metadata"]["annotations"] = {ANNOTATION: value}
    return raw


def codes(violations: list[Any]) -> list[tuple[str, str]]:
    return [(v.code, v.field) for v in violations if v.code.startswith("TO")]


def test_TO001_a_malformed_annotation_is_an_error_at_the_annotation() -> None:
    stack = load(annotated("release=owned-by-bob"))
    found = check(stack, Options("tars-dev", mode=Mode.CRD))
    assert codes(found) == [("TO001", f'metadata.annotations["{ANNOTATION}"]')]
    [violation] = [v for v in found if v.code == "TO001"]
    assert "'owned-by-bob' is not managed, initial or external" in violation.message
    assert violation.line is not None


def test_TO001_a_well_formed_annotation_is_fine() -> None:
    stack = load(annotated("release=external, replicas=initial"))
    assert codes(check(stack, Options("tars-dev", mode=Mode.CRD))) == []


def test_TO002_expand_mode_warns_for_a_pod_template_field() -> None:
    stack = load(annotated("release=external,replicas=external"))
    found = check(stack, Options("tars-dev"))
    assert codes(found) == [("TO002", "spec.release")]
    assert not [v for v in found if v.code == "TO002" and v.is_error]
    assert codes(check(stack, Options("tars-dev", mode=Mode.CRD))) == []


def test_render_leaves_external_fields_out_in_both_modes() -> None:
    stack = load(annotated("replicas=external"), tars_server(server="Other"))
    crd = build(stack, Options("tars-dev", mode=Mode.CRD)).objects
    servers = {o["metadata"]["name"]: o for o in crd if o["kind"] == "TServer"}
    assert "replicas" not in servers["test-demotest"]["spec"]["k8s"]
    assert servers["test-other"]["spec"]["k8s"]["replicas"] == 1
    expanded = build(stack, Options("tars-dev")).objects
    sets = {o["metadata"]["name"]: o for o in expanded if o["kind"] == "StatefulSet"}
    assert "replicas" not in sets["test-demotest"]["spec"]
    assert sets["test-other"]["spec"]["replicas"] == 1


def test_render_keeps_initial_fields() -> None:
    stack = load(tars_server())
    options = Options("tars-dev", mode=Mode.CRD, field_ownership={"release": "initial"})
    [server] = [o for o in build(stack, options).objects if o["kind"] == "TServer"]
    assert server["spec"]["release"]["image"] == "reg.example.com/test.demotest:v1"


def test_diff_ignores_changes_of_fields_another_manager_owns() -> None:
    old = tars_server()
    new = copy.deepcopy(old)
    new["spec"]["release"] = {"id": "v2", "image": "reg.example.com/test.demotest:v2"}
    new["spec"]["k8s"]["replicas"] = 4
    crd = Options("tars-dev", mode=Mode.CRD)
    changed = diff_stacks(load(old), load(new), crd).diff
    assert changed is not None
    [change] = [c for c in changed.changes if c.kind == "TServer"]
    assert {f.path for f in change.fields} == {
        'metadata.labels["tars.io/ServerID"]',  # the webhook's, from release.id
        "spec.k8s.replicas",
        "spec.release.id",
        "spec.release.image",
    }
    owned = Options("tars-dev", mode=Mode.CRD, field_ownership="release=initial")
    result = diff_stacks(load(old), load(new), owned).diff
    assert result is not None
    [change] = [c for c in result.changes if c.kind == "TServer"]
    assert [f.path for f in change.fields] == ["spec.k8s.replicas"]
    both = Options("tars-dev", mode=Mode.CRD, field_ownership="release=external,replicas=initial")
    quiet = diff_stacks(load(old), load(new), both).diff
    assert quiet is not None and [c for c in quiet.changes if c.kind == "TServer"] == []


def test_the_server_annotation_wins_over_the_stack_setting() -> None:
    stack = load(annotated("replicas=managed"))
    options = Options("tars-dev", mode=Mode.CRD, field_ownership={"replicas": "external"})
    [server] = [o for o in build(stack, options).objects if o["kind"] == "TServer"]
    assert server["spec"]["k8s"]["replicas"] == 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"release": "external"}, (("release", Ownership.EXTERNAL),)),
        ('{"replicas": "initial"}', (("k8s.replicas", Ownership.INITIAL),)),
        (
            "k8s.env=external, release=managed",
            (("k8s.env", Ownership.EXTERNAL), ("release", Ownership.MANAGED)),
        ),
        ("", ()),
    ],
)
def test_the_stack_setting_forms(value: Any, expected: Any) -> None:
    settings = settings_from_config({"fieldOwnership": value})
    assert settings.options.field_ownership == FieldOwnership(expected)


def test_external_replicas_config_is_an_alias_of_initial_replicas() -> None:
    settings = settings_from_config({"externalReplicas": "true"})
    assert effective_ownership(settings).of("k8s.replicas") is Ownership.INITIAL
    assert not settings.options.field_ownership  # the objects stay as they always were
    named = settings_from_config({"externalReplicas": True, "fieldOwnership": "replicas=external"})
    assert effective_ownership(named).of("k8s.replicas") is Ownership.EXTERNAL


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("colour=external", "unknown field 'colour'"),
        ("release=mine", "'mine' is not managed, initial or external"),
        ("release", "expected field=managed|initial|external"),
    ],
)
def test_a_bad_stack_setting_is_a_usage_error_naming_the_key(value: str, message: str) -> None:
    with pytest.raises(UsageError, match=f"tars:fieldOwnership: .*{message}"):
        settings_from_config({"fieldOwnership": value})


def test_render_and_validate_take_the_flag(tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    docs = [
        copy.deepcopy(FRAMEWORK),
        template("tars.default"),
        template("tars.cpp", "tars.default"),
    ]
    (stack / "stack.yaml").write_text(stack_text(*docs, tars_server()), encoding="utf-8")
    out = tmp_path / "out"
    flags = ("--namespace", NAMESPACE, "--mode", "crd")
    result = run(
        "render", str(stack), "--out", str(out), *flags, "--field-ownership", "release=external"
    )
    assert result.returncode == 0, result.stderr
    [server] = [
        d
        for f in sorted(out.rglob("*.yaml"))
        for d in yaml.safe_load_all(f.read_text(encoding="utf-8"))
        if d and d.get("kind") == "TServer"
    ]
    assert "release" not in server["spec"]
    assert server["spec"]["k8s"]["replicas"] == 1
    bad = run("validate", str(stack), *flags, "--field-ownership", "release=theirs")
    assert bad.returncode == 2
    assert "--field-ownership 'release=theirs'" in bad.stderr and "Traceback" not in bad.stderr
    warned = run(
        "validate", str(stack), "--namespace", NAMESPACE, "--field-ownership", "k8s.env=external"
    )
    assert warned.returncode == 0 and "TO002" in warned.stdout + warned.stderr
