"""Typed inputs, keyword constructors and outputs of the components (issue #8 item 3): a user
program type-checks under ``mypy --strict`` and a misspelled field fails; ``TServer(name,
framework=..., app=..., ...)`` registers exactly what ``TServer(name, TServerArgs(...))``
does; integers stay integers; digest-pinned images are accepted (expand mode)."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import importlib.util
import inspect
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pulumi
import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, plain, tars_server
from support.engines.typecheck import mypy_strict

from tars_components.components import (
    TAccount,
    TAccountArgs,
    TConfig,
    TConfigArgs,
    TFramework,
    TFrameworkArgs,
    TImage,
    TImageArgs,
    TServer,
    TServerArgs,
    TTemplate,
    TTemplateArgs,
    TTree,
    TTreeArgs,
)
from tars_components.components.testing import Recording, record
from tars_components.fileio.yaml_writer import dump
from tars_components.loading.documents import parse_document
from tars_components.loading.load import load_texts
from tars_components.pipeline import check
from tars_components.settings.options import Mode, Options

REPO = Path(__file__).resolve().parents[2]
DIGEST_IMAGE = "reg.example.com/shop/order@sha256:" + "0123456789abcdef" * 4
CONFIG = parse_document(FRAMEWORK, NAMESPACE)
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
TARS: Any = {"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]}
K8S: Any = {"replicas": 2, "env": [{"name": "MODE", "value": "prod"}]}
RELEASE: Any = {"id": "v1", "image": "reg.example.com/shop/order:v1"}

GOOD_PROGRAM = """
import pulumi

from tars_components import TFramework, TServer, TServerArgs, TTemplate
from tars_components.components import K8sSpecArgsDict

fw = TFramework("fw", namespace="shop")
TTemplate("cpp", framework=fw, template_name="shop.cpp", parent="tars.cpp")
k8s: K8sSpecArgsDict = {"replicas": 2, "env": [{"name": "PW", "value": pulumi.Output.secret("x")}]}
order = TServer(
    "order",
    framework=fw,
    app="Shop",
    server="Order",
    tars={"template": "shop.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
    k8s=k8s,
    release={"id": "v1", "image": pulumi.Output.from_input("reg.example.com/shop/order:v1")},
)
pay = TServer("pay", TServerArgs(framework=fw, app="Shop", server="Pay", normal={"ports": []}))
web = TServer(
    "web",
    framework=fw,
    app=pulumi.Output.from_input("Shop"),
    server=pulumi.Output.from_input("Web"),
    normal={"ports": [{"name": "http", "port": pulumi.Output.from_input(8080)}]},
    k8s={"replicas": pulumi.Output.from_input(2), "daemonSet": False},
)
TFramework(
    "v3",
    namespace="a",
    config={
        "imageBuild": {"executor": {"image": "tarscloud/kaniko:v1", "secret": "pull"}},
        "imageUpload": {"registry": "reg.example.com/a"},
        "nodeImage": {"image": "tarscloud/tarsnode:v1"},
    },
)
TFramework(
    "v2",
    namespace="b",
    config={"imageRegistry": {"registry": "reg"}, "nodeImage": {"image": "tarscloud/tarsnode:v1"}},
)
hpa_target: dict[str, pulumi.Input[str]] | None = web.scale_target_ref
pulumi.export("mutated", order.mutated)
"""

BAD_PROGRAM = """
from tars_components import TFramework, TServer

fw = TFramework("fw", namespace="shop")
TServer("order", framework=fw, app="Shop", servr="Order")
TServer("pay", framework=fw, app="Shop", server="Pay", k8s={"replicaz": 2})
TServer("web", framework=fw, app="Shop", server="Web", tars={"servants": [{"nme": "A"}]})
TFramework("v3", config={"imageBuild": {"executor": {"image": ""}}, "nodeImage": {"image": ""}})
"""


def test_mypy_strict_accepts_a_user_program_and_refuses_misspelled_fields(
    tmp_path: Path,
) -> None:
    result = mypy_strict(tmp_path, {"good": GOOD_PROGRAM, "bad": BAD_PROGRAM})
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line.split(":")[:2] for line in result.stdout.splitlines() if ": error:" in line]
    # Nothing in the good program; each misspelled field of the bad one (lines 5 to 7), and a
    # v1beta3 framework config without imageUpload, which TF001 refuses at run time (line 8).
    assert sorted({tuple(e) for e in errors}) == [("bad.py", str(n)) for n in range(5, 9)]


def _both(keyword: bool) -> Recording:
    def program() -> None:
        if keyword:
            fw = TFramework("fw", namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)
            TTemplate("tpl", framework=fw, template_name="shop.cpp", parent="tars.cpp")
            TServer(
                "srv", framework=fw, app="Shop", server="Order", tars=TARS, k8s=K8S, release=RELEASE
            )
        else:
            fw = TFramework(
                "fw", TFrameworkArgs(namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)
            )
            TTemplate("tpl", TTemplateArgs(fw, template_name="shop.cpp", parent="tars.cpp"))
            TServer(
                "srv",
                TServerArgs(fw, app="Shop", server="Order", tars=TARS, k8s=K8S, release=RELEASE),
            )

    return record(program)


def test_keyword_constructors_register_the_same_as_args_objects() -> None:
    by_args, by_keywords = _both(False), _both(True)

    def view(recording: Recording) -> list[tuple[str, str, Any, tuple[str, ...]]]:
        return [
            (r.type, r.urn, plain(r.inputs), r.dependencies)
            for r in sorted(recording.registrations, key=lambda r: r.urn)
        ]

    assert view(by_keywords) == view(by_args)
    assert len(by_args.kubernetes()) == 2


def test_constructor_misuse_is_a_type_error() -> None:
    def program(call: Any) -> None:
        fw = TFramework("fw", namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)
        call(fw)

    with pytest.raises(TypeError, match="servr"):
        record(lambda: program(lambda fw: TServer("s", framework=fw, app="A", servr="B")))
    with pytest.raises(TypeError, match="not both"):
        record(
            lambda: program(
                lambda fw: TServer("s", TServerArgs(fw, app="A", server="B"), app="C")  # type: ignore[call-overload]
            )
        )


def test_integers_stay_integers_in_outputs() -> None:
    def program() -> None:
        fw = TFramework("fw", namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)
        srv = TServer("srv", framework=fw, document=parse_document(tars_server(replicas=3)))  # type: ignore[arg-type]
        pulumi.export("mutated", srv.mutated)

    mutated = record(program).outputs["mutated"]
    replicas = mutated["spec"]["k8s"]["replicas"]
    port = mutated["spec"]["tars"]["servants"][0]["port"]
    assert (replicas, port) == (3, 10001)
    assert type(replicas) is int and type(port) is int


def test_digest_pinned_images_deploy_in_expand_mode_and_are_refused_in_crd_mode() -> None:
    server = tars_server()
    server["spec"]["release"]["image"] = DIGEST_IMAGE

    def program() -> None:
        fw = TFramework("fw", namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)
        TServer("srv", framework=fw, document=parse_document(server))  # type: ignore[arg-type]

    [sts] = record(program).of_type("kubernetes:apps/v1:StatefulSet")
    [main] = sts.inputs["spec"]["template"]["spec"]["containers"]
    assert main["image"] == DIGEST_IMAGE
    files = {"a.yaml": dump(FRAMEWORK), "b.yaml": dump(server)}
    stack = load_texts(files, NAMESPACE)
    expand_codes = {v.code for v in check(stack, Options(NAMESPACE)) if v.is_error}
    assert "TS021" not in expand_codes
    crd = [v for v in check(stack, Options(NAMESPACE, mode=Mode.CRD)) if v.is_error]
    assert [(v.code, v.field) for v in crd if v.code == "TS021"] == [
        ("TS021", "spec.release.image")
    ]
    bad = tars_server()
    bad["spec"]["release"]["image"] = "reg.example.com/shop/order@sha256:short"
    refused = load_texts({"b.yaml": dump(bad)}, NAMESPACE)
    assert [v.code for v in refused.violations] == ["TS021"]


def test_the_argsdict_shapes_and_the_overloads_are_generated() -> None:
    """``shapes.py`` and the components' ``@overload`` signatures are what
    ``tools/gen_argsdicts.py`` writes for the current models and arguments dataclasses (run it
    again after changing either), and every field of a section model has its key."""
    checked = subprocess.run(
        [sys.executable, str(REPO / "tools" / "gen_argsdicts.py"), "--check"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
    )
    assert checked.returncode == 0, checked.stderr
    from tars_components.components.shapes import K8sSpecArgsDict
    from tars_components.models import K8sSpec

    assert set(K8sSpecArgsDict.__annotations__) == {
        info.alias or name for name, info in K8sSpec.model_fields.items()
    }


COMPONENTS = {
    TFramework: TFrameworkArgs,
    TTemplate: TTemplateArgs,
    TServer: TServerArgs,
    TConfig: TConfigArgs,
    TImage: TImageArgs,
    TTree: TTreeArgs,
    TAccount: TAccountArgs,
}


def _keyword_overload(component: type) -> ast.FunctionDef:
    """The keyword form of ``component.__init__`` as a type checker reads it."""
    tree = ast.parse(Path(inspect.getsourcefile(component) or "").read_text("utf-8"))
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == component.__name__]
    inits = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    [keyword] = [n for n in inits if n.args.kwonlyargs]
    assert [ast.unparse(d) for d in keyword.decorator_list] == ["overload"]
    return keyword


@pytest.mark.parametrize("component", list(COMPONENTS), ids=lambda c: c.__name__)
def test_each_component_takes_every_field_of_its_args_as_a_keyword(component: type) -> None:
    args = COMPONENTS[component]
    keyword = _keyword_overload(component)
    fields = dataclasses.fields(args)
    assert [a.arg for a in keyword.args.kwonlyargs] == [f.name for f in fields]
    assert [ast.unparse(a.annotation) for a in keyword.args.kwonlyargs if a.annotation] == [
        ast.unparse(ast.parse(str(f.type), mode="eval").body) for f in fields
    ]
    missing = dataclasses.MISSING
    required = [f.name for f in fields if f.default is missing and f.default_factory is missing]
    names = [a.arg for a in keyword.args.kwonlyargs]
    defaults = dict(zip(names, keyword.args.kw_defaults, strict=True))
    assert [name for name, default in defaults.items() if default is None] == required


def test_the_generator_rewrites_a_stale_overload_and_names_a_missing_import() -> None:
    spec = importlib.util.spec_from_file_location("gen_argsdicts", REPO / "tools/gen_argsdicts.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    path = Path(inspect.getsourcefile(TServer) or "")
    committed = path.read_text("utf-8")
    line = "        external_replicas: bool | None = None,\n"
    stale = committed.replace(line, "", 1)
    assert stale != committed
    names = set(vars(sys.modules[TServer.__module__])) | set(dir(builtins))
    regenerated = tool.with_overloads(stale, {"TServerArgs": TServerArgs}, names)
    assert tool.formatted(regenerated, path) == committed
    with pytest.raises(ValueError, match="SubTypeValue"):
        tool.with_overloads(stale, {"TServerArgs": TServerArgs}, names - {"SubTypeValue"})


# --- what a Pulumi user's checker says (issue 17.6) -------------------------------------------

WRONG_PROGRAM = """
from tars_components import TAccount, TFramework, TServer

fw = TFramework("fw", namespace="shop", config={"recordLimit": {"tconfigHistory": 20}})
TServer("a", framework=fw, app="Shop", server="A", tars={"servants": [{"name": "AObj"}]})
TServer("b", framework=fw, app="Shop", server="B", k8s={"abilityAffinity": "Sometimes"})
TAccount("c", framework=fw, username="ops", authorization=[{"role": "visitor", "flag": "*"}])
TServer("d", framework=fw, app="Shop", server="D", sub_type="weird")
"""
"""Line 4: a framework config without ``nodeImage``; 5: a servant without ``port``; 6: an
``abilityAffinity`` outside its enum; 7: a role TA003 refuses; 8: a subType that is none."""

WRONG_LINES = ["4", "5", "6", "7", "8"]


def readme_program() -> str:
    """The first Python block of the docs page "Use in your own Pulumi program"."""
    text = (REPO / "docs" / "pulumi" / "own-program.md").read_text("utf-8")
    return text.split("```python\n", 1)[1].split("```", 1)[0]


def _checked(tmp_path: Path, programs: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """``mypy --strict`` and ``pyright`` over user programs, the library seen as an installed
    package is (its own code not reported): ``{checker: [(file, line), ...]}`` of the errors."""
    for name, text in programs.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    files = [f"{name}.py" for name in programs]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", *files],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
        check=False,
    )
    (tmp_path / "pyrightconfig.json").write_text(
        '{"typeCheckingMode": "strict", "pythonVersion": "3.10"}', encoding="utf-8"
    )
    pyright = subprocess.run(
        [sys.executable, "-m", "pyright", "--pythonpath", sys.executable, *files],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"},
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
        check=False,
    )
    assert "error" not in mypy.stderr, mypy.stderr
    assert pyright.returncode in (0, 1), pyright.stdout + pyright.stderr
    found: dict[str, list[tuple[str, str]]] = {"mypy": [], "pyright": []}
    for line in mypy.stdout.splitlines():
        if ": error:" in line:
            file, number = line.split(":")[:2]
            found["mypy"].append((file, number))
    for line in pyright.stdout.splitlines():
        line = line.strip()
        if " - error:" in line:
            where = line.split(" - error:")[0]
            file, number = where.rsplit(":", 2)[:2]
            found["pyright"].append((Path(file).name, number))
    return found


def test_the_readme_example_and_the_consumer_pass_mypy_strict_and_pyright(
    tmp_path: Path,
) -> None:
    programs = {
        "readme": readme_program(),
        "consumer": (REPO / "examples" / "consumer" / "__main__.py").read_text("utf-8"),
        "wrong": WRONG_PROGRAM,
    }
    found = _checked(tmp_path, programs)
    for checker, errors in found.items():
        # Nothing in the docs' block or the consumer; each mistake of the wrong program.
        assert sorted({line for file, line in errors if file == "wrong.py"}) == WRONG_LINES, (
            checker,
            errors,
        )
        assert [e for e in errors if e[0] != "wrong.py"] == [], (checker, errors)


def test_mypy_finds_an_editable_install_made_as_documented(tmp_path: Path) -> None:
    """``pip install -e . --config-settings editable_mode=compat`` (docs/pulumi/own-program.md):
    mypy resolves ``tars_components`` to the working tree, with no PYTHONPATH. A probe module
    exists only in that tree, so no other installed copy can stand in for it."""
    tree = tmp_path / "tree"
    shutil.copytree(
        REPO / "tars_components",
        tree / "tars_components",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, tree / name)
    (tree / "tars_components" / "_editable_probe.py").write_text("PROBE: int = 1\n")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    install = [
        str(venv / "bin" / "pip"),
        "install",
        "-q",
        "--no-deps",
        "--disable-pip-version-check",
    ]
    subprocess.run(
        [*install, "-e", str(tree), "--config-settings", "editable_mode=compat"],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    program = tmp_path / "program" / "main.py"
    program.parent.mkdir()
    program.write_text(
        "from tars_components import TFramework\n"
        "from tars_components._editable_probe import PROBE\n\n"
        'TFramework("fw", namespace="shop")\n'
    )
    # Resolution is the question: the library's own analysis (skipped here) is the other
    # typed test's. A copy installed elsewhere has no probe: "Cannot find implementation".
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=skip",
            "--python-executable",
            str(venv / "bin" / "python"),
            "main.py",
        ],
        capture_output=True,
        text=True,
        cwd=program.parent,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
