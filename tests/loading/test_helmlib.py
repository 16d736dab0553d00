"""helm-lib values files as stack sources: the documents equal helm's render of the v1.4.1
chart, they flow through the same pipeline, and violations point at the values file."""

from __future__ import annotations

import runpy
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.assertions.upstream import shared_path
from support.builders.documents import NAMESPACE, plain, stack_text, template

from tars_components.cli import main as cli
from tars_components.components.testing import record
from tars_components.jobs.render import render_path
from tars_components.kernel.errors import LoadError
from tars_components.kernel.yaml_reader import YamlLoader
from tars_components.loading.helm import is_values_text, translate, values_mapping
from tars_components.loading.load import load_texts
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options

ROOT = Path(__file__).resolve().parents[2]
HELM_LIB_TEST = shared_path("wild", "k8sframework", "helm-lib-test")
VALUES_FILES = sorted(HELM_LIB_TEST.glob("values*.yaml"))
needs_wild = pytest.mark.skipif(
    not VALUES_FILES, reason="needs shared wild/ (tests/support/assertions/upstream.py)"
)


def _text(body: str) -> str:
    return textwrap.dedent(body).lstrip()


def _normalised(doc: dict[str, Any]) -> dict[str, Any]:
    """The documented normalisation: a TConfig name without its last part (helm's Unix time,
    our content hash)."""
    if doc.get("kind") != "TConfig":
        return doc
    meta = dict(doc["metadata"])
    meta["name"] = meta["name"].rsplit("-", 1)[0]
    return {**doc, "metadata": meta}


def _by_identity(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    normalised = [_normalised(d) for d in docs]
    return {(d["kind"], d["metadata"]["name"]): d for d in normalised}


def _rendered(name: str) -> str:
    return (HELM_LIB_TEST / f"rendered-{name}").read_text(encoding="utf-8")


@needs_wild
@pytest.mark.parametrize("values_file", VALUES_FILES, ids=lambda p: p.name)
def test_documents_equal_the_helm_render_object_by_object(values_file: Path) -> None:
    values = yaml.load(values_file.read_text(encoding="utf-8"), Loader=YamlLoader)
    translation = translate(str(values_file), values)
    assert not translation.problems
    ours = _by_identity([p.body for p in translation.documents])
    theirs = _by_identity(
        [d for d in yaml.load_all(_rendered(values_file.name), Loader=YamlLoader) if d]
    )
    assert sorted(ours) == sorted(theirs)
    for key, doc in theirs.items():
        assert ours[key] == doc, key


def _outcome(texts: dict[str, str], mode: Mode) -> tuple[list[tuple[str, str, str]], list[Any]]:
    options = Options(namespace="tars-dev", mode=mode)
    result = build(load_texts(texts, options.namespace), options)
    codes = sorted(
        (v.code, v.name if v.kind != "TConfig" else "", v.field) for v in result.violations
    )
    objects = [_normalised(o) for o in result.objects]
    return codes, objects


@needs_wild
@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
@pytest.mark.parametrize("values_file", VALUES_FILES, ids=lambda p: p.name)
def test_render_succeeds_or_fails_as_the_rendered_documents_do(
    values_file: Path, mode: Mode
) -> None:
    ours = _outcome({"values.yaml": values_file.read_text(encoding="utf-8")}, mode)
    theirs = _outcome({"rendered.yaml": _rendered(values_file.name)}, mode)
    # TH001 (a values key the chart ignores) exists only for the values file
    assert [c for c in ours[0] if c[0] != "TH001"] == theirs[0]
    assert ours[1] == theirs[1]


@needs_wild
def test_violation_points_at_the_values_line() -> None:
    text = (HELM_LIB_TEST / "values.yaml").read_text(encoding="utf-8")
    stack = load_texts({"values.yaml": text})
    result = build(stack)
    errors = [v for v in result.violations if v.is_error]
    assert [(v.code, v.field) for v in errors] == [("TS021", "spec.k8s.mounts[2].mountPath")]
    # the mount without mountPath is the second entry of the values file's mounts
    assert text.splitlines()[errors[0].line - 1].strip() == "- name: test-pvc"
    warning = next(v for v in result.violations if v.code == "TH001")
    assert (warning.field, text.splitlines()[warning.line - 1]) == ("labelMatch", "labelMatch:")


BASIC = """\
app: Demo
server: HelloServer
template: tars.cpp
servants:
  - name: HelloObj
    port: 10000
    isTars: true
    isTcp: true
repo:
  id: v1
  image: registry.example.com/demo/helloserver:v1
  secret: tars-image-secret
config:
  - name: hello.conf
    content: |
      <main>
      </main>
"""


def test_a_field_error_points_at_the_value_that_produced_it() -> None:
    text = BASIC.replace("port: 10000", "port: 70000")
    result = build(load_texts({"hello.yaml": text}))
    [error] = [v for v in result.violations if v.is_error]
    assert error.field == "spec.tars.servants[0].port"
    assert (error.file, error.line) == ("hello.yaml", 6)
    env = BASIC + "envVars:\n  - name: bad name\n    value: 1\n"
    [error] = [v for v in build(load_texts({"h.yaml": env})).violations if v.is_error]
    assert (error.field, error.line) == ("spec.k8s.env[4].name", 19)


def test_renders_the_same_objects_as_the_equivalent_documents() -> None:
    values = yaml.safe_load(BASIC)
    docs = [p.body for p in translate("hello.yaml", values).documents]
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, existing_framework_config=True)
    templates = stack_text(template("tars.cpp"))
    from_values = build(load_texts({"hello.yaml": BASIC, "t.yaml": templates}, NAMESPACE), options)
    from_docs = build(
        load_texts({"docs.yaml": yaml.safe_dump_all(docs), "t.yaml": templates}, NAMESPACE), options
    )
    assert from_values.ok
    assert from_values.objects == from_docs.objects
    assert {o["kind"] for o in from_values.objects} == {"TServer", "TImage", "TConfig", "TTemplate"}


def test_config_names_are_content_hashes_stable_across_renders() -> None:
    def config_names(text: str) -> list[str]:
        return [d.name for d in load_texts({"v.yaml": text}).configs]

    first = config_names(BASIC)
    assert first == config_names(BASIC)
    assert first[0].startswith("demo-helloserver-hello-conf-")
    changed = config_names(BASIC.replace("</main>", "</main>\n      # more"))
    assert changed != first
    # a new image is a new release, not a new config version
    assert config_names(BASIC.replace(":v1", ":v2")) == first


def test_chart_defaults_and_quirks() -> None:
    text = BASIC + _text(
        """
        replicas: 0
        subtype: normal
        profile: ""
        envVars:
          - name: PORT
            value: 8080
        nodeConfig:
          - name: hello.conf
            podSeq: 1
            content: node one
        appConfig:
          - name: app.conf
            content: shared
        """
    )
    produced = _by_identity([p.body for p in translate("v", yaml.safe_load(text)).documents])
    server = produced[("TServer", "demo-helloserver")]
    k8s = server["spec"]["k8s"]
    assert k8s["replicas"] == 1  # default treats 0 as empty
    assert server["spec"]["subType"] == "tars"
    assert server["metadata"]["labels"]["tars.io/SubType"] == "normal"
    assert server["spec"]["tars"]["servants"][0]["thread"] == 5
    assert k8s["env"][-1] == {"name": "PORT", "value": "8080"}
    assert k8s["mounts"][0]["name"] == "host-log-dir"
    node = produced[("TConfig", "demo-helloserver-hello-conf-1")]
    assert (node["podSeq"], node["server"]) == ("1", "HelloServer")
    app = produced[("TConfig", "demo-helloserver-app-conf")]
    assert app["server"] == ""


def test_empty_release_id_as_the_chart_renders_it() -> None:
    text = BASIC.replace("id: v1", 'id: ""')
    docs = {p.body["kind"]: p.body for p in translate("v", yaml.safe_load(text)).documents}
    assert docs["TServer"]["spec"]["release"]["id"] == ""  # quoted by the chart
    assert docs["TImage"]["releases"][0]["id"] is None  # written bare: null
    codes = {(v.kind, v.code) for v in build(load_texts({"v.yaml": text})).violations}
    assert ("TServer", "TS021") in codes
    assert ("TImage", "TI001") in codes


def test_update_strategy_is_unrenderable_as_in_helm() -> None:
    text = BASIC + "updateStrategy:\n  type: OnDelete\n"
    with pytest.raises(LoadError) as info:
        load_texts({"v.yaml": text})
    [problem] = info.value.problems
    assert (problem.file, problem.line) == ("v.yaml", 18)
    assert "updateStrategy" in problem.message


def test_missing_app_is_a_load_problem_at_the_file() -> None:
    text = BASIC.replace("app: Demo\n", "")
    with pytest.raises(LoadError) as info:
        load_texts({"v.yaml": text})
    assert "app" in info.value.problems[0].message


def test_recognition() -> None:
    assert values_mapping([yaml.safe_load(BASIC)]) is not None
    assert is_values_text(BASIC)
    assert not is_values_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\napp: x\n")
    assert not is_values_text(BASIC + "---\n" + BASIC)
    assert not is_values_text("replicas: 2\n")
    with pytest.raises(LoadError):  # still unreadable, as before
        load_texts({"v.yaml": "replicas: 2\n"})


def test_cli_and_pulumi_program_take_a_values_file(tmp_path: Path) -> None:
    """The same stack directory (stacks/dev plus one values file) through `render` and through
    the project's Pulumi program: both build the values file's server, the same objects."""
    stack = tmp_path / "stack"
    shutil.copytree(ROOT / "stacks" / "dev", stack)
    (stack / "70-hello.values.yaml").write_text(BASIC, encoding="utf-8")
    out = tmp_path / "out"
    assert cli(["render", str(stack), "--namespace", "tars-dev", "--out", str(out)]) == 0
    written = {
        str(p.relative_to(out)): yaml.safe_load(p.read_text(encoding="utf-8"))
        for p in sorted(out.rglob("*.yaml"))
    }
    assert "1-manifest/apps_v1-statefulset-tars-dev-demo-helloserver.yaml" in written
    recording = record(
        lambda: runpy.run_path(str(ROOT / "__main__.py")),
        config={
            "tars:namespace": "tars-dev",
            "tars:stackDir": str(stack),
            "tars:mode": "expand",
        },
        stack="dev",
    )
    registered = {render_path(r.inputs): plain(r.inputs) for r in recording.kubernetes()}
    assert registered == written


def test_convert_writes_v1beta3_documents_that_render_the_same(tmp_path: Path) -> None:
    values = tmp_path / "hello.yaml"
    values.write_text(BASIC, encoding="utf-8")
    out = tmp_path / "converted"
    assert cli(["convert", str(values), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["demo-helloserver.yaml"]
    text = (out / "demo-helloserver.yaml").read_text(encoding="utf-8")
    docs = [d for d in yaml.safe_load_all(text) if d]
    assert {d["apiVersion"] for d in docs} == {"k8s.tars.io/v1beta3"}
    assert [d["kind"] for d in docs] == ["TServer", "TConfig", "TImage"]
    assert "helm.sh/resource-policy" not in text
    dev = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "stacks" / "dev").glob("[01]*")}
    options = Options(namespace="tars-dev")
    converted = build(load_texts({**dev, "c.yaml": text}, "tars-dev"), options)
    original = build(load_texts({**dev, "v.yaml": BASIC}, "tars-dev"), options)
    assert converted.ok
    assert converted.objects == original.objects
    # the same config version names: moving from values to documents is no change
    assert [d.name for d in load_texts({"c.yaml": text}).configs] == [
        d.name for d in load_texts({"v.yaml": BASIC}).configs
    ]
    assert cli(["convert", str(values), "--out", str(out)]) == 0  # again: same bytes
    assert (out / "demo-helloserver.yaml").read_text(encoding="utf-8") == text
    assert sorted(p.name for p in out.iterdir()) == ["demo-helloserver.yaml"]


def test_convert_exit_codes_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BASIC.replace("port: 10000", "port: 70000"), encoding="utf-8")
    out = tmp_path / "out"
    assert cli(["convert", str(bad), "--out", str(out)]) == 1
    assert f"{bad}:6: TS021 error" in capsys.readouterr().out
    assert not out.exists()
    document = tmp_path / "doc.yaml"
    document.write_text(stack_text(template("tars.cpp")), encoding="utf-8")
    assert cli(["convert", str(document), "--out", str(out)]) == 2
    assert "not a helm-lib values file" in capsys.readouterr().err
    unrenderable = tmp_path / "u.yaml"
    unrenderable.write_text(BASIC + "updateStrategy: {type: OnDelete}\n", encoding="utf-8")
    assert cli(["convert", str(unrenderable), "--out", str(out)]) == 2
    assert f"{unrenderable}:18: helm-lib values updateStrategy" in capsys.readouterr().err
    assert cli(["convert", str(tmp_path / "missing.yaml"), "--out", str(out)]) == 2
    twice = tmp_path / "twice.yaml"
    twice.write_text(BASIC, encoding="utf-8")
    good = tmp_path / "good.yaml"
    good.write_text(BASIC, encoding="utf-8")
    assert cli(["convert", str(good), str(twice), "--out", str(out)]) == 2
    assert "are both written to demo-helloserver.yaml" in capsys.readouterr().err
    assert not out.exists()


def test_re_rendering_unchanged_values_is_no_change_for_diff(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for directory in (old, new):
        shutil.copytree(ROOT / "stacks" / "dev", directory)
        (directory / "70-hello.yaml").write_text(BASIC, encoding="utf-8")
    args = ["diff", str(old), str(new), "--namespace", "tars-dev", "--mode", "crd"]
    assert cli([*args, "--exit-code"]) == 0
    (new / "70-hello.yaml").write_text(BASIC.replace("<main>", "<main> v2"))
    assert cli([*args, "--exit-code"]) == 3  # a new config version
