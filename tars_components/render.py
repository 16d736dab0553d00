"""Rendered manifests as files, in the layout of pulumi-kubernetes' ``renderYamlToDirectory``.

``DIR/1-manifest/<apiVersion, / and : as _>-<kind lowercased>-<namespace>-<name>.yaml``, and
``DIR/0-crd/`` for CustomResourceDefinitions. :func:`render_files` is pure; :func:`write_tree`
is the only function that touches the disk, and replaces the directory in one step so that a
failed render never leaves a half-written tree.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .yamlio import dump

CRD_DIR = "0-crd"
MANIFEST_DIR = "1-manifest"


def render_path(obj: Mapping[str, Any]) -> str:
    """Relative path of one object, exactly as ``renderYamlToDirectory`` names it."""
    api_version = str(obj["apiVersion"])
    kind = str(obj["kind"])
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace") or "default"
    name = meta["name"]
    sanitised = api_version.replace("/", "_").replace(":", "_")
    directory = CRD_DIR if kind == "CustomResourceDefinition" else MANIFEST_DIR
    return f"{directory}/{sanitised}-{kind.lower()}-{namespace}-{name}.yaml"


def render_files(objects: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{relative path: YAML text}`` for every object, in the objects' order.

    Raises ValueError when two objects map to the same file (they would overwrite each other).
    """
    files: dict[str, str] = {}
    for obj in objects:
        path = render_path(obj)
        if path in files:
            raise ValueError(f"two objects render to {path}")
        files[path] = dump(obj)
    return files


def write_tree(out_dir: str | Path, files: Mapping[str, str]) -> None:
    """Make ``out_dir`` contain exactly ``files``.

    The tree is written next to ``out_dir`` first and swapped in by renames, so the previous
    render stays intact if anything fails while writing.
    """
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for relative, text in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        for directory in (CRD_DIR, MANIFEST_DIR):
            (staging / directory).mkdir(exist_ok=True)
        os.chmod(staging, 0o755)
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            retired.rmdir()
            out.rename(retired)
            staging.rename(out)
            shutil.rmtree(retired)
        else:
            staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
