"""The habits of kubectl and ruff a user brings to the command line: ``--version``,
``render -o yaml|json`` (and ``--out -``) to stdout, ``validate --format json|github``,
``validate --rules``, examples at the end of each command's help, shell completion."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from support.builders.clusters import BJ_REPLICAS, ORDER, project, tree
from support.builders.documents import normal_server, stack_text
from support.engines.cli import run

from tars_components.cli import COMMANDS
from tars_components.rules import RULES

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev"


def _rendered(root: Path) -> list[dict]:
    """The objects of a rendered directory, CRDs first, as ``render -o`` orders them."""
    return [yaml.safe_load(text) for _, text in sorted(tree(root).items())]


def _key(obj: dict) -> tuple[str, str, str]:
    return obj["apiVersion"], obj["kind"], obj["metadata"]["name"]


def test_version_is_the_one_of_the_package_and_the_schema() -> None:
    done = run("--version")
    assert done.returncode == 0, done.stderr
    schema = json.loads((ROOT / "plugin" / "schema.json").read_text())
    assert done.stdout == f"tars-components {version('tars-components')}\n"
    assert done.stdout == f"tars-components {schema['version']}\n"
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", schema["version"])


def test_render_to_stdout_is_what_render_writes_to_files(tmp_path: Path) -> None:
    """``-o yaml``, ``--out -`` and ``-o json`` carry exactly the objects of ``--out DIR``,
    write nothing, and keep stdout for the objects (the summary goes to stderr)."""
    files = run("render", str(DEV), "--namespace", "tars-dev", "--out", str(tmp_path / "out"))
    assert files.returncode == 0, files.stdout
    expected = sorted(_rendered(tmp_path / "out"), key=_key)
    as_yaml = run("render", str(DEV), "--namespace", "tars-dev", "-o", "yaml", cwd=tmp_path)
    dash = run("render", str(DEV), "--namespace", "tars-dev", "--out", "-", cwd=tmp_path)
    as_json = run("render", str(DEV), "--namespace", "tars-dev", "-o", "json", cwd=tmp_path)
    for done in (as_yaml, dash, as_json):
        assert done.returncode == 0, done.stderr
        assert "rendered 9 objects" in done.stderr and "TS015" in done.stderr
    assert as_yaml.stdout == dash.stdout
    assert as_yaml.stdout.startswith("---\napiVersion: ")
    assert sorted(yaml.safe_load_all(as_yaml.stdout), key=_key) == expected
    document = json.loads(as_json.stdout)
    assert (document["apiVersion"], document["kind"]) == ("v1", "List")
    assert sorted(document["items"], key=_key) == expected
    assert list(tmp_path.iterdir()) == [tmp_path / "out"]  # no directory named "-"


def test_render_to_stdout_puts_custom_resource_definitions_first(tmp_path: Path) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text(stack_text(normal_server(), crd))
    done = run("render", str(tmp_path / "s"), "-o", "yaml")
    assert done.returncode == 0, done.stderr
    kinds = [obj["kind"] for obj in yaml.safe_load_all(done.stdout)]
    assert kinds[0] == "CustomResourceDefinition" and "StatefulSet" in kinds


def test_render_to_stdout_prints_nothing_on_a_rule_error(tmp_path: Path) -> None:
    bad = normal_server()
    bad["spec"]["normal"]["ports"].append({"name": "admin", "port": 8080})  # TS008
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text(stack_text(bad))
    done = run("render", str(tmp_path / "s"), "-o", "yaml")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "TS008 error" in done.stderr and "nothing written" in done.stderr


def test_render_to_stdout_of_one_cluster(tmp_path: Path) -> None:
    """With a cluster inventory, ``-o`` needs the cluster (exit 2 without), and gives the
    objects of ``--out``'s tree of that cluster."""
    root = project(tmp_path, BJ_REPLICAS)
    whole = run("render", "--stack", "mc", "-o", "yaml", cwd=root)
    assert whole.returncode == 2 and whole.stdout == ""
    assert "--cluster NAME" in whole.stderr
    assert run("render", "--stack", "mc", "--out", "out", cwd=root).returncode == 0
    done = run("render", "--stack", "mc", "--cluster", "bj", "-o", "yaml", cwd=root)
    assert done.returncode == 0, done.stderr
    objects = sorted(yaml.safe_load_all(done.stdout), key=_key)
    assert objects == sorted(_rendered(root / "out" / "bj"), key=_key)
    [order] = [o for o in objects if o["kind"] == "StatefulSet" and o["metadata"]["name"] == ORDER]
    assert order["spec"]["replicas"] == 3


def test_render_needs_a_directory_or_a_stream() -> None:
    done = run("render", str(DEV))
    assert done.returncode == 2
    assert "--out" in done.stderr and "--output" in done.stderr and "Traceback" not in done.stderr


def _warned_stack(root: Path) -> Path:
    """A stack whose file name needs escaping in an annotation (``%`` and ``,``), with one
    error (TS008, a port number twice) and one warning (TS024, a nameRef spelled in another
    case)."""
    server = normal_server(hostPorts=[{"nameRef": "HTTP", "port": 9000}])
    server["spec"]["normal"]["ports"].append({"name": "admin", "port": 8080})
    stack = root / "s"
    stack.mkdir()
    (stack / "a,b%c.yaml").write_text(stack_text(server))
    return stack


def test_validate_format_json(tmp_path: Path) -> None:
    stack = _warned_stack(tmp_path)
    text = run("validate", str(stack))
    done = run("validate", str(stack), "--format", "json")
    assert done.returncode == text.returncode == 1
    document = json.loads(done.stdout)
    assert (document["stack"], document["ok"], document["documents"]) == (str(stack), False, 1)
    codes = sorted((v["code"], v["severity"]) for v in document["violations"])
    assert codes == [("TS008", "error"), ("TS024", "warning")]
    assert (document["errors"], document["warnings"]) == (1, 1)
    assert [v["text"] for v in document["violations"]] == text.stdout.splitlines()
    [error] = [v for v in document["violations"] if v["code"] == "TS008"]
    assert error["file"] == str(stack / "a,b%c.yaml") and error["line"] > 0
    assert error["field"] == "spec.normal.ports[1].port"


def test_validate_format_github_annotates_the_lines(tmp_path: Path) -> None:
    """GitHub Actions workflow commands: ``::error``/``::warning`` with the file and line of
    each violation, properties escaped as the runner unescapes them."""
    stack = _warned_stack(tmp_path)
    done = run("validate", str(stack), "--format", "github")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    escaped = str(stack / "a%2Cb%25c.yaml")
    levels = {line.split(" ", 1)[0] for line in lines}
    assert levels == {"::error", "::warning"}
    for line in lines:
        props, message = line.split("::", 2)[1:]
        assert props.split(" ", 1)[1].startswith(f"file={escaped},line=")
        assert ",title=TS0" in props and "TServer tars-dev/web-portal" in props
        assert message.startswith("spec.")


def test_validate_format_applies_to_every_cluster(tmp_path: Path) -> None:
    root = project(tmp_path, BJ_REPLICAS)
    done = run("validate", "--stack", "mc", "--format", "json", cwd=root)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert {v["cluster"] for v in document["violations"]} == {"sh", "bj"}


def test_validate_rules_lists_every_code_without_a_stack() -> None:
    done = run("validate", "--rules")
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stdout.splitlines()]
    assert listed == list(RULES)
    assert "with --previous" in next(line for line in done.stdout.splitlines() if "TS001" in line)


@pytest.mark.parametrize("command", [c for c in COMMANDS])
def test_each_help_ends_with_examples(command: str) -> None:
    done = run(command, "--help")
    assert done.returncode == 0
    examples = done.stdout.split("\nexamples:\n", 1)[1].splitlines()
    commands = [
        line.strip() for line in examples if line.strip() and not line.strip().startswith("#")
    ]
    assert commands and all(c.startswith(("tars-components ", "source ")) for c in commands)
    assert "TS001" not in done.stdout  # the rule table is behind validate --rules


# shell completion: the generated script loaded into the real shell


def _bash_complete(script: str, line: str, cwd: Path) -> list[str]:
    words = line.split(" ")
    program = (
        f"{script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        "_tars_components; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, cwd=cwd, check=True
    )
    return [w for w in done.stdout.splitlines() if w]


def test_bash_completion(tmp_path: Path) -> None:
    script = run("completion", "bash").stdout
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "Pulumi.prod.yaml").write_text("config: {}\n")
    assert _bash_complete(script, "tars-components ren", tmp_path) == ["render"]
    assert _bash_complete(script, "tars-components --v", tmp_path) == ["--version"]
    assert _bash_complete(script, "tars-components render --mo", tmp_path) == ["--mode"]
    assert _bash_complete(script, "tars-components render --mode ", tmp_path) == ["expand", "crd"]
    assert _bash_complete(script, "tars-components render -o ", tmp_path) == ["yaml", "json"]
    assert _bash_complete(script, "tars-components validate --stack ", tmp_path) == ["dev", "prod"]
    assert "--format" in _bash_complete(script, "tars-components validate --f", tmp_path)
    assert _bash_complete(script, "tars-components validate --format g", tmp_path) == ["github"]
    # a file argument: nothing of ours, so bash completes file names (complete -o default)
    assert _bash_complete(script, "tars-components render --out ", tmp_path) == []


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_loads_the_completion() -> None:
    script = run("completion", "zsh").stdout
    done = subprocess.run(
        ["zsh", "-f", "-c", f"{script}\nprint -r -- $_comps[tars-components]"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "_tars_components" in done.stdout


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completion(tmp_path: Path) -> None:
    script = tmp_path / "tars-components.fish"
    script.write_text(run("completion", "fish").stdout)
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=True,
        )
        assert done.stderr == "", done.stderr
        return [w.split("\t")[0] for w in done.stdout.splitlines()]

    assert complete("tars-components ren") == ["render"]
    assert complete("tars-components render --mode ") == ["crd", "expand"]
    assert complete("tars-components validate --stack ") == ["dev"]
    assert "--rules" in complete("tars-components validate --r")
