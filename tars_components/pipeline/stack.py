"""One stack, one cluster: its check and its objects.

* :func:`check`: every violation of a loaded stack for one output (the rules, layout
  collisions, what crd mode adds);
* :func:`all_violations`: :func:`check` plus, against the previous version of the stack, the
  change rules, with create-only violations dropped for documents that already exist;
* :func:`build`: :func:`check`, then the stages (:mod:`tars_components.stages`) and the
  objects; :func:`expand`, :func:`expand_server` and :func:`crd_documents` are the stages and
  the objects without the check.

All pure: :mod:`.targets` runs them for one cluster or many.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..expansion import custom_resources, server_objects, workload_objects
from ..expansion.ownership import apply_ownership, server_ownerships
from ..expansion.resources import kind_documents, plain_objects
from ..expansion.tconfig import config_maps
from ..kernel.errors import Violation, has_errors, sorted_violations
from ..kernel.registry import WITH_OPTIONS, WITH_PREVIOUS, WITH_PREVIOUS_AND_OPTIONS
from ..loading.document_set import DocumentSet
from ..models import FRAMEWORK_CONFIG_NAME, TFrameworkConfigDocument, TServerDocument
from ..rules import validate as validate_rules
from ..rules import without_create_only
from ..rules.catalog import run as run_checks
from ..rules.objects import overwritten_by_output
from ..secrets.hashing import AccountHashing
from ..settings.options import Mode, Options
from ..stages import prepare, prepare_server


@dataclass(frozen=True)
class Build:
    """What a stack builds into: the objects (empty when a rule error blocks) and every
    violation found (errors and warnings)."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no violation is an error."""
        return not has_errors(self.violations)

    @property
    def warnings(self) -> list[Violation]:
        """The violations that do not block."""
        return [v for v in self.violations if not v.is_error]

    def kinds(self) -> Counter[str]:
        """Number of objects per kind."""
        return Counter(str(obj["kind"]) for obj in self.objects)


def check(stack: DocumentSet, options: Options = Options()) -> list[Violation]:
    """Every violation of a loaded stack for this output: the checks of the stack alone (on the
    stack as the rules see it, :func:`with_existing_framework`) and those that need the
    options (output file names that collide, what crd mode adds, the workload engine, field
    ownership, TDeploy approvers), in report order."""
    return sorted_violations(
        [
            *validate_rules(with_existing_framework(stack, options)),
            *run_checks(stack, WITH_OPTIONS, options),
        ]
    )


def all_violations(
    stack: DocumentSet, options: Options = Options(), previous: DocumentSet | None = None
) -> list[Violation]:
    """Every violation of ``stack`` (:func:`check`) and, given the version it replaces, the
    checks that need it (TS001, TC003, ..., the storage rules TV001-TV007); documents
    ``previous`` already has are updates, so their create-only violations are dropped.
    Sorted, as :func:`check`."""
    found = check(stack, options)
    if previous is None:
        return found
    changed = [
        *found,
        *run_checks(stack, WITH_PREVIOUS, previous=previous),
        *run_checks(stack, WITH_PREVIOUS_AND_OPTIONS, options, previous),
    ]
    return sorted_violations(without_create_only(changed, previous))


def with_existing_framework(stack: DocumentSet, options: Options) -> DocumentSet:
    """The stack as the rules see it: in crd mode with ``existing_framework_config``, each
    namespace without a ``tars-framework`` gets a stand-in for the cluster's own (the rules
    only ask whether one exists, TS020); objects are always built from ``stack`` itself, so
    nothing of the stand-in is written or applied."""
    if not (options.mode == Mode.CRD and options.existing_framework_config):
        return stack
    namespaces = dict.fromkeys([options.namespace, *(d.namespace for d in stack.documents)])
    stand_ins = [
        TFrameworkConfigDocument.model_validate(
            {
                "apiVersion": options.crd_api_version,
                "kind": TFrameworkConfigDocument.KIND,
                "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
                "nodeImage": {"image": "existing"},
            }
        )
        for namespace in namespaces
        if stack.framework(namespace) is None
    ]
    return stack.with_documents([*stack.documents, *stand_ins]) if stand_ins else stack


def output_objects(
    stack: DocumentSet, options: Options = Options(), hashing: AccountHashing | None = None
) -> list[dict[str, Any]]:
    """Every object a checked stack produces in this mode, in output order: plain objects,
    then the custom resources (crd mode) or the expanded workloads (expand mode).
    ``hashing`` salts the TAccount passwords
    (:class:`~tars_components.secrets.hashing.AccountHashing`; without it, a salt derived from the
    account, for a build that is only compared). Fields another manager owns (``external``,
    docs/concepts/ownership.md) are left out."""
    objects = plain_objects(stack)
    prepared = prepare(stack)
    if options.mode == Mode.CRD:
        objects.extend(custom_resources(prepared, options))
        objects.extend(kind_documents(stack, options, hashing=hashing))
    else:
        objects.extend(workload_objects(prepared, options))
        if options.tconfig_config_maps:
            objects.extend(config_maps(stack))
    return apply_ownership(objects, server_ownerships(prepared.stack, options))


def expand(stack: DocumentSet, options: Options = Options()) -> list[dict[str, Any]]:
    """Every Kubernetes object of a stack's TServers (expand mode), each at its Rollout's
    step, as the TarsK8S controller would create them from the admitted documents (per
    server, in load order: Service, then StatefulSet or DaemonSet). No check: see
    :func:`build`."""
    return workload_objects(prepare(stack), options)


def expand_server(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None = None,
    options: Options = Options(),
) -> list[dict[str, Any]]:
    """The objects of one TServer, admitted with its namespace's ``framework`` config: its
    Service (none for DaemonSet servers), then its StatefulSet or DaemonSet (none for a
    DaemonSet server without a release)."""
    return server_objects(prepare_server(server, framework).admitted, framework, options)


def crd_documents(stack: DocumentSet, options: Options = Options()) -> list[dict[str, Any]]:
    """The TFrameworkConfigs, TTemplates and TServers of a stack (in that order, each in load
    order) as the custom resources of ``options.crd_api_version`` that the TarsK8S webhook
    admits, each TServer at its Rollout's step. No check: see :func:`build`."""
    return custom_resources(prepare(stack), options)


def build(
    stack: DocumentSet,
    options: Options = Options(),
    hashing: AccountHashing | None = None,
    previous: DocumentSet | None = None,
) -> Build:
    """Validate a loaded stack (given ``previous``, the version it replaces, with the change
    rules: :func:`all_violations`) and, when no rule error blocks, build its objects
    (``hashing``: see :func:`output_objects`)."""
    violations = all_violations(stack, options, previous)
    if has_errors(violations):
        return Build(objects=[], violations=violations)
    objects = output_objects(stack, options, hashing)
    collisions = _collisions(stack, objects)
    if collisions:
        return Build(objects=[], violations=sorted_violations([*violations, *collisions]))
    return Build(objects=objects, violations=violations)


def _collisions(stack: DocumentSet, objects: list[dict[str, Any]]) -> list[Violation]:
    """TX003: a plain object that an output object of the same kind, namespace and name
    would overwrite (say a Service named like a TServer in expand mode)."""
    plain = {_identity(o.body): o for o in stack.objects}
    seen: set[tuple[str, str, str]] = set()
    found: list[Violation] = []
    for obj in objects[len(stack.objects) :]:
        key = _identity(obj)
        if key in plain and key not in seen:
            seen.add(key)
            found.append(overwritten_by_output(plain[key]))
    return found


def _identity(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    meta = obj.get("metadata") or {}
    return str(obj.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name"))
