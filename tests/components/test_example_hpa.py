"""``examples/hpa``: scale handover to an HPA through ``TServerAutoscaler``. The server's
replicas are not owned by Pulumi (ignore_changes, and left out of the applied object), its
replica annotations follow the HPA's bounds, and the ``autoscaling/v2`` HPA targets the
TServer's scale subresource in crd mode, the StatefulSet in expand mode."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import yaml

from tars_components.components.testing import Recording, record
from tars_components.models import V1BETA3

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hpa"
PROJECT = "tars-hpa"
HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"


def run(mode: str) -> Recording:
    return record(
        lambda: runpy.run_path(str(EXAMPLE / "__main__.py")),
        config={f"{PROJECT}:mode": mode},
        project=PROJECT,
    )


@pytest.mark.parametrize(
    ("mode", "kind", "api_version", "replicas_path"),
    [
        ("expand", "StatefulSet", "apps/v1", "spec.replicas"),
        ("crd", "TServer", V1BETA3, "spec.k8s.replicas"),
    ],
)
def test_the_hpa_targets_the_scale_subresource_and_owns_the_replicas(
    mode: str, kind: str, api_version: str, replicas_path: str
) -> None:
    recording = run(mode)
    [hpa] = recording.of_type(HPA)
    assert hpa.inputs["spec"]["scaleTargetRef"] == {
        "apiVersion": api_version,
        "kind": kind,
        "name": "shop-orderserver",
    }
    assert (hpa.inputs["spec"]["minReplicas"], hpa.inputs["spec"]["maxReplicas"]) == (2, 10)
    [target] = [r for r in recording.kubernetes() if r.type.endswith(f":{kind}")]
    assert target.inputs["metadata"]["name"] == "shop-orderserver"
    assert target.ignore_changes == (replicas_path,)
    applied = target.inputs["spec"]["k8s"] if kind == "TServer" else target.inputs["spec"]
    assert "replicas" not in applied
    assert recording.outputs["scaleTarget"]["kind"] == kind


def test_the_example_project_file() -> None:
    project = yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["name"] == PROJECT and project["runtime"]["name"] == "python"
