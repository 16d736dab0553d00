"""Helpers of the render tests: a writer killed at random."""

from __future__ import annotations

import os
from pathlib import Path

from tars_components.jobs.tree_writer import write_tree

OLD = {f"1-manifest/v1-configmap-ns-old-{i}.yaml": f"old: {i}\n" * 40 for i in range(600)}

NEW = {f"1-manifest/v1-configmap-ns-new-{i}.yaml": f"new: {i}\n" * 30 for i in range(500)}

NEW[f"0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-{0}.yaml"] = "crd: 1\n"


def loop_writing(out: Path, old: dict[str, str] = OLD, new: dict[str, str] = NEW) -> None:
    """In a forked child: write ``old`` and ``new`` in turn until killed."""
    try:
        while True:
            write_tree(out, new)
            write_tree(out, old)
    finally:
        os._exit(1)
