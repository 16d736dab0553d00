"""Rendered manifests as files, in the layout of pulumi-kubernetes' ``renderYamlToDirectory``.

``DIR/1-manifest/<apiVersion, / and : as _>-<kind lowercased>-<namespace>-<name>.yaml``, and
``DIR/0-crd/`` for CustomResourceDefinitions. :func:`render_files` is pure; :func:`render_stack`
is the ``render`` job, which writes through :func:`tars_components.jobs.tree_writer.write_tree`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fileio.yaml_writer import dump
from ..kernel.batch import suspended_gc
from ..kernel.limits import Limits
from ..loading.document_set import DocumentSet
from ..loading.load import load_stack
from ..pipeline import Build, build
from ..rules.layout import output_path
from ..settings.options import Mode, Options, check_options
from .account_salts import local_salt_key, previous_hashes
from .tree_writer import check_out_dir, write_tree

if TYPE_CHECKING:
    from ..secrets.hashing import AccountHashing


def render_path(obj: Mapping[str, Any]) -> str:
    """Relative path of one object, exactly as ``renderYamlToDirectory`` names it."""
    meta = obj.get("metadata") or {}
    namespace = str(meta.get("namespace") or "")
    return output_path(str(obj["apiVersion"]), str(obj["kind"]), namespace, str(meta["name"]))


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


STREAM_FORMATS = ("yaml", "json")
"""``render -o``: one YAML stream (documents separated by ``---``) or one JSON ``v1 List``."""


def render_stream(objects: Iterable[Mapping[str, Any]], fmt: str) -> str:
    """The objects as one text for ``kubectl apply -f -``: CustomResourceDefinitions first (as
    the ``0-crd/`` directory comes first), then the others in the build's order (a Namespace
    before what it holds). ``yaml``: each object a document opened by ``---``; ``json``: a
    ``v1 List`` of them, indented as ``kubectl get -o json`` is."""
    ordered = sorted(objects, key=lambda obj: obj.get("kind") != "CustomResourceDefinition")
    if fmt == "json":
        import json

        document = {"apiVersion": "v1", "kind": "List", "items": ordered}
        return json.dumps(document, indent=4, ensure_ascii=False) + "\n"
    if fmt != "yaml":
        raise ValueError(f"not a stream format: {fmt!r} (one of {', '.join(STREAM_FORMATS)})")
    return "".join(f"---\n{dump(obj)}" for obj in ordered)


def account_hashing(
    stack: DocumentSet, options: Options, salt_key: bytes | None, out_dir: str | Path | None
) -> AccountHashing | None:
    """How a render salts TAccount password hashes (None when it writes no TAccount: expand
    mode skips them): the salt key, else the previous render's salt in ``out_dir`` (none to
    read for a render to stdout), else this machine's key, else a random salt."""
    if not stack.accounts or options.mode != Mode.CRD:
        return None
    from ..secrets.hashing import AccountHashing

    return AccountHashing(
        key=salt_key,
        previous=previous_hashes(out_dir, stack) if out_dir is not None else {},
        local_key=None if salt_key is not None else local_salt_key(),
        entropy=os.urandom,
    )


@dataclass(frozen=True)
class RenderResult:
    """What :func:`render_stack` did: the stack, its build, and the files it wrote (relative
    paths; none when a rule error blocked)."""

    stack: DocumentSet
    build: Build
    files: list[str] = field(default_factory=list)


def render_stack(
    stack_dir: str | Path,
    out_dir: str | Path,
    options: Options,
    limits: Limits | None = None,
    salt_key: bytes | None = None,
    stack: DocumentSet | None = None,
) -> RenderResult:
    """The ``render`` job: load a stack directory, validate and expand it, and write the files.

    Nothing is written when a rule error blocks (``result.build.ok`` is false). Raises
    :class:`~tars_components.kernel.errors.LoadError` for unreadable input or input beyond
    ``limits`` (default :class:`~tars_components.kernel.limits.Limits`), :class:`UsageError` for a
    bad option value or ``--out``.

    A TAccount password is hashed with the salt of ``salt_key`` when given, else with the salt
    of the account's hash in the previous render in ``out_dir``, else with the salt of this
    machine's key (:func:`local_salt_key`), else with a random one
    (:class:`~tars_components.secrets.hashing.AccountHashing`): re-rendering writes the same hash,
    and a new password keeps the account's salt. ``stack``: the stack already loaded from
    ``stack_dir`` (it is not read again).
    """
    check_options(options)
    check_out_dir(out_dir, stack_dir)
    with suspended_gc():
        if stack is None:
            stack = load_stack(stack_dir, options.namespace, limits, options.release)
        hashing = account_hashing(stack, options, salt_key, out_dir)
        result = build(stack, options, hashing)
        if not result.ok:
            return RenderResult(stack=stack, build=result)
        files = render_files(result.objects)
        write_tree(out_dir, files)
    return RenderResult(stack=stack, build=result, files=list(files))
