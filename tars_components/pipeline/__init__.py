"""The whole data flow in one call per job, shared by the CLI commands, the Pulumi program
(``__main__.py``), the components and the platform builders, so that each sequence is written
once (docs/development.md, "The map"):

* :mod:`.stack`: one stack for one cluster: :func:`check`, :func:`all_violations`,
  :func:`build` (the check, then the stages and the objects), and the stages and objects
  without the check (:func:`expand`, :func:`expand_server`, :func:`crd_documents`);
* :mod:`.targets`: :func:`run`, the one run for every target (the stack's one cluster, or each
  cluster of its inventory), and :func:`validate`, which loads the stack directories first.

Everything here returns data: no printing, no writing (``render`` writes its files with
:func:`tars_components.jobs.render.render_stack`, ``import`` with
:func:`tars_components.jobs.importer.import_export`). :func:`validate` reads the stack
directories, within the input limits; the rest is pure.
"""

from .stack import (
    Build,
    all_violations,
    build,
    check,
    crd_documents,
    expand,
    expand_server,
    output_objects,
    with_existing_framework,
)
from .targets import (
    ONE_CLUSTER,
    Run,
    TargetResult,
    Targets,
    Validation,
    load_stacks,
    run,
    shared_build,
    target_stacks,
    targets,
    validate,
)

__all__ = [
    "ONE_CLUSTER",
    "Build",
    "Run",
    "TargetResult",
    "Targets",
    "Validation",
    "all_violations",
    "build",
    "check",
    "crd_documents",
    "expand",
    "expand_server",
    "load_stacks",
    "output_objects",
    "run",
    "shared_build",
    "target_stacks",
    "targets",
    "validate",
    "with_existing_framework",
]
