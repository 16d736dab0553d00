"""``diff --live`` (docs/cli/diff.md#against-a-live-export): drift against a live export,
ignoring what the API server and the webhook fill in, and conflicts with the fields other
field managers own, in the pure stage and through the command line."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.builders.documents import NAMESPACE, load, stack_text, tars_server
from support.builders.live import as_list, live_object, owned_by
from support.engines.cli import run

from tars_components.diff.live import live_diff, parse_export
from tars_components.expansion.ownership import server_ownerships
from tars_components.kernel.errors import LoadError
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options

TARSWEB_IMAGE = "reg.example.com/test.demotest:tarsweb-hotfix"
SERVER = "test-demotest"


def server_with_env() -> dict[str, Any]:
    return tars_server(env=[{"name": "LOG_LEVEL", "value": "info"}, {"name": "ZONE", "value": "a"}])


def built(mode: Mode, ownership: Any = None, *docs: dict[str, Any]) -> tuple[Any, Options]:
    options = Options(NAMESPACE, mode=mode, field_ownership=ownership or {})
    stack = load(*(docs or (server_with_env(),)))
    result = build(stack, options)
    assert result.ok, result.violations
    return (stack, result.objects), options


def live_of(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [live_object(o) for o in objects]


def find(objects: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    [found] = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == SERVER]
    return found


def tarsweb_took_the_release(live: list[dict[str, Any]]) -> dict[str, Any]:
    server = find(live, "TServer")
    server["spec"]["release"]["image"] = TARSWEB_IMAGE
    server["spec"]["release"]["id"] = "v1-hotfix"
    server["metadata"]["labels"]["tars.io/ServerID"] = "v1-hotfix"  # the webhook, in its request
    owned_by(
        server,
        "tarsweb",
        {
            "f:metadata": {"f:labels": {"f:tars.io/ServerID": {}}},
            "f:spec": {"f:release": {"f:id": {}, "f:image": {}, "f:time": {}}},
        },
    )
    return server


@pytest.mark.parametrize("mode", [Mode.CRD, Mode.EXPAND])
def test_an_export_equal_to_the_build_reports_no_drift_and_no_conflict(mode: Mode) -> None:
    (stack, objects), options = built(mode)
    result = live_diff(objects, live_of(objects), server_ownerships(stack, options), ["x"])
    assert result.drift.changes == ()
    assert result.conflicts == ()


@pytest.mark.parametrize(
    ("mode", "kind", "path"),
    [
        (Mode.CRD, "TServer", "spec.k8s.env[name=ZONE].value"),
        (
            Mode.EXPAND,
            "StatefulSet",
            "spec.template.spec.containers[name=test-demotest].env[name=ZONE].value",
        ),
    ],
)
def test_one_changed_env_value_is_exactly_that_field(mode: Mode, kind: str, path: str) -> None:
    (_, objects), _ = built(mode)
    live = live_of(objects)
    target = find(live, kind)
    if kind == "TServer":
        envs = target["spec"]["k8s"]["env"]
    else:
        envs = target["spec"]["template"]["spec"]["containers"][0]["env"]
    [zone] = [e for e in envs if e["name"] == "ZONE"]
    zone["value"] = "b"
    result = live_diff(objects, live)
    [change] = result.drift.changes
    assert (change.kind, change.action.value) == (kind, "update")
    assert [(f.path, f.old, f.new) for f in change.fields] == [(path, "b", "a")]


def test_a_release_owned_by_tarsweb_is_one_conflict_naming_it() -> None:
    (stack, objects), options = built(Mode.CRD)
    live = live_of(objects)
    tarsweb_took_the_release(live)
    result = live_diff(objects, live, server_ownerships(stack, options), ["tars-components-dev"])
    [conflict] = result.conflicts
    assert conflict.to_json()["manager"] == "tarsweb"
    assert conflict.to_json()["field"] == "spec.release"
    assert conflict.live["image"] == TARSWEB_IMAGE
    assert conflict.build["image"] == "reg.example.com/test.demotest:v1"
    assert "release=external" in conflict.avoid
    assert {"manager", "field", "live", "build"} <= conflict.to_json().keys()


def test_with_release_external_there_is_no_conflict_and_no_release_applied() -> None:
    (stack, objects), options = built(Mode.CRD, {"release": "external"})
    assert "release" not in find(objects, "TServer")["spec"]
    (_, managed), _ = built(Mode.CRD)
    live = live_of(managed)
    tarsweb_took_the_release(live)
    result = live_diff(objects, live, server_ownerships(stack, options), ["tars-components-dev"])
    assert result.conflicts == ()
    assert result.drift.changes == ()


def test_the_same_value_owned_by_another_manager_is_no_conflict() -> None:
    (_, objects), _ = built(Mode.CRD)
    live = live_of(objects)
    owned_by(find(live, "TServer"), "tarsweb", {"f:spec": {"f:release": {"f:image": {}}}})
    assert live_diff(objects, live).conflicts == ()


def test_an_atomic_list_is_one_field() -> None:
    (_, objects), _ = built(Mode.CRD)
    live = live_of(objects)
    server = find(live, "TServer")
    server["spec"]["k8s"]["env"][0]["value"] = "debug"
    server["spec"]["k8s"]["env"][1]["value"] = "z"
    owned_by(server, "tarsweb", {"f:spec": {"f:k8s": {"f:env": {}}}})
    [conflict] = live_diff(objects, live).conflicts
    assert conflict.field == "spec.k8s.env"
    assert [e["value"] for e in conflict.live] == ["debug", "z"]
    assert "k8s.env=external" in conflict.avoid


def test_an_hpa_scaling_through_the_scale_subresource_conflicts_unless_replicas_are_external() -> (
    None
):
    (stack, objects), options = built(Mode.CRD)
    live = live_of(objects)
    server = find(live, "TServer")
    server["spec"]["k8s"]["replicas"] = 5
    entry = {"f:spec": {"f:k8s": {"f:replicas": {}}}}
    owned_by(server, "kube-controller-manager", entry)
    server["metadata"]["managedFields"][-1]["subresource"] = "scale"
    [conflict] = live_diff(objects, live).conflicts
    assert (conflict.manager, conflict.field, conflict.live, conflict.build) == (
        "kube-controller-manager",
        "spec.k8s.replicas",
        5,
        1,
    )
    assert conflict.avoid.startswith("replicas=external")
    (stack, owned), options = built(Mode.CRD, {"replicas": "external"})
    quiet = live_diff(owned, live, server_ownerships(stack, options))
    assert quiet.conflicts == () and quiet.drift.changes == ()


def test_a_build_object_missing_from_the_export_is_a_create() -> None:
    (_, objects), _ = built(Mode.EXPAND)
    live = [o for o in live_of(objects) if o["kind"] != "Service"]
    [change] = live_diff(objects, live).drift.changes
    assert (change.action.value, change.kind) == ("create", "Service")


def test_parse_export_unwraps_lists_and_names_bad_items() -> None:
    text = yaml.safe_dump(
        as_list([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}])
    )
    assert [o["metadata"]["name"] for o in parse_export({"x.yaml": text})] == ["a"]
    [item] = parse_export({"x.yaml": text}, namespace="shop")
    assert item["metadata"]["namespace"] == "shop"
    with pytest.raises(LoadError) as caught:
        parse_export({"x.yaml": "kind: List\nitems:\n- just-a-string\n"})
    assert "x.yaml:1:" in str(caught.value) and "items.0" in str(caught.value)
    with pytest.raises(LoadError, match=r"x\.yaml:3: invalid YAML: duplicate key"):
        parse_export({"x.yaml": "apiVersion: v1\nkind: A\nkind: B\nmetadata: {name: a}\n"})
    loaded = parse_export(
        {"x.yaml": "apiVersion: v1\nkind: A\nmetadata: {name: a}\nn: 3\nb: true\n"}
    )
    assert (loaded[0]["n"], loaded[0]["b"]) == (3, True)  # typed as YAML says
    anchored = "apiVersion: v1\nkind: A\nmetadata: {name: a, labels: &l {x: y}}\nspec: {l: *l}\n"
    assert parse_export({"x.yaml": anchored})[0]["spec"] == {"l": {"x": "y"}}
    with pytest.raises(LoadError, match=r"x\.yaml:2: invalid YAML"):
        parse_export({"x.yaml": "a: b\n  c: [\n"})


# --- the command line ------------------------------------------------------------------------


def write(
    tmp_path: Path, objects: list[dict[str, Any]], *docs: dict[str, Any]
) -> tuple[Path, Path]:
    stack = tmp_path / "stack"
    stack.mkdir()
    from support.builders.documents import FRAMEWORK, template

    all_docs = [
        copy.deepcopy(FRAMEWORK),
        template("tars.default"),
        template("tars.cpp", "tars.default"),
    ]
    all_docs.extend(docs or (server_with_env(),))
    (stack / "stack.yaml").write_text(stack_text(*all_docs), encoding="utf-8")
    export = tmp_path / "export.yaml"
    export.write_text(yaml.safe_dump(as_list(objects), sort_keys=False), encoding="utf-8")
    return stack, export


def cli(stack: Path, export: Path, *args: str) -> Any:
    return run("diff", "--live", str(export), str(stack), "--namespace", NAMESPACE, *args)


def test_cli_json_reports_the_tarsweb_conflict_and_exit_code(tmp_path: Path) -> None:
    (_, objects), _ = built(Mode.CRD)
    live = live_of(objects)
    tarsweb_took_the_release(live)
    stack, export = write(tmp_path, live)
    result = cli(stack, export, "--mode", "crd", "--format", "json", "--exit-code")
    assert result.returncode == 3, result.stderr
    document = json.loads(result.stdout)
    [conflict] = document["conflicts"]
    assert (conflict["manager"], conflict["field"]) == ("tarsweb", "spec.release")
    assert conflict["live"]["image"] == TARSWEB_IMAGE
    assert conflict["build"]["image"] == "reg.example.com/test.demotest:v1"
    [change] = document["changes"]  # the release Pulumi would reset is drift too
    assert change["kind"] == "TServer"
    text = cli(stack, export, "--mode", "crd")
    assert text.returncode == 0
    assert "spec.release is owned by tarsweb" in text.stdout
    quiet = cli(
        stack,
        export,
        "--mode",
        "crd",
        "--field-ownership",
        "release=external",
        "--format",
        "json",
        "--exit-code",
    )
    assert quiet.returncode == 0, quiet.stdout
    assert json.loads(quiet.stdout)["conflicts"] == []


def test_cli_directory_export_and_markdown(tmp_path: Path) -> None:
    (_, objects), _ = built(Mode.EXPAND)
    stack, _ = write(tmp_path, live_of(objects))
    folder = tmp_path / "exports"
    folder.mkdir()
    for index, obj in enumerate(live_of(objects)):
        (folder / f"{index}.yaml").write_text(yaml.safe_dump(obj), encoding="utf-8")
    result = cli(stack, folder, "--format", "markdown", "--exit-code")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No conflicts." in result.stdout and "No changes." in result.stdout


def test_cli_bad_input_exits_2_with_file_and_line(tmp_path: Path) -> None:
    (_, objects), _ = built(Mode.EXPAND)
    stack, export = write(tmp_path, live_of(objects))
    export.write_text("items: [\n", encoding="utf-8")
    result = cli(stack, export)
    assert result.returncode == 2
    assert f"{export}:" in result.stderr and "Traceback" not in result.stderr
    missing = cli(stack, tmp_path / "nope.yaml")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    both = run("diff", "--live", str(export), str(stack), str(stack))
    assert both.returncode == 2 and "one stack directory" in both.stderr


def test_cli_reports_the_export_first_then_the_stack(tmp_path: Path) -> None:
    """The stack is built beside the export's parse (a second CPU): its errors and rule
    violations are reported as when it is built after the export, and a broken export still
    comes first."""
    (_, objects), _ = built(Mode.EXPAND)
    stack, export = write(tmp_path, live_of(objects))
    (stack / "broken.yaml").write_text("kind: [\n", encoding="utf-8")
    broken_stack = cli(stack, export)
    assert broken_stack.returncode == 2, broken_stack.stderr
    assert f"{stack / 'broken.yaml'}:" in broken_stack.stderr
    assert "Traceback" not in broken_stack.stderr
    export.write_text("items: [\n", encoding="utf-8")
    both = cli(stack, export)
    assert both.returncode == 2
    assert f"{export}:" in both.stderr and "broken.yaml" not in both.stderr
    (stack / "broken.yaml").unlink()
    bad = server_with_env()
    bad["metadata"]["name"], bad["spec"]["app"] = "bad-app", "Bad_App"  # not an app name
    (stack / "bad-server.yaml").write_text(stack_text(bad), encoding="utf-8")
    export.write_text(yaml.safe_dump(as_list(live_of(objects))), encoding="utf-8")
    refused = cli(stack, export)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "TS" in refused.stdout and "Traceback" not in refused.stderr


def test_cli_never_prints_a_secret_of_the_export(tmp_path: Path) -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": NAMESPACE},
        "type": "Opaque",
        "stringData": {"password": "build-Passw0rd"},
    }
    (_, objects), _ = built(Mode.EXPAND, None, server_with_env(), secret)
    live = live_of(objects)
    [live_secret] = [o for o in live if o["kind"] == "Secret"]
    live_secret["stringData"] = {"password": "live-S3cret"}
    other = live_object(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "other", "namespace": NAMESPACE},
            "data": {"token": "b3RoZXItdG9rZW4="},
        }
    )
    owned_by(live_secret, "kubectl-edit", {"f:stringData": {"f:password": {}}})
    stack, export = write(tmp_path, [*live, other], server_with_env(), secret)
    for fmt in ("text", "json", "markdown"):
        result = cli(stack, export, "--format", fmt)
        assert result.returncode == 0, result.stderr
        for plaintext in ("build-Passw0rd", "live-S3cret", "b3RoZXItdG9rZW4=", "other-token"):
            assert plaintext not in result.stdout + result.stderr
    shown = json.loads(cli(stack, export, "--format", "json").stdout)
    [conflict] = shown["conflicts"]
    assert conflict["manager"] == "kubectl-edit" and "[secret" in json.dumps(conflict)
