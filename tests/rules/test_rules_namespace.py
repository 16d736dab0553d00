"""Rules of TConfig (TC*), TImage (TI*), TTree (TR*) and TAccount (TA*): one stack, the
schema codes, the change rules and the create-only rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.builders.namespace_documents import Doc, account, config, image, tree
from support.builders.rules import (
    NS,
    assert_one,
    base_docs,
    check,
    framework,
    line_of,
    load,
    only,
    render,
    tars_server,
)
from support.engines.cli import run

from tars_components.kernel.errors import Severity
from tars_components.loading.load import load_texts
from tars_components.pipeline import check as check_output
from tars_components.rules import validate, validate_change, without_create_only
from tars_components.settings.options import Mode, Options

WARNING = Severity.WARNING
BCRYPT = "$2a$06$" + "a" * 53


def test_a_valid_namespace_has_no_violation() -> None:
    _, violations = check(
        tars_server(),
        config(),
        config("server-conf-v1-0", pod_seq="0"),
        config("server-conf-v0", activated=False),
        config("app-conf", server=""),
        image(),
        tree(),
        account(),
        account("ops", bcryptPassword={"configSecret": "opsHash"}),
    )
    assert violations == []


# --- TConfig ---------------------------------------------------------------------------------


def test_tc002_a_node_level_config_needs_an_activated_master() -> None:
    text, violations = check(tars_server(), config("node", pod_seq="3"))
    assert_one(violations, "TC002", "podSeq", line_of(text, "podSeq: '3'"))
    _, violations = check(tars_server(), config(activated=False), config("node", pod_seq="3"))
    assert len(only(violations, "TC002")) == 1
    _, violations = check(tars_server(), config(), config("node", pod_seq="3"))
    assert only(violations, "TC002") == []


def test_tc005_controller_labels_cannot_be_set_on_create() -> None:
    doc = config()
    doc["metadata"]["labels"] = {"tars.io/Deleting": "Deleting"}
    text, violations = check(tars_server(), doc)
    assert_one(
        violations, "TC005", 'metadata.labels["tars.io/Deleting"]', line_of(text, "Deleting")
    )


def test_tc006_an_app_level_config_is_a_master() -> None:
    text, violations = check(config("app", server="", pod_seq="1"), config("m", server=""))
    assert_one(violations, "TC006", "podSeq", line_of(text, "podSeq: '1'"))


def test_tc010_one_activated_version_per_file() -> None:
    text, violations = check(
        tars_server(), config("v1"), config("v2"), config("v3", activated=False)
    )
    v = assert_one(violations, "TC010", "activated", line_of(text, "activated: true", 2))
    assert v.name == "v2" and "v1" in v.message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"podSeq": "x"}, "podSeq"),
        ({"configName": "bad name"}, "configName"),
        ({"configContent": None}, "configContent"),
        ({"version": "UPPER"}, "version"),
        ({"activated": "yes"}, "activated"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_tc011_the_crd_schema(change: Doc, field: str) -> None:
    doc = {**config(), **change}
    if change.get("configContent", 0) is None:
        del doc["configContent"]
    _, violations = check(tars_server(), doc)
    assert [(v.code, v.field) for v in violations] == [("TC011", field)]


def test_tc012_a_server_config_names_a_tserver_of_the_stack() -> None:
    text, violations = check(config(server="Missing"), config("app", server=""))
    v = assert_one(violations, "TC012", "server", line_of(text, "server: Missing"), WARNING)
    assert "Missing" in v.message
    _, violations = check(tars_server(), config())
    assert only(violations, "TC012") == []


def test_tc013_one_tconfig_per_name() -> None:
    text, violations = check(tars_server(), config(), config(activated=False))
    assert_one(violations, "TC013", "metadata.name", line_of(text, "name: server-conf-v1", 2))


# --- TImage ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"imageType": "other"}, "imageType"),
        ({"supportedType": ["rust"]}, "supportedType[0]"),
        ({"supportedType": []}, "supportedType"),
        ({"releases": [{"id": "-bad", "image": "x"}]}, "releases[0].id"),
        ({"releases": [{"id": "v1"}]}, "releases[0].image"),
        ({"releases": [{"id": f"v{i}", "image": "x"} for i in range(121)]}, "releases"),
    ],
)
def test_ti001_the_crd_schema(change: Doc, field: str) -> None:
    _, violations = check(tars_server(), {**image(), **change})
    assert [(v.code, v.field) for v in violations] == [("TI001", field)]


def test_ti002_duplicate_release_ids_warn() -> None:
    releases = [{"id": "v1", "image": "a"}, {"id": "v2", "image": "b"}, {"id": "v1", "image": "c"}]
    text, violations = check(image(releases=releases))
    assert_one(violations, "TI002", "releases[2].id", line_of(text, "- id: v1", 2), WARNING)


def test_ti003_a_server_release_agrees_with_its_timage() -> None:
    releases = [{"id": "v1", "image": "reg.example.com/test.demotest:other"}]
    text, violations = check(tars_server(), image(releases=releases))
    v = assert_one(
        violations,
        "TI003",
        "spec.release.image",
        line_of(text, "image: reg.example.com/test.demotest:v1"),
        WARNING,
    )
    assert v.kind == "TServer" and "test.demotest:other" in v.message
    _, violations = check(tars_server(), image())
    assert only(violations, "TI003") == []


def test_ti004_one_timage_per_name() -> None:
    text, violations = check(image(), image())
    assert_one(violations, "TI004", "metadata.name", line_of(text, "name: test-demotest", 2))


# --- TTree -----------------------------------------------------------------------------------


def test_tr001_the_tree_is_named_tars_tree() -> None:
    text, violations = check(tree("my-tree"))
    assert_one(violations, "TR001", "metadata.name", line_of(text, "name: my-tree"))


def test_tr002_one_tars_tree() -> None:
    text, violations = check(tree(), tree())
    assert_one(violations, "TR002", "metadata.name", line_of(text, "name: tars-tree", 2))


def test_tr003_tr004_duplicate_businesses_and_apps() -> None:
    doc = tree(apps=[{"name": "Test", "businessRef": ""}, {"name": "Test", "businessRef": ""}])
    doc["businesses"] *= 2
    _, violations = check(doc)
    assert [(v.code, v.field) for v in violations] == [
        ("TR003", "businesses[1].name"),
        ("TR004", "apps[1].name"),
    ]


def test_tr005_a_dangling_business_ref_warns() -> None:
    text, violations = check(tree(apps=[{"name": "Test", "businessRef": "Gone"}]))
    assert_one(violations, "TR005", "apps[0].businessRef", line_of(text, "Gone"), WARNING)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"businesses": [{"name": "Shop", "show": "Shop", "weight": 6}]}, "businesses[0].weight"),
        ({"businesses": [{"name": "S", "show": "Shop"}]}, "businesses[0].name"),
        ({"apps": [{"name": "Test"}]}, "apps[0].businessRef"),
        ({"apps": None}, "apps"),
    ],
)
def test_tr008_the_crd_schema(change: Doc, field: str) -> None:
    doc = {**tree(), **change}
    if change.get("apps", 0) is None:
        del doc["apps"]
    _, violations = check(doc)
    assert [(v.code, v.field) for v in violations] == [("TR008", field)]


def test_tr009_a_server_app_missing_from_the_tree_warns() -> None:
    text, violations = check(tars_server(), tars_server(server="Other"), tree(apps=[]))
    v = assert_one(violations, "TR009", "spec.app", line_of(text, "app: Test"), WARNING)
    assert v.kind == "TServer"


# --- TAccount --------------------------------------------------------------------------------


def test_ta001_the_name_is_the_md5_of_the_username() -> None:
    text, violations = check(account(name="admin"))
    v = assert_one(violations, "TA001", "metadata.name", line_of(text, "name: admin"))
    assert "21232f297a57a5a743894a0e4a801fc3" in v.message


def test_ta002_a_password_outside_the_pattern_is_refused_without_showing_it() -> None:
    text, violations = check(account(password="sh rt"))
    v = assert_one(violations, "TA002", "spec.authentication.password", line_of(text, "password"))
    assert "sh rt" not in v.format()


@pytest.mark.parametrize(
    ("authentication", "field"),
    [
        ({}, "spec.authentication"),
        ({"bcryptPassword": "$2a$06$tooShort"}, "spec.authentication"),
        ({"bcryptPassword": 12345678}, "spec.authentication.bcryptPassword"),
        ({"password": {"configSecret": "bad key!"}}, "spec.authentication.password.configSecret"),
    ],
)
def test_ta003_the_crd_schema_without_showing_credentials(authentication: Doc, field: str) -> None:
    doc = account()
    doc["spec"]["authentication"] = authentication
    _, violations = check(doc)
    assert [(v.code, v.field) for v in violations if v.is_error] == [("TA003", field)]
    text = "".join(v.format() for v in violations)
    assert "Secret-1" not in text and "tooShort" not in text and "12345678" not in text


def test_a_password_with_a_hash_is_admitted_and_the_password_wins() -> None:
    """v1.4.1 mutates before the schema: the webhook hashes ``password`` into
    ``bcryptPassword`` (replacing the one given) and drops the password."""
    doc = account()
    doc["spec"]["authentication"] = {"password": "Secret-1", "bcryptPassword": BCRYPT}
    text, violations = check(doc)
    assert [v for v in violations if v.is_error] == []
    assert "Secret-1" not in "".join(v.format() for v in violations)
    (loaded,) = load(text).accounts
    assert loaded.spec.authentication.bcrypt_password is None  # hashed from the password
    assert loaded.spec.authentication.password is not None


def test_ta003_role_and_username() -> None:
    doc = account()
    doc["spec"]["authorization"] = [{"role": "root", "flag": "*"}]
    doc["spec"]["username"] = "a"
    _, violations = check(doc)
    assert sorted(v.field for v in only(violations, "TA003")) == [
        "spec.authorization[0].role",
        "spec.username",
    ]


def test_ta004_one_taccount_per_name() -> None:
    _, violations = check(account(), account())
    assert len(only(violations, "TA004")) == 1


def test_ta005_a_literal_hash_warns_too() -> None:
    text, violations = check(account(bcryptPassword=BCRYPT))
    v = assert_one(
        violations,
        "TA005",
        "spec.authentication.bcryptPassword",
        line_of(text, "bcryptPassword"),
        WARNING,
    )
    assert BCRYPT not in v.format()


def test_ta005_a_plaintext_password_warns() -> None:
    text, violations = check(account(password="Secret-1"))
    v = assert_one(
        violations, "TA005", "spec.authentication.password", line_of(text, "password"), WARNING
    )
    assert "Secret-1" not in v.format()


def test_ta006_crd_mode_tells_that_secrets_are_rendered_as_placeholders() -> None:
    stack = load(render(*base_docs(), account()))
    crd = check_output(stack, Options(namespace=NS, mode=Mode.CRD))
    (v,) = only(crd, "TA006")
    assert v.severity is WARNING and "tars:adminHash" in v.message
    assert only(check_output(stack, Options(namespace=NS)), "TA006") == []


# --- change rules ----------------------------------------------------------------------------

OLD = "old/stack.yaml"


def change(before: list[Doc], after: list[Doc]) -> tuple[str, list]:
    old = load_texts({OLD: render(*base_docs(), *before)}, namespace=NS)
    text = render(*base_docs(), *after)
    return text, validate_change(old, load(text))


def test_tc001_identity_and_history_fields_are_immutable() -> None:
    before = config(updatePerson="alice", version="20240101-ab")
    after = config(updatePerson="bob", version="20240101-ab", podSeq="m")
    text, violations = change([tars_server(), before], [tars_server(), after])
    assert_one(violations, "TC001", "updatePerson", line_of(text, "updatePerson"))
    _, violations = change([before], [config(updatePerson="alice")])
    assert [v.field for v in only(violations, "TC001")] == ["version"]


def test_tc004_content_is_immutable() -> None:
    text, violations = change([config()], [config(configContent="<tars>x</tars>")])
    assert_one(violations, "TC004", "configContent", line_of(text, "configContent"))


def test_tc007_activated_never_goes_back_to_false() -> None:
    text, violations = change([config()], [config(activated=False)])
    assert_one(violations, "TC007", "activated", line_of(text, "activated: false"))
    _, violations = change([config(activated=False)], [config()])
    assert only(violations, "TC007") == []
    # activating another version deactivates this one (the controller does it): no TC007
    _, violations = change([config()], [config(activated=False), config("server-conf-v2")])
    assert violations == []


def test_tc008_a_deleting_config_is_not_updated() -> None:
    old = config()
    old["metadata"]["labels"] = {"tars.io/Deleting": "Deleting"}
    new = config(updateReason="x")
    new["metadata"]["labels"] = {"tars.io/Deleting": "Deleting"}
    _, violations = change([old], [new])
    assert len(only(violations, "TC008")) == 1
    _, violations = change([old], [old])
    assert only(violations, "TC008") == []


def test_tc003_tc009_removing_an_activated_master() -> None:
    node = config("node", pod_seq="0")
    _, violations = change([config(), node], [node])
    assert [(v.code, v.name, v.file) for v in violations] == [
        ("TC003", "server-conf-v1", OLD),
        ("TC009", "server-conf-v1", OLD),
    ]
    _, violations = change([config(), node], [])
    assert {v.code for v in violations} == {"TC009"}
    _, violations = change([config(activated=False)], [])
    assert violations == []


def test_tc003_tc009_a_config_rollout_replaces_the_activated_version() -> None:
    """TarsDocs' rollout: a new master version activated and the old one removed, node-level
    configs kept. v1.4.1 labels the old version deactivating when the new one is created, so
    its later deletion neither is refused nor cascades."""
    node = config("node", pod_seq="0")
    _, violations = change([config(), node], [config("server-conf-v2"), node])
    assert violations == []
    # the node-level config rolls out the same way, its podSeq kept
    _, violations = change([config(), node], [config(), config("node-v2", pod_seq="0")])
    assert violations == []
    # a successor that is not activated, or of another podSeq, replaces nothing
    _, violations = change([config(), node], [config("server-conf-v2", activated=False), node])
    assert [v.code for v in violations] == ["TC003", "TC009"]
    _, violations = change([config(), node], [config(), config("node-v2", pod_seq="1")])
    assert [v.code for v in violations] == ["TC009"]


def test_a_document_that_fails_its_schema_is_reported_once_never_as_removed() -> None:
    """v1.4.1's webhook sees the document as written: a schema error is one violation at its
    field, not also a deletion (TR007, TC003, TC009) nor a missing server (TC012)."""
    node = config("node", pod_seq="0")
    text, violations = change([tree()], [tree(businesses="not a list")])
    assert violations == []
    assert [(v.code, v.field) for v in validate(load(text))] == [("TR008", "businesses")]
    docs = [tars_server(), config(configContent=["a list"]), node]
    text, violations = change([tars_server(), config(), node], docs)
    assert violations == []
    assert [(v.code, v.field) for v in validate(load(text))] == [("TC011", "configContent")]
    server = tars_server()
    server["spec"]["tars"]["servants"][0]["port"] = "not a port"
    found = validate(load(render(*base_docs(), server, config())))
    assert [(v.code, v.field) for v in found] == [("TS021", "spec.tars.servants[0].port")]


def test_tr006_tr007_tree_changes() -> None:
    _, violations = change([tars_server(), tree()], [tars_server(), tree(apps=[])])
    assert [(v.code, v.field) for v in violations] == [("TR006", "apps")]
    _, violations = change([tree()], [tree(apps=[])])  # no TServer of app Test any more
    assert violations == []
    _, violations = change([tree()], [])
    assert [(v.code, v.file) for v in violations] == [("TR007", OLD)]
    _, violations = change([tree("other-tree")], [])  # only tars-tree is guarded
    assert violations == []


def test_create_only_rules_do_not_apply_to_updates() -> None:
    app_level = config("app", server="", pod_seq="1")
    old = load_texts({OLD: render(*base_docs(), app_level, tree("my-tree"))}, namespace=NS)
    new = load(
        render(*base_docs(), app_level, tree("my-tree"), config("new", server="", pod_seq="2"))
    )
    found = validate(new)
    assert sorted(v.code for v in found) == ["TC002", "TC002", "TC006", "TC006", "TR001"]
    kept = without_create_only(found, old)
    assert sorted((v.code, v.name) for v in kept) == [("TC002", "new"), ("TC006", "new")]


def test_cli_validate_previous_treats_known_documents_as_updates(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "s.yaml").write_text(render(*base_docs(), config("app", server="", pod_seq="1")))
    (new / "s.yaml").write_text(
        render(*base_docs(), config("app", server="", pod_seq="1", updateReason="x"))
    )
    alone = run("validate", str(new), "--namespace", NS)
    assert alone.returncode == 1 and "TC006 error" in alone.stdout  # a create
    changed = run("validate", str(new), "--namespace", NS, "--previous", str(old))
    assert "TC006" not in changed.stdout and "TC002" not in changed.stdout  # an update
    assert changed.returncode == 1 and "TC001 error TConfig" in changed.stdout


def test_tf006_crd_mode_tells_that_expand_secrets_are_rendered_as_placeholders() -> None:
    config = {**framework(), "expand": {"nativeDBConfig": {"configSecret": "tarswebDB"}}}
    text = render(config, *base_docs()[1:])
    stack = load(text)
    assert validate(stack) == []
    crd = check_output(stack, Options(namespace=NS, mode=Mode.CRD))
    (v,) = only(crd, "TF006")
    assert v.severity is WARNING and v.field == "expand.nativeDBConfig"
    assert "tars:tarswebDB" in v.message
    assert only(check_output(stack, Options(namespace=NS)), "TF006") == []


def test_an_expand_value_is_a_string_or_a_config_secret() -> None:
    config = {**framework(), "expand": {"nativeDBConfig": {"value": "x"}}}
    violations = validate(load(render(config, *base_docs()[1:])))
    assert [(v.field, v.message) for v in only(violations, "TF001")] == [
        ("expand.nativeDBConfig.configSecret", "required field is missing"),
        ("expand.nativeDBConfig.value", "unknown field"),
    ]
