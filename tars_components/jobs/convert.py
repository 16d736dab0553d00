"""``tars-components convert``: helm-lib values files → the equivalent TarsK8S documents.

A team leaving helm-lib behind converts each ``values.yaml`` once and keeps the result in its
stack: the documents the v1.4.1 chart renders (:mod:`tars_components.loading.helm`), written as
``k8s.tars.io/v1beta3`` (the storage version; a TServer goes through the v1.4.1 conversion, so
it gains ``readinessGates: []``), without helm's ``helm.sh/resource-policy`` annotation (there
is no helm to read it; Pulumi deletes a TConfig only when it leaves the stack) and without the
nulls the chart writes for unset values (the API server drops them too).

:func:`convert_texts` is pure; :func:`convert_files` reads the inputs and writes the files,
each one atomically (a temporary file renamed into place), only when nothing is wrong.
"""

from __future__ import annotations

import bisect
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..expansion.crd import convert
from ..fileio.yaml_writer import dump
from ..kernel.errors import LoadError, LoadProblem, UsageError, Violation, sorted_violations
from ..kernel.limits import Limits
from ..kernel.paths import FileIndex
from ..kernel.yaml_reader import YamlLimitError, load_documents
from ..loading.documents import shape_problem
from ..loading.helm import translate, values_mapping, with_release
from ..loading.legacy import upgrade
from ..loading.load import load_texts
from ..models import V1BETA3
from ..settings.options import ReleaseTag
from .tree_writer import SECRET_FILE_MODE, holds_secret

HELM_ANNOTATION = "helm.sh/resource-policy"


@dataclass(frozen=True)
class ConvertResult:
    """What a conversion produced: ``{file name: YAML text}`` (one file per input, named
    after the server), the violations of the produced documents (schema and warnings), and a
    note per input."""

    files: dict[str, str] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def convert_texts(
    texts: Mapping[str, str], limits: Limits | None = None, release: ReleaseTag | None = None
) -> ConvertResult:
    """Convert ``{input name: text}``: helm-lib values files (one file per server, named
    after it; ``release`` written into each, as ``exec-helm.sh VALUES TAG`` does) and files of
    k8s.tars.io/v1beta1 or v1beta2 documents (upgraded to v1beta3, same file name). Raises
    :class:`LoadError` for an input that is neither or that cannot be read or rendered,
    :class:`UsageError` when two inputs would be written to one file."""
    problems: list[LoadProblem] = []
    files: dict[str, str] = {}
    origin: dict[str, str] = {}
    notes: list[str] = []
    violations: list[Violation] = []
    for name in sorted(texts):
        text = texts[name]
        try:
            documents = load_documents(text, limits)
        except (yaml.YAMLError, YamlLimitError):
            documents = None
        values = values_mapping(documents) if documents is not None else None
        if documents is not None and values is None:
            converted = _upgrade_documents(name, text, documents, limits)
            if isinstance(converted, LoadProblem):
                problems.append(converted)
                continue
            target, body, found, note = converted
        else:
            try:  # YAML syntax, limits, what helm cannot render: worded by the loader
                stack = load_texts({name: text}, limits=limits, release=release)
            except LoadError as exc:
                problems.extend(exc.problems)
                continue
            assert values is not None
            translation = translate(
                name, with_release(values, release), index=FileIndex(name, text)
            )
            found = list(stack.violations)
            bodies = [_v1beta3(produced.body) for produced in translation.documents]
            target = f"{bodies[0]['metadata']['name']}.yaml"
            body = "".join(f"---\n{dump(b)}" for b in bodies)
            kinds = ", ".join(str(b["kind"]) for b in bodies)
            note = f"{name}: {len(bodies)} documents ({kinds}) -> {target}"
        if target in origin:
            raise UsageError(f"{name} and {origin[target]} are both written to {target}")
        origin[target] = name
        files[target] = body
        violations.extend(found)
        notes.append(note)
    if problems:
        raise LoadError(problems)
    return ConvertResult(files, sorted_violations(violations), notes)


def _upgrade_documents(
    name: str, text: str, documents: list[Any], limits: Limits | None
) -> LoadProblem | tuple[str, str, list[Violation], str]:
    """A file of TarsK8S documents upgraded to v1beta3 (:func:`legacy.upgrade`): the target
    name (the input's), its text, the violations of the upgraded documents (located in the
    input file when the field exists there) and a note naming what was dropped."""
    upgraded: list[Any] = []
    dropped: list[str] = []
    changed = 0
    for position, document in enumerate(documents):
        if not isinstance(document, dict):
            upgraded.append(document)
            continue
        problem = shape_problem(document)
        if problem is not None:
            return LoadProblem(name, FileIndex(name, text).document_line(position), problem)
        doc, lost = upgrade(document)
        changed += doc is not document
        upgraded.append(doc)
        dropped.extend(f"{document.get('kind')} {_name(document)} {path}" for path in lost)
    if not changed:
        return LoadProblem(
            name,
            1,
            "nothing to convert: not a helm-lib values file (one mapping with app, server, "
            "repo, servants; no apiVersion or kind) nor k8s.tars.io/v1beta1 or v1beta2 "
            "documents",
        )
    body = "".join(f"---\n{dump(d)}" for d in upgraded if d is not None)
    try:
        stack = load_texts({name: body}, limits=limits)
    except LoadError as exc:
        return exc.problems[0]
    positions = [position for position, d in enumerate(upgraded) if d is not None]
    found = _in_input(stack.violations, FileIndex(name, body), FileIndex(name, text), positions)
    target = Path(name).name
    note = f"{name}: {changed} document(s) upgraded to {V1BETA3} -> {target}"
    if dropped:
        note += f"; not carried over: {', '.join(dropped)}"
    return target, body, found, note


def _in_input(
    violations: Iterable[Violation], upgraded: FileIndex, given: FileIndex, positions: list[int]
) -> list[Violation]:
    """The violations of the upgraded text (which is not written), each at the line of its
    field in the input file (``positions``: the input position of each upgraded document);
    a field the input spells differently points at its deepest parent there."""
    starts = [upgraded.document_line(i) for i in range(len(positions))]
    located = []
    for v in violations:
        if v.line is None or not starts:
            located.append(replace(v, line=None))
            continue
        position = positions[max(bisect.bisect_right(starts, v.line) - 1, 0)]
        try:
            line = given.line(position, v.field)
        except ValueError:  # a field path that does not parse: the document's line
            line = given.document_line(position)
        located.append(replace(v, line=line))
    return located


def _name(raw: Mapping[str, Any]) -> str:
    meta = raw.get("metadata")
    return str(meta.get("name")) if isinstance(meta, dict) else "(no name)"


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
    inputs: Sequence[str | Path],
    out_dir: str | Path,
    limits: Limits | None = None,
    release: ReleaseTag | None = None,
) -> ConvertResult:
    """Read the values files, convert them (:func:`convert_texts`), and (when no error) write
    one file per server into ``out_dir`` (created when missing), each atomically; a file
    holding a Secret or a TAccount is created 0600."""
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
    result = convert_texts(texts, limits, release)
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
        os.chmod(temporary, SECRET_FILE_MODE if holds_secret(text) else 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


__all__ = ["ConvertResult", "convert_files", "convert_texts"]
