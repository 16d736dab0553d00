"""The stages between loading and building, each a pure ``stack → stack`` function, in one
fixed order (docs/development.md, "The map"), composed here and by the pipeline's one run for
every target (:func:`tars_components.pipeline.run`):

1. **overrides** (:func:`for_cluster`): one cluster's ClusterOverrides, when a cluster is the
   target; then, when the cluster was read at preview, **the replicas that run**
   (:func:`with_running`: the live count of servers whose count another manager owns); the
   rules check the result;
2. **rollouts** (:mod:`.rollouts`): each TServer a Rollout drives at its step, with that
   step as a typed plan per server;
3. **mutation** (:mod:`tars_components.mutation`): the TarsK8S mutating webhook on the
   TServers and TTemplates, the documents the workloads are built from.

:func:`prepare` runs the last two on a checked stack, :func:`prepare_server` and
:func:`prepare_template` on one document (a component's).
The rules see a cluster's documents as loaded, its overrides applied; expansion, the
components and the jobs receive what these functions return and never run a stage themselves
(``tests/ci/test_stages_once.py``). The other kinds (TConfig, TImage, TTree,
TAccount) are admitted where their objects are built, because their mutation needs what only
an output has: a TAccount's salt and the secret values of its password.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..loading.document_set import DocumentSet
from ..models import TFrameworkConfigDocument, TServerDocument, TTemplateDocument
from ..models.cluster import Cluster, Inventory
from ..models.rollout import Rollout, RolloutStep, ServerKey
from ..mutation import mutate_server, mutate_template, mutate_workloads
from ..settings.options import Mode, Options, Workload
from .overrides import cluster_stack
from .rollouts import apply_rollouts, rolled_out
from .running import counted_elsewhere, previous_from_live, with_running


@dataclass(frozen=True)
class Prepared:
    """A stack through the stages: its documents as the builders take them (overrides
    applied, each driven TServer at its Rollout's step, TServers and TTemplates mutated) and
    the step of each driven TServer."""

    stack: DocumentSet
    steps: Mapping[ServerKey, RolloutStep] = field(default_factory=dict)

    def step(self, server: TServerDocument) -> RolloutStep | None:
        """The Rollout step that holds ``server``, if a Rollout drives it."""
        return self.steps.get((server.namespace, server.name))


@dataclass(frozen=True)
class PreparedServer:
    """One TServer through the stages: ``document`` at its Rollout's step (what is validated),
    ``admitted`` that document as the webhook admits it (what is built), and the step."""

    document: TServerDocument
    admitted: TServerDocument
    step: RolloutStep | None = None


def for_cluster(stack: DocumentSet, inventory: Inventory, cluster: Cluster | None) -> DocumentSet:
    """The first stage: the documents of ``stack`` as ``cluster`` gets them (``inventory``'s
    overrides; ``cluster`` None: the overrides for every cluster, what Karmada gets once).
    The rules check its result; :func:`prepare` takes it on."""
    return cluster_stack(stack, inventory, cluster)


def workload_kind(options: Options) -> str:
    """The kind of the object that holds a StatefulSet server's live replica count:
    ``TServer`` in crd mode, the workload engine's kind in expand mode."""
    if options.mode == Mode.CRD:
        return "TServer"
    return "TApp" if options.workload == Workload.TAPP else "StatefulSet"


def prepare(stack: DocumentSet) -> Prepared:
    """A checked stack (one cluster's: :func:`for_cluster`) through the next stages, in
    order: the Rollouts, then mutation."""
    rolled, steps = apply_rollouts(stack)
    return Prepared(mutate_workloads(rolled), steps)


def prepare_server(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None = None,
    rollout: Rollout | None = None,
) -> PreparedServer:
    """One TServer through the stages: at ``rollout``'s step when one drives it, then mutated
    with its namespace's ``framework`` config."""
    step = None
    if rollout is not None:
        server, step = rolled_out(rollout, server)
    return PreparedServer(server, mutate_server(server, framework), step)


def prepare_template(template: TTemplateDocument) -> TTemplateDocument:
    """One TTemplate through the stages (a component's): as the webhook admits it."""
    return mutate_template(template)


__all__ = [
    "Prepared",
    "PreparedServer",
    "counted_elsewhere",
    "for_cluster",
    "prepare",
    "prepare_server",
    "prepare_template",
    "previous_from_live",
    "with_running",
    "workload_kind",
]
