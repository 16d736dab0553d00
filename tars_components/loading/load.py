"""Loading a stack directory into typed documents (docs/concepts/namespace.md).

Two kinds of bad input, two outcomes:

* input that cannot be read as TarsK8S documents at all (YAML syntax, a document that is not a
  mapping, unknown apiVersion or kind, an unreadable file) raises :class:`LoadError` with one
  :class:`LoadProblem` per problem;
* whatever the CRD schema would reject becomes a :class:`Violation` with the kind's schema code
  (:mod:`tars_components.loading.schema_rules`) on the returned :class:`DocumentSet`.

:func:`load_texts` is pure; :func:`load_stack` reads the files and calls it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..fileio.files import read_texts
from ..kernel.errors import LoadError, LoadProblem, Violation
from ..kernel.limits import Limits
from ..kernel.paths import FileIndex
from ..kernel.yaml_reader import YamlLimitError, describe_yaml_error, load_documents
from ..models import (
    KINDS,
    V1BETA2,
    V1BETA3,
    Document,
    Source,
)
from ..models.cluster import CLUSTER_KIND, STELLARIS_API_VERSION
from ..models.product import ROLLOUT_KIND
from .document_set import DocumentSet, KubeObject, Rejected
from .documents import build_document, identify, identity_of, route, skipped
from .exports import clean_document, clean_plain, list_items, live_fields
from .helm import translate_file
from .legacy import old_version_problem
from .rollout import Rollouts, identify_rollout, is_rollout
from .tdeploy import Requests, is_request

if TYPE_CHECKING:
    from ..settings.options import ReleaseTag


STELLARIS_CLUSTER = (STELLARIS_API_VERSION, CLUSTER_KIND)


def load_stack(
    path: str | Path,
    namespace: str | None = None,
    limits: Limits | None = None,
    release: ReleaseTag | None = None,
) -> DocumentSet:
    """Load every ``*.yaml``/``*.yml`` file of a stack directory (or one file), sorted by path.

    Raises :class:`LoadError` when a file cannot be read or parsed, or is beyond ``limits``
    (sizes are checked before anything is read). ``release``: see :func:`load_texts`.
    """
    limits = limits or Limits()
    return load_texts(read_texts(path, limits), namespace, limits=limits, release=release)


def load_texts(
    texts: Mapping[str, str],
    namespace: str | None = None,
    cleaned: list[dict[str, Any]] | None = None,
    limits: Limits | None = None,
    release: ReleaseTag | None = None,
) -> DocumentSet:
    """Pure loader: ``{file name: YAML text}`` (taken in sorted name order) → :class:`DocumentSet`.

    A document's own ``metadata.namespace`` wins; otherwise ``namespace``; otherwise
    ``default``. When given, ``cleaned`` receives every loaded object (TarsK8S or plain, not
    the skipped ones) as a mapping without what a live cluster writes, in load order (what
    ``import`` writes).
    Nesting and alias expansion are bounded by ``limits`` (a LoadError beyond). ``release``
    is written into every helm-lib values file, as ``exec-helm.sh VALUES TAG`` does
    (:class:`~tars_components.settings.options.ReleaseTag`).
    """
    stack_namespace = namespace or "default"
    documents: list[Document] = []
    violations: list[Violation] = []
    rejected: list[Rejected] = []
    objects: list[KubeObject] = []
    problems: list[LoadProblem] = []
    live = 0
    deprecated: list[Source] = []  # documents written as v1beta2 (not from a values file)
    requests = Requests()
    rollouts = Rollouts()
    for file in sorted(texts):
        index = FileIndex(file, texts[file])
        try:
            raws = load_documents(texts[file], limits)
        except yaml.YAMLError as exc:
            problems.append(_yaml_problem(file, exc))
            continue
        except YamlLimitError as exc:
            line = exc.line or index.document_line(exc.document or 0)
            problems.append(LoadProblem(file, line, exc.message))
            continue
        values = translate_file(file, raws, index, stack_namespace, release)  # a values file
        if values is not None:
            problems.extend(values[0].problems)
            violations.extend(values[0].warnings)
            raws = [produced.body for produced in values[0].documents]
        elif (old := old_version_problem(file, raws, index)) is not None:
            problems.append(old)  # k8s.tars.io/v1beta1: one line for the whole file
            continue
        for position, document in enumerate(raws):
            if document is None:
                continue
            for raw, prefix in list_items(document):
                source = values[1][position] if values else Source(file, position, index, prefix)
                if is_rollout(raw):  # the product's group: stack-only, never emitted
                    why = identify_rollout(raw)
                    if why:
                        problems.append(LoadProblem(file, source.line() or 1, why))
                        continue
                    if raw.get("kind") == ROLLOUT_KIND:
                        violations.extend(rollouts.read(raw, source, stack_namespace))
                        continue
                    # a ClusterOverride: a plain object of the stack, for the cluster fan-out
                if is_request(raw):  # a TDeploy: its apply as a TServer once approved
                    produced, found = requests.read(raw, source, stack_namespace)
                    violations.extend(found)
                    if produced is None:
                        continue
                    raw, source = produced[0], produced[1] or source  # never None here
                problem = identify(raw)
                if problem:
                    line = source.line() or index.document_line(position)
                    problems.append(LoadProblem(file, line, problem))
                    continue
                inventory = (raw.get("apiVersion"), raw.get("kind")) == STELLARIS_CLUSTER
                if live_fields(raw) and not inventory:
                    live += 1
                if values is None and raw.get("apiVersion") == V1BETA2 and raw.get("kind") in KINDS:
                    deprecated.append(source)
                where = route(raw)
                if where == "skip":
                    violations.append(skipped(raw, stack_namespace, source))
                    continue
                if where == "pass":
                    body = clean_plain(raw, stack_namespace)
                    if inventory and "status" in raw:  # a cluster's health (TM011)
                        body["status"] = raw["status"]
                    objects.append(KubeObject(body, source))
                    if cleaned is not None:
                        cleaned.append(body)
                    continue
                body = clean_document(raw, stack_namespace)
                if cleaned is not None:
                    cleaned.append(body)
                doc, found = build_document(body, source, stack_namespace)
                violations.extend(found)
                if doc is not None:
                    documents.append(doc)
                else:
                    rejected.append(identity_of(raw, stack_namespace, source))
    if problems:
        raise LoadError(problems)
    notes: list[str] = []
    if live:
        notes.append(
            f"ignored the fields a live cluster writes (status, metadata.uid, resourceVersion, "
            f"generation, creationTimestamp, managedFields, selfLink, controller "
            f"ownerReferences, the last-applied annotation) in {live} object(s)"
        )
    if deprecated:
        first = deprecated[0]
        notes.append(
            f'{V1BETA2} is deprecated (its CRDs warn "please migrate to {V1BETA3}"): '
            f"{len(deprecated)} document(s), the first at {first.file}:{first.line() or 1}; "
            f"`tars-components convert FILE... --out DIR` writes them as {V1BETA3}"
        )
    return DocumentSet(
        namespace=stack_namespace,
        documents=tuple(documents),
        violations=tuple(violations),
        rejected=tuple(rejected),
        objects=tuple(objects),
        notes=tuple(notes),
        requests=tuple(requests.requests),
        rollouts=tuple(rollouts.rollouts),
    )


def _yaml_problem(file: str, exc: yaml.YAMLError) -> LoadProblem:
    """One line for a YAML syntax error: where it was noticed, and what was being parsed."""
    line, message = describe_yaml_error(exc)
    return LoadProblem(file, line, f"invalid YAML: {message}")
