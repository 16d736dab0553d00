"""What ``validate`` passes, ``render`` writes and the API server admits (issue #17):
patterns match the whole value (a trailing newline is refused), images follow the image
reference grammar wherever one enters (TServer releases, TFrameworkConfig, TImage), plain
objects' names are checked per kind (TX006), crd-mode claim templates carry only what the CRD
keeps, and render never exits 70 on such input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.assertions.crd_schema import crd_errors
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    edited,
    load,
    stack_text,
    tars_server,
    template,
)
from support.engines.cli import run

from tars_components.kernel.errors import Violation
from tars_components.loading.load import load_texts
from tars_components.models.base import is_image_reference
from tars_components.mutation import mutate
from tars_components.pipeline import build, crd_documents
from tars_components.rules import validate
from tars_components.rules.objects import name_problem
from tars_components.settings.options import Mode, Options

REPO = Path(__file__).resolve().parents[2]
CRD = Options(namespace=NAMESPACE, mode=Mode.CRD)
EXPAND = Options(namespace=NAMESPACE)


def errors(*documents: dict[str, Any], options: Options = EXPAND) -> set[tuple[str, str]]:
    """``(code, field)`` of every error of a stack of these documents (with the framework
    config and templates, unless given) in this mode."""
    found = build(load(*documents), options).violations
    return {(v.code, v.field) for v in found if v.is_error}


def framework(**changes: Any) -> dict[str, Any]:
    return edited(FRAMEWORK, **changes)


def plain(kind: str = "ConfigMap", name: str = "settings", **changes: Any) -> dict[str, Any]:
    api = {"Service": "v1", "Namespace": "v1", "ConfigMap": "v1"}.get(kind)
    doc = {
        "apiVersion": api or "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": name},
    }
    return edited(doc, **changes)


# --- full-string matching -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("spec__release__image", "repo/x:v1\n", "spec.release.image"),
        ("spec__release__id", "v1\n", "spec.release.id"),
        ("spec__release__nodeImage", "repo/node:v1\n", "spec.release.nodeImage"),
        ("spec__app", "Test\n", "spec.app"),
        ("spec__k8s__env", [{"name": "A\n", "value": "x"}], "spec.k8s.env[0].name"),
        ("metadata__labels", {"tars.io/ServerID": "v1\n"}, 'metadata.labels["tars.io/ServerID"]'),
        ("metadata__labels", {"team\n": "a"}, 'metadata.labels["team\\n"]'),
        ("metadata__annotations", {"a\x1bb": "x"}, 'metadata.annotations["a\\u001bb"]'),
    ],
)
def test_a_value_ending_in_a_newline_or_with_a_control_character_is_a_rule_error(
    field: str, value: Any, path: str
) -> None:
    assert ("TS021", path) in errors(edited(tars_server(), **{field: value}))


def test_the_same_values_without_the_newline_are_valid() -> None:
    server = edited(
        tars_server(),
        spec__release={"id": "v1", "image": "repo/x:v1", "nodeImage": "repo/node:v1"},
        metadata__labels={"team": "a"},
    )
    assert errors(server) == set()


# --- image references ------------------------------------------------------------------------

DIGEST = "sha256:" + "a" * 64
VALID_IMAGES = [
    "nginx",
    "repo/x:v1",
    "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.0",
    "localhost:5000/a/b_c__d-e:V1_x.y-z",
    "Registry.Example.COM/team/app:latest",
    f"repo/x@{DIGEST}",
    f"repo/x:v1@{DIGEST}",
    "a" * 200 + "/" + "b" * 54 + ":" + "t" * 128,
]
INVALID_IMAGES = [
    "repo/x:v1\n",
    "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.:0",
    "repo/X:v1",
    "repo//x",
    "repo/x:",
    "repo/x:-v1",
    "repo/x:" + "t" * 129,
    "repo/x:vé",
    "repo/x@sha256:" + "a" * 32,
    "repo/x@sha256:" + "A" * 64,
    "a" * 200 + "/" + "b" * 56,
    " repo/x",
    "repo/x ",
    "",
]


@pytest.mark.parametrize("image", VALID_IMAGES)
def test_image_references_a_runtime_pulls_are_valid(image: str) -> None:
    assert is_image_reference(image)


@pytest.mark.parametrize("image", INVALID_IMAGES)
def test_image_references_a_runtime_refuses_are_not(image: str) -> None:
    assert not is_image_reference(image)


@pytest.mark.parametrize("image", [i for i in INVALID_IMAGES if i])
def test_release_image_is_checked_with_the_reference_grammar(image: str) -> None:
    assert ("TS021", "spec.release.image") in errors(
        edited(tars_server(), spec__release={"id": "v1", "image": image})
    )


NODE_IMAGE_BAD = "docker.tarsyun.com/tarscloud/tars.tarsnode:v1.4.:0"


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"nodeImage__image": NODE_IMAGE_BAD}, "nodeImage.image"),
        ({"nodeImage__image": "reg.example.com/node:v1\n"}, "nodeImage.image"),
        (
            {"imageBuild__executor__image": "reg.example.com/kaniko:v1.:0"},
            "imageBuild.executor.image",
        ),
        ({"imageUpload__registry": "reg.example.com/upload:v1"}, "imageUpload.registry"),
        ({"imageUpload__registry": "reg.example.com:port/upload"}, "imageUpload.registry"),
        ({"imageUpload__registry": "reg.example.com/upload\n"}, "imageUpload.registry"),
    ],
)
@pytest.mark.parametrize("options", [EXPAND, CRD], ids=["expand", "crd"])
def test_framework_config_images_are_tf001(
    changes: dict[str, Any], path: str, options: Options
) -> None:
    docs = [framework(**changes), template("tars.default"), template("tars.cpp", "tars.default")]
    stack = load_texts({"stack.yaml": stack_text(*docs, tars_server())}, NAMESPACE)
    found = build(stack, options).violations
    assert ("TF001", path) in {(v.code, v.field) for v in found if v.is_error}


@pytest.mark.parametrize(
    "registry", ["", "reg.example.com", "localhost:5000", "reg.example.com/a/b", "upload"]
)
def test_framework_config_registries_that_name_a_repository_are_valid(registry: str) -> None:
    docs = [framework(imageUpload__registry=registry), template("tars.default")]
    stack = load_texts({"stack.yaml": stack_text(*docs)}, NAMESPACE)
    assert validate(stack) == []


def test_bad_node_image_never_reaches_a_tarsnode_container(tmp_path: Path) -> None:
    """The issue's case: validate and both render modes refuse it (exit 1, nothing written)."""
    stack = tmp_path / "stack"
    stack.mkdir()
    docs = [framework(nodeImage__image=NODE_IMAGE_BAD), template("tars.default")]
    docs += [template("tars.cpp", "tars.default"), tars_server()]
    (stack / "stack.yaml").write_text(stack_text(*docs), encoding="utf-8")
    for command in (
        ["validate", str(stack)],
        ["render", str(stack), "--out", str(tmp_path / "out")],
        ["render", str(stack), "--mode", "crd", "--out", str(tmp_path / "out")],
    ):
        result = run(*command, "--namespace", NAMESPACE)
        assert result.returncode == 1, result.stderr
        assert "TF001" in result.stdout + result.stderr
        assert "nodeImage.image" in result.stdout + result.stderr
        assert not (tmp_path / "out").exists()


def test_timage_release_images_are_checked() -> None:
    timage = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TImage",
        "metadata": {"name": "test-demotest", "namespace": NAMESPACE},
        "imageType": "server",
        "releases": [{"id": "v1", "image": "repo/x:v1"}, {"id": "v2", "image": "repo/x:v2\n"}],
    }
    found = load_texts({"stack.yaml": stack_text(timage)}, NAMESPACE).violations
    assert [(v.code, v.field) for v in found] == [("TI001", "releases[1].image")]


# --- plain objects' names (TX006) --------------------------------------------------------


@pytest.mark.parametrize(
    ("api_version", "kind", "name"),
    [
        ("v1", "ConfigMap", "1abc"),
        ("v1", "ConfigMap", "a.b-c"),
        ("v1", "Service", "web-1"),
        ("v1", "Namespace", "team-a"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "system:controller:tars"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding", "Tars_Admin"),
        ("k8s.tars.io/v1beta3", "TFrameworkKey", "tars-key"),
        ("example.com/v1", "Widget", "w." + "a" * 240),
    ],
)
def test_names_the_api_server_admits(api_version: str, kind: str, name: str) -> None:
    assert name_problem(api_version, kind, name) is None


@pytest.mark.parametrize(
    ("api_version", "kind", "name"),
    [
        ("v1", "ConfigMap", "a/b"),
        ("v1", "ConfigMap", "a\x00b"),
        ("v1", "ConfigMap", "settings\n"),
        ("v1", "ConfigMap", "Settings"),
        ("v1", "ConfigMap", "system:x"),
        ("v1", "ConfigMap", "a" * 254),
        ("v1", "Service", "1web"),
        ("v1", "Service", "web.a"),
        ("v1", "Namespace", "team.a"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "a/b"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", ".."),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "a%2f"),
        ("rbac.authorization.k8s.io/v1", "Role", "a\x1b[31m"),
        ("example.com/v1", "Widget", "W"),
    ],
)
def test_names_the_api_server_refuses(api_version: str, kind: str, name: str) -> None:
    assert name_problem(api_version, kind, name)


def _plain_errors(doc: dict[str, Any]) -> list[Violation]:
    stack = load_texts({"stack.yaml": stack_text(doc)}, NAMESPACE)
    return [v for v in build(stack, EXPAND).violations if v.is_error]


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        (plain(name="a/b"), "metadata.name"),
        (plain(name="a\x00b"), "metadata.name"),
        (plain("Service", name="1web"), "metadata.name"),
        (plain(metadata__namespace="Team"), "metadata.namespace"),
        (plain(metadata__namespace=5), "metadata.namespace"),
        (plain(apiVersion="v1\x00"), "apiVersion"),
        (plain(apiVersion="a/b/c"), "apiVersion"),
        (plain(kind="Config/Map"), "kind"),
        (plain(metadata__labels={"\x1bx": "x"}), 'metadata.labels["\\u001bx"]'),
        (plain(metadata__labels={"a": "v1\n"}), "metadata.labels.a"),
        (plain(metadata__labels={"a": 1}), "metadata.labels.a"),
        (plain(metadata__labels=["a"]), "metadata.labels"),
        (plain(metadata__annotations={"a b": "x"}), 'metadata.annotations["a b"]'),
        (plain(metadata__annotations={"a": True}), "metadata.annotations.a"),
    ],
)
def test_plain_objects_the_api_server_refuses_are_tx005(doc: dict[str, Any], field: str) -> None:
    found = _plain_errors(doc)
    assert ("TX006", field) in {(v.code, v.field) for v in found}
    assert all(v.line for v in found)


def test_plain_objects_the_api_server_admits_pass() -> None:
    doc = plain(
        "ClusterRoleBinding",
        name="system:tars",
        metadata__labels={"app.kubernetes.io/name": "tars", "empty": ""},
        metadata__annotations={"example.com/note": "any text\nat all"},
    )
    assert _plain_errors(doc) == []


@pytest.mark.parametrize("name", ["a/b", "a\x00b", "..", "a\x1b[31m"])
def test_render_refuses_bad_plain_object_names_with_exit_1(tmp_path: Path, name: str) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "objects.yaml").write_text(stack_text(plain(name=name)), encoding="utf-8")
    for command in (["validate", str(stack)], ["render", str(stack), "--out", str(tmp_path / "o")]):
        result = run(*command)
        assert result.returncode == 1, result.stderr
        assert "TX006" in result.stdout + result.stderr
        # the name is shown escaped: no control character of the stack reaches the terminal
        assert not any(c in result.stdout + result.stderr for c in "\x00\x1b")
    assert not (tmp_path / "o").exists()


# --- crd mode: claim templates ---------------------------------------------------------------

CLAIM_MOUNT = {
    "name": "data",
    "mountPath": "/data",
    "source": {
        "persistentVolumeClaimTemplate": {
            "metadata": {"name": "seed-name", "namespace": "seed-ns", "labels": {"a": "b"}},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
            },
        }
    },
}


@pytest.mark.parametrize("source", ["k8s.tars.io/v1beta2", "k8s.tars.io/v1beta3"])
@pytest.mark.parametrize("target", ["k8s.tars.io/v1beta2", "k8s.tars.io/v1beta3"])
@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        (
            {"name": "seed-name", "namespace": "seed-ns", "labels": {"a": "b"}},
            {"labels": {"a": "b"}},
        ),
        ({"name": "seed-name"}, None),
        ({"annotations": {"k": "v"}}, {"annotations": {"k": "v"}}),
    ],
)
def test_crd_claim_templates_carry_only_what_the_crd_keeps(
    source: str, target: str, metadata: dict[str, Any], expected: dict[str, Any] | None
) -> None:
    mount = edited(CLAIM_MOUNT, source__persistentVolumeClaimTemplate__metadata=metadata)
    stack = load(edited(tars_server(api_version=source), spec__k8s__mounts=[mount]))
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=target)
    server = next(d for d in crd_documents(mutate(stack), options) if d["kind"] == "TServer")
    template_ = server["spec"]["k8s"]["mounts"][0]["source"]["persistentVolumeClaimTemplate"]
    assert template_.get("metadata") == expected
    assert crd_errors(server) == []
