"""The loader: typed documents, namespace defaulting, live-cluster fields, and bad input."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.builders.documents import NAMESPACE, stack_text, tars_server

from tars_components.kernel.errors import LoadError
from tars_components.loading.load import load_stack, load_texts
from tars_components.models import TServerDocument

ROOT = Path(__file__).resolve().parents[2]


def _text(body: str) -> str:
    return textwrap.dedent(body).lstrip()


def test_loads_both_served_versions_and_round_trips() -> None:
    v2 = tars_server(api_version="k8s.tars.io/v1beta2", readinessGate="tars.io/active")
    v3 = tars_server(server="Other", readinessGates=["tars.io/active"], command=["/x"])
    stack = load_texts({"s.yaml": stack_text(v2, v3)}, NAMESPACE)
    assert not stack.violations
    assert [s.api_version for s in stack.servers] == ["k8s.tars.io/v1beta2", "k8s.tars.io/v1beta3"]
    again = TServerDocument.model_validate(stack.servers[1].to_dict())
    assert again.to_dict() == stack.servers[1].to_dict()


def test_crd_defaults_are_applied() -> None:
    server = load_texts({"s.yaml": stack_text(tars_server())}, NAMESPACE).servers[0]
    k8s, servant = server.spec.k8s, server.spec.tars.servants[0]
    assert (servant.thread, servant.connection, servant.capacity, servant.timeout) == (
        3,
        10000,
        10000,
        60000,
    )
    assert servant.is_tars and servant.is_tcp
    assert server.spec.important == 3 and server.spec.tars.async_thread == 3
    assert k8s.ability_affinity == "AppOrServerPreferred"
    assert k8s.pod_management_policy == "Parallel"
    assert k8s.image_pull_policy == "Always" and k8s.launcher_type == "background"
    assert k8s.update_strategy.type == "RollingUpdate"
    assert k8s.update_strategy.rolling_update.partition == 0
    doc = tars_server()
    del doc["spec"]["k8s"]["replicas"]
    assert load_texts({"s.yaml": stack_text(doc)}).servers[0].spec.k8s.replicas == 0


def test_namespace_defaulting() -> None:
    own = tars_server()
    no_ns = tars_server(server="NoNs")
    del no_ns["metadata"]["namespace"]
    text = stack_text(own, no_ns)
    assert [s.namespace for s in load_texts({"s.yaml": text}, "stack-ns").servers] == [
        NAMESPACE,
        "stack-ns",
    ]
    assert [s.namespace for s in load_texts({"s.yaml": text}).servers] == [NAMESPACE, "default"]


def test_live_cluster_fields_are_ignored() -> None:
    doc = tars_server()
    doc["metadata"].update(
        uid="1b0624bc",
        resourceVersion="15465766",
        generation=3,
        creationTimestamp="2022-01-17T02:22:19Z",
        managedFields=[{"manager": "kubectl"}],
        ownerReferences=[{"apiVersion": "v1", "kind": "X", "name": "x", "uid": "u"}],
        annotations={"kubectl.kubernetes.io/last-applied-configuration": "{}"},
    )
    doc["status"] = {"replicas": 1, "selector": "x"}
    stack = load_texts({"s.yaml": stack_text(doc)}, NAMESPACE)
    assert not stack.violations
    assert stack.servers[0].annotations == {}


def test_files_are_loaded_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "b.yml").write_text(stack_text(tars_server(server="B")))
    (tmp_path / "a.yaml").write_text(stack_text(tars_server(server="A")))
    (tmp_path / "notes.txt").write_text("ignored")
    assert [s.spec.server for s in load_stack(tmp_path).servers] == ["A", "B"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "apiVersion: k8s.tars.io/v1beta3\nkind: TServer\nmetadata: {name: [x\n",
            4,
            "while parsing a flow sequence at line 3",
        ),
        ("---\n- a\n- b\n", 2, "document is a list"),
        (
            "apiVersion: k8s.tars.io/v1beta1\nkind: TServer\n",
            1,
            "k8s.tars.io/v1beta1 is no longer served by TarsK8S >= 1.4.0",
        ),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", 1, "ConfigMap without metadata.name"),
        ("a: 1\n---\napiVersion: k8s.tars.io/v1beta3\nkind: TRelease\n", 1, "unknown apiVersion"),
        (
            "apiVersion: k8s.tars.io/v1beta3\nkind: TServer\n---\n\n"
            "apiVersion: k8s.tars.io/v1beta3\nkind: TRelease\n",
            5,
            "unknown kind 'TRelease'",
        ),
    ],
)
def test_unreadable_input_is_a_load_error_with_file_and_line(
    text: str, line: int, message: str
) -> None:
    with pytest.raises(LoadError) as caught:
        load_texts({"bad.yaml": text})
    problem = caught.value.problems[0]
    assert (problem.file, problem.line) == ("bad.yaml", line)
    assert message in problem.message


def test_every_problem_of_every_file_is_reported() -> None:
    with pytest.raises(LoadError) as caught:
        load_texts({"a.yaml": "- 1\n", "b.yaml": "x: [\n"})
    assert [p.file for p in caught.value.problems] == ["a.yaml", "b.yaml"]


SCHEMA_CASES = [
    ("spec:\n  foo: 1\n", "spec.foo", "unknown field"),
    ('spec:\n  k8s:\n    replicas: "2"\n', "spec.k8s.replicas", "must be an integer"),
    ("spec:\n  k8s:\n    replicas: 100\n", "spec.k8s.replicas", "above the maximum 99"),
    ("spec:\n  k8s:\n    abilityAffinity: Sometimes\n", "spec.k8s.abilityAffinity", "'Sometimes'"),
    ("spec:\n  release:\n    id: v1\n    image: Repo/Image:1\n", "spec.release.image", "lowercase"),
    ("spec:\n  release:\n    id: v1\n", "spec.release.image", "required field is missing"),
    (
        "spec:\n  k8s:\n    readinessGate: tars.io/active\n",
        "spec.k8s.readinessGate",
        "unknown field",
    ),
]


@pytest.mark.parametrize(("patch", "field", "message"), SCHEMA_CASES)
def test_schema_errors_are_ts021_violations_with_field_and_line(
    patch: str, field: str, message: str
) -> None:
    base = (
        "apiVersion: k8s.tars.io/v1beta3\nkind: TServer\nmetadata:\n  name: test-demotest\n"
        "spec:\n  app: Test\n  server: DemoTest\n  subType: normal\n  normal:\n    ports: []\n"
        "  k8s:\n    replicas: 1\n"
    )
    merged = _merge_yaml(base, patch)
    stack = load_texts({"s.yaml": merged}, NAMESPACE)
    [violation] = [v for v in stack.violations if v.field == field]
    assert violation.code == "TS021"
    assert message in violation.message
    assert violation.file == "s.yaml"
    assert (
        merged.splitlines()[violation.line - 1].strip().startswith(field.split(".")[-1] + ":")
        or field.split(".")[-1] not in merged
    )
    assert stack.servers == []
    assert [r.name for r in stack.rejected] == ["test-demotest"]


def _merge_yaml(base: str, patch: str) -> str:
    import yaml

    doc = yaml.safe_load(base)

    def merge(a: dict, b: dict) -> None:
        for k, v in b.items():
            if isinstance(v, dict) and isinstance(a.get(k), dict):
                merge(a[k], v)
            else:
                a[k] = v

    merge(doc, yaml.safe_load(patch))
    return yaml.safe_dump(doc, sort_keys=False)


def test_tars_and_normal_together_fail_the_crd_one_of() -> None:
    doc = tars_server()
    doc["spec"]["normal"] = {"ports": [{"name": "http", "port": 3000}]}
    [violation] = load_texts({"s.yaml": stack_text(doc)}).violations
    assert (violation.code, violation.field) == ("TS014", "spec.normal")
    assert "use spec.tars.ports" in violation.message


def test_ttemplate_empty_parent_is_tt001_and_bad_content_is_tt006() -> None:
    text = _text(
        """
        apiVersion: k8s.tars.io/v1beta3
        kind: TTemplate
        metadata: {name: a}
        spec: {content: "", parent: ""}
        ---
        apiVersion: k8s.tars.io/v1beta3
        kind: TTemplate
        metadata: {name: b}
        spec: {content: 7, parent: b}
        """
    )
    codes = {(v.name, v.code, v.field, v.line) for v in load_texts({"t.yaml": text}).violations}
    assert codes == {("a", "TT001", "spec.parent", 4), ("b", "TT006", "spec.content", 9)}


def test_tframeworkconfig_version_fields_are_tf001() -> None:
    text = _text(
        """
        apiVersion: k8s.tars.io/v1beta3
        kind: TFrameworkConfig
        metadata: {name: tars-framework}
        imageRegistry: {registry: r}
        nodeImage: {image: n}
        recordLimit: {texitedPod: 5}
        """
    )
    found = {(v.code, v.field) for v in load_texts({"f.yaml": text}).violations}
    assert found == {
        ("TF001", "imageRegistry"),
        ("TF001", "imageBuild"),
        ("TF001", "imageUpload"),
        ("TF001", "recordLimit.texitedPod"),
    }


def test_cli_exits_2_on_unreadable_input_without_traceback(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("apiVersion: k8s.tars.io/v1beta3\nkind: TServer\n  x: [\n")
    for command in (
        ["render", str(tmp_path), "--out", str(tmp_path / "out")],
        ["validate", str(tmp_path)],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "tars_components", *command],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr + result.stdout
        assert result.stderr.startswith(f"{tmp_path / 'bad.yaml'}:3: invalid YAML")
        assert not (tmp_path / "out").exists()


def test_non_string_replica_annotations_are_ts019() -> None:
    doc = tars_server()
    doc["metadata"]["annotations"] = {"tars.io/MaxReplicas": 3}
    [violation] = load_texts({"s.yaml": stack_text(doc)}).violations
    assert violation.code == "TS019"
    assert violation.field == 'metadata.annotations["tars.io/MaxReplicas"]'


def test_the_seeds_tarsconfig_example_is_rejected_with_the_ts014_hint() -> None:
    from support.builders.golden_seed import SEED_TARSCONFIG

    text = SEED_TARSCONFIG.replace(
        "  k8s:\n",
        "  normal:\n    ports:\n      - isTcp: true\n        name: http\n"
        "        port: 3000\n  k8s:\n",
        1,
    )
    [violation] = load_texts({"seed.yaml": text}).violations
    assert (violation.code, violation.field) == ("TS014", "spec.normal")
    assert "use spec.tars.ports" in violation.message
    assert text.splitlines()[violation.line - 1].strip() == "normal:"


def test_nulls_are_dropped_as_the_api_server_does() -> None:
    text = _text(
        """
        apiVersion: k8s.tars.io/v1beta3
        kind: TServer
        metadata: {name: web-portal, namespace: null, annotations: null}
        spec:
          app: Web
          server: Portal
          subType: normal
          important: null
          normal: {ports: null}
          k8s: {replicas: null, nodeSelector: null, resources: null, updateStrategy: null}
          release: null
        """
    )
    stack = load_texts({"s.yaml": text}, NAMESPACE)
    assert not stack.violations
    server = stack.servers[0]
    assert server.namespace == NAMESPACE
    assert server.spec.important == 3 and server.spec.normal.ports == []
    assert server.spec.k8s.update_strategy.rolling_update.partition == 0


def test_a_key_given_twice_is_a_load_error() -> None:
    text = "apiVersion: k8s.tars.io/v1beta3\nkind: TTemplate\nmetadata: {name: a}\nmetadata: {}\n"
    with pytest.raises(LoadError) as caught:
        load_texts({"d.yaml": text})
    [problem] = caught.value.problems
    assert (problem.line, problem.message) == (
        4,
        "invalid YAML: duplicate key: the key on this line is already in this mapping (while "
        "constructing a mapping at line 1)",
    )
    # the key is not quoted: it may be a secret written in the wrong place
    secret = "password: {Zq9SECmarker: 1, Zq9SECmarker: 2}\n"
    with pytest.raises(LoadError) as caught:
        load_texts({"d.yaml": text.replace("metadata: {}\n", secret)})
    assert "Zq9SECmarker" not in str(caught.value) and caught.value.problems[0].line == 4


def test_an_empty_stack_directory_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as caught:
        load_stack(tmp_path)
    assert "no *.yaml or *.yml files" in caught.value.problems[0].message


def test_ttemplate_parent_pattern_is_tt006_and_null_parent_tt001() -> None:
    text = _text(
        """
        apiVersion: k8s.tars.io/v1beta3
        kind: TTemplate
        metadata: {name: a}
        spec: {content: "", parent: Tars.Default}
        ---
        apiVersion: k8s.tars.io/v1beta3
        kind: TTemplate
        metadata: {name: b}
        spec: {content: "", parent: null}
        """
    )
    found = {(v.name, v.code) for v in load_texts({"t.yaml": text}).violations}
    assert found == {("a", "TT006"), ("b", "TT001")}


def test_names_and_namespaces_kubernetes_rejects_are_schema_violations() -> None:
    text = _text(
        """
        apiVersion: k8s.tars.io/v1beta3
        kind: TTemplate
        metadata: {name: tars_cpp}
        spec: {content: "", parent: tars_cpp}
        ---
        apiVersion: k8s.tars.io/v1beta3
        kind: TFrameworkConfig
        metadata: {name: tars-framework, namespace: Bad_NS}
        imageBuild: {executor: {image: k}}
        imageUpload: {registry: r}
        nodeImage: {image: n}
        """
    )
    found = {(v.code, v.field, v.line) for v in load_texts({"t.yaml": text}).violations}
    assert ("TT006", "metadata.name", 3) in found
    assert ("TF001", "metadata.namespace", 8) in found


def test_crlf_and_cr_files_load_like_lf_files(tmp_path: Path) -> None:
    """Files are read as bytes (to bound their size) with text mode's universal newlines."""
    server = tars_server()
    server["spec"]["k8s"]["replicas"] = -1  # a schema violation, for its line
    text = stack_text(server)
    loaded = {}
    for name, newline in (("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "s.yaml").write_bytes(text.replace("\n", newline).encode())
        stack = load_stack(tmp_path / name, NAMESPACE)
        loaded[name] = (
            [d.to_dict() for d in stack.documents],
            [(v.code, v.line, v.field) for v in stack.violations],
        )
    assert loaded["crlf"] == loaded["cr"] == loaded["lf"]
    assert loaded["lf"][1] and loaded["lf"][1][0][1] > 1


def test_v1beta2_documents_get_one_deprecation_note_per_stack() -> None:
    """v1.4.1's CRDs serve v1beta2 with a deprecation warning: said once for the stack, with
    the count and where the first one is, not once per document."""
    v1beta2 = tars_server(api_version="k8s.tars.io/v1beta2")
    other = tars_server(api_version="k8s.tars.io/v1beta2")
    other["metadata"]["name"] = "test-other"
    other["spec"]["server"] = "Other"
    stack = load_texts({"a.yaml": stack_text(tars_server()), "b.yaml": stack_text(v1beta2, other)})
    (note,) = stack.notes
    assert note.startswith("k8s.tars.io/v1beta2 is deprecated")
    assert "2 document(s), the first at b.yaml:1" in note and "convert" in note
    assert load_texts({"a.yaml": stack_text(tars_server())}).notes == ()
