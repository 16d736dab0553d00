"""``diff`` as a pure stage: two stacks in, the changed objects out (issue #10)."""

from __future__ import annotations

import copy
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from support.builders.documents import (
    DROP,
    FRAMEWORK,
    NAMESPACE,
    edited,
    load,
    normal_server,
    stack_text,
    tars_server,
    template,
)

from tars_components.diff import (
    Action,
    Change,
    Diff,
    diff_objects,
    diff_stacks,
    field_changes,
    replace_reason,
    to_json,
    to_markdown,
    to_text,
)
from tars_components.loading.load import load_stack, load_texts
from tars_components.settings.options import Mode, Options

EXPAND = Options(namespace=NAMESPACE)
CRD = Options(namespace=NAMESPACE, mode=Mode.CRD)
IMAGE = "spec.template.spec.containers[name=test-demotest].image"


def claim_mount(name: str = "data", storage: str = "1Gi") -> dict[str, Any]:
    """A mount with a persistentVolumeClaimTemplate (a StatefulSet volumeClaimTemplate)."""
    return {
        "name": name,
        "mountPath": f"/{name}",
        "source": {
            "persistentVolumeClaimTemplate": {
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": storage}},
                }
            }
        },
    }


def changes(
    old: list[dict[str, Any]], new: list[dict[str, Any]], options: Options = EXPAND
) -> list[Change]:
    """The changes between two stacks of documents (plus the usual framework and templates)."""
    result = diff_stacks(load(*old), load(*new), options)
    assert result.diff is not None, [v.format() for v in result.violations if v.is_error]
    return list(result.diff.changes)


def actions(found: list[Change]) -> list[tuple[str, str, str]]:
    return [(c.action.value, c.kind, c.name) for c in found]


def paths(change: Change) -> list[str]:
    return [f.path for f in change.fields]


# --- actions ---------------------------------------------------------------------------------


def test_identical_stacks_have_no_changes() -> None:
    server = tars_server()
    result = diff_stacks(load(server), load(copy.deepcopy(server)), EXPAND)
    assert result.diff is not None and result.diff.changes == ()
    assert result.diff.to_json() == {
        "changes": [],
        "summary": {"create": 0, "update": 0, "replace": 0, "delete": 0},
    }


def test_one_changed_field_is_one_update_with_its_path_and_values() -> None:
    old = tars_server()
    new = edited(old, spec__release__image="reg.example.com/test.demotest:v2")
    [change] = changes([old], [new])
    assert (change.action, change.kind, change.name) == (
        Action.UPDATE,
        "StatefulSet",
        "test-demotest",
    )
    assert change.api_version == "apps/v1" and change.namespace == NAMESPACE
    assert [f.to_json() for f in change.fields] == [
        {
            "path": IMAGE,
            "old": "reg.example.com/test.demotest:v1",
            "new": "reg.example.com/test.demotest:v2",
        }
    ]
    assert change.reason is None and change.effects is None
    assert "effects" not in change.to_json()


def test_an_added_server_is_a_create_of_each_of_its_objects() -> None:
    found = changes([tars_server()], [tars_server(), normal_server()])
    assert actions(found) == [
        ("create", "Service", "web-portal"),
        ("create", "StatefulSet", "web-portal"),
    ]
    service = found[0]
    assert paths(service) == ["apiVersion", "kind", "metadata", "spec"]
    assert all(f.old is None for f in service.fields)
    assert service.fields[3].new["clusterIP"] == "None"
    assert service.reason is None


def test_a_cluster_scoped_object_is_named_without_a_namespace() -> None:
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "tars-reader"},
        "rules": [],
    }
    (change,) = changes([tars_server()], [tars_server(), role])
    assert (change.action, change.namespace, change.title) == (
        Action.CREATE,
        "",
        "ClusterRole tars-reader",
    )
    diff = Diff(changes=(change,))
    assert "create rbac.authorization.k8s.io/v1 ClusterRole tars-reader\n" in to_text(diff)
    assert "`tars-reader`" in to_markdown(diff) and "default/" not in to_markdown(diff)
    assert json.loads(to_json(diff))["changes"][0]["namespace"] is None


def test_a_removed_server_is_a_delete_with_the_old_values() -> None:
    found = changes([tars_server(), normal_server()], [tars_server()])
    assert actions(found) == [
        ("delete", "Service", "web-portal"),
        ("delete", "StatefulSet", "web-portal"),
    ]
    assert all(f.new is None for c in found for f in c.fields)
    assert found[1].fields[2].old["name"] == "web-portal"


def test_a_renamed_server_is_a_delete_plus_a_create() -> None:
    found = changes([tars_server(server="DemoTest")], [tars_server(server="DemoRenamed")])
    assert actions(found) == [
        ("create", "Service", "test-demorenamed"),
        ("create", "StatefulSet", "test-demorenamed"),
        ("delete", "Service", "test-demotest"),
        ("delete", "StatefulSet", "test-demotest"),
    ]


ACCEPT_OUTAGE = {"tars-components.io/accept-outage": "true"}


def acknowledged(server: dict[str, Any]) -> dict[str, Any]:
    """The server with the outage of a StatefulSet replacement acknowledged (TV001)."""
    return edited(server, metadata__annotations=ACCEPT_OUTAGE)


def test_a_changed_volume_claim_template_replaces_the_statefulset_and_keeps_its_claims() -> None:
    old = tars_server(replicas=3, mounts=[claim_mount()])
    mount = claim_mount()
    mount["source"]["persistentVolumeClaimTemplate"]["spec"]["accessModes"] = ["ReadWriteMany"]
    new = acknowledged(tars_server(replicas=3, mounts=[mount]))
    [change] = changes([old], [new])
    assert change.action is Action.REPLACE and change.kind == "StatefulSet"
    assert paths(change) == ["spec.volumeClaimTemplates[0].spec.accessModes[0]"]
    assert (change.fields[0].old, change.fields[0].new) == ("ReadWriteOnce", "ReadWriteMany")
    reason = change.reason or ""
    assert reason.startswith("spec.volumeClaimTemplates is immutable on a StatefulSet")
    assert "all 3 pods are deleted and recreated" in reason
    assert "claims of data are re-adopted" in reason
    assert "orphaned" not in reason


def test_a_renamed_volume_claim_template_orphans_the_old_claims() -> None:
    old = tars_server(mounts=[claim_mount("data")])
    new = acknowledged(tars_server(mounts=[claim_mount("store")]))
    replaced = [c for c in changes([old], [new]) if c.kind == "StatefulSet"]
    [change] = replaced
    assert change.action is Action.REPLACE
    assert "claims of data are orphaned" in (change.reason or "")
    assert "spec.volumeClaimTemplates[0].metadata.name" in paths(change)


def test_a_subtype_change_is_refused_by_the_change_rules() -> None:
    old = normal_server()
    new = edited(old, spec__subType="tars")
    new["spec"]["tars"] = new["spec"].pop("normal") | {"template": "tars.cpp", "servants": []}
    result = diff_stacks(load(old), load(new), EXPAND)
    assert result.diff is None and not result.ok
    codes = {v.code for v in result.violations if v.is_error}
    assert "TS001" in codes


def test_a_server_turned_daemonset_deletes_its_statefulset_and_service() -> None:
    old = tars_server()
    new = edited(old, spec__k8s__daemonSet=True)
    result = diff_stacks(load(old), load(new), EXPAND)
    assert result.diff is not None  # daemonSet is not immutable: a different kind of object
    assert actions(list(result.diff.changes)) == [
        ("create", "DaemonSet", "test-demotest"),
        ("delete", "Service", "test-demotest"),
        ("delete", "StatefulSet", "test-demotest"),
    ]


def test_release_time_is_never_a_change() -> None:
    old = edited(tars_server(), spec__release__time="2026-11-20T10:00:00Z")
    new = edited(old, spec__release__time="2026-11-21T11:30:00Z")
    assert changes([old], [new], CRD) == []
    assert changes([old], [new], EXPAND) == []
    assert changes([old], [edited(old, spec__release__time=DROP)], CRD) == []


def test_release_time_does_not_hide_a_real_release_change() -> None:
    old = edited(tars_server(), spec__release__time="2026-11-20T10:00:00Z")
    new = edited(old, spec__release__time="2026-11-21T11:30:00Z", spec__release__id="v2")
    [change] = changes([old], [new], CRD)
    assert "spec.release.id" in paths(change)
    assert not any("time" in p for p in paths(change))


def test_a_reordered_stack_has_no_changes() -> None:
    docs = [tars_server(), normal_server(), tars_server(server="Other")]
    assert changes(docs, list(reversed(docs))) == []
    assert changes(docs, list(reversed(docs)), CRD) == []


def test_changes_are_sorted_by_namespace_name_and_kind_whatever_the_input_order() -> None:
    old = [tars_server(server="Bravo"), tars_server(server="Alpha")]
    new = [edited(d, spec__release__id="v2") for d in old]
    assert [c.name for c in changes(old, new)] == ["test-alpha", "test-bravo"]
    assert [c.name for c in changes(list(reversed(old)), new)] == ["test-alpha", "test-bravo"]


def test_the_json_document_is_byte_identical_on_every_run() -> None:
    old = [tars_server(), normal_server()]
    new = [edited(tars_server(), spec__k8s__replicas=4), tars_server(server="Other")]
    first = to_json(diff_stacks(load(*old), load(*new), EXPAND).diff or Diff())
    second = to_json(diff_stacks(load(*old), load(*new), EXPAND).diff or Diff())
    assert first == second
    assert json.loads(first)["summary"] == {"create": 2, "update": 1, "replace": 0, "delete": 2}


# --- field paths -----------------------------------------------------------------------------


def test_an_inserted_environment_variable_is_one_change_addressed_by_name() -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    old = tars_server(env=env)
    new = tars_server(env=[{"name": "Z", "value": "0"}, *env])
    [change] = changes([old], [new])
    container = "spec.template.spec.containers[name=test-demotest]"
    assert [f.to_json() for f in change.fields] == [
        {"path": f"{container}.env[name=Z]", "old": None, "new": {"name": "Z", "value": "0"}}
    ]


def test_moved_named_items_report_their_order() -> None:
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    [change] = changes([tars_server(env=env)], [tars_server(env=env[::-1])])
    [field] = change.fields
    assert field.path == "spec.template.spec.containers[name=test-demotest].env"
    assert (field.old, field.new) == (["A", "B"], ["B", "A"])


def test_ports_volumes_and_mounts_are_addressed_by_name() -> None:
    old = normal_server()
    new = edited(old, spec__normal__ports=[{"name": "http", "port": 8081}])
    found = changes([old], [new])
    service, statefulset = found
    assert paths(service) == ["spec.ports[name=http].port", "spec.ports[name=http].targetPort"]
    assert "spec.template.spec.containers[name=web-portal].ports[name=http].containerPort" in paths(
        statefulset
    )
    mount = claim_mount("cache")
    mount["source"] = {"emptyDir": {}}
    moved = dict(mount, mountPath="/other")
    [change] = changes([normal_server(mounts=[mount])], [normal_server(mounts=[moved])])
    assert paths(change) == [
        "spec.template.spec.containers[name=web-portal].volumeMounts[name=cache].mountPath"
    ]


def test_other_lists_are_addressed_by_index() -> None:
    old = {"spec": {"args": ["--a", "--b"], "containers": [{"name": "x", "args": ["1"]}]}}
    new = {"spec": {"args": ["--a", "--c", "--d"], "containers": [{"name": "x", "args": ["2"]}]}}
    assert [f.to_json() for f in field_changes(old, new)] == [
        {"path": "spec.args[1]", "old": "--b", "new": "--c"},
        {"path": "spec.args[2]", "old": None, "new": "--d"},
        {"path": "spec.containers[name=x].args[0]", "old": "1", "new": "2"},
    ]


def test_named_lists_with_duplicate_or_missing_names_fall_back_to_indexes() -> None:
    old = {"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]}
    new = {"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "3"}]}
    assert [f.path for f in field_changes(old, new)] == ["env[1].value"]


def test_keys_that_are_not_identifiers_are_quoted_and_removed_keys_reported() -> None:
    old = {"metadata": {"annotations": {"tars.io/MinReplicas": "1", "gone": "x"}}}
    new = {"metadata": {"annotations": {"tars.io/MinReplicas": "2"}}}
    assert [f.to_json() for f in field_changes(old, new)] == [
        {"path": 'metadata.annotations["tars.io/MinReplicas"]', "old": "1", "new": "2"},
        {"path": "metadata.annotations.gone", "old": "x", "new": None},
    ]


def test_a_changed_type_is_a_change() -> None:
    assert [f.path for f in field_changes({"a": 1, "b": 0}, {"a": True, "b": 1})] == ["a", "b"]
    assert [f.path for f in field_changes({"a": "1"}, {"a": 1})] == ["a"]


# --- replace rules ---------------------------------------------------------------------------


def _obj(api_version: str, kind: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "namespace": "ns"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    ("kind", "field", "old", "new"),
    [
        ("StatefulSet", "selector", {"matchLabels": {"a": "1"}}, {"matchLabels": {"a": "2"}}),
        ("StatefulSet", "serviceName", "x", "y"),
        ("StatefulSet", "podManagementPolicy", "OrderedReady", "Parallel"),
        ("StatefulSet", "volumeClaimTemplates", [], [{"metadata": {"name": "d"}}]),
        ("DaemonSet", "selector", {"matchLabels": {"a": "1"}}, {"matchLabels": {"a": "2"}}),
    ],
)
def test_immutable_workload_fields_force_a_replace(
    kind: str, field: str, old: Any, new: Any
) -> None:
    [change] = diff_objects(
        [_obj("apps/v1", kind, **{field: old})], [_obj("apps/v1", kind, **{field: new})]
    )
    assert change.action is Action.REPLACE
    assert (change.reason or "").startswith(f"spec.{field} is immutable on a {kind}")


def test_mutable_workload_fields_are_an_update() -> None:
    for field, old, new in (("replicas", 1, 2), ("minReadySeconds", 0, 3)):
        [change] = diff_objects(
            [_obj("apps/v1", "StatefulSet", **{field: old})],
            [_obj("apps/v1", "StatefulSet", **{field: new})],
        )
        assert change.action is Action.UPDATE and change.reason is None


def test_daemonset_replace_restarts_every_node_pod() -> None:
    old = _obj("apps/v1", "DaemonSet", selector={"matchLabels": {"a": "1"}})
    new = _obj("apps/v1", "DaemonSet", selector={"matchLabels": {"a": "2"}})
    reason = replace_reason(old, new, field_changes(old, new)) or ""
    assert "pod on every node is deleted and recreated" in reason


def test_statefulset_claims_deleted_with_it_under_a_delete_retention_policy() -> None:
    policy = {"whenDeleted": "Delete", "whenScaled": "Retain"}
    old = _obj(
        "apps/v1",
        "StatefulSet",
        replicas=2,
        serviceName="a",
        persistentVolumeClaimRetentionPolicy=policy,
        volumeClaimTemplates=[{"metadata": {"name": "data"}}],
    )
    new = edited(old, spec__serviceName="b")
    reason = replace_reason(old, new, field_changes(old, new)) or ""
    assert "all 2 pods are deleted and recreated" in reason
    assert "(data) are DELETED" in reason


@pytest.mark.parametrize(
    ("old", "new", "action"),
    [
        ({"clusterIP": "None"}, {"clusterIP": "10.0.0.10"}, Action.REPLACE),
        ({"clusterIP": "10.0.0.10"}, {"clusterIP": "None"}, Action.REPLACE),
        (
            {"type": "ClusterIP"},
            {"type": "ExternalName", "externalName": "a.example"},
            Action.REPLACE,
        ),
        (
            {"type": "ExternalName", "externalName": "a.example"},
            {"type": "ClusterIP"},
            Action.REPLACE,
        ),
        ({"type": "ClusterIP"}, {"type": "NodePort"}, Action.UPDATE),
        (
            {"clusterIP": "None", "sessionAffinity": "None"},
            {"clusterIP": "None", "sessionAffinity": "ClientIP"},
            Action.UPDATE,
        ),
    ],
)
def test_service_cluster_ip_and_external_name_changes_force_a_replace(
    old: dict[str, Any], new: dict[str, Any], action: Action
) -> None:
    [change] = diff_objects([_obj("v1", "Service", **old)], [_obj("v1", "Service", **new)])
    assert change.action is action
    assert (change.reason is None) == (action is Action.UPDATE)


def test_identity_is_the_group_not_the_version() -> None:
    old = _obj("k8s.tars.io/v1beta2", "TServer", app="A")
    new = _obj("k8s.tars.io/v1beta3", "TServer", app="A")
    [change] = diff_objects([old], [new])
    assert change.action is Action.UPDATE
    assert [f.to_json() for f in change.fields] == [
        {"path": "apiVersion", "old": "k8s.tars.io/v1beta2", "new": "k8s.tars.io/v1beta3"}
    ]
    other_group = _obj("other.example/v1beta3", "TServer", app="A")
    assert {c.action for c in diff_objects([old], [other_group])} == {
        Action.CREATE,
        Action.DELETE,
    }


# --- crd mode --------------------------------------------------------------------------------


def test_crd_mode_diffs_the_custom_resources_with_their_expanded_effects() -> None:
    old = tars_server()
    new = edited(old, spec__release__image="reg.example.com/test.demotest:v2")
    [change] = changes([old], [new], CRD)
    assert (change.action, change.kind, change.api_version) == (
        Action.UPDATE,
        "TServer",
        "k8s.tars.io/v1beta3",
    )
    assert paths(change) == ["spec.release.image"]
    assert change.effects is not None
    [effect] = change.effects
    assert (effect.action, effect.kind, effect.name) == (
        Action.UPDATE,
        "StatefulSet",
        "test-demotest",
    )
    assert paths(effect) == [IMAGE]
    document = change.to_json()
    assert document["effects"][0]["fields"][0]["path"] == IMAGE
    assert "effects" not in document["effects"][0]


def test_crd_mode_effects_of_a_new_and_a_removed_server() -> None:
    found = changes([tars_server()], [normal_server()], CRD)
    assert actions(found) == [
        ("delete", "TServer", "test-demotest"),
        ("create", "TServer", "web-portal"),
    ]
    removed, added = found
    assert [(e.action.value, e.kind) for e in removed.effects or ()] == [
        ("delete", "Service"),
        ("delete", "StatefulSet"),
    ]
    assert [(e.action.value, e.kind) for e in added.effects or ()] == [
        ("create", "Service"),
        ("create", "StatefulSet"),
    ]


def changed_access(mount: dict[str, Any]) -> dict[str, Any]:
    """The claim mount with another access mode: a claim-template change that is no growth."""
    template = mount["source"]["persistentVolumeClaimTemplate"]
    template["spec"]["accessModes"] = ["ReadWriteMany"]
    return mount


def test_crd_mode_volume_claim_template_change_shows_the_replace_in_effects() -> None:
    old = acknowledged(tars_server(mounts=[claim_mount()]))
    new = acknowledged(tars_server(mounts=[changed_access(claim_mount())]))
    [change] = changes([old], [new], CRD)
    assert change.action is Action.UPDATE and change.reason is None
    [effect] = change.effects or ()
    assert effect.action is Action.REPLACE
    assert "volumeClaimTemplates" in (effect.reason or "")


def test_crd_mode_framework_change_lists_its_effect_on_every_server() -> None:
    old_stack = load(tars_server(), tars_server(server="Other"))
    framework = edited(FRAMEWORK, nodeImage__image="reg.example.com/tars.tarsnode:v2")
    docs = [framework, tars_server(), tars_server(server="Other")]
    text = stack_text(*docs, template("tars.default"), template("tars.cpp", "tars.default"))
    new_stack = load_texts({"stack.yaml": text}, NAMESPACE)
    result = diff_stacks(old_stack, new_stack, CRD)
    assert result.diff is not None
    framework_change, *servers = result.diff.changes
    assert framework_change.kind == "TFrameworkConfig" and framework_change.effects == ()
    # the webhook copies the node image into every TServer, so each one changes, with its pods
    assert [(c.kind, c.name) for c in servers] == [
        ("TServer", "test-demotest"),
        ("TServer", "test-other"),
    ]
    for change in servers:
        assert paths(change) == ["spec.release.nodeImage"]
        [effect] = change.effects or ()
        assert paths(effect) == ["spec.template.spec.initContainers[name=tarsnode].image"]


def test_expand_mode_changes_carry_no_effects_key() -> None:
    old = tars_server()
    found = changes([old], [edited(old, spec__k8s__replicas=2)])
    assert found and all("effects" not in c.to_json() for c in found)


def test_a_thousand_server_stack_with_one_change_lists_one_object(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from diff_scale import CHANGED_SERVER, change_one_server
    from render_scale import NAMESPACE as BENCH_NAMESPACE
    from render_scale import generate_stack

    generate_stack(tmp_path / "old", 1000)
    shutil.copytree(tmp_path / "old", tmp_path / "new")
    change_one_server(tmp_path / "new")
    old, new = load_stack(tmp_path / "old"), load_stack(tmp_path / "new")
    name = f"bench{CHANGED_SERVER // 100}-srv{CHANGED_SERVER}"
    for options in (
        Options(namespace=BENCH_NAMESPACE),
        Options(namespace=BENCH_NAMESPACE, mode=Mode.CRD),
    ):
        result = diff_stacks(old, new, options)
        assert result.diff is not None
        [change] = result.diff.changes
        assert change.name == name and change.action is Action.UPDATE
        assert [f.path.endswith("image") for f in change.fields] == [True]


def test_revision_history_limit_replaces_a_statefulset_as_pulumi_does() -> None:
    old = _obj("apps/v1", "StatefulSet", revisionHistoryLimit=1)
    new = _obj("apps/v1", "StatefulSet", revisionHistoryLimit=3)
    [change] = diff_objects([old], [new])
    assert change.action is Action.REPLACE
    assert (change.reason or "").startswith(
        "pulumi-kubernetes replaces a StatefulSet when spec.revisionHistoryLimit changes"
    )


def test_external_replicas_hides_replica_changes_that_pulumi_ignores() -> None:
    old = [tars_server(), normal_server()]
    new = [
        edited(tars_server(), spec__k8s__replicas=5),
        edited(normal_server(), spec__k8s__replicas=3, spec__release__id="v2"),
    ]
    for options in (EXPAND, CRD):
        shown = diff_stacks(load(*old), load(*new), options).diff
        hidden = diff_stacks(load(*old), load(*new), options, external_replicas=True).diff
        assert shown is not None and hidden is not None
        assert [c.name for c in shown.changes] == ["test-demotest", "web-portal"]
        # only web-portal's release change is left; its replica count is still not a change
        [change] = hidden.changes
        assert change.name == "web-portal"
        assert not any(f.path.endswith("replicas") for f in change.fields)
        for effect in change.effects or ():
            assert not any(f.path.endswith("replicas") for f in effect.fields)
    # a new server still gets its replica count
    created = diff_stacks(load(), load(tars_server()), EXPAND, external_replicas=True).diff
    assert created is not None
    statefulset = next(c for c in created.changes if c.kind == "StatefulSet")
    assert statefulset.action is Action.CREATE and statefulset.fields[3].new["replicas"] == 1


def test_multi_line_strings_are_shown_as_a_line_diff() -> None:
    old = "<tars>\n  a = 1\n  b = 2\n  c = 3\n  d = 4\n  e = 5\n</tars>\n"
    new = old.replace("b = 2", "b = 20")
    diff = Diff(
        changes=tuple(
            diff_objects([_obj("v1", "ConfigMap", x=old)], [_obj("v1", "ConfigMap", x=new)])
        )
    )
    assert to_text(diff).splitlines()[1:8] == [
        "  @@ spec.x",
        "    <tars>",
        "      a = 1",
        "  -   b = 2",
        "  +   b = 20",
        "      c = 3",
        "      d = 4",
    ]
    assert json.loads(to_json(diff))["changes"][0]["fields"][0]["new"] == new
    markdown = to_markdown(diff)
    assert "\n-   b = 2\n+   b = 20\n" in markdown and "\n    c = 3\n" in markdown


def test_markdown_never_exceeds_its_limit_and_flags_controller_replaces() -> None:
    old = [acknowledged(tars_server(server=f"S{i}", mounts=[claim_mount()])) for i in range(12)]
    new = [
        acknowledged(tars_server(server=f"S{i}", mounts=[changed_access(claim_mount())]))
        for i in range(12)
    ]
    crd = diff_stacks(load(*old), load(*new), CRD).diff
    assert crd is not None
    full = to_markdown(crd)
    assert (
        "| update (controller **replaces** StatefulSet) | TServer | `tars-dev/test-s0` | 1 |"
        in full
    )
    for limit in range(1000, len(full) + 500, 97):
        text = to_markdown(crd, limit)
        assert len(text) <= limit
        assert ("> **Truncated:**" in text) == (limit < len(full))
        assert text.count("<details>") == text.count("</details>")
        assert text.count("```") % 2 == 0


# --- secrets never reach a diff ----------------------------------------------------------------


def _account(password: str) -> dict[str, Any]:
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TAccount",
        "metadata": {"name": "21232f297a57a5a743894a0e4a801fc3", "namespace": NAMESPACE},
        "spec": {
            "username": "admin",
            "authentication": {"password": password},
            "authorization": [{"role": "admin", "flag": "*"}],
        },
    }


def _secret(value: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": NAMESPACE},
        "stringData": {"password": value, "user": "app"},
    }


def test_a_changed_password_is_a_change_that_shows_no_secret() -> None:
    before = load_texts({"s.yaml": stack_text(_account("OldPass111"), _secret("s3cr3t-old"))})
    after = load_texts({"s.yaml": stack_text(_account("NewPass222"), _secret("s3cr3t-new"))})
    result = diff_stacks(before, after, CRD)
    assert result.diff is not None
    changed = {(c.kind, f.path): (f.old, f.new) for c in result.diff.changes for f in c.fields}
    assert changed == {
        ("TAccount", "spec.authentication.bcryptPassword"): ("[secret: before]", "[secret: after]"),
        ("Secret", "stringData.password"): ("[secret: before]", "[secret: after]"),
    }
    for text in (to_json(result.diff), to_markdown(result.diff, 65536), to_text(result.diff)):
        for plain in ("OldPass111", "NewPass222", "s3cr3t", "$2a$"):
            assert plain not in text


def test_created_secrets_are_masked_and_unchanged_ones_are_no_change() -> None:
    empty = load_texts({"s.yaml": stack_text(template("tars.default"))})
    created = load_texts({"s.yaml": stack_text(template("tars.default"), _secret("hunter22"))})
    result = diff_stacks(empty, created, EXPAND)
    assert result.diff is not None
    assert "hunter22" not in to_json(result.diff)
    assert '"[secret]"' in to_json(result.diff)
    same = diff_stacks(created, created, EXPAND)
    assert same.diff is not None and same.diff.changes == ()
