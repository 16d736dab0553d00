"""The render command is deterministic (design §2): same input, byte-identical files.

Every render here runs the real command in a subprocess, as a user runs it:
``python -m tars_components render STACK_DIR --out DIR``. Covered:

* rendering a stack twice (different hash seeds, different output directories) gives
  byte-identical trees;
* changing one TServer's replicas in a copy of a stack changes exactly the one file (and
  the one line) it should — or nothing, where the mutating webhook pins replicas;
* file modification times, the order in which files were created, how documents are split
  across files, and a stale previous render in the output directory do not change the
  result.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
STACKS = {
    "dev": REPO / "stacks" / "dev",
    "framework": CORPUS / "framework",
    "edge": CORPUS / "edge",
}
STACK_SUFFIXES = (".yaml", ".yml")

Tree = dict[str, bytes | None]
"""Relative path → file bytes (None for a directory)."""


def read_tree(root: Path) -> Tree:
    """Every file and directory under ``root``, by relative POSIX path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes() if path.is_file() else None
        for path in sorted(root.rglob("*"))
    }


def render(stack_dir: Path, out: Path, *, hash_seed: str = "0") -> Tree:
    """Run ``python -m tars_components render STACK_DIR --out OUT``; the written tree."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run(
        [sys.executable, "-m", "tars_components", "render", str(stack_dir), "--out", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, (
        f"render {stack_dir} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    )
    return read_tree(out)


def changed_files(before: Tree, after: Tree) -> set[str]:
    """Paths added, removed or modified between two trees."""
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def copy_stack(stack_dir: Path, target: Path) -> Path:
    """A plain copy of a stack's YAML files (nothing else) in ``target``."""
    target.mkdir(parents=True)
    for path in sorted(stack_dir.iterdir()):
        if path.is_file() and path.suffix in STACK_SUFFIXES:
            shutil.copyfile(path, target / path.name)
    return target


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Tree]:
    """The tree of each stack, rendered once per test module (with hash seed 1)."""
    trees: dict[str, Tree] = {}

    def get(name: str) -> Tree:
        if name not in trees:
            out = tmp_path_factory.mktemp(f"baseline-{name}") / "out"
            trees[name] = render(STACKS[name], out, hash_seed="1")
        return trees[name]

    return get


@pytest.mark.parametrize("name", sorted(STACKS))
def test_render_twice_is_byte_identical(
    name: str, baseline: Callable[[str], Tree], tmp_path: Path
) -> None:
    """A second render (other hash seed, other output directory) writes the same bytes."""
    first = baseline(name)
    manifests = [p for p, data in first.items() if data is not None]
    assert manifests, f"{name}: nothing rendered"
    assert all(re.fullmatch(r"1-manifest/[^/]+\.yaml", p) for p in manifests), manifests
    second = render(STACKS[name], tmp_path / "elsewhere" / "out", hash_seed="2")
    assert changed_files(first, second) == set()


# (stack, file, TServer name, replicas before, after, files expected to change)
REPLICA_CHANGES = [
    pytest.param(
        "edge",
        "strategies.yaml",
        "edge-stscanary",
        4,
        5,
        {"1-manifest/apps_v1-statefulset-default-edge-stscanary.yaml"},
        id="edge-statefulset",
    ),
    pytest.param(
        "framework",
        "tars-tarsquerystat.yaml",
        "tars-tarsquerystat",
        1,
        3,
        {"1-manifest/apps_v1-statefulset-tars-tars-tarsquerystat.yaml"},
        id="framework-statefulset",
    ),
    # no release: the webhook forces replicas 0 (M-TS9), whatever the document says
    pytest.param("edge", "release.yaml", "edge-unreleased", 3, 4, set(), id="no-release"),
    # tars.io/MaxReplicas "3" clamps both 7 and 9 to 3 (M-TS10)
    pytest.param("edge", "release.yaml", "edge-clamped", 7, 9, set(), id="max-replicas-clamp"),
]


def set_replicas(path: Path, server: str, before: int, after: int) -> None:
    """Change ``spec.k8s.replicas`` of one TServer in a multi-document file, textually, so
    that nothing else in the file changes."""
    documents = re.split(r"(?m)^---[ \t]*$", path.read_text(encoding="utf-8"))
    matches = [i for i, d in enumerate(documents) if re.search(rf"(?m)^  name: {server}$", d)]
    assert len(matches) == 1, f"{server} is not exactly once in {path}"
    index = matches[0]
    documents[index], count = re.subn(
        rf"(?m)^(\s+replicas: ){before}$", rf"\g<1>{after}", documents[index]
    )
    assert count == 1, f"{server}: no single 'replicas: {before}' in {path}"
    path.write_text("---".join(documents), encoding="utf-8")


@pytest.mark.parametrize(("name", "file", "server", "before", "after", "expected"), REPLICA_CHANGES)
def test_replicas_change_touches_exactly_its_workload(
    name: str,
    file: str,
    server: str,
    before: int,
    after: int,
    expected: set[str],
    baseline: Callable[[str], Tree],
    tmp_path: Path,
) -> None:
    """One TServer's replicas changed in a copy of the stack: only its workload file differs,
    in the ``replicas`` line only (or nothing differs where the webhook pins replicas)."""
    stack = copy_stack(STACKS[name], tmp_path / "stack")
    set_replicas(stack / file, server, before, after)
    original = baseline(name)
    changed = render(stack, tmp_path / "out")
    assert changed_files(original, changed) == expected
    for path in expected:
        old_text = (original[path] or b"").decode().splitlines()
        new_text = (changed[path] or b"").decode().splitlines()
        diff = [
            line
            for line in difflib.unified_diff(old_text, new_text, lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        ]
        # and, for a partitioned server, the count of pods above the partition that
        # `pulumi up` waits for (docs/pulumi/deploy.md#what-pulumi-up-waits-for)
        waits = [line for line in diff if "pulumi.com/waitFor" in line]
        assert len(waits) in (0, 2), diff
        assert [line for line in diff if line not in waits] == [
            f"-  replicas: {before}",
            f"+  replicas: {after}",
        ]
        if waits:
            assert [re.sub(r"updatedReplicas > \d+", "", w[1:]) for w in waits] == [
                re.sub(r"updatedReplicas > \d+", "", waits[0][1:])
            ] * 2


@pytest.mark.parametrize("name", sorted(STACKS))
def test_render_ignores_mtimes_creation_order_and_previous_output(
    name: str, baseline: Callable[[str], Tree], tmp_path: Path
) -> None:
    """Files created in reverse order with modification times that run backwards (and then
    shuffled), rendered over a stale output directory, give the baseline tree twice."""
    source = STACKS[name]
    files = sorted(p for p in source.iterdir() if p.is_file() and p.suffix in STACK_SUFFIXES)
    stack = tmp_path / "stack"
    stack.mkdir()
    for age, path in enumerate(reversed(files)):
        target = stack / path.name
        target.write_bytes(path.read_bytes())
        stamp = 1_000_000_000 + 86_400 * (len(files) - age)  # first created = newest
        os.utime(target, (stamp, stamp))

    out = tmp_path / "out"
    (out / "1-manifest").mkdir(parents=True)
    (out / "1-manifest" / "v1-service-default-stale.yaml").write_text("stale: true\n")
    assert changed_files(baseline(name), render(stack, out)) == set()

    for index, path in enumerate(sorted(stack.iterdir(), key=lambda p: p.name[::-1])):
        stamp = 2_000_000_000 - 3_600 * index
        os.utime(path, (stamp, stamp))
    assert changed_files(baseline(name), render(stack, out)) == set()


@pytest.mark.parametrize("name", sorted(STACKS))
def test_render_ignores_how_documents_are_split_across_files(
    name: str, baseline: Callable[[str], Tree], tmp_path: Path
) -> None:
    """All documents of the stack in one file, in reverse order, give the same tree."""
    files = sorted(p for p in STACKS[name].iterdir() if p.is_file() and p.suffix in STACK_SUFFIXES)
    # read with the project's loader, which keeps timestamps as strings
    documents = [d for p in files for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d]
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "all.yaml").write_text(
        yaml.safe_dump_all(reversed(documents), sort_keys=False), encoding="utf-8"
    )
    assert changed_files(baseline(name), render(stack, tmp_path / "out")) == set()
