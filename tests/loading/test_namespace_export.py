"""Loading a live namespace export: lists, live-cluster fields, controller kinds, plain
objects; both output modes; crd output valid against the TarsK8S CRD schemas; no secret in
any output."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from support.assertions.crd_schema import crd_errors
from support.builders.export import (
    BCRYPT_HASHES,
    NAMESPACE,
    PASSWORDS,
    export_text,
    namespace_export,
)

from tars_components.fileio.yaml_writer import dump
from tars_components.jobs.render import render_files
from tars_components.loading.load import load_texts
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options

V1BETA2, V1BETA3 = "k8s.tars.io/v1beta2", "k8s.tars.io/v1beta3"
SERVER_FIELDS = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields")


def _stack(text: str | None = None):  # type: ignore[no-untyped-def]
    return load_texts({"export.yaml": text or export_text()}, NAMESPACE)


def _identity(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def test_an_export_loads_and_validates_clean_with_a_note() -> None:
    stack = _stack()
    result = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD))
    assert result.ok
    errors = [v for v in result.violations if v.is_error]
    assert errors == []
    # the exported hashes are literal credentials (TA005): `import` moves them to secrets
    assert {v.code for v in result.warnings} == {"TS015", "TX002", "TA005"}
    (note,) = stack.notes
    assert "status" in note and "managedFields" in note and "in 68 object(s)" in note


def test_controller_kinds_are_skipped_with_a_warning_at_their_line() -> None:
    text = export_text()
    stack = _stack(text)
    (skipped,) = [v for v in stack.violations if v.code == "TX002"]
    assert (skipped.kind, skipped.name, skipped.is_error) == ("TEndpoint", "tars-tarsconfig", False)
    line = text.splitlines()[skipped.line - 1]  # type: ignore[operator]
    assert line.strip() == "- apiVersion: k8s.tars.io/v1beta3" or "kind: TEndpoint" in line


@pytest.mark.parametrize("version", [V1BETA3, V1BETA2])
def test_crd_mode_emits_every_object_valid_against_its_crd(version: str) -> None:
    export = namespace_export()
    if version == V1BETA2:  # v1.4.1 cannot store a v1beta2 TFrameworkConfig (TF005)
        export["items"] = [o for o in export["items"] if o["kind"] != "TFrameworkConfig"]
    options = Options(
        namespace=NAMESPACE,
        mode=Mode.CRD,
        crd_api_version=version,
        existing_framework_config=version == V1BETA2,
    )
    result = build(_stack(yaml.safe_dump(export, sort_keys=False, allow_unicode=True)), options)
    wanted = {_identity(o) for o in export["items"] if o["kind"] != "TEndpoint"}
    assert {_identity(o) for o in result.objects} == wanted
    assert len(result.objects) == len(wanted)
    for obj in result.objects:
        if obj["apiVersion"].startswith("k8s.tars.io/"):
            assert obj["apiVersion"] == version
            assert crd_errors(obj) == [], _identity(obj)


def test_the_crd_validator_refuses_what_the_api_server_would() -> None:
    result = build(_stack(), Options(namespace=NAMESPACE, mode=Mode.CRD))
    config = next(o for o in result.objects if o["kind"] == "TConfig")
    assert crd_errors({**config, "podSeq": "x"})
    assert crd_errors({**config, "surprise": 1})
    tree = next(o for o in result.objects if o["kind"] == "TTree")
    assert crd_errors({**tree, "businesses": [{"name": "a", "show": "A", "weight": 3}]})


def test_server_written_fields_are_gone_from_every_output() -> None:
    for mode in (Mode.CRD, Mode.EXPAND):
        result = build(_stack(), Options(namespace=NAMESPACE, mode=mode))
        for obj in result.objects:
            assert "status" not in obj
            meta = obj["metadata"]
            assert not set(SERVER_FIELDS) & set(meta), _identity(obj)
            assert "kubectl.kubernetes.io/last-applied-configuration" not in (
                meta.get("annotations") or {}
            )


@pytest.mark.parametrize("mode", [Mode.CRD, Mode.EXPAND])
def test_plain_objects_pass_through_unchanged_in_both_modes(mode: Mode) -> None:
    export = namespace_export()
    plain = [o for o in export["items"] if not o["apiVersion"].startswith("k8s.tars.io/")]
    result = build(_stack(), Options(namespace=NAMESPACE, mode=mode))
    out = {_identity(o): o for o in result.objects}
    for original in plain:
        expected = copy.deepcopy(original)
        expected.pop("status", None)
        for key in (*SERVER_FIELDS, "selfLink"):
            expected["metadata"].pop(key)
        annotations = expected["metadata"]["annotations"]
        del annotations["kubectl.kubernetes.io/last-applied-configuration"]
        if not annotations:
            del expected["metadata"]["annotations"]
        assert out[_identity(original)] == expected
    cluster_role = out[("ClusterRole", "tars:tars-tarsweb")]
    assert "namespace" not in cluster_role["metadata"]  # cluster-scoped: no namespace added


def test_expand_mode_skips_the_new_kinds_with_one_warning_per_kind() -> None:
    result = build(_stack(), Options(namespace=NAMESPACE))
    kinds = {o["kind"] for o in result.objects}
    assert not kinds & {"TConfig", "TImage", "TTree", "TAccount"}
    skipped = [v for v in result.violations if v.code == "TX001"]
    assert sorted(v.kind for v in skipped) == ["TAccount", "TConfig", "TImage", "TTree"]


def test_tconfig_config_maps_are_off_by_default_and_per_server_when_asked() -> None:
    stack = _stack()
    assert "ConfigMap" not in build(stack, Options(namespace=NAMESPACE)).kinds()
    result = build(stack, Options(namespace=NAMESPACE, tconfig_config_maps=True))
    maps = {o["metadata"]["name"]: o for o in result.objects if o["kind"] == "ConfigMap"}
    assert sorted(maps) == [
        "shop0-order0server-tconfig",
        "shop0-order1server-tconfig",
        "shop0-order2server-tconfig",
    ]
    data = maps["shop0-order1server-tconfig"]["data"]
    # the activated master, the node-level config, and the app-level config of app Shop0
    assert sorted(data) == ["app.conf", "extra.conf", "pod-0.server.conf", "server.conf"]
    assert "version=20240302100000-a1b2" in data["server.conf"]  # the activated version


def test_no_plaintext_credential_appears_in_any_output() -> None:
    # The export holds bcrypt hashes (what the cluster stores) and TarsWeb login tokens; the
    # hashes are passed through as exported, the tokens are reset (M-TA2) and the plaintext
    # passwords behind the hashes can appear nowhere.
    stack = _stack()
    for mode in (Mode.CRD, Mode.EXPAND):
        result = build(stack, Options(namespace=NAMESPACE, mode=mode))
        text = "".join(render_files(result.objects).values())
        text += "".join(v.format() for v in result.violations)
        for secret in [*PASSWORDS.values(), "do-not-leak"]:
            assert secret not in text
    crd = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD)).objects
    accounts = [o["spec"]["authentication"] for o in crd if o["kind"] == "TAccount"]
    assert [a["tokens"] for a in accounts] == [[], []]
    assert [a["bcryptPassword"] for a in accounts] == list(BCRYPT_HASHES.values())


def test_typed_lists_load_and_their_items_get_the_list_kind() -> None:
    export = namespace_export()
    servers = [o for o in export["items"] if o["kind"] == "TServer"]
    templates = [o for o in export["items"] if o["kind"] in ("TTemplate", "TFrameworkConfig")]
    for server in servers:
        del server["apiVersion"], server["kind"]  # the raw API omits them in a typed list
    text = dump({"apiVersion": V1BETA3, "kind": "TServerList", "items": servers})
    text += "---\n" + dump({"apiVersion": "v1", "kind": "List", "items": templates})
    stack = load_texts({"servers.yaml": text}, NAMESPACE)
    assert len(stack.servers) == len(servers) and len(stack.templates) == 6
    assert not [v for v in stack.violations if v.is_error]


def test_a_violation_in_a_list_item_points_at_its_line() -> None:
    export = namespace_export()
    config = next(o for o in export["items"] if o["kind"] == "TConfig")
    config["podSeq"] = "x"
    text = yaml.safe_dump(export, sort_keys=False, allow_unicode=True)
    (found,) = [v for v in _stack(text).violations if v.code == "TC011"]
    assert found.field == "podSeq"
    assert text.splitlines()[found.line - 1].strip() == "podSeq: x"  # type: ignore[operator]


def test_objects_owned_by_a_controller_are_skipped() -> None:
    owned = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {
            "name": "tars-tarsweb",
            "namespace": NAMESPACE,
            "ownerReferences": [
                {
                    "apiVersion": V1BETA3,
                    "kind": "TServer",
                    "name": "tars-tarsweb",
                    "uid": "u",
                    "controller": True,
                }
            ],
        },
        "spec": {},
    }
    stack = load_texts({"s.yaml": dump(owned)}, NAMESPACE)
    assert stack.objects == ()
    (warning,) = stack.violations
    assert warning.code == "TX002" and "TServer/tars-tarsweb" in warning.message


def test_a_plain_object_that_the_expansion_also_creates_is_refused() -> None:
    export = namespace_export()
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "tars-tarsweb", "namespace": NAMESPACE},
        "spec": {"ports": [{"port": 3000}]},
    }
    export["items"].append(service)
    stack = _stack(yaml.safe_dump(export, sort_keys=False, allow_unicode=True))
    result = build(stack, Options(namespace=NAMESPACE))
    assert not result.ok and result.objects == []
    assert [v.code for v in result.violations if v.is_error] == ["TX003"]
    assert build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD)).ok  # no Service in crd mode


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [("v1", "Service"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet")],
)
def test_crd_mode_refuses_plain_workloads_the_webhook_keeps_for_the_controller(
    api_version: str, kind: str
) -> None:
    """v1.4.1's validating.k8s.tars.io-0 refuses the CREATE of a Service, StatefulSet or
    DaemonSet labelled with both server labels from anyone but the controller."""
    labels = {"tars.io/ServerApp": "Old", "tars.io/ServerName": "Server"}
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "old-server"}}
    stack = load_texts(
        {"old.yaml": dump({**obj, "metadata": {**obj["metadata"], "labels": labels}})}, NAMESPACE
    )
    result = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD))
    assert [(v.code, v.field, v.is_error) for v in result.violations] == [
        ("TX005", "metadata.labels", True)
    ]
    assert "only use authorized account can create " + kind.lower() in result.violations[0].message
    assert result.objects == []
    assert build(stack, Options(namespace=NAMESPACE)).ok  # expand mode: a plain object
    one_label = {"tars.io/ServerApp": "Old"}
    stack = load_texts(
        {"old.yaml": dump({**obj, "metadata": {**obj["metadata"], "labels": one_label}})}, NAMESPACE
    )
    assert build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD)).ok


def test_two_plain_objects_with_one_name_are_refused() -> None:
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "x"}}
    stack = load_texts({"a.yaml": dump(sa), "b.yaml": dump(sa)}, NAMESPACE)
    result = build(stack, Options(namespace=NAMESPACE))
    assert [(v.code, v.file) for v in result.violations] == [("TX003", "b.yaml")]


def test_crd_output_is_byte_identical_from_run_to_run() -> None:
    options = Options(namespace=NAMESPACE, mode=Mode.CRD)
    first = render_files(build(_stack(), options).objects)
    assert render_files(build(_stack(), options).objects) == first


def test_parse_document_refuses_objects_without_a_model() -> None:
    from tars_components.kernel.errors import LoadError
    from tars_components.loading.documents import parse_document

    with pytest.raises(LoadError, match="ConfigMap"):
        parse_document({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    with pytest.raises(LoadError, match="TEndpoint"):
        parse_document({"apiVersion": V1BETA3, "kind": "TEndpoint", "metadata": {"name": "x"}})


def test_configs_and_images_of_servers_missing_from_the_export_only_warn() -> None:
    export = namespace_export()
    export["items"] = [
        o
        for o in export["items"]
        if not (o["kind"] == "TServer" and "shop" in o["metadata"]["name"])
    ]
    stack = _stack(yaml.safe_dump(export, sort_keys=False, allow_unicode=True))
    for mode in (Mode.CRD, Mode.EXPAND):
        result = build(stack, Options(namespace=NAMESPACE, mode=mode))
        assert result.ok, [v.format() for v in result.violations if v.is_error]
    codes = {v.code for v in build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD)).warnings}
    assert "TC012" in codes
