"""The framework install (``tarsframework`` chart) built natively, compared with helm's output.

Golden files: tests/data/platform/framework-*.helm.yaml (see the README there). Our objects
must be helm's, object for object and field for field, except the chart bugs the issue names
(each has its own test here) and the mutating webhook's additions to the TarsK8S documents.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from support.assertions.platform import NAMESPACE, by_key, helm_objects, is_subset, values_text

from tars_components.fileio.yaml_writer import dump
from tars_components.kernel.errors import UsageError
from tars_components.loading.load import load_texts
from tars_components.platform import FrameworkValues, build_framework, parse_values
from tars_components.platform.framework import TARSWEB
from tars_components.rules import validate

CASES = ("framework-minimal", "framework-full")
REMOVED_TARSWEB_RESOURCES = {"tdeploys", "treleases", "tgateways"}
WEBHOOK_LABELS = {"tars.io/ServerName", "tars.io/Template", "tars.io/ServerID"}


def ours(case: str, namespace: str = NAMESPACE) -> list[dict[str, Any]]:
    values = parse_values(values_text(case), FrameworkValues, f"{case}.values.yaml")
    result = build_framework(values, namespace)
    assert result.ok, [v.format() for v in result.violations]
    return result.objects


def values(case: str) -> FrameworkValues:
    return parse_values(values_text(case), FrameworkValues)


@pytest.mark.parametrize("case", CASES)
def test_same_objects_as_helm(case: str) -> None:
    """Kind, namespace and name of every object equal helm's (63 objects)."""
    helm, built = by_key(helm_objects(case)), by_key(ours(case))
    assert sorted(built) == sorted(helm)
    assert len(built) == 63


@pytest.mark.parametrize("case", CASES)
def test_tarsk8s_objects_equal_helm_apart_from_fixes(case: str) -> None:
    """TImage, TTree, TTemplate, TFrameworkConfig: helm's documents exactly, plus only the
    webhook's ``tars.io/Parent`` label on templates and the TImage pull-secret fix."""
    helm, built = by_key(helm_objects(case)), by_key(ours(case))
    secret = values(case).framework.secret
    for k, expected in helm.items():
        if k[0] not in ("TImage", "TTree", "TTemplate", "TFrameworkConfig"):
            continue
        actual = copy.deepcopy(built[k])
        if k[0] == "TTemplate" and k[2] != "tars.default":
            assert actual["metadata"]["labels"].pop("tars.io/Parent") == "tars.default"
            if not actual["metadata"]["labels"]:
                del actual["metadata"]["labels"]
        if k[0] == "TImage" and k[2] in ("tars-tarsstat", "tars-tarsweb") and secret:
            assert "secret" not in expected["releases"][0]  # the chart bug
            expected = copy.deepcopy(expected)
            expected["releases"][0]["secret"] = secret
        assert actual == expected, k


@pytest.mark.parametrize("case", CASES)
def test_tservers_are_helms_plus_webhook_defaults(case: str) -> None:
    """Every field helm writes is ours too (the webhook only adds defaults), release ids are
    the tag as a string, and the labels the webhook rewrites follow the spec."""
    helm, built = by_key(helm_objects(case)), by_key(ours(case))
    tag = values(case).framework.tag
    servers = [k for k in helm if k[0] == "TServer"]
    assert len(servers) == 13
    for k in servers:
        expected, actual = copy.deepcopy(helm[k]), built[k]
        assert actual["spec"]["release"]["id"] == tag
        expected["spec"]["release"]["id"] = tag  # the chart leaves some unquoted (a bug)
        if k[2] == "tars-tarslog":
            expected["spec"]["tars"]["profile"] = actual["spec"]["tars"]["profile"]  # bug fix
        labels = expected["metadata"].pop("labels")
        assert is_subset(expected, actual) == [], k
        actual_labels = actual["metadata"]["labels"]
        for name, value in labels.items():
            if name not in WEBHOOK_LABELS:
                assert actual_labels[name] == value, (k, name)
        assert actual_labels["tars.io/ServerName"] == actual["spec"]["server"]
        if "tars" in actual["spec"]:
            assert actual_labels["tars.io/Template"] == actual["spec"]["tars"]["template"]


def test_framework_documents_pass_the_rules_like_a_stack() -> None:
    """The emitted TServers/TTemplates/TFrameworkConfig load and validate as a user's stack
    would: no errors, only the chart's own TLV-on-normal-server warning."""
    objects = [o for o in ours("framework-full") if o["kind"] != "TImage" and o["kind"] != "TTree"]
    tarsk8s = [o for o in objects if o["apiVersion"].startswith("k8s.tars.io/")]
    stack = load_texts({"framework.yaml": "---\n".join(dump(o) for o in tarsk8s)}, NAMESPACE)
    found = validate(stack)
    assert [(v.code, v.name) for v in found] == [("TS015", "tars-elasticsearch")]


@pytest.mark.parametrize("case", CASES)
def test_kubernetes_objects_equal_helm_apart_from_fixes(case: str) -> None:
    """ServiceAccounts, Roles, bindings: helm's, with the subject namespace and tarsweb fixes."""
    helm, built = by_key(helm_objects(case)), by_key(ours(case))
    for k, expected in helm.items():
        if k[0] not in (
            "ServiceAccount",
            "Role",
            "RoleBinding",
            "ClusterRole",
            "ClusterRoleBinding",
        ):
            continue
        expected = copy.deepcopy(expected)
        for subject in expected.get("subjects", []):
            subject.setdefault("namespace", NAMESPACE)
        if k == ("Role", NAMESPACE, TARSWEB):
            for rule in expected["rules"]:
                rule["resources"] = [
                    r for r in rule["resources"] if r not in REMOVED_TARSWEB_RESOURCES
                ]
        assert built[k] == expected, k


def test_tarsweb_role_names_real_resources_only() -> None:
    """Chart bug: the tarsweb Role granted the removed tdeploys/treleases/tgateways."""
    role = by_key(ours("framework-minimal"))[("Role", NAMESPACE, TARSWEB)]
    granted = {r for rule in role["rules"] for r in rule["resources"]}
    assert not granted & REMOVED_TARSWEB_RESOURCES
    helm_role = by_key(helm_objects("framework-minimal"))[("Role", NAMESPACE, TARSWEB)]
    assert {r for rule in helm_role["rules"] for r in rule["resources"]} & REMOVED_TARSWEB_RESOURCES
    assert "tframeworkkey" in granted  # TFrameworkKey's plural really is tframeworkkey


def test_every_subject_and_the_ingress_carry_the_namespace() -> None:
    """Chart bug: tarsregistry's RoleBinding subject and the Ingress had no namespace."""
    built = ours("framework-minimal", "tars-other")
    for obj in built:
        for subject in obj.get("subjects", []):
            assert subject["namespace"] == "tars-other", obj["metadata"]["name"]
    [ingress] = [o for o in built if o["kind"] == "Ingress"]
    assert ingress["metadata"]["namespace"] == "tars-other"


def test_no_null_host_when_web_is_empty() -> None:
    """Chart bug: ``host: null``. Empty ``web``: the rule has no host (every host)."""
    [helm_ingress] = [o for o in helm_objects("framework-minimal") if o["kind"] == "Ingress"]
    assert helm_ingress["spec"]["rules"][0]["host"] is None
    [minimal] = [o for o in ours("framework-minimal") if o["kind"] == "Ingress"]
    assert "host" not in minimal["spec"]["rules"][0]
    assert "host: null" not in dump(minimal)
    [full] = [o for o in ours("framework-full") if o["kind"] == "Ingress"]
    assert full["spec"]["rules"][0]["host"] == "web.tars.example.com"
    [helm_full] = [o for o in helm_objects("framework-full") if o["kind"] == "Ingress"]
    assert full["spec"] == helm_full["spec"]
    assert full["metadata"]["annotations"] == helm_full["metadata"]["annotations"]


def test_tarslog_profile_lists_the_elk_nodes() -> None:
    """Chart bug: tarslog's profile hard-coded tars-elasticsearch:9200."""
    tarslog = by_key(ours("framework-full"))[("TServer", NAMESPACE, "tars-tarslog")]
    profile = tarslog["spec"]["tars"]["profile"]
    nodes = profile.split("<nodes>\n")[1].split("</nodes>")[0].splitlines()
    assert [n.strip() for n in nodes if n.strip() and not n.strip().startswith("#")] == [
        "es-0.es:9200",
        "es-1.es:9200",
    ]
    assert "tars-elasticsearch" not in profile
    helm_log = by_key(helm_objects("framework-full"))[("TServer", NAMESPACE, "tars-tarslog")]
    assert profile.replace("      es-0.es:9200\n      es-1.es:9200\n", "") == helm_log["spec"][
        "tars"
    ]["profile"].replace("      tars-elasticsearch:9200\n", "")


def test_tars_es_template_lists_the_elk_nodes_like_the_chart() -> None:
    helm = by_key(helm_objects("framework-full"))[("TTemplate", NAMESPACE, "tars.es")]
    built = by_key(ours("framework-full"))[("TTemplate", NAMESPACE, "tars.es")]
    assert built["spec"]["content"] == helm["spec"]["content"]
    assert "es-1.es:9200" in built["spec"]["content"]


def test_release_ids_are_strings_whatever_the_tag() -> None:
    """Chart bug: three TServers wrote ``id: 1.10`` unquoted, i.e. the number 1.1."""
    helm = [o for o in helm_objects("framework-full") if o["kind"] == "TServer"]
    assert any(o["spec"]["release"]["id"] == 1.1 for o in helm)
    for obj in ours("framework-full"):
        for release in [obj.get("spec", {}).get("release"), *obj.get("releases", [])]:
            if release:
                assert isinstance(release["id"], str)
                assert "1.10" in release["id"]


def test_stat_and_web_images_get_the_pull_secret() -> None:
    """Chart bug: tars-tarsstat and tars-tarsweb TImages lacked framework.secret."""
    images = [o for o in ours("framework-full") if o["kind"] == "TImage"]
    assert len(images) == 18
    for image in images:
        assert image["releases"][0]["secret"] == "tars-image-secret", image["metadata"]["name"]
    helm_images = by_key(helm_objects("framework-full"))
    assert "secret" not in helm_images[("TImage", NAMESPACE, "tars-tarsstat")]["releases"][0]


def test_partial_values_take_the_chart_defaults() -> None:
    minimal = values("framework-minimal")
    assert minimal.framework.secret == ""
    assert minimal.upload.secret == ""
    assert minimal.web == ""
    assert minimal.elk.nodes == ("tars-elasticsearch:9200",)


def test_published_values_placeholders_are_refused() -> None:
    with pytest.raises(UsageError) as caught:
        parse_values(values_text("framework-published"), FrameworkValues, "values.yaml")
    message = str(caught.value)
    assert "values.yaml:2: framework.registry: '_FRAMEWORK_REGISTRY_' is a placeholder" in message
    assert "values.yaml:3: framework.tag: '_FRAMEWORK_TAG_' is a placeholder" in message
    assert "values.yaml:7: upload.registry: must not be empty" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("framework: {registry: r, tag: v1}\n", "upload: required"),
        (
            "framework: {registry: r, tag: v1}\nupload: {registry: ''}\n",
            "upload.registry: must not be empty",
        ),
        (
            "framework: {registry: r, tag: 1.10}\nupload: {registry: u}\n",
            "framework.tag: must be a string",
        ),
        ("framework: {registry: 'a b', tag: v}\nupload: {registry: u}\n", "schema pattern"),
        (
            "framework: {registry: r, tag: v, secret: Bad_Name}\nupload: {registry: u}\n",
            "framework.secret",
        ),
        ("- a list\n", "a values file is a mapping"),
        ("framework: [\n", "invalid YAML"),
    ],
)
def test_bad_values_are_refused_clearly(text: str, expected: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_values(text, FrameworkValues, "v.yaml")
    assert expected in str(caught.value)
    assert "v.yaml:" in str(caught.value)


def test_same_values_same_objects() -> None:
    assert dump(ours("framework-full")) == dump(ours("framework-full"))


def _crd_schemas() -> dict[str, dict[str, Any]]:
    from tars_components.platform.controller_crds import CRD_KINDS, _crd_template

    schemas = {}
    for kind in CRD_KINDS:
        crd = _crd_template(kind)
        [v1beta3] = [v for v in crd["spec"]["versions"] if v["name"] == "v1beta3"]
        schemas[kind] = _python_patterns(v1beta3["schema"]["openAPIV3Schema"])
    return schemas


def _python_patterns(schema: Any) -> Any:
    """The schema with Go's ``\\p{Han}`` (unknown to Python's re) as the CJK block."""
    if isinstance(schema, dict):
        return {
            k: v.replace("\\p{Han}", "\u4e00-\u9fff") if k == "pattern" else _python_patterns(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_python_patterns(v) for v in schema]
    return schema


@pytest.mark.parametrize("case", CASES)
def test_tarsk8s_objects_match_their_crd_schema(case: str) -> None:
    """Every TarsK8S object (TImages and the TTree included, written as plain dicts) is valid
    for the v1beta3 schema of its CRD as the controller chart installs it."""
    import jsonschema

    schemas = _crd_schemas()
    checked = 0
    for obj in ours(case):
        if obj["apiVersion"] != "k8s.tars.io/v1beta3":
            continue
        body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        jsonschema.Draft7Validator(schemas[obj["kind"]]).validate(body)
        checked += 1
    assert checked == 1 + 6 + 1 + 18 + 13


def test_nulls_mean_empty_as_in_helm() -> None:
    """helm treats ``secret: null``, ``web: null`` and ``elk.nodes: null`` as unset."""
    text = (
        "framework: {registry: r, tag: v, secret: null}\n"
        "upload: {registry: u, secret: null}\nweb: null\nelk: {nodes: null}\n"
    )
    parsed = parse_values(text, FrameworkValues)
    assert (parsed.framework.secret, parsed.upload.secret, parsed.web) == ("", "", "")
    assert parsed.elk.nodes == ()
    es = by_key(build_framework(parsed, NAMESPACE).objects)[("TTemplate", NAMESPACE, "tars.es")]
    assert "    <nodes>\n    </nodes>\n" in es["spec"]["content"]


@pytest.mark.parametrize(
    "tag", ["1.10", "007", "true", "null", "1e3", "0x1f", "1.0-rc.1", "2023-01-02", "v1.4.1"]
)
def test_any_tag_stays_a_string_in_the_written_yaml(tag: str) -> None:
    """Release ids survive YAML as the tag string, however YAML-ish the tag looks."""
    import yaml

    parsed = parse_values(
        f"framework: {{registry: r, tag: {tag!r}}}\nupload: {{registry: u}}\n".replace("'", '"'),
        FrameworkValues,
    )
    assert parsed.framework.tag == tag
    for obj in build_framework(parsed, NAMESPACE).objects:
        back = yaml.safe_load(dump(obj))
        releases = [back.get("spec", {}).get("release"), *back.get("releases", [])]
        for release in filter(None, releases):
            assert isinstance(release["id"], str) and tag in release["id"], obj["metadata"]


def test_values_the_crds_reject_are_a_clear_usage_error() -> None:
    """TarsK8S image patterns allow lowercase only: an uppercase tag is refused with the field."""
    parsed = parse_values(
        "framework: {registry: r, tag: V1}\nupload: {registry: u}\n", FrameworkValues
    )
    with pytest.raises(UsageError, match=r"nodeImage\.image: 'r/tars\.tarsnode:V1' is not valid"):
        build_framework(parsed, NAMESPACE)
