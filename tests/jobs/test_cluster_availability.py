"""The clusters as a deployment finds them (tars_components.jobs.fleet and the inventory
reader): a Stellaris Cluster's status, the management cluster's Clusters and Secrets (on a
local API server), a credential's field, the settings, and what a skipped cluster may be
left as."""

from __future__ import annotations

import base64
import contextlib
import io
import shutil
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.engines.fake_api import JsonHandler

from tars_components.jobs.config import settings_from_config
from tars_components.jobs.fleet import read_management, secret_field, skip_problems
from tars_components.kernel.errors import UsageError
from tars_components.kubeapi import LiveReadError
from tars_components.loading.clusters import cluster_status_problem, management_from_config
from tars_components.models.cluster import ManagementCluster, SecretReference

REF = SecretReference("stellaris-system", "cluster-bj-secret", "admin.conf")


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (None, None),
        ({"healthy": True, "status": "online"}, None),
        ({"healthy": False}, "status.healthy is false"),
        ({"status": "initializing"}, "status.status is initializing"),
        (
            {
                "conditions": [
                    {"type": "KubernetesUnavailable", "reason": "ApiserverIsDown", "message": "m"}
                ]
            },
            "KubernetesUnavailable/ApiserverIsDown: m",
        ),
    ],
)
def test_a_clusters_status_says_whether_it_can_take_a_change(status: Any, says: str | None) -> None:
    assert cluster_status_problem(status) == says


def test_secret_field_reads_data_or_string_data_and_never_quotes_a_value() -> None:
    data = {"data": {"admin.conf": base64.b64encode(b"kube: config").decode()}}
    assert secret_field(data, REF) == ("kube: config", "")
    assert secret_field({"stringData": {"admin.conf": "tok"}}, REF) == ("tok", "")
    assert secret_field(None, REF) == (
        None,
        "Secret stellaris-system/cluster-bj-secret does not exist in the management cluster",
    )
    value, why = secret_field({"data": {"other": "eA=="}}, REF)
    assert value is None and why.endswith("has no field admin.conf")
    value, why = secret_field({"data": {"admin.conf": "n0t base64!"}}, REF)
    assert value is None and "n0t" not in why and "not base64" in why


def test_a_skipped_cluster_may_only_be_left_as_it_is() -> None:
    ids = ("apps/v1/StatefulSet:tars-dev/a", "v1/Service:tars-dev/a")
    assert skip_problems("bj", "down", ids, list(ids)) == []
    assert skip_problems("bj", "down", ids, []) == []  # never applied: left out
    grown = skip_problems("bj", "down", (*ids, "v1/ConfigMap:tars-dev/c"), list(ids))
    assert len(grown) == 1 and "would create v1/ConfigMap:tars-dev/c there" in grown[0]
    shrunk = skip_problems("bj", "down", ids[:1], list(ids))
    assert len(shrunk) == 1 and "would delete v1/Service:tars-dev/a there" in shrunk[0]


def test_management_cluster_settings() -> None:
    assert management_from_config("mgmt") == ManagementCluster(context="mgmt")
    given = management_from_config('{"kubeconfig": "mgmt-kc", "labelSelector": "env=prod"}')
    assert given == ManagementCluster(None, "mgmt-kc", "env=prod")
    assert given is not None and given.described == "management cluster (tars:mgmt-kc)"
    for bad, says in [
        ({"context": "a", "kubeconfig": "b"}, "give context or kubeconfig"),
        ({"ctx": "a"}, "tars:managementCluster.ctx: unknown field"),
        ({"kubeconfig": "not a key!"}, "tars:managementCluster.kubeconfig: a config key"),
    ]:
        with pytest.raises(UsageError, match=says):
            management_from_config(bad)
    with pytest.raises(UsageError, match="tars:clusters and tars:managementCluster"):
        settings_from_config({"clusters": [{"name": "a"}], "managementCluster": "mgmt"})
    assert settings_from_config({"unavailableClusters": "skip"}).unavailable_clusters == "skip"


def _cluster(name: str, **status: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"env": "prod"}},
        "spec": {
            "apiserver": f"https://{name}.example.com:6443",
            "secretRef": {
                "type": "kubeconfig",
                "name": f"cluster-{name}-secret",
                "namespace": "stellaris-system",
                "field": "admin.conf",
            },
        },
        **({"status": status} if status else {}),
    }


class _Management(JsonHandler):
    """Two Clusters (bj unhealthy) and the Secret of one."""

    paths: list[str] = []

    def do_GET(self) -> None:
        type(self).paths.append(self.path)
        if self.path.startswith("/apis/stellaris.harmonycloud.cn/v1alpha1/clusters"):
            picked = "env%3Dnone" not in self.path
            items = [_cluster("sh"), _cluster("bj", healthy=False)] if picked else []
            self._reply(200, {"kind": "ClusterList", "metadata": {}, "items": items})
        elif self.path.endswith("/secrets/cluster-sh-secret"):
            data = {"admin.conf": base64.b64encode(b"sh kubeconfig").decode()}
            self._reply(200, {"kind": "Secret", "data": data})
        else:
            self._reply(404, {"kind": "Status", "message": "not found"})


@pytest.fixture
def management() -> Iterator[str]:
    """A kubeconfig text for a local management API server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Management)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    config = {
        "clusters": [{"name": "m", "cluster": {"server": f"http://{host!s}:{port}"}}],
        "users": [{"name": "m", "user": {"token": "s3cr3t-token"}}],
        "contexts": [{"name": "m", "context": {"cluster": "m", "user": "m"}}],
        "current-context": "m",
    }
    _Management.paths = []
    try:
        yield yaml.safe_dump(config)
    finally:
        server.shutdown()


def test_the_inventory_and_credentials_are_read_from_the_management_cluster(
    management: str,
) -> None:
    setting = ManagementCluster(kubeconfig_key="mgmt", label_selector="env=prod")
    found = read_management(setting, management)
    assert [c.name for c in found.clusters] == ["bj", "sh"]  # by name
    assert found.clusters[0].unavailable == "status.healthy is false"
    assert found.clusters[1].secret_ref == SecretReference(
        "stellaris-system", "cluster-sh-secret", "admin.conf"
    )
    assert found.secrets == {"sh": "sh kubeconfig"}
    assert "cluster-bj-secret does not exist" in found.missing["bj"]
    assert "labelSelector=env%3Dprod" in _Management.paths[0]
    assert "sh kubeconfig" not in repr(found)


def test_a_management_cluster_without_clusters_is_an_error(management: str) -> None:
    setting = ManagementCluster(kubeconfig_key="mgmt", label_selector="env=none")
    with pytest.raises(LiveReadError, match=r"no Stellaris Cluster .* with labels env=none"):
        read_management(setting, management)
    with pytest.raises(LiveReadError, match="tars:mgmt is not set"):
        read_management(setting, None)
    # a kubeconfig that cannot be used is named by its key, never by a file or its text
    with pytest.raises(LiveReadError, match=r"^tars:mgmt: no context 'nowhere'$"):
        read_management(setting, "current-context: nowhere\n")


def test_validate_reads_the_management_clusters_through_its_context(
    management: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tars-components validate --stack`` with ``tars:managementCluster: {context}``: the
    clusters are the management cluster's (bj's status refuses it, TM011); given as a Pulumi
    secret, the management cluster is the program's to read (exit 2, saying so)."""
    from support.builders.clusters import DEV

    from tars_components.cli import main

    shutil.copytree(DEV, tmp_path / "stacks" / "dev")
    (tmp_path / "kubeconfig").write_text(management)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "kubeconfig"))
    config = tmp_path / "Pulumi.prod.yaml"
    config.write_text(
        "config:\n  tars:namespace: tars-dev\n  tars:stackDir: stacks/dev\n"
        "  tars:managementCluster: {context: m, labelSelector: env=prod}\n"
    )
    args = ["validate", "--stack", "prod", "--project-dir", str(tmp_path)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(args)
    assert code == 1, out.getvalue() + err.getvalue()
    assert "cluster bj cannot take the change (status.healthy is false)" in out.getvalue()
    assert "management cluster (context m): Cluster/bj" in out.getvalue()
    config.write_text(config.read_text().replace("{context: m,", "{kubeconfig: mgmt,"))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(args)
    assert code == 2 and "read by pulumi preview only" in err.getvalue()
