"""``render``, ``validate`` and ``diff`` of a stack with clusters, as a user runs them: two
clusters ``sh`` and ``bj`` with a replicas override for ``bj``; the same trees from
``tars:clusters`` and from Stellaris Cluster documents; ``--cluster``; ``--target karmada``
strict-valid against Karmada's CRDs (read from the shared folder at test time)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from support.assertions.crd_schema import _strict
from support.assertions.upstream import shared
from support.builders.clusters import BJ_REPLICAS, DEV, ORDER, override, project, tree
from support.engines.cli import run

STATEFULSET = f"1-manifest/apps_v1-statefulset-tars-dev-{ORDER}.yaml"


def _render(root: Path, *extra: str) -> Any:
    return run("render", "--stack", "mc", "--out", str(root / "out"), *extra, cwd=root)


def test_two_clusters_identical_but_the_override(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    done = _render(root)
    assert done.returncode == 0, done.stdout + done.stderr
    sh, bj = tree(root / "out" / "sh"), tree(root / "out" / "bj")
    assert sorted(sh) == sorted(bj)
    differing = [path for path in sh if sh[path] != bj[path]]
    assert differing == [STATEFULSET]
    assert yaml.safe_load(sh[STATEFULSET])["spec"]["replicas"] == 2
    assert yaml.safe_load(bj[STATEFULSET])["spec"]["replicas"] == 3
    rest = lambda text: {k: v for k, v in yaml.safe_load(text).items() if k != "spec"}  # noqa: E731
    assert rest(sh[STATEFULSET]) == rest(bj[STATEFULSET])
    assert "cluster sh: rendered" in done.stdout and "cluster bj: rendered" in done.stdout
    assert sorted(p.name for p in (root / "out").iterdir()) == ["bj", "sh"]


def test_each_cluster_tree_is_the_one_cluster_render(tmp_path: Path) -> None:
    """Inside OUT/<cluster>/ the usual layout: sh (no override) is what a stack without
    clusters renders, byte for byte."""
    root = project(tmp_path, BJ_REPLICAS)
    assert _render(root).returncode == 0
    single = tmp_path / "single"
    shutil.copytree(DEV, single)
    plain = run("render", str(single), "--namespace", "tars-dev", "--out", str(tmp_path / "one"))
    assert plain.returncode == 0, plain.stdout
    assert tree(root / "out" / "sh") == tree(tmp_path / "one")


def test_stellaris_documents_give_the_same_trees(tmp_path: Path) -> None:
    config = project(tmp_path / "config", BJ_REPLICAS)
    documents = project(tmp_path / "stellaris", BJ_REPLICAS, stellaris=True)
    assert _render(config).returncode == 0
    done = _render(documents)
    assert done.returncode == 0, done.stdout
    assert tree(config / "out") == tree(documents / "out")


def test_a_rule_error_in_one_cluster_names_it_and_writes_nothing(tmp_path: Path) -> None:
    bad = override(
        "bj-env",
        clusters=["bj"],
        targets=[{"kind": "TServer", "name": ORDER}],
        env=[{"name": "X", "valueFrom": {}}],
    )
    root = project(tmp_path, bad)
    done = _render(root)
    assert done.returncode == 1
    errors = [line for line in done.stdout.splitlines() if " error " in line]
    assert errors and all(line.endswith("(cluster bj)") for line in errors)
    assert "nothing written" in done.stdout and not (root / "out").exists()
    checked = run("validate", "--stack", "mc", cwd=root)
    assert checked.returncode == 1
    assert any(line.endswith("(cluster bj)") for line in checked.stdout.splitlines())
    assert "cluster sh: 0 error(s)" in checked.stderr
    assert re.search(r"cluster bj: [1-9][0-9]* error\(s\)", checked.stderr)


def test_cluster_flag_renders_one_cluster(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    assert _render(root).returncode == 0
    before = tree(root / "out" / "sh")
    done = _render(root, "--cluster", "bj")
    assert done.returncode == 0, done.stdout
    assert tree(root / "out" / "sh") == before
    assert yaml.safe_load((root / "out" / "bj" / STATEFULSET).read_text())["spec"]["replicas"] == 3
    unknown = _render(root, "--cluster", "gz")
    assert unknown.returncode == 2
    assert "--cluster gz: no such cluster (sh, bj)" in unknown.stderr


def test_cluster_flag_without_inventory_is_a_usage_error(tmp_path: Path) -> None:
    shutil.copytree(DEV, tmp_path / "stack")
    done = run("validate", str(tmp_path / "stack"), "--cluster", "sh")
    assert done.returncode == 2
    assert "no cluster inventory" in done.stderr


def test_validate_reports_per_cluster(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    done = run("validate", "--stack", "mc", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cluster sh: 0 error(s)" in done.stderr and "cluster bj: 0 error(s)" in done.stderr
    one = run("validate", "--stack", "mc", "--cluster", "bj", cwd=root)
    assert "cluster bj:" in one.stderr and "cluster sh:" not in one.stderr


def test_diff_per_cluster(tmp_path: Path) -> None:
    root = project(tmp_path)
    new = tmp_path / "new"
    shutil.copytree(root / "stacks" / "dev", new)
    (new / "90-clusters.yaml").write_text(yaml.safe_dump(BJ_REPLICAS))
    text = run("diff", "stacks/dev", str(new), "--stack", "mc", "--color", "never", cwd=root)
    assert text.returncode == 0, text.stdout + text.stderr
    sh_part, bj_part = text.stdout.split("=== cluster bj ===")
    assert sh_part.startswith("=== cluster sh ===")
    assert ORDER in bj_part and ORDER not in sh_part
    done = run("diff", "stacks/dev", str(new), "--stack", "mc", "--format", "json", cwd=root)
    document = json.loads(done.stdout)
    assert sorted(document["clusters"]) == ["bj", "sh"]
    assert ORDER in json.dumps(document["clusters"]["bj"])
    assert ORDER not in json.dumps(document["clusters"]["sh"])
    markdown = run(
        "diff", "stacks/dev", str(new), "--stack", "mc", "--format", "markdown", cwd=root
    )
    assert "#### Cluster `sh`" in markdown.stdout and "#### Cluster `bj`" in markdown.stdout
    code = run("diff", "stacks/dev", str(new), "--stack", "mc", "--exit-code", cwd=root)
    assert code.returncode == 3


def test_diff_json_violations_carry_the_cluster(tmp_path: Path) -> None:
    root = project(tmp_path)
    new = tmp_path / "new"
    shutil.copytree(root / "stacks" / "dev", new)
    bad = override("bj-env", clusters=["bj"], env=[{"name": "X", "valueFrom": {}}])
    (new / "90-clusters.yaml").write_text(yaml.safe_dump(bad))
    done = run("diff", "stacks/dev", str(new), "--stack", "mc", "--format", "json", cwd=root)
    assert done.returncode == 1
    violations = json.loads(done.stdout)["violations"]
    assert violations and {v["cluster"] for v in violations if v["severity"] == "error"} == {"bj"}


def _karmada_validator(kind: str) -> jsonschema.protocols.Validator:
    plural = {
        "PropagationPolicy": "propagationpolicies",
        "ClusterPropagationPolicy": "clusterpropagationpolicies",
        "OverridePolicy": "overridepolicies",
        "ClusterOverridePolicy": "clusteroverridepolicies",
    }[kind]
    path = shared("thirdparty-crds", f"karmada.policy.karmada.io_{plural}.yaml")
    crd = yaml.safe_load(path.read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1")
    schema = _strict(version["schema"]["openAPIV3Schema"])
    schema["properties"]["metadata"] = {"type": "object"}
    return jsonschema.Draft7Validator(schema)


def test_karmada_target_is_strict_valid_and_reproduces_bj(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    done = _render(root, "--target", "karmada")
    assert done.returncode == 0, done.stdout + done.stderr
    files = tree(root / "out")
    policies = [yaml.safe_load(t) for p, t in files.items() if "policy.karmada.io" in p]
    for policy in policies:
        errors = [e.message for e in _karmada_validator(policy["kind"]).iter_errors(policy)]
        assert errors == [], (policy["metadata"], errors)
    propagation = [p for p in policies if p["kind"] == "PropagationPolicy"]
    order = next(p for p in propagation if p["metadata"]["name"] == ORDER)
    assert order["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["sh", "bj"]
    selected = {(s["kind"], s["name"]) for s in order["spec"]["resourceSelectors"]}
    assert selected == {("StatefulSet", ORDER), ("Service", ORDER)}
    (override_policy,) = [p for p in policies if p["kind"] == "OverridePolicy"]
    base = yaml.safe_load(files[STATEFULSET])
    assert base["spec"]["replicas"] == 2
    (rule,) = override_policy["spec"]["overrideRules"]
    assert rule["targetCluster"] == {"clusterNames": ["bj"]}
    patched = _apply(base, rule["overriders"]["plaintext"])
    clusters = project(tmp_path / "clusters", BJ_REPLICAS)
    assert _render(clusters).returncode == 0
    assert patched == yaml.safe_load((clusters / "out" / "bj" / STATEFULSET).read_text())
    # every object is written once, beside its policies
    objects = [p for p in files if "policy.karmada.io" not in p and p.startswith("1-manifest/")]
    assert sorted(objects) == sorted(
        p for p in tree(clusters / "out" / "sh") if p.startswith("1-manifest/")
    )


def _apply(obj: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 add/replace/remove, as Karmada's plaintext overrider applies them."""
    import copy

    out = copy.deepcopy(obj)
    for op in ops:
        *parents, last = [
            t.replace("~1", "/").replace("~0", "~") for t in op["path"][1:].split("/")
        ]
        node: Any = out
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        key: Any = int(last) if isinstance(node, list) else last
        if op["operator"] == "remove":
            del node[key]
        else:
            node[key] = op["value"]
    return out


def test_karmada_without_inventory_is_a_usage_error(tmp_path: Path) -> None:
    shutil.copytree(DEV, tmp_path / "stack")
    done = run(
        "render", str(tmp_path / "stack"), "--out", str(tmp_path / "o"), "--target", "karmada"
    )
    assert done.returncode == 2 and "no cluster inventory" in done.stderr


@pytest.mark.parametrize("entry", ["out/notes.txt"])
def test_out_holding_other_files_is_refused(tmp_path: Path, entry: str) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    (root / "out").mkdir()
    (root / entry).write_text("mine")
    done = _render(root)
    assert done.returncode == 2 and "not a previous per-cluster render" in done.stderr
    assert (root / entry).read_text() == "mine"


def test_a_bad_tars_clusters_entry_names_file_line_and_field(tmp_path: Path) -> None:
    root = project(tmp_path)
    config = (root / "Pulumi.mc.yaml").read_text().replace("name: bj", "name: BJ")
    (root / "Pulumi.mc.yaml").write_text(config)
    done = _render(root)
    assert done.returncode == 2
    assert "Pulumi.mc.yaml:4: tars:clusters[1].name: a cluster name must be a DNS label" in (
        done.stderr
    )
    assert not (root / "out").exists()


def test_cluster_flag_with_karmada_is_a_usage_error(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    done = _render(root, "--target", "karmada", "--cluster", "bj")
    assert done.returncode == 2 and "Karmada places every cluster" in done.stderr


def test_validate_previous_per_cluster(tmp_path: Path) -> None:
    """With --previous, each cluster's result is checked against that cluster's previous
    result (here a replicas override added for bj: no rule refuses it)."""
    root = project(tmp_path, BJ_REPLICAS)
    old = tmp_path / "old"
    shutil.copytree(DEV, old)
    done = run("validate", "--stack", "mc", "--previous", str(old), cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cluster sh: 0 error(s)" in done.stderr and "cluster bj: 0 error(s)" in done.stderr


def test_karmada_target_in_crd_mode_teaches_karmada_the_tserver(tmp_path: Path) -> None:
    """crd mode: the TServer's policy takes existing objects over and names its override
    policy; a ResourceInterpreterCustomization for TServers (replicas, status, health,
    retention, dependencies); each TServer carries the release and replicas it is propagated
    with, so a member's own change is kept until the stack changes them."""
    root = project(tmp_path, BJ_REPLICAS)
    done = _render(root, "--target", "karmada", "--mode", "crd")
    assert done.returncode == 0, done.stdout + done.stderr
    files = {p: yaml.safe_load(t) for p, t in tree(root / "out").items()}
    policies = [o for p, o in files.items() if "policy.karmada.io" in p]
    for policy in policies:
        errors = [e.message for e in _karmada_validator(policy["kind"]).iter_errors(policy)]
        assert errors == [], (policy["metadata"], errors)
        if (
            policy["kind"].endswith("PropagationPolicy")
            and policy["metadata"]["name"] != "tars-crds"
        ):
            assert policy["spec"]["conflictResolution"] == "Overwrite"
    (override_policy,) = [p for p in policies if p["kind"] == "OverridePolicy"]
    order = next(p for p in policies if p["metadata"]["name"] == ORDER)
    assert order["spec"]["dependentOverrides"] == [override_policy["metadata"]["name"]]
    (interpreter,) = [o for o in files.values() if o["kind"] == "ResourceInterpreterCustomization"]
    assert interpreter["spec"]["target"] == {"apiVersion": "k8s.tars.io/v1beta3", "kind": "TServer"}
    assert sorted(interpreter["spec"]["customizations"]) == [
        "dependencyInterpretation",
        "healthInterpretation",
        "replicaResource",
        "replicaRevision",
        "retention",
        "statusAggregation",
        "statusReflection",
    ]
    (server,) = [
        o for o in files.values() if o["kind"] == "TServer" and o["metadata"]["name"] == ORDER
    ]
    annotations = server["metadata"]["annotations"]
    assert annotations["tars-components.io/propagated-replicas"] == "2"
    assert annotations["tars-components.io/propagated-release"] == server["spec"]["release"]["id"]
    # the TarsK8S CRDs, for the Karmada API server and the members that lack them
    crds = sorted(
        o["metadata"]["name"] for o in files.values() if o["kind"] == "CustomResourceDefinition"
    )
    assert len(crds) == 11 and "tservers.k8s.tars.io" in crds
    crd_policy = next(p for p in policies if p["metadata"]["name"] == "tars-crds")
    assert crd_policy["kind"] == "ClusterPropagationPolicy"
    assert sorted(s["name"] for s in crd_policy["spec"]["resourceSelectors"]) == crds
    assert crd_policy["spec"]["placement"]["clusterAffinity"]["clusterNames"] == ["sh", "bj"]
    assert crd_policy["spec"]["conflictResolution"] == "Abort"  # a member's own install stays
    (rule,) = override_policy["spec"]["overrideRules"]
    patched = _apply(server, rule["overriders"]["plaintext"])
    assert patched["spec"]["k8s"]["replicas"] == 3
    assert patched["metadata"]["annotations"]["tars-components.io/propagated-replicas"] == "3"
