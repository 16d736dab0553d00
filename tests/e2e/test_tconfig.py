"""TConfig versions on the real engine, in crd mode, against TarsK8S's TConfig admission
(tests/support/engines/tconfig_admission.py: the v1.4.1 webhook and controller, transcribed): a
first ``up`` of a master and a node config, a preview of the next version that deactivates nothing,
and an ``up`` of that version interrupted by an API-server restart, which never leaves a
history the webhook would refuse and converges on the next ``up``."""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.engines import e2e
from support.engines.tconfig_admission import ACTIVATED, DEACTIVATE, DELETING, Api, TConfigAdmission

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-conf"
STACK = "conf"


def config(name: str, pod_seq: str, version: str, content: str) -> str:
    return f"""---
apiVersion: k8s.tars.io/v1beta3
kind: TConfig
metadata:
  name: {name}
  namespace: {NAMESPACE}
app: Shop
server: OrderServer
configName: order.conf
podSeq: "{pod_seq}"
version: {version}
configContent: "{content}"
"""


def write_version(project: Path, version: str) -> None:
    """stacks/conf/: the framework and version ``version`` of order.conf, master and pod 0."""
    stack = project / "stacks" / STACK
    (stack / "20-order-conf.yaml").write_text(
        config(f"order-conf-m-{version}", "m", version, f"threads={version}")
        + config(f"order-conf-0-{version}", "0", version, f"threads={version}\\nseq=0"),
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def admission(cluster: e2e.Cluster) -> Iterator[TConfigAdmission]:
    """The TConfig webhook and controller, registered with the cluster."""
    root = cluster.dir / cluster.name
    cluster.kubectl("create", "namespace", NAMESPACE)
    running = TConfigAdmission(Api.of(root), root / "pki", (NAMESPACE,))
    url = running.start()
    objects = json.dumps(running.objects(url))
    cluster.kubectl("apply", "-f", "-", stdin=objects)
    try:
        yield running
    finally:
        cluster.kubectl("delete", "-f", "-", stdin=objects, check=False)
        running.stop()


@pytest.fixture(scope="module")
def project(
    venv: Path,
    tmp_path_factory: pytest.TempPathFactory,
    cluster: e2e.Cluster,
    pulumi: e2e.Pulumi,
    admission: TConfigAdmission,
) -> Path:
    """The project with a crd-mode stack of its own: the framework and order.conf v1."""
    project = e2e.project_copy(tmp_path_factory.mktemp("tconfig") / "tars", venv)
    e2e.install_crds(cluster, venv, project)
    stack = project / "stacks" / STACK
    stack.mkdir()
    framework = (project / "stacks" / "prod" / "00-framework.yaml").read_text(encoding="utf-8")
    (stack / "00-framework.yaml").write_text(
        framework.replace("tars-prod", NAMESPACE), encoding="utf-8"
    )
    write_version(project, "v1")
    e2e.stack_config(project, STACK, NAMESPACE, f"stacks/{STACK}", "crd")
    pulumi("stack", "init", STACK, cwd=project).ok()
    return project


def live(api: Api) -> dict[str, dict[str, Any]]:
    return {item["metadata"]["name"]: item for item in api.tconfigs(NAMESPACE)}


def refusable(items: dict[str, dict[str, Any]]) -> list[str]:
    """What in a settled history the webhook would refuse to build on: two activated versions
    of one file and pod (the next activation is refused, TC010), an activated node config
    without an activated master (no node config can be created, TC002), a config left marked
    for deactivation or deletion."""
    problems = []
    activated = Counter(
        (i["app"], i["server"], i["configName"], i["podSeq"])
        for i in items.values()
        if i.get("activated", True)
    )
    problems += [f"{key}: {n} activated versions" for key, n in activated.items() if n > 1]
    for item in items.values():
        key = (item["app"], item["server"], item["configName"], "m")
        if item["podSeq"] != "m" and item.get("activated", True) and not activated[key]:
            problems.append(f"{item['metadata']['name']}: activated without an activated master")
        labels = item["metadata"].get("labels") or {}
        if DEACTIVATE in labels or DELETING in labels:
            problems.append(f"{item['metadata']['name']}: still marked {labels}")
        if labels.get(ACTIVATED) != str(item.get("activated", True)).lower():
            problems.append(f"{item['metadata']['name']}: label {ACTIVATED} disagrees")
    return problems


def activated(items: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(name for name, item in items.items() if item.get("activated", True))


def test_first_up_creates_the_master_before_its_node_config(
    project: Path, pulumi: e2e.Pulumi, admission: TConfigAdmission
) -> None:
    result = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project)
    refused = [a for a in admission.answers if not a.allowed]
    result.ok()
    assert not refused, refused
    admission.settle()
    items = live(admission.api)
    assert activated(items) == ["order-conf-0-v1", "order-conf-m-v1"]
    assert refusable(items) == []


def test_preview_of_a_new_version_deactivates_nothing(
    project: Path, pulumi: e2e.Pulumi, admission: TConfigAdmission
) -> None:
    write_version(project, "v2")
    seen = len(admission.answers)
    preview = pulumi("preview", "--json", "--stack", STACK, cwd=project).ok()
    creates = sorted(
        s["urn"].rsplit("::", 1)[1]
        for s in e2e.preview_steps(preview)
        if s["op"] == "create" and "$kubernetes:k8s.tars.io/v1beta3:TConfig::" in s["urn"]
    )
    assert creates == [
        f"{NAMESPACE}/order-conf-0-v2-tconfig",
        f"{NAMESPACE}/order-conf-m-v2-tconfig",
    ], creates
    time.sleep(1)  # what a dry run would have set off, the controller would act on by now
    admission.settle()
    assert [a for a in admission.answers[seen:] if a.dry_run] == []
    assert activated(live(admission.api)) == ["order-conf-0-v1", "order-conf-m-v1"]


def test_an_interrupted_up_leaves_a_history_the_webhook_accepts(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster, admission: TConfigAdmission
) -> None:
    first = e2e.up_with_apiserver_restart(
        pulumi,
        cluster,
        STACK,
        project,
        "the new master created",
        lambda: "order-conf-m-v2" in live(admission.api),
    )
    admission.settle()
    interrupted = live(admission.api)
    assert refusable(interrupted) == [], (refusable(interrupted), first)
    # a preview now (whatever the interrupted up created) deactivates nothing either
    pulumi("preview", "--stack", STACK, cwd=project).ok()
    admission.settle()
    assert activated(live(admission.api)) == activated(interrupted)

    pulumi(
        "refresh",
        "--yes",
        "--skip-preview",
        "--clear-pending-creates",
        "--stack",
        STACK,
        cwd=project,
    ).ok()
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    # the documents as last deployed (what the pull-request workflow gives): a clean preview
    previous = ("tars:previousStackDir", f"stacks/{STACK}", "--stack", STACK)
    pulumi("config", "set", *previous, cwd=project).ok()
    pulumi("preview", "--expect-no-changes", "--stack", STACK, cwd=project).ok()
    pulumi("config", "rm", "tars:previousStackDir", "--stack", STACK, cwd=project).ok()
    # without them every activated version is held back: `activated` unknown, nothing sent
    held = pulumi("preview", "--json", "--diff", "--stack", STACK, cwd=project).ok()
    changed = [s for s in e2e.preview_steps(held) if s["op"] != "same"]
    found = sorted(
        (s["op"], s["urn"].rsplit("::", 1)[1], sorted(s.get("detailedDiff") or {})) for s in changed
    )
    assert found == [
        ("update", f"{NAMESPACE}/order-conf-0-v2-tconfig", ["activated"]),
        ("update", f"{NAMESPACE}/order-conf-m-v2-tconfig", ["activated"]),
    ], found
    admission.settle()
    items = live(admission.api)
    assert refusable(items) == []
    # v2 serves; v1 stays as history (retained, as the Helm library keeps TConfigs)
    assert activated(items) == ["order-conf-0-v2", "order-conf-m-v2"]
    assert {"order-conf-0-v1", "order-conf-m-v1"} <= set(items)
    assert [a for a in admission.answers if not a.allowed] == []


def test_destroy_keeps_the_history(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster, admission: TConfigAdmission
) -> None:
    pulumi("destroy", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert len(live(admission.api)) == 4
    cluster.kubectl("delete", "namespace", NAMESPACE, "--wait=false")
    shutil.rmtree(project / "stacks" / STACK)
