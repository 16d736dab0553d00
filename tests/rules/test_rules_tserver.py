"""TServer rules TS003-TS020 and TS023: one rejected and one accepted case per code (at least),
each rejection checked for code, severity, field and line."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from support.builders.documents import DROP, edited
from support.builders.rules import (
    FILE,
    NS,
    assert_one,
    base_docs,
    check,
    framework,
    line_of,
    load,
    normal_server,
    only,
    render,
    tars_server,
    template,
)

from tars_components.kernel.errors import Severity
from tars_components.loading.document_set import DocumentSet
from tars_components.loading.documents import parse_document
from tars_components.models import TServerDocument
from tars_components.mutation import mutate
from tars_components.rules import validate
from tars_components.rules.tserver import is_port_name, section_mismatch

WARNING = Severity.WARNING


def servants(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"name": name, "port": port} for name, port in pairs]


def with_servants(*pairs: tuple[str, int], ports: list[dict[str, Any]] | None = None) -> dict:
    server = edited(tars_server(), spec__tars__servants=servants(*pairs))
    if ports is not None:
        server["spec"]["tars"]["ports"] = ports
    return server


def with_mounts(server: dict, *mounts: dict[str, Any]) -> dict:
    return edited(server, spec__k8s__mounts=list(mounts))


def host_path(name: str, mount_path: str = "/data") -> dict[str, Any]:
    return {
        "name": name,
        "mountPath": mount_path,
        "source": {"hostPath": {"path": "/h", "type": ""}},
    }


def local_volume(name: str = "data") -> dict[str, Any]:
    return {"name": name, "mountPath": f"/{name}", "source": {"tLocalVolume": {}}}


def claim_template(name: str = "data") -> dict[str, Any]:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    return {
        "name": name,
        "mountPath": f"/{name}",
        "source": {"persistentVolumeClaimTemplate": {"spec": spec}},
    }


# --- TS003 / TS004: servant and tars.ports names and numbers --------------------------------


def test_ts003_duplicate_servant_name_case_insensitive() -> None:
    text, violations = check(with_servants(("DemoTest1Obj", 10001), ("demotest1obj", 10002)))
    v = assert_one(
        violations, "TS003", "spec.tars.servants[1].name", line_of(text, "name: demotest1obj")
    )
    assert v.message == "name demotest1obj is already used by servant DemoTest1Obj"


def test_ts003_tars_port_name_collides_with_servant() -> None:
    server = with_servants(("FirstObj", 10001), ports=[{"name": "firstobj", "port": 10002}])
    text, violations = check(server)
    assert_one(violations, "TS003", "spec.tars.ports[0].name", line_of(text, "name: firstobj"))


def test_ts003_distinct_names_pass() -> None:
    server = with_servants(("FirstObj", 10001), ports=[{"name": "first", "port": 10002}])
    assert only(check(server)[1], "TS003") == []


def test_ts004_duplicate_servant_port() -> None:
    text, violations = check(with_servants(("DemoTest1Obj", 10001), ("DemoTest2Obj", 10001)))
    v = assert_one(
        violations, "TS004", "spec.tars.servants[1].port", line_of(text, "port: 10001", 2)
    )
    assert v.message == "port 10001 is already used by servant DemoTest1Obj"


def test_ts004_tars_port_reuses_servant_port_whatever_the_protocol() -> None:
    udp = [{"name": "metrics", "port": 10001, "isTcp": False}]
    text, violations = check(with_servants(("DemoTest1Obj", 10001), ports=udp))
    v = assert_one(violations, "TS004", "spec.tars.ports[0].port", line_of(text, "port: 10001", 2))
    assert v.message == "port 10001 is already used by servant DemoTest1Obj"


def test_ts004_same_port_on_two_servers_passes() -> None:
    other = tars_server("Test", "Other")
    assert only(check(tars_server(), other)[1], "TS004") == []


# --- TS005 / TS006: reserved servant name and port -----------------------------------------


def test_ts005_node_obj_in_any_case() -> None:
    text, violations = check(with_servants(("DemoTest1Obj", 10001), ("nODEoBJ", 10002)))
    v = assert_one(violations, "TS005", "spec.tars.servants[1].name", line_of(text, "nODEoBJ"))
    assert "reserved" in v.message


def test_ts005_similar_names_and_normal_port_pass() -> None:
    tars = with_servants(("NodeObj2", 10001))
    normal = edited(normal_server(), spec__normal__ports=[{"name": "nodeobj", "port": 80}])
    assert only(check(tars, normal)[1], "TS005") == []


def test_ts006_reserved_port_on_servant() -> None:
    text, violations = check(with_servants(("DemoTest1Obj", 19385)))
    assert_one(violations, "TS006", "spec.tars.servants[0].port", line_of(text, "port: 19385"))


def test_ts006_reserved_port_on_tars_ports() -> None:
    server = with_servants(("DemoTest1Obj", 10001), ports=[{"name": "admin", "port": 19385}])
    text, violations = check(server)
    assert_one(violations, "TS006", "spec.tars.ports[0].port", line_of(text, "port: 19385"))


def test_ts006_reserved_port_allowed_on_normal_ports() -> None:
    normal = edited(normal_server(), spec__normal__ports=[{"name": "admin", "port": 19385}])
    assert check(normal)[1] == []


# --- TS007 / TS008: normal.ports -----------------------------------------------------------


def test_ts007_duplicate_normal_port_name() -> None:
    ports = [{"name": "http", "port": 80}, {"name": "http", "port": 81}]
    text, violations = check(edited(normal_server(), spec__normal__ports=ports))
    v = assert_one(violations, "TS007", "spec.normal.ports[1].name", line_of(text, "name: http", 2))
    assert v.message == "name http is already used by port http"


def test_ts007_ts008_distinct_normal_ports_pass() -> None:
    ports = [{"name": "http", "port": 80}, {"name": "https", "port": 443}]
    violations = check(edited(normal_server(), spec__normal__ports=ports))[1]
    assert violations == []


def test_ts008_duplicate_normal_port_number() -> None:
    ports = [{"name": "http", "port": 80}, {"name": "alt", "port": 80, "isTcp": False}]
    text, violations = check(edited(normal_server(), spec__normal__ports=ports))
    v = assert_one(violations, "TS008", "spec.normal.ports[1].port", line_of(text, "port: 80", 2))
    assert v.message == "port 80 is already used by port http"


# --- TS009: mount names --------------------------------------------------------------------


def test_ts009_duplicate_mount_name() -> None:
    server = with_mounts(tars_server(), host_path("logs", "/a"), host_path("logs", "/b"))
    text, violations = check(server)
    assert_one(violations, "TS009", "spec.k8s.mounts[1].name", line_of(text, "name: logs", 2))


def test_ts009_is_case_sensitive() -> None:
    server = with_mounts(tars_server(), host_path("logs", "/a"), host_path("Logs", "/b"))
    violations = check(server)[1]
    assert only(violations, "TS009") == []
    assert [v.field for v in violations] == ["spec.k8s.mounts[1].name"]  # TS016 instead


# --- TS010: template exists ----------------------------------------------------------------


def test_ts010_missing_template() -> None:
    server = edited(tars_server(), spec__tars__template="tars.go")
    text, violations = check(server)
    v = assert_one(violations, "TS010", "spec.tars.template", line_of(text, "template: tars.go"))
    assert v.message == "TTemplate tars.go does not exist in namespace tars-dev"


def test_ts010_template_in_another_namespace_does_not_count() -> None:
    other = edited(template("tars.go"), metadata__namespace="other")
    text, violations = check(other, edited(tars_server(), spec__tars__template="tars.go"))
    assert_one(violations, "TS010", "spec.tars.template", line_of(text, "template: tars.go"))


def test_ts010_schema_rejected_template_still_exists() -> None:
    broken = edited(template("tars.go", "tars.default"), spec__extra="x")
    violations = check(broken, edited(tars_server(), spec__tars__template="tars.go"))[1]
    assert only(violations, "TS010") == []
    assert [v.code for v in violations] == ["TT006"]


# --- TS011 / TS012 / TS018: hostPorts ------------------------------------------------------


def test_ts011_unknown_name_ref() -> None:
    server = edited(tars_server(), spec__k8s__hostPorts=[{"nameRef": "Nothing", "port": 3000}])
    text, violations = check(server)
    v = assert_one(
        violations, "TS011", "spec.k8s.hostPorts[0].nameRef", line_of(text, "nameRef: Nothing")
    )
    assert v.message == "nameRef Nothing names no servant or port of this server"


def test_ts011_name_refs_match_case_insensitively() -> None:
    tars = edited(tars_server(), spec__k8s__hostPorts=[{"nameRef": "demotest1obj", "port": 1}])
    normal = edited(normal_server(), spec__k8s__hostPorts=[{"nameRef": "HTTP", "port": 2}])
    assert [v for v in check(tars, normal)[1] if v.is_error] == []


# --- TS024: hostPorts nameRef spelled in another case (warning) ------------------------------


def test_ts024_name_ref_in_another_case_warns_for_servants_and_ports() -> None:
    tars = edited(tars_server(), spec__k8s__hostPorts=[{"nameRef": "demotest1obj", "port": 1}])
    normal = edited(normal_server(), spec__k8s__hostPorts=[{"nameRef": "HTTP", "port": 2}])
    text, violations = check(tars, normal)
    found = only(violations, "TS024")
    assert [(v.name, v.field, v.severity) for v in found] == [
        ("test-demotest", "spec.k8s.hostPorts[0].nameRef", WARNING),
        ("test-web", "spec.k8s.hostPorts[0].nameRef", WARNING),
    ]
    assert found[0].line == line_of(text, "nameRef: demotest1obj")
    assert "write DemoTest1Obj" in found[0].message
    assert "no host port" in found[1].message


def test_ts024_not_reported_under_host_network() -> None:
    tars = edited(
        tars_server(),
        spec__k8s__hostNetwork=True,
        spec__k8s__hostPorts=[{"nameRef": "demotest1obj", "port": 1}],
    )
    assert only(check(tars)[1], "TS024") == []


def test_ts024_exact_case_passes() -> None:
    tars = edited(tars_server(), spec__k8s__hostPorts=[{"nameRef": "DemoTest1Obj", "port": 1}])
    normal = edited(normal_server(), spec__k8s__hostPorts=[{"nameRef": "http", "port": 2}])
    assert check(tars, normal)[1] == []


def test_ts012_duplicate_host_port() -> None:
    server = with_servants(("AObj", 10001), ("BObj", 10002))
    server = edited(
        server,
        spec__k8s__hostPorts=[{"nameRef": "AObj", "port": 3000}, {"nameRef": "BObj", "port": 3000}],
    )
    text, violations = check(server)
    v = assert_one(
        violations, "TS012", "spec.k8s.hostPorts[1].port", line_of(text, "port: 3000", 2)
    )
    assert v.message == "host port 3000 is already used by AObj"


def test_ts012_ts018_distinct_host_ports_pass() -> None:
    server = with_servants(("AObj", 10001), ("BObj", 10002))
    server = edited(
        server,
        spec__k8s__hostPorts=[{"nameRef": "AObj", "port": 3000}, {"nameRef": "BObj", "port": 3001}],
    )
    assert check(server)[1] == []


def test_ts018_duplicate_name_ref_case_insensitive() -> None:
    server = edited(
        tars_server(),
        spec__k8s__hostPorts=[
            {"nameRef": "DemoTest1Obj", "port": 3000},
            {"nameRef": "demotest1obj", "port": 3001},
        ],
    )
    text, violations = check(server)
    assert_one(
        violations, "TS018", "spec.k8s.hostPorts[1].nameRef", line_of(text, "nameRef: demotest1obj")
    )


# --- TS013 / TS015: claim templates --------------------------------------------------------


@pytest.mark.parametrize(
    ("mount", "source"),
    [(local_volume(), "tLocalVolume"), (claim_template(), "persistentVolumeClaimTemplate")],
)
def test_ts013_daemon_set_with_claim_template(mount: dict[str, Any], source: str) -> None:
    server = with_mounts(edited(tars_server(), spec__k8s__daemonSet=True), mount)
    text, violations = check(server)
    assert_one(violations, "TS013", f"spec.k8s.mounts[0].source.{source}", line_of(text, source))


def test_ts013_daemon_set_with_host_path_and_stateful_set_with_claims_pass() -> None:
    daemon = with_mounts(edited(tars_server(), spec__k8s__daemonSet=True), host_path("logs"))
    stateful = with_mounts(tars_server("Test", "Stateful"), local_volume(), claim_template("db"))
    assert check(daemon, stateful)[1] == []


def test_ts015_claim_template_on_normal_server_is_a_warning() -> None:
    text, violations = check(with_mounts(normal_server(), local_volume()))
    assert_one(
        violations,
        "TS015",
        "spec.k8s.mounts[0].source.tLocalVolume",
        line_of(text, "tLocalVolume"),
        WARNING,
    )
    assert [v.code for v in violations] == ["TS015"]


def test_ts015_claim_template_on_tars_server_passes() -> None:
    assert check(with_mounts(tars_server(), claim_template()))[1] == []


# --- TS014: subType and sections -----------------------------------------------------------


def test_ts014_tars_subtype_with_normal_section() -> None:
    server = edited(normal_server(), spec__subType="tars")
    text, violations = check(server)
    v = assert_one(violations, "TS014", "spec.normal", line_of(text, "normal:"))
    assert "use spec.tars.ports" in v.message


def test_ts014_normal_subtype_with_tars_section_is_a_warning() -> None:
    server = edited(tars_server(), spec__subType="normal")
    text, violations = check(server)
    v = assert_one(violations, "TS014", "spec.tars", line_of(text, "  tars:"), WARNING)
    assert "subType normal" in v.message and "without tarsnode" in v.message
    assert [x for x in violations if x.is_error] == []


def test_ts014_tars_subtype_without_tars_section_stays_an_error() -> None:
    server = edited(tars_server(), spec__tars=DROP)
    violations = only(check(server)[1], "TS014")
    assert [(v.field, v.severity) for v in violations] == [("spec.tars", Severity.ERROR)]


def test_ts014_matching_sections_pass() -> None:
    assert only(check(tars_server(), normal_server())[1], "TS014") == []


def test_ts014_section_mismatch_on_plain_values() -> None:
    both = section_mismatch("tars", has_tars=True, has_normal=True)
    assert both is not None and both[0] == ("spec", "normal")
    assert "use spec.tars.ports" in both[1]
    assert section_mismatch("tars", has_tars=False, has_normal=False) == (
        ("spec", "tars"),
        "subType tars needs spec.tars",
    )
    assert section_mismatch("normal", has_tars=False, has_normal=False) == (
        ("spec", "normal"),
        "subType normal needs spec.normal",
    )
    normal_both = section_mismatch("normal", has_tars=True, has_normal=True)
    assert normal_both is not None and normal_both[0] == ("spec", "tars")
    assert section_mismatch("tars", has_tars=True, has_normal=False) is None
    assert section_mismatch("normal", has_tars=False, has_normal=True) is None
    assert section_mismatch("other", has_tars=True, has_normal=True) is None


# --- TS016: names --------------------------------------------------------------------------


def test_ts016_name_is_not_lower_app_dash_server() -> None:
    text, violations = check(edited(tars_server(), metadata__name="demo"))
    v = assert_one(violations, "TS016", "metadata.name", line_of(text, "name: demo"))
    assert v.message == "name demo must be test-demotest (lower(app)-lower(server))"


def test_ts016_name_over_58_characters() -> None:
    server = edited(tars_server("A" * 30, "B" * 30), spec__k8s__abilityAffinity="None")
    text, violations = check(server)
    v = assert_one(violations, "TS016", "metadata.name", line_of(text, "name: " + "a" * 30))
    assert "61 characters, more than 58" in v.message


def test_ts016_stateful_set_name_over_52_characters() -> None:
    server = edited(tars_server("A" * 25, "B" * 28), spec__k8s__abilityAffinity="None")
    text, violations = check(server)
    v = assert_one(violations, "TS016", "metadata.name", line_of(text, "name: " + "a" * 25))
    assert "controller-revision-hash" in v.message


def test_ts016_daemon_set_name_up_to_58_and_stateful_set_up_to_52_pass() -> None:
    daemon = edited(tars_server("A" * 25, "B" * 32), spec__k8s__daemonSet=True)
    stateful = edited(tars_server("C" * 25, "D" * 26), spec__k8s__abilityAffinity="None")
    assert len(daemon["metadata"]["name"]) == 58 and len(stateful["metadata"]["name"]) == 52
    assert check(daemon, stateful)[1] == []


def test_ts016_ability_label_key_over_63_characters() -> None:
    # "ability.tars-dev." (17) + 20 + "-" + 26 = 64 characters after "tars.io/"
    server = tars_server("A" * 20, "B" * 26)
    text, violations = check(server)
    v = assert_one(violations, "TS016", "spec.k8s.abilityAffinity", line_of(text, "k8s:", 1))
    assert f"tars.io/ability.tars-dev.{'A' * 20}-{'B' * 26}" in v.message
    assert "64 characters" in v.message


@pytest.mark.parametrize("affinity", ["ServerRequired", "AppOrServerPreferred"])
def test_ts016_server_ability_key_is_checked_when_used(affinity: str) -> None:
    server = edited(tars_server("A" * 20, "B" * 26), spec__k8s__abilityAffinity=affinity)
    text, violations = check(server)
    line = line_of(text, f"abilityAffinity: {affinity}")
    assert_one(violations, "TS016", "spec.k8s.abilityAffinity", line)


def test_ts016_app_ability_key_over_63_characters() -> None:
    server = edited(tars_server("A" * 47, "B"), spec__k8s__abilityAffinity="AppRequired")
    text, violations = check(server)
    v = assert_one(
        violations, "TS016", "spec.k8s.abilityAffinity", line_of(text, "abilityAffinity")
    )
    assert f"tars.io/ability.tars-dev.{'A' * 47} " in v.message


def test_ts016_ability_keys_pass_when_unused_or_at_63() -> None:
    app_only = edited(tars_server("A" * 20, "B" * 26), spec__k8s__abilityAffinity="AppRequired")
    daemon = edited(tars_server("C" * 20, "D" * 26), spec__k8s__daemonSet=True)
    at_limit = tars_server("E" * 20, "F" * 25)
    assert check(app_only, daemon, at_limit)[1] == []


def test_ts016_mount_name_is_not_a_dns_label() -> None:
    text, violations = check(with_mounts(tars_server(), host_path("Logs")))
    v = assert_one(violations, "TS016", "spec.k8s.mounts[0].name", line_of(text, "name: Logs"))
    assert "DNS-1123" in v.message


@pytest.mark.parametrize("name", ["host-timezone", "tarsnode-work-dir", "delay-bind"])
def test_ts016_reserved_mount_name(name: str) -> None:
    text, violations = check(with_mounts(tars_server(hostIPC=True), host_path(name)))
    v = assert_one(violations, "TS016", "spec.k8s.mounts[0].name", line_of(text, f"name: {name}"))
    assert "reserved" in v.message


def test_ts016_names_and_paths_of_volumes_the_server_does_not_get_are_free() -> None:
    # a normal server has no tarsnode work dir; no host binding means no delay-bind template
    mounts = [
        host_path("tarsnode-work-dir", "/usr/local/app/tars/tarsnode"),
        host_path("delay-bind", "/bind"),
    ]
    assert check(with_mounts(normal_server(), *mounts))[1] == []


def test_ts016_container_port_names_collide_after_the_p_port_fallback() -> None:
    server = with_servants(
        ("VeryLongServantNameObj", 10000), ports=[{"name": "p10000", "port": 10002}]
    )
    text, violations = check(server)
    v = assert_one(violations, "TS016", "spec.tars.ports[0].name", line_of(text, "name: p10000"))
    assert v.message == (
        "port p10000 becomes container port p10000, which servant VeryLongServantNameObj already is"
    )


@pytest.mark.parametrize(
    "path", ["/etc/localtime", "/usr/local/app/tars/tarsnode", "/usr/local/app/tars/tarsnode/"]
)
def test_ts016_reserved_mount_path(path: str) -> None:
    text, violations = check(with_mounts(tars_server(), host_path("logs", path)))
    line = line_of(text, f"mountPath: {path}")
    assert_one(violations, "TS016", "spec.k8s.mounts[0].mountPath", line)


def test_ts016_duplicate_mount_path() -> None:
    server = with_mounts(tars_server(), host_path("a", "/data"), host_path("b", "/data/"))
    text, violations = check(server)
    v = assert_one(
        violations, "TS016", "spec.k8s.mounts[1].mountPath", line_of(text, "mountPath: /data/")
    )
    assert v.message == "mountPath /data/ is already used by mount a"


def test_ts016_valid_mounts_pass() -> None:
    server = with_mounts(
        tars_server(), host_path("app-log", "/usr/local/app/tars/app_log"), host_path("b", "/b")
    )
    assert check(server)[1] == []


@pytest.mark.parametrize("name", ["8080", "a--b"])
def test_ts016_port_name_is_not_an_iana_service_name(name: str) -> None:
    normal = edited(normal_server(), spec__normal__ports=[{"name": name, "port": 80}])
    text, violations = check(normal)
    v = assert_one(violations, "TS016", "spec.normal.ports[0].name", line_of(text, name))
    assert "port name" in v.message


def test_ts016_tars_port_name_checked_too() -> None:
    server = with_servants(("DemoTest1Obj", 10001), ports=[{"name": "x--y", "port": 2}])
    text, violations = check(server)
    assert_one(violations, "TS016", "spec.tars.ports[0].name", line_of(text, "name: x--y"))


def test_ts016_servant_names_are_not_port_names() -> None:
    # servants become p<port> container ports when their lowercase name is too long
    assert check(with_servants(("AVeryLongServantNameObj", 10001)))[1] == []


def test_is_port_name() -> None:
    assert is_port_name("http") and is_port_name("h2c-9") and is_port_name("a" * 15)
    for bad in ["", "8080", "a--b", "-a", "a-", "Http", "a" * 16, "a_b"]:
        assert not is_port_name(bad), bad


# --- TS017: same object name ---------------------------------------------------------------


def test_ts017_two_servers_with_the_same_object_name() -> None:
    first = tars_server()
    second = edited(tars_server("TEST", "demotest"), spec__k8s__replicas=2)
    text, violations = check(first, second)
    v = assert_one(violations, "TS017", "metadata.name", line_of(text, "name: test-demotest", 2))
    assert v.message == (
        "object name test-demotest is already used by TServer test-demotest "
        "(app Test, server DemoTest)"
    )


def test_ts017_same_metadata_name_with_other_app() -> None:
    second = edited(tars_server("Other", "DemoTest"), metadata__name="test-demotest")
    text, violations = check(tars_server(), second)
    line = line_of(text, "name: test-demotest", 2)
    assert_one(violations, "TS017", "metadata.name", line)
    assert [v.code for v in violations] == ["TS016", "TS017"]


def test_ts017_same_name_in_other_namespace_passes() -> None:
    other = edited(tars_server(), metadata__namespace="other")
    docs = [*base_docs(), tars_server()]
    docs += [edited(d, metadata__namespace="other") for d in base_docs()] + [other]
    assert validate(load(render(*docs))) == []


# --- TS019: replica annotations ------------------------------------------------------------


@pytest.mark.parametrize("value", ["100", "05", "-1", "x", "", "5\n"])
def test_ts019_malformed_max_replicas(value: str) -> None:
    server = edited(tars_server(), metadata__annotations={"tars.io/MaxReplicas": value})
    text, violations = check(server)
    v = assert_one(
        violations,
        "TS019",
        'metadata.annotations["tars.io/MaxReplicas"]',
        line_of(text, "tars.io/MaxReplicas"),
    )
    assert repr(value) in v.message


def test_ts019_min_greater_than_max() -> None:
    annotations = {"tars.io/MaxReplicas": "3", "tars.io/MinReplicas": "5"}
    text, violations = check(edited(tars_server(), metadata__annotations=annotations))
    v = assert_one(
        violations,
        "TS019",
        'metadata.annotations["tars.io/MinReplicas"]',
        line_of(text, "tars.io/MinReplicas"),
    )
    assert v.message == "MinReplicas 5 is greater than MaxReplicas 3"


@pytest.mark.parametrize(("low", "high"), [("0", "99"), ("7", "7"), ("1", None), (None, "9")])
def test_ts019_valid_bounds_pass(low: str | None, high: str | None) -> None:
    pairs = {"tars.io/MinReplicas": low, "tars.io/MaxReplicas": high}
    annotations = {k: v for k, v in pairs.items() if v is not None}
    assert check(edited(tars_server(), metadata__annotations=annotations))[1] == []


# --- TS020: default node image -------------------------------------------------------------


def _without_framework(*servers: dict) -> tuple[str, list]:
    text = render(template("tars.default"), template("tars.cpp", "tars.default"), *servers)
    return text, validate(load(text))


def test_ts020_released_tars_server_without_node_image_or_framework() -> None:
    text, violations = _without_framework(tars_server())
    v = assert_one(violations, "TS020", "spec.release.nodeImage", line_of(text, "release:"))
    assert "tars-framework" in v.message


def test_ts020_framework_config_with_other_name_does_not_count() -> None:
    text, violations = _without_framework(framework("tars-framework-2"), tars_server())
    assert_one(violations, "TS020", "spec.release.nodeImage", line_of(text, "release:"))


def test_ts020_empty_node_image_is_not_an_image() -> None:
    server = edited(tars_server(), spec__release__nodeImage="")
    text, violations = _without_framework(server)
    assert_one(violations, "TS020", "spec.release.nodeImage", line_of(text, "nodeImage: ''"))


def test_ts020_passes_with_node_image_or_without_release_or_for_normal_servers() -> None:
    with_image = edited(tars_server(), spec__release__nodeImage="registry.local/node:v1")
    unreleased = edited(tars_server("Test", "Later"), spec__release=DROP)
    _, violations = _without_framework(with_image, unreleased, normal_server())
    assert violations == []


def test_ts020_deferred_node_image_counts_as_set() -> None:
    raw = tars_server()
    raw["metadata"]["namespace"] = NS
    raw["spec"]["release"] = {
        "id": pulumi.Output.from_input("v1"),
        "image": pulumi.Output.from_input("registry.local/img:v1"),
        "nodeImage": pulumi.Output.from_input("registry.local/node:v1"),
    }
    server = parse_document(raw, NS)
    assert isinstance(server, TServerDocument) and server.spec.release is not None
    templates = [parse_document(t, NS) for t in base_docs()[1:]]
    stack = DocumentSet.of([*templates, server], namespace=NS)
    assert validate(stack) == [] == validate(mutate(stack))
    release = server.spec.release.model_copy(update={"node_image": None})
    no_node = server.model_copy(
        update={"spec": server.spec.model_copy(update={"release": release})}
    )
    found = validate(DocumentSet.of([*templates, no_node], namespace=NS))
    assert [(v.code, v.field, v.file, v.line) for v in found] == [
        ("TS020", "spec.release.nodeImage", None, None)
    ]


# --- TS023: daemonSet without release ------------------------------------------------------


def test_ts023_daemon_set_without_release_is_a_warning() -> None:
    server = edited(tars_server(), spec__k8s__daemonSet=True, spec__release=DROP)
    text, violations = check(server)
    v = assert_one(
        violations, "TS023", "spec.k8s.daemonSet", line_of(text, "daemonSet: true"), WARNING
    )
    assert v.file == FILE
    assert [x.code for x in violations] == ["TS023"]


def test_ts023_released_daemon_set_and_unreleased_stateful_set_pass() -> None:
    daemon = edited(tars_server(), spec__k8s__daemonSet=True)
    stateful = edited(tars_server("Test", "Later"), spec__release=DROP)
    assert check(daemon, stateful)[1] == []


@pytest.mark.parametrize(
    ("requirement", "problem"),
    [
        ({"key": "zone", "operator": "In"}, "operator In needs at least one value"),
        ({"key": "zone", "operator": "NotIn", "values": []}, "operator NotIn needs at least"),
        ({"key": "ssd", "operator": "Exists", "values": ["x"]}, "operator Exists takes no values"),
        ({"key": "cpu", "operator": "Gt", "values": ["x"]}, "needs exactly one integer value"),
        ({"key": "cpu", "operator": "Lt", "values": ["1", "2"]}, "needs exactly one integer"),
        ({"key": "Version", "operator": "Lt", "values": ["v1"]}, "needs exactly one integer"),
        ({"key": "cpu", "operator": "Gt", "values": ["1_000"]}, "needs exactly one integer"),
        ({"key": "cpu", "operator": "Gt", "values": [str(2**63)]}, "needs exactly one integer"),
    ],
)
def test_ts016_node_selector_values_per_operator(requirement: dict, problem: str) -> None:
    text, violations = check(tars_server(nodeSelector=[requirement]))
    line = line_of(text, "values:") if "values" in requirement else line_of(text, "- key:")
    v = assert_one(violations, "TS016", "spec.k8s.nodeSelector[0].values", line)
    assert problem in v.message


def test_ts016_valid_node_selectors_pass() -> None:
    selectors = [
        {"key": "zone", "operator": "In", "values": ["a"]},
        {"key": "ssd", "operator": "DoesNotExist"},
        {"key": "cpu", "operator": "Gt", "values": ["4"]},
        {"key": "cpu", "operator": "Lt", "values": ["9223372036854775807"]},
    ]
    assert check(tars_server(nodeSelector=selectors))[1] == []


def test_ts016_sub_path_and_sub_path_expr_together() -> None:
    mount = {**host_path("logs"), "subPath": "a", "subPathExpr": "$(PodName)"}
    text, violations = check(with_mounts(tars_server(), mount))
    line = line_of(text, "subPathExpr:")
    assert_one(violations, "TS016", "spec.k8s.mounts[0].subPathExpr", line)


def test_ts016_bidirectional_mount_propagation() -> None:
    mount = {**host_path("logs"), "mountPropagation": "Bidirectional"}
    text, violations = check(with_mounts(tars_server(), mount))
    line = line_of(text, "mountPropagation:")
    v = assert_one(violations, "TS016", "spec.k8s.mounts[0].mountPropagation", line)
    assert "privileged" in v.message
    ok = {**host_path("logs"), "mountPropagation": "HostToContainer"}
    assert check(with_mounts(tars_server(), ok))[1] == []


def test_ts016_namespace_too_long_for_the_node_label() -> None:
    from tars_components.loading.load import load_texts

    namespace = "n" * 59
    stack = load_texts({"s.yaml": render(template("tars.cpp"), tars_server())}, namespace)
    [v] = [v for v in validate(stack) if v.field == "metadata.namespace"]
    assert v.code == "TS016"
    assert "tars.io/node." in v.message
    fits = load_texts({"s.yaml": render(template("tars.cpp"), tars_server())}, "n" * 58)
    assert [v for v in validate(fits) if v.field == "metadata.namespace"] == []


def test_a_field_the_crd_misspells_as_require_says_what_happens_in_the_cluster() -> None:
    """v1.4.1's CRD lists a mount's and a node selector's required fields under `require:`,
    so the API server admits the TServer; the message says the StatefulSet fails instead."""
    mount = host_path("logs")
    del mount["mountPath"]
    _, violations = check(with_mounts(tars_server(), mount))
    (v,) = [v for v in violations if v.is_error]
    assert (v.code, v.field) == ("TS021", "spec.k8s.mounts[0].mountPath")
    assert "`require:`" in v.message and "StatefulSet is then refused" in v.message
    _, violations = check(tars_server(nodeSelector=[{"operator": "Exists"}]))
    (v,) = [v for v in violations if v.is_error]
    assert v.field == "spec.k8s.nodeSelector[0].key" and "`require:`" in v.message
    server = tars_server()
    del server["spec"]["tars"]["servants"][0]["port"]  # really required: no note
    _, violations = check(server)
    (v,) = [v for v in violations if v.is_error]
    assert v.message == "required field is missing"
