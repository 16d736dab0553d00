"""``tars-components convert``: helm-lib values files → the equivalent TarsK8S documents.

A team leaving helm-lib behind converts each ``values.yaml`` once and keeps the result in its
stack: the documents the v1.4.1 chart renders (:mod:`tars_components.helmlib`), written as
``k8s.tars.io/v1beta3`` (the storage version; a TServer goes through the v1.4.1 conversion, so
it gains ``readinessGates: []``), without helm's ``helm.sh/resource-policy`` annotation (there
is no helm to read it; Pulumi deletes a TConfig only when it leaves the stack) and without the
nulls the chart writes for unset values (the API server drops them too).

:func:`convert_texts` is pure; :func:`convert_files` reads the inputs and writes the files,
each one atomically (a temporary file renamed into place), only when nothing is wrong.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .errors import LoadError, LoadProblem, UsageError, Violation, sorted_violations
from .expansion.crd import convert
from .helmlib import translate, values_mapping
from .loader import load_texts
from .models import V1BETA3
from .paths import FileIndex
from .yamlio import Limits, dump, load_documents

HELM_ANNOTATION = "helm.sh/resource-policy"


@dataclass(frozen=True)
class ConvertResult:
    """What a conversion produced: ``{file name: YAML text}`` (one file per input, named
    after the server), the violations of the produced documents (schema and warnings), and a
    note per input."""

    files: dict[str, str] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def convert_texts(texts: Mapping[str, str], limits: Limits | None = None) -> ConvertResult:
    """Convert ``{input name: values text}``. Raises :class:`LoadError` for an input that is
    not a helm-lib values file or that helm cannot render, :class:`UsageError` when two inputs
    are the same server."""
    problems: list[LoadProblem] = []
    files: dict[str, str] = {}
    origin: dict[str, str] = {}
    notes: list[str] = []
    violations: list[Violation] = []
    for name in sorted(texts):
        text = texts[name]
        try:  # YAML syntax, limits, what helm cannot render: worded by the loader
            stack = load_texts({name: text}, limits=limits)
        except LoadError as exc:
            problems.extend(exc.problems)
            continue
        values = values_mapping(load_documents(text, limits))
        if values is None:
            problems.append(
                LoadProblem(
                    name,
                    1,
                    "not a helm-lib values file (one mapping with app, server, "
                    "repo, servants; no apiVersion or kind)",
                )
            )
            continue
        translation = translate(name, values, index=FileIndex(name, text))
        violations.extend(stack.violations)
        bodies = [_v1beta3(produced.body) for produced in translation.documents]
        target = f"{bodies[0]['metadata']['name']}.yaml"
        if target in origin:
            raise UsageError(f"{name} and {origin[target]} are the same server ({target})")
        origin[target] = name
        files[target] = "".join(f"---\n{dump(body)}" for body in bodies)
        kinds = ", ".join(str(b["kind"]) for b in bodies)
        notes.append(f"{name}: {len(bodies)} documents ({kinds}) -> {target}")
    if problems:
        raise LoadError(problems)
    return ConvertResult(files, sorted_violations(violations), notes)


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _v1beta3(body: Mapping[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = _without_nulls(dict(body))
    meta = doc.get("metadata") or {}
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != HELM_ANNOTATION}
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    if doc["kind"] == "TServer":
        return convert(doc, V1BETA3)
    doc["apiVersion"] = V1BETA3  # TConfig and TImage have one schema in both versions
    return doc


def convert_files(
    inputs: Sequence[str | Path], out_dir: str | Path, limits: Limits | None = None
) -> ConvertResult:
    """Read the values files, convert them, and (when no error) write one file per server
    into ``out_dir`` (created when missing), each atomically."""
    limits = limits or Limits()
    texts: dict[str, str] = {}
    problems: list[LoadProblem] = []
    for path in inputs:
        file = Path(path)
        try:
            if file.stat().st_size > limits.max_file_bytes:
                problems.append(LoadProblem(str(file), 0, "file is larger than the file limit"))
                continue
            texts[str(file)] = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(LoadProblem(str(file), 0, f"cannot read file: {exc}"))
    if problems:
        raise LoadError(problems)
    result = convert_texts(texts, limits)
    if any(v.is_error for v in result.violations):
        return ConvertResult({}, result.violations, result.notes)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: not a directory")
    out.mkdir(parents=True, exist_ok=True)
    for name, text in result.files.items():
        _write_atomically(out / name, text)
    return result


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def command(args: argparse.Namespace, out: TextIO) -> int:
    """``tars-components convert VALUES... --out DIR``: 0 written, 1 a rule error (nothing
    written); unreadable input raises :class:`LoadError` (exit 2 in the CLI)."""
    result = convert_files(args.inputs, args.out)
    for v in result.violations:
        print(v.format(), file=out)
    if any(v.is_error for v in result.violations):
        print("convert refused: the documents have errors, nothing written", file=out)
        return 1
    for note in result.notes:
        print(note, file=out)
    for name in result.files:
        print(Path(args.out) / name, file=out)
    return 0


__all__ = ["ConvertResult", "command", "convert_files", "convert_texts"]
