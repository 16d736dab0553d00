"""Old documents: a k8s.tars.io/v1beta1 file is one load problem for the whole file, and
`convert` upgrades v1beta1 and v1beta2 documents to v1beta3, naming what it drops."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from support.assertions.upstream import shared_path
from support.builders.documents import tars_server

from tars_components.cli import main as cli
from tars_components.fileio.yaml_writer import dump
from tars_components.kernel.errors import LoadError
from tars_components.loading.load import load_texts

ROOT = Path(__file__).resolve().parents[2]
WILD_V1BETA1 = shared_path("wild", "renders", "wenbinye-tars-k8s", "helloserver-v1beta1.yaml")


def v1beta1_server(name: str = "HelloServer") -> dict[str, object]:
    server = tars_server(app="Base", server=name, api_version="k8s.tars.io/v1beta1")
    server["spec"]["release"] = {"source": "base-x", "id": "v1", "image": "example.com/x:v1"}
    return server


def test_a_v1beta1_file_is_one_problem_for_the_file() -> None:
    text = "".join(f"---\n{dump(v1beta1_server(n))}" for n in ("One", "Two", "Three", "Four"))
    with pytest.raises(LoadError) as info:
        load_texts({"old.yaml": text, "ok.yaml": dump(tars_server())})
    [problem] = info.value.problems
    assert problem.file == "old.yaml" and problem.line == 2
    assert "k8s.tars.io/v1beta1 is no longer served by TarsK8S >= 1.4.0" in problem.message
    assert "4 document(s)" in problem.message and "and 1 more" in problem.message
    assert "drop spec.release.source" in problem.message
    assert "change apiVersion to k8s.tars.io/v1beta3" in problem.message


@pytest.mark.skipif(
    not WILD_V1BETA1.exists(), reason="needs shared wild/ (tests/support/assertions/upstream.py)"
)
def test_convert_upgrades_a_real_v1beta1_render_that_validate_admits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    shutil.copy(WILD_V1BETA1, stack)
    assert cli(["validate", str(stack), "--namespace", "tars-dev"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "v1beta1 is no longer served" in err[0]
    out = tmp_path / "converted"
    assert cli(["convert", str(stack / WILD_V1BETA1.name), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "not carried over: TServer base-helloserver spec.release.source" in printed
    converted = out / WILD_V1BETA1.name
    docs = [d for d in yaml.safe_load_all(converted.read_text(encoding="utf-8")) if d]
    assert {d["apiVersion"] for d in docs} == {"k8s.tars.io/v1beta3"}
    server = next(d for d in docs if d["kind"] == "TServer")
    assert "source" not in server["spec"]["release"]
    assert server["spec"]["k8s"]["readinessGates"] == []
    # with the framework and templates of a real stack, validate admits it
    new_stack = tmp_path / "new"
    shutil.copytree(ROOT / "stacks" / "dev", new_stack)
    for extra in new_stack.glob("[2-9]*"):
        extra.unlink()
    shutil.copy(converted, new_stack / "70-hello.yaml")
    assert cli(["validate", str(new_stack), "--namespace", "tars-dev"]) == 0


def test_convert_upgrades_v1beta2_documents(tmp_path: Path) -> None:
    server = tars_server(api_version="k8s.tars.io/v1beta2", readinessGate="tars.io/active")
    source = tmp_path / "server.yaml"
    source.write_text(dump(server), encoding="utf-8")
    out = tmp_path / "out"
    assert cli(["convert", str(source), "--out", str(out)]) == 0
    [doc] = list(yaml.safe_load_all((out / "server.yaml").read_text(encoding="utf-8")))
    assert doc["apiVersion"] == "k8s.tars.io/v1beta3"
    assert doc["spec"]["k8s"]["readinessGates"] == ["tars.io/active"]
    assert "readinessGate" not in doc["spec"]["k8s"]


def test_convert_refuses_what_it_cannot_convert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    current = tmp_path / "current.yaml"
    current.write_text(dump(tars_server()), encoding="utf-8")  # already v1beta3
    assert cli(["convert", str(current), "--out", str(tmp_path / "out")]) == 2
    assert "nothing to convert" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    text = "---\n# an empty document first\n---\n" + dump(v1beta1_server())
    broken.write_text(text.replace("port: 10001", "port: 99999"))
    assert cli(["convert", str(broken), "--out", str(tmp_path / "out")]) == 1
    [error] = [line for line in capsys.readouterr().out.splitlines() if "TS021 error" in line]
    # at the port's line in the input (the upgraded text is never written)
    line = text.splitlines().index(next(x for x in text.splitlines() if "port: 10001" in x)) + 1
    assert error.startswith(f"{broken}:{line}: TS021 error TServer")
    assert not (tmp_path / "out").exists()
