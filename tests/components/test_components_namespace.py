"""The namespace components (issue #11): TConfig, TImage, TTree, TAccount and plain objects
under Pulumi's mocks, the traps of reference §10 (TConfig previews, TAccount secrets, TImage
releases), the project's program against ``render`` for a crd stack holding them, the
``pulumi-import.json`` names against what the components register, and a TConfig's Check
over gRPC."""

from __future__ import annotations

import hashlib
import json
import runpy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml
from pulumi.output import Unknown
from pulumi.runtime import rpc
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    plain,
    stack_text,
    tars_server,
    template,
)
from support.builders.export import NAMESPACE as EXPORT_NAMESPACE
from support.builders.export import export_text
from support.builders.namespace_documents import account, config, image, tree
from support.engines.grpc_provider import DynamicProviderProcess, registered_inputs

from tars_components import TAccount, TConfig, TFramework, TImage, TTree
from tars_components.cli import main as cli
from tars_components.components import TConfigArgs, components_from_stack
from tars_components.components.account_salt import RESOURCE_TYPE as SALT_TYPE
from tars_components.components.testing import (
    VALIDATION_TYPE,
    Recording,
    ValidationFailed,
    record,
    strip_secrets,
)
from tars_components.jobs.importer import import_texts
from tars_components.jobs.render import render_path
from tars_components.loading.load import load_texts
from tars_components.models import TConfigDocument
from tars_components.provider import TarsValidation, ValidationInputs
from tars_components.secrets.hashing import (
    BCRYPT_COST,
    bcrypt_password,
    is_placeholder,
    keyed_salt,
    verify,
)
from tars_components.settings.options import Mode, Options

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = str(ROOT / "__main__.py")
CRD = Options(namespace=NAMESPACE, mode=Mode.CRD)
PASSWORD = "s3cret-Passw0rd"

CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "shop-settings", "namespace": NAMESPACE},
    "data": {"region": "eu"},
}
SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "registry", "namespace": NAMESPACE},
    "type": "Opaque",
    "stringData": {"token": "registry-token-do-not-leak"},
}
CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "shop-reader"},
    "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
}


def namespace_documents() -> list[dict[str, Any]]:
    """A crd namespace with every kind: framework, templates, a server, its TConfig versions,
    its TImage, the tree, two accounts (one from a config secret that is set, one from a key
    that is not), and plain objects."""
    master = config()
    old = config(name="server-conf-v0", activated=False)
    app_level = config(name="test-app-conf", server="", configName="app.conf")
    return [
        FRAMEWORK,
        template("tars.default"),
        template("tars.cpp", "tars.default"),
        tars_server(),
        master,
        old,
        app_level,
        image(),
        tree(),
        account("admin", password={"configSecret": "adminPassword"}),
        account("viewer", bcryptPassword={"configSecret": "viewerHash"}),
        CONFIG_MAP,
        SECRET,
        CLUSTER_ROLE,
    ]


def load(documents: list[dict[str, Any]]) -> Any:
    return load_texts({"stack.yaml": stack_text(*documents)}, NAMESPACE)


def k8s_by_kind(recording: Recording) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for r in recording.kubernetes():
        found.setdefault(r.type.rsplit(":", 1)[1], []).append(r)
    return found


@pytest.fixture(scope="module")
def crd() -> Recording:
    stack = load(namespace_documents())
    return record(
        lambda: components_from_stack(stack, CRD, secrets={"adminPassword": PASSWORD}),
    )


# --- components ----------------------------------------------------------------------------


def test_every_kind_is_a_component_under_the_framework_with_its_validation(
    crd: Recording,
) -> None:
    [framework] = crd.of_type("tars:index:TFramework")
    expected = {
        "tars:index:TConfig": {
            f"{NAMESPACE}/server-conf-v1",
            f"{NAMESPACE}/server-conf-v0",
            f"{NAMESPACE}/test-app-conf",
        },
        "tars:index:TImage": {f"{NAMESPACE}/test-demotest"},
        "tars:index:TTree": {f"{NAMESPACE}/tars-tree"},
        "tars:index:TAccount": {
            f"{NAMESPACE}/{hashlib.md5(b'admin').hexdigest()}",
            f"{NAMESPACE}/{hashlib.md5(b'viewer').hexdigest()}",
        },
    }
    for type_, names in expected.items():
        components = crd.of_type(type_)
        assert {c.name for c in components} == names, type_
        for component in components:
            assert component.parent == framework.urn
            children = crd.children(component)
            [validation] = [c for c in children if c.type == VALIDATION_TYPE]
            [obj] = [c for c in children if c.type.startswith("kubernetes:")]
            kind = type_.rsplit(":", 1)[1]
            assert obj.type == f"kubernetes:k8s.tars.io/v1beta3:{kind}"
            assert obj.name == f"{component.name}-{kind.lower()}"
            assert validation.name == f"{component.name}-validation"
            assert validation.urn in obj.dependencies
            assert obj.inputs["metadata"]["namespace"] == NAMESPACE


def test_plain_objects_pass_through_under_the_framework(crd: Recording) -> None:
    [framework] = crd.of_type("tars:index:TFramework")
    by_kind = k8s_by_kind(crd)
    [config_map] = by_kind["ConfigMap"]
    assert config_map.type == "kubernetes:core/v1:ConfigMap"
    assert config_map.name == f"{NAMESPACE}/shop-settings-configmap"
    assert plain(config_map.inputs) == CONFIG_MAP
    [role] = by_kind["ClusterRole"]
    assert role.type == "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
    assert role.name == "shop-reader-clusterrole"
    assert {config_map.parent, role.parent} == {framework.urn}
    # plain objects get no validation resource: one per TarsK8S document only
    assert len(crd.validations()) == len(load(namespace_documents()).documents)


def test_secret_data_is_a_pulumi_secret(crd: Recording) -> None:
    [secret] = k8s_by_kind(crd)["Secret"]
    assert rpc.is_rpc_secret(secret.inputs["stringData"])
    assert strip_secrets(secret.inputs) == SECRET
    assert crd.plaintext("registry-token-do-not-leak") == []


def test_keyword_and_args_constructors_register_the_same_document() -> None:
    def program() -> None:
        framework = TFramework("fw", namespace=NAMESPACE, options=CRD)
        TConfig(
            "by-keywords",
            framework=framework,
            app="Test",
            server="",
            config_name="app.conf",
            config_content="<tars></tars>",
        )
        TConfig(
            "by-args",
            TConfigArgs(
                framework,
                app="Test",
                server="",
                config_name="app.conf",
                config_content="<tars></tars>",
                name="test-app-app-conf-b",
            ),
        )
        TImage(
            "image",
            framework=framework,
            name="test-demotest",
            image_type="server",
            releases=[{"id": "v1", "image": "reg.example.com/test.demotest:v1"}],
        )
        TTree(
            "tree",
            framework=framework,
            businesses=[{"name": "Shop", "show": "Shop"}],
            apps=[{"name": "Test", "businessRef": "Shop"}],
        )

    recording = record(program)
    by_kind = k8s_by_kind(recording)
    first, second = sorted(
        (plain(r.inputs) for r in by_kind["TConfig"]), key=lambda o: o["metadata"]["name"]
    )
    assert first["metadata"]["name"] == "test-app-app-conf"
    assert {**first, "metadata": second["metadata"]} == second
    assert first["metadata"]["labels"]["tars.io/Activated"] == "true"  # M-TC5
    [tree_obj] = by_kind["TTree"]
    assert tree_obj.inputs["metadata"]["name"] == "tars-tree"
    [image_obj] = by_kind["TImage"]
    assert image_obj.inputs["metadata"]["labels"]["tars.io/ImageType"] == "server"  # M-TI1


def test_a_rule_error_fails_the_validation_and_applies_nothing() -> None:
    app_level_slave = config(name="test-app-conf", server="", podSeq="1")  # TC006
    stack = load([FRAMEWORK, template("tars.default"), app_level_slave])
    recording = Recording()
    with pytest.raises(ValidationFailed, match="TC006"):
        record(lambda: components_from_stack(stack, CRD), recording=recording)
    assert not [r for r in recording.kubernetes() if r.type.endswith(":TConfig")]


def test_expand_mode_validates_the_kinds_and_applies_only_plain_objects() -> None:
    stack = load(namespace_documents())
    options = Options(namespace=NAMESPACE, tconfig_config_maps=True)
    recording = record(lambda: components_from_stack(stack, options))
    kinds = {r.inputs["kind"] for r in recording.kubernetes()}
    assert kinds == {"Service", "StatefulSet", "ConfigMap", "Secret", "ClusterRole"}
    assert len(recording.validations()) == len(stack.documents)
    config_maps = [r for r in recording.kubernetes() if r.inputs["kind"] == "ConfigMap"]
    assert {r.inputs["metadata"]["name"] for r in config_maps} == {
        "shop-settings",
        "test-demotest-tconfig",
    }


# --- trap (a): a TConfig preview never deactivates a live version ----------------------------


def _activated(recording: Recording) -> dict[str, Any]:
    return {
        r.inputs["metadata"]["name"]: r.inputs["activated"]
        for r in recording.kubernetes()
        if r.type.endswith(":TConfig")
    }


def test_a_new_activated_tconfig_is_unknown_in_preview_so_no_dry_run_reaches_the_webhook() -> None:
    stack = load(namespace_documents())
    preview = record(lambda: components_from_stack(stack, CRD), preview=True)
    activated = _activated(preview)
    # pulumi-kubernetes sends no request (no server-side dry run) for a resource whose inputs
    # hold an unknown in a preview: the activated versions are held back ...
    assert isinstance(activated["server-conf-v1"], Unknown)
    assert isinstance(activated["test-app-conf"], Unknown)
    # ... a deactivated version cannot deactivate anything and is previewed as usual
    assert activated["server-conf-v0"] is False
    for r in preview.kubernetes():
        if r.type.endswith(":TConfig"):
            assert not [
                k for k, v in r.inputs.items() if k != "activated" and rpc.contains_unknowns(v)
            ]
    # pulumi up applies the real value, the same as render
    up = record(lambda: components_from_stack(stack, CRD))
    assert _activated(up) == {
        "server-conf-v1": True,
        "server-conf-v0": False,
        "test-app-conf": True,
    }


def test_an_activation_already_deployed_is_previewed_normally() -> None:
    stack = load(namespace_documents())
    previous = load(namespace_documents())
    preview = record(lambda: components_from_stack(stack, CRD, previous=previous), preview=True)
    assert _activated(preview) == {
        "server-conf-v1": True,
        "server-conf-v0": False,
        "test-app-conf": True,
    }
    # activating v0 (a deactivated version until now) is held back again
    switched = load(
        [
            *[
                d
                for d in namespace_documents()
                if d["metadata"]["name"] not in ("server-conf-v1", "server-conf-v0")
            ],
            config(name="server-conf-v0"),
        ]
    )
    guarded = record(lambda: components_from_stack(switched, CRD, previous=previous), preview=True)
    assert isinstance(_activated(guarded)["server-conf-v0"], Unknown)


def test_tconfig_component_reports_its_guard() -> None:
    found: dict[str, bool] = {}

    def program() -> None:
        framework = TFramework("fw", namespace=NAMESPACE, options=CRD)
        doc = load([config()]).configs[0]
        found["new"] = TConfig("a", framework=framework, document=doc).preview_guarded
        found["deployed"] = TConfig(
            "b", framework=framework, document=doc, previous=doc
        ).preview_guarded
        off = load([config(activated=False)]).configs[0]
        assert isinstance(off, TConfigDocument)
        found["deactivated"] = TConfig("c", framework=framework, document=off).preview_guarded

    record(program, preview=True)
    assert found == {"new": True, "deployed": False, "deactivated": False}


# --- trap (b): a TAccount password is a secret end to end, with no perpetual diff -------------


def _hash(recording: Recording, username: str) -> Any:
    """The registered ``bcryptPassword`` of ``username`` (its ``spec`` is secret as a whole
    when the hash is: the secret marker is put back around the hash)."""
    [obj] = [
        r
        for r in recording.kubernetes()
        if r.type.endswith(":TAccount") and strip_secrets(r.inputs["spec"])["username"] == username
    ]
    spec = obj.inputs["spec"]
    hashed = strip_secrets(spec)["authentication"]["bcryptPassword"]
    return rpc.wrap_rpc_secret(hashed) if rpc.is_rpc_secret(spec) else hashed


def _salt(recording: Recording, component_name: str) -> str:
    """The salt the ``TAccountSalt`` child of a TAccount component keeps (a secret output)."""
    [salt] = [r for r in recording.of_type(SALT_TYPE) if r.name == f"{component_name}-salt"]
    assert rpc.is_rpc_secret(salt.outputs["salt"])
    return str(strip_secrets(salt.outputs["salt"]))


def test_a_config_secret_password_is_hashed_inside_the_secret(crd: Recording) -> None:
    hashed = _hash(crd, "admin")
    assert rpc.is_rpc_secret(hashed)
    value = strip_secrets(hashed)
    assert verify(PASSWORD, value)
    assert value.startswith(f"$2a${BCRYPT_COST}$")
    # salted with the random salt its TAccountSalt child keeps in the state
    admin = account("admin")["metadata"]["name"]
    assert value[7:29] == _salt(crd, f"{NAMESPACE}/{admin}")
    assert crd.plaintext(PASSWORD) == []
    assert crd.plaintext(value) == []  # the hash is never in plaintext either
    # an unset key is the placeholder, which no password verifies against (and needs no salt)
    assert is_placeholder(strip_secrets(_hash(crd, "viewer")))
    assert [r.name for r in crd.of_type(SALT_TYPE)] == [f"{NAMESPACE}/{admin}-salt"]


def _admin(password: str, salt_key: pulumi.Input[str] | None = None) -> Callable[[], None]:
    def program() -> None:
        framework = TFramework("fw", namespace=NAMESPACE, options=CRD)
        TAccount(
            "admin",
            framework=framework,
            username="admin",
            password=pulumi.Output.secret(password),
            authorization=[{"role": "admin", "flag": "*"}],
            salt_key=salt_key,
        )

    return program


def test_the_same_password_gives_the_same_hash_on_every_run() -> None:
    first = record(_admin(PASSWORD))
    second = record(_admin(PASSWORD), previous=first)  # the state of the first run
    assert rpc.is_rpc_secret(_hash(first, "admin"))
    assert strip_secrets(_hash(first, "admin")) == strip_secrets(_hash(second, "admin"))
    assert verify(PASSWORD, strip_secrets(_hash(first, "admin")))
    for recording in (first, second):
        assert recording.plaintext(PASSWORD) == []
        assert recording.plaintext(strip_secrets(_hash(first, "admin"))) == []
        [component] = recording.of_type("tars:index:TAccount")
        mutated = recording.component_outputs[component.urn]["mutated"]
        assert rpc.is_rpc_secret(mutated)
    # a preview with the state shows the same hash: nothing to change
    preview = record(_admin(PASSWORD), preview=True, previous=second)
    assert strip_secrets(_hash(preview, "admin")) == strip_secrets(_hash(first, "admin"))
    # a new password keeps the salt of the state, and verifies
    third = record(_admin("Another-pw-3"), previous=second)
    new = strip_secrets(_hash(third, "admin"))
    assert new != strip_secrets(_hash(second, "admin")) and verify("Another-pw-3", new)
    assert new[7:29] == strip_secrets(_hash(first, "admin"))[7:29] == _salt(third, "admin")
    # without the state (a new stack), a new random salt
    fresh = strip_secrets(_hash(record(_admin(PASSWORD)), "admin"))
    assert fresh[7:29] != new[7:29] and verify(PASSWORD, fresh)


def test_a_salt_key_gives_the_same_salt_without_state() -> None:
    key = "k" * 32
    first = record(_admin(PASSWORD, pulumi.Output.secret(key)))
    second = record(_admin("Another-pw-3", pulumi.Output.secret(key)))  # no previous state
    one, two = strip_secrets(_hash(first, "admin")), strip_secrets(_hash(second, "admin"))
    assert verify(PASSWORD, one) and verify("Another-pw-3", two)
    admin = account("admin")["metadata"]["name"]
    assert one[7:29] == two[7:29] == keyed_salt(key.encode(), NAMESPACE, admin)
    assert first.of_type(SALT_TYPE) == []  # nothing kept in the state
    for recording in (first, second):
        assert recording.plaintext(key) == [] and recording.plaintext(one) == []
    assert strip_secrets(_hash(record(_admin(PASSWORD, key)), "admin")) == one  # stable


def test_a_weak_salt_key_is_warned_and_an_empty_one_refused_without_showing_them() -> None:
    recording = record(_admin(PASSWORD, pulumi.Output.secret("short-key")))
    assert any("salt key of 9 bytes is easy to guess" in w for w in recording.warnings())
    assert recording.plaintext("short-key") == []
    assert verify(PASSWORD, strip_secrets(_hash(recording, "admin")))
    with pytest.raises(Exception, match="the salt key is empty"):
        record(_admin(PASSWORD, pulumi.Output.secret("")))


def test_a_literal_hash_is_registered_as_a_secret() -> None:
    literal = bcrypt_password(PASSWORD, NAMESPACE, "x")  # any hash
    stack = load([FRAMEWORK, template("tars.default"), account("ops", bcryptPassword=literal)])
    recording = record(lambda: components_from_stack(stack, CRD))
    assert rpc.is_rpc_secret(_hash(recording, "ops"))
    assert recording.plaintext(literal) == []  # neither the object nor the validation


# --- trap (c): TImage releases written by TarsWeb are not deleted ------------------------------


def test_timage_releases_are_left_to_tarsweb_after_create(crd: Recording) -> None:
    [obj] = k8s_by_kind(crd)["TImage"]
    assert obj.ignore_changes == ("releases",)
    assert [r["id"] for r in obj.inputs["releases"]] == ["v1"]  # written on create


def test_own_releases_hands_the_list_to_the_program() -> None:
    def program() -> None:
        framework = TFramework("fw", namespace=NAMESPACE, options=CRD)
        TImage(
            "image",
            framework=framework,
            name="test-demotest",
            image_type="server",
            releases=[{"id": "v1", "image": "reg.example.com/test.demotest:v1"}],
            own_releases=True,
        )

    [obj] = record(program).kubernetes()
    assert obj.ignore_changes == ()


# --- the project's program against render ----------------------------------------------------


def test_program_registers_exactly_what_render_writes_for_a_crd_namespace(
    tmp_path: Path,
) -> None:
    stack_dir = tmp_path / "stack"
    stack_dir.mkdir()
    (stack_dir / "namespace.yaml").write_text(stack_text(*namespace_documents()))
    config = {
        "tars:namespace": NAMESPACE,
        "tars:stackDir": str(stack_dir),
        "tars:mode": "crd",
        "tars:adminPassword": PASSWORD,
    }
    (tmp_path / "Pulumi.ns.yaml").write_text(yaml.safe_dump({"config": config}))
    recording = record(lambda: runpy.run_path(PROGRAM), config=config, stack="ns")

    out = tmp_path / "out"
    args = ["render", "--stack", "ns", "--project-dir", str(tmp_path), "--out", str(out)]
    assert cli(args) == 0
    written = {
        str(p.relative_to(out)): yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted(out.rglob("*.yaml"))
    }
    registered = {
        render_path(r.inputs): plain(strip_secrets(r.inputs)) for r in recording.kubernetes()
    }
    assert len(registered) == len(recording.kubernetes())
    assert registered.keys() == written.keys()
    kinds = {obj["kind"] for obj in written.values()}
    assert {"TConfig", "TImage", "TTree", "TAccount", "ConfigMap", "Secret", "ClusterRole"} <= kinds
    admin = account("admin")["metadata"]["name"]
    for path, obj in written.items():
        ours = registered[path]
        if obj["kind"] == "TAccount" and obj["metadata"]["name"] == admin:
            # the one difference: render cannot read the config secret (placeholder, TA006),
            # the program hashes it
            offline = obj["spec"]["authentication"]["bcryptPassword"]
            assert is_placeholder(offline)
            assert verify(PASSWORD, ours["spec"]["authentication"]["bcryptPassword"])
            ours["spec"]["authentication"]["bcryptPassword"] = offline
        assert ours == obj, path
    assert recording.plaintext(PASSWORD) == []
    assert any("TA006" in w for w in recording.warnings())
    assert any("tars:viewerHash is not set" in w for w in recording.warnings())
    assert not any("tars:adminPassword is not set" in w for w in recording.warnings())


# --- import --pulumi names what the components register --------------------------------------


def _entries(plan: list[dict[str, Any]]) -> Iterator[tuple[str, str, str, str]]:
    """``(type, logical name, parent type, parent logical name)`` of each plan entry."""
    by_key = {entry["name"]: entry for entry in plan}
    for entry in plan:
        parent = by_key.get(entry.get("parent", ""))
        yield (
            entry["type"],
            entry.get("logicalName", entry["name"]),
            parent["type"] if parent else "",
            parent.get("logicalName", parent["name"]) if parent else "",
        )


def test_pulumi_import_plan_names_what_the_components_register() -> None:
    result = import_texts({"export.yaml": export_text()}, EXPORT_NAMESPACE, pulumi_plan=True)
    plan = json.loads(result.files["pulumi-import.json"])["resources"]
    assert len({entry["name"] for entry in plan}) == len(plan)  # parents are unambiguous
    imported = load_texts(
        {name: text for name, text in result.files.items() if name.endswith(".yaml")},
        EXPORT_NAMESPACE,
    )
    options = Options(namespace=EXPORT_NAMESPACE, mode=Mode.CRD)
    recording = record(lambda: components_from_stack(imported, options))
    by_urn = {r.urn: r for r in recording.registrations}
    registered = {
        (
            r.type,
            r.name,
            by_urn[r.parent].type if r.parent in by_urn else "",
            by_urn[r.parent].name if r.parent in by_urn else "",
        )
        for r in recording.registrations
        if not r.type.startswith("pulumi-python:dynamic")
    }
    assert set(_entries(plan)) == registered
    objects = [entry for entry in plan if not entry.get("component")]
    assert len(objects) == len(recording.kubernetes())
    for entry in objects:
        assert entry["id"]


# --- the provider checks a new kind over gRPC ------------------------------------------------


def _register(name: str, document: dict[str, Any]) -> Any:
    inputs = ValidationInputs(document=document, namespace=NAMESPACE)
    _, struct = registered_inputs(name, lambda: TarsValidation(name, inputs))
    return struct


def test_grpc_check_of_a_tconfig_runs_its_rules_and_change_rules(
    provider: DynamicProviderProcess,
) -> None:
    urn = f"urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::{NAMESPACE}/c"
    olds = _register("c", config())
    _, failures = provider.check(urn, None, olds)
    assert failures == []
    _, failures = provider.check(urn, None, _register("c", config(podSeq="x")))
    assert {(f.code, f.property) for f in failures} == {("TC011", "podSeq")}
    news = _register("c", config(configContent="<tars>changed</tars>"))
    _, failures = provider.check(urn, olds, news)
    assert ("TC004", "configContent") in {(f.code, f.property) for f in failures}
    _, failures = provider.check(urn, olds, _register("c", config(activated=False)))
    assert ("TC007", "activated") in {(f.code, f.property) for f in failures}


def test_grpc_check_of_a_node_level_tconfig_uses_the_master_fact(
    provider: DynamicProviderProcess,
) -> None:
    urn = f"urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::{NAMESPACE}/n"
    node = config(name="server-conf-v1-0", pod_seq="0")

    def register(master: bool | None) -> Any:
        inputs = ValidationInputs(document=node, namespace=NAMESPACE, config_master=master)
        return registered_inputs("n", lambda: TarsValidation("n", inputs))[1]

    _, failures = provider.check(urn, None, register(True))
    assert failures == []
    _, failures = provider.check(urn, None, register(False))
    assert {(f.code, f.property) for f in failures} == {("TC002", "podSeq")}


def test_components_send_the_master_fact_of_node_level_configs() -> None:
    node = config(name="server-conf-v1-0", pod_seq="0")
    with_master = load([FRAMEWORK, template("tars.default"), config(), node])
    recording = record(lambda: components_from_stack(with_master, CRD))
    [validation] = [v for v in recording.validations() if v.name.endswith("v1-0-validation")]
    assert validation.inputs["configMaster"] is True
    without = load([FRAMEWORK, template("tars.default"), node])
    with pytest.raises(ValidationFailed, match="TC002"):
        record(lambda: components_from_stack(without, CRD))


GOOD_PROGRAM = """
import pulumi

from tars_components import TAccount, TConfig, TConfigArgs, TFramework, TImage, TTree

fw = TFramework("fw", namespace="shop")
TConfig("c", framework=fw, app="Shop", server="Order", config_name="a.conf", config_content="x")
TConfig("d", TConfigArgs(fw, app="Shop", config_name="b.conf"))
TImage("i", framework=fw, name="shop-order", releases=[{"id": "v1", "image": "r/o:v1"}])
TTree("t", framework=fw, businesses=[], apps=[])
admin = TAccount("a", framework=fw, username="admin", password=pulumi.Output.secret("pw"))
pulumi.export("mutated", admin.mutated)
"""

BAD_PROGRAM = """
from tars_components import TAccount, TConfig, TFramework

fw = TFramework("fw", namespace="shop")
TConfig("c", framework=fw, app="Shop", config_nam="a.conf")
TAccount("a", framework=fw, username="admin", pasword="pw")
"""


def test_mypy_strict_accepts_a_program_with_the_new_components(tmp_path: Path) -> None:
    from support.engines.typecheck import mypy_strict

    result = mypy_strict(tmp_path, {"good": GOOD_PROGRAM, "bad": BAD_PROGRAM})
    errors = [line.split(":")[:2] for line in result.stdout.splitlines() if ": error:" in line]
    assert sorted({tuple(e) for e in errors}) == [("bad.py", "5"), ("bad.py", "6")], result.stdout


def test_tconfig_versions_stay_on_the_cluster_when_removed_from_the_program(
    crd: Recording,
) -> None:
    configs = [r for r in crd.kubernetes() if r.type.endswith(":TConfig")]
    assert configs and all(r.retain_on_delete for r in configs)
    others = [r for r in crd.kubernetes() if not r.type.endswith(":TConfig")]
    assert not any(r.retain_on_delete for r in others)
    stack = load(namespace_documents())
    opts = pulumi.ResourceOptions(retain_on_delete=False)
    explicit = record(lambda: components_from_stack(stack, CRD, opts=opts))
    assert not any(r.retain_on_delete for r in explicit.kubernetes())


def test_tarsweb_login_tokens_are_left_to_tarsweb(crd: Recording) -> None:
    accounts = [r for r in crd.kubernetes() if r.type.endswith(":TAccount")]
    assert len(accounts) == 2
    for obj in accounts:
        assert obj.ignore_changes == ("spec.authentication.tokens",)


def test_a_node_config_is_created_after_the_activated_master_of_its_file() -> None:
    # the TConfig webhook admits a node config only while an activated master of its file
    # exists ("no activated master tconfig found"), and the engine creates independent
    # resources at once: the node config, written first here, waits for the master
    node = config(name="server-conf-0-v1", pod_seq="0")
    old_master = config(name="server-conf-v0", activated=False)
    master = config()
    templates = [template("tars.default"), template("tars.cpp", "tars.default")]
    stack = load([FRAMEWORK, *templates, tars_server(), node, old_master, master])
    recording = record(lambda: components_from_stack(stack, CRD))
    objects = {r.name: r for r in recording.kubernetes() if r.inputs.get("kind") == "TConfig"}
    [node_object] = [r for name, r in objects.items() if "server-conf-0-v1" in name]
    [master_object] = [r for name, r in objects.items() if "server-conf-v1" in name]
    [old_object] = [r for name, r in objects.items() if "server-conf-v0" in name]
    assert master_object.urn in node_object.dependencies
    assert old_object.urn not in node_object.dependencies
    assert node_object.urn not in master_object.dependencies


DB_CONFIG = '{"host": "mysql.tars-dev", "password": "db-Passw0rd-4417"}'


def test_an_expand_value_from_a_config_secret_stays_a_secret() -> None:
    """TarsWeb reads ``expand`` from the TFrameworkConfig itself, so the object carries the
    value; in the Pulumi registrations (and so the state) it is a secret everywhere."""
    config = {**FRAMEWORK, "expand": {"nativeDBConfig": {"configSecret": "tarswebDB"}}}
    stack = load([config, template("tars.default")])
    secrets = {"tarswebDB": pulumi.Output.secret(DB_CONFIG)}
    recording = record(lambda: components_from_stack(stack, CRD, secrets=secrets))
    (framework,) = k8s_by_kind(recording)["TFrameworkConfig"]
    expand = framework.inputs["expand"]
    assert rpc.is_rpc_secret(expand)  # the map is registered as a secret as a whole
    assert strip_secrets(expand) == {"nativeDBConfig": DB_CONFIG}
    assert recording.plaintext("db-Passw0rd-4417") == []
    # an unset key: the placeholder, never an empty or stale value
    unset = record(lambda: components_from_stack(stack, CRD, secrets={}))
    (framework,) = k8s_by_kind(unset)["TFrameworkConfig"]
    assert is_placeholder(framework.inputs["expand"]["nativeDBConfig"])


def test_render_writes_a_placeholder_for_an_expand_secret(tmp_path: Path) -> None:
    config = {**FRAMEWORK, "expand": {"nativeDBConfig": {"configSecret": "tarswebDB"}}}
    (tmp_path / "stack").mkdir()
    (tmp_path / "stack" / "stack.yaml").write_text(
        stack_text(config, template("tars.default")), encoding="utf-8"
    )
    code = cli(["render", str(tmp_path / "stack"), "--out", str(tmp_path / "out"), "--mode", "crd"])
    assert code == 0
    (written,) = (tmp_path / "out").rglob("*tframeworkconfig*.yaml")
    expand = yaml.safe_load(written.read_text(encoding="utf-8"))["expand"]
    assert is_placeholder(expand["nativeDBConfig"])
