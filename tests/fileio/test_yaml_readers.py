"""Rendered YAML reads the same in every YAML reader (issue #17): PyYAML (YAML 1.1, what the
project reads with) and a YAML 1.2 reader (ruamel.yaml, core schema, as kubectl's, helm's and
client-go's go-yaml mostly reads) get the same data back from every rendered file of the dev
stack and the corpus, in expand and crd mode: no string turns into a number, boolean or null
in either."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from ruamel.yaml import YAML
from support.assertions.same import same

from tars_components.jobs.render import render_files
from tars_components.loading.load import load_stack
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
STACKS = [REPO / "stacks" / "dev", *sorted(p for p in CORPUS.iterdir() if p.is_dir())]
# The edge corpus shows what expand mode admits and crd mode refuses: expand mode only.
CASES = [
    pytest.param(stack, mode, id=f"{stack.name}-{mode.value}")
    for stack in STACKS
    for mode in (Mode.EXPAND, Mode.CRD)
    if not (stack.name == "edge" and mode is Mode.CRD)
]


def _yaml12() -> Any:
    reader = YAML(typ="safe", pure=True)
    reader.version = (1, 2)
    return reader


def _rendered(stack_dir: Path, mode: Mode) -> tuple[list[dict[str, Any]], dict[str, str]]:
    result = build(load_stack(stack_dir, "tars-dev"), Options(namespace="tars-dev", mode=mode))
    assert result.ok, [v.format() for v in result.violations if v.is_error]
    return result.objects, render_files(result.objects)


@pytest.mark.parametrize(("stack_dir", "mode"), CASES)
def test_yaml_12_reader_reads_every_rendered_file_as_pyyaml_does(
    stack_dir: Path, mode: Mode
) -> None:
    objects, files = _rendered(stack_dir, mode)
    assert files
    reader = _yaml12()
    for (path, text), built in zip(files.items(), objects, strict=True):
        pyyaml = yaml.safe_load(text)
        yaml12 = reader.load(text)
        assert same(pyyaml, built), path
        assert same(yaml12, built), path


def test_env_values_that_look_like_numbers_render_quoted() -> None:
    """The edge corpus's YamlScalars server: an env value 1.5e3 stays a string for kubectl."""
    _, files = _rendered(CORPUS / "edge", Mode.EXPAND)
    text = files["1-manifest/apps_v1-statefulset-tars-dev-edge-yamlscalars.yaml"]
    assert "value: '1.5e3'\n" in text
    assert "value: '0x1F'\n" in text
