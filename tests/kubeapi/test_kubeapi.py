"""Reading a cluster (docs/concepts/live.md): the kubeconfig's context as kubectl resolves it,
and LIST against a small API server of the test's own (paging, a kind not served, refusals).
The real API server is read by the e2e suite."""

from __future__ import annotations

import base64
import json
import sys
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.engines.fake_api import JsonHandler

from tars_components.kubeapi import ApiClient, Connection, LiveReadError, connection
from tars_components.kubeapi.client import plural, resource_path


def kubeconfig(path: Path, users: dict[str, Any], current: str = "dev") -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": current,
                "clusters": [
                    {
                        "name": "c",
                        "cluster": {
                            "server": "https://127.0.0.1:6443/",
                            "certificate-authority-data": base64.b64encode(b"CA PEM").decode(),
                        },
                    }
                ],
                "users": [{"name": name, "user": user} for name, user in users.items()],
                "contexts": [
                    {"name": name, "context": {"cluster": "c", "user": name}} for name in users
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_the_current_context_with_a_token(tmp_path: Path) -> None:
    path = kubeconfig(tmp_path / "config", {"dev": {"token": "t0k"}})
    conn = connection(environ={"KUBECONFIG": str(path)})
    assert (conn.server, conn.context, conn.token, conn.ca_pem) == (
        "https://127.0.0.1:6443",
        "dev",
        "t0k",
        "CA PEM",
    )
    assert "t0k" not in repr(conn)


def test_a_named_context_with_a_client_certificate_file(tmp_path: Path) -> None:
    (tmp_path / "client.crt").write_text("CERT", encoding="utf-8")
    users = {
        "dev": {"token": "t0k"},
        "ops": {
            "client-certificate": "client.crt",
            "client-key-data": base64.b64encode(b"KEY").decode(),
        },
    }
    conn = connection("ops", paths=[kubeconfig(tmp_path / "config", users)])
    assert (conn.client_cert_pem, conn.client_key_pem, conn.token) == ("CERT", "KEY", None)


def test_an_exec_plugin_gives_the_token(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    status = {"apiVersion": "client.authentication.k8s.io/v1", "status": {"token": "from-exec"}}
    plugin.write_text(f"print({json.dumps(json.dumps(status))})", encoding="utf-8")
    users = {"dev": {"exec": {"command": sys.executable, "args": [str(plugin)]}}}
    conn = connection(paths=[kubeconfig(tmp_path / "config", users)])
    assert conn.token == "from-exec"


def test_the_first_kubeconfig_file_wins(tmp_path: Path) -> None:
    first = kubeconfig(tmp_path / "a", {"dev": {"token": "first"}})
    second = kubeconfig(tmp_path / "b", {"dev": {"token": "second"}}, current="other")
    conn = connection(environ={"KUBECONFIG": f"{first}:{second}"})
    assert conn.token == "first"


@pytest.mark.parametrize(
    ("context", "says"),
    [("nope", "no context 'nope'"), (None, "no kubeconfig found")],
)
def test_what_cannot_be_read_says_why(tmp_path: Path, context: str | None, says: str) -> None:
    paths = [kubeconfig(tmp_path / "config", {"dev": {}})] if context else [tmp_path / "none"]
    with pytest.raises(LiveReadError, match=says):
        connection(context, paths=paths)


@pytest.mark.parametrize(
    ("kind", "resource"),
    [("TServer", "tservers"), ("StorageClass", "storageclasses"), ("Policy", "policies")],
)
def test_plural(kind: str, resource: str) -> None:
    assert plural(kind) == resource


def test_resource_paths() -> None:
    assert resource_path("v1", "Service", "tars-dev") == "/api/v1/namespaces/tars-dev/services"
    assert (
        resource_path("autoscaling/v2", "HorizontalPodAutoscaler", "ns", "web")
        == "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers/web"
    )


class _Api(JsonHandler):
    """Serves two pages of StatefulSets, 404 for TApps, 403 for Secrets; records headers."""

    seen: list[dict[str, str]] = []

    def do_GET(self) -> None:
        type(self).seen.append(dict(self.headers))
        if "/statefulsets" in self.path:
            page = 2 if "continue=p2" in self.path else 1
            body = {
                "kind": "StatefulSetList",
                "metadata": {"continue": "p2"} if page == 1 else {},
                "items": [{"metadata": {"name": f"s{page}", "namespace": "ns"}}],
            }
            self._reply(200, body)
        elif "/tapps" in self.path:
            self._reply(404, {"kind": "Status", "message": "not found"})
        else:
            self._reply(403, {"kind": "Status", "message": 'secrets is forbidden: User "ci"'})


@pytest.fixture
def api() -> Iterator[ApiClient]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield ApiClient(Connection(f"http://{host!s}:{port}", "test", token="t0k"))
    finally:
        server.shutdown()


def test_list_follows_every_page_and_names_each_item(api: ApiClient) -> None:
    found = api.list("apps/v1", "StatefulSet", "ns")
    assert [(o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in found] == [
        ("apps/v1", "StatefulSet", "s1"),
        ("apps/v1", "StatefulSet", "s2"),
    ]
    assert _Api.seen[-1]["Authorization"] == "Bearer t0k"


def test_a_kind_the_server_does_not_serve_lists_as_nothing(api: ApiClient) -> None:
    assert api.list("apps.tkestack.io/v1", "TApp", "ns") == []


def test_a_refusal_names_the_request_and_the_servers_reason(api: ApiClient) -> None:
    with pytest.raises(LiveReadError) as caught:
        api.list("v1", "Secret", "ns")
    message = str(caught.value)
    assert "GET /api/v1/namespaces/ns/secrets" in message and "403" in message
    assert "forbidden" in message and "t0k" not in message


def test_an_unreachable_server_is_a_clear_error() -> None:
    client = ApiClient(Connection("http://127.0.0.1:9", "gone"))
    with pytest.raises(LiveReadError, match=r"cannot read http://127\.0\.0\.1:9"):
        client.list("v1", "Service", "ns")
