"""TarsK8S v1.4.1's TConfig admission, run beside a loopback cluster: the validating webhook
(``src/WebhookServer/webhook/validating/tars/v1beta3/tconfig.go``) with its side effects, and
the part of the controller that acts on them (``controller/tars/v1beta3/tconfig.go``).

TarsK8S's controller and webhook are not served by the Go module proxy, so the loopback
cluster cannot run them; this is a transcription of their TConfig logic, written from the
v1.4.1 source for the real-engine suite, so that ``pulumi up`` and ``pulumi preview`` meet
what a TarsK8S cluster does to TConfigs:

* a create is refused with ``tars.io/Deactivate`` or ``tars.io/Deleting`` labels, an app-level
  node config, or a node config without an activated master (``no activated master tconfig
  found``); an activated create (or an update from deactivated to activated) labels the one
  other activated version ``tars.io/Deactivate=Deactivating`` (more than one: refused);
* an update by anyone but the controller keeps the identity, content, version and update
  fields, and never deactivates; a deleting config is not updated;
* a delete of an activated config younger than 48 s is refused; an older one labels its
  siblings ``tars.io/Deleting`` (refused for a master that node configs reference);
* the controller turns each ``tars.io/Deactivate`` into ``activated: false`` and
  ``tars.io/Activated=false``, and deletes every config labelled ``tars.io/Deleting``.

Like the original, the side effects ignore ``dryRun`` (its configuration declares
``sideEffects: None``): a server-side dry run of an activated create deactivates the live
version. Every admission answer is recorded in :attr:`TConfigAdmission.answers`.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

GROUP, VERSION = "k8s.tars.io", "v1beta3"
CONTROLLER = "system:serviceaccount:tars-system:tars-controller"
WEBHOOK = "system:serviceaccount:tars-system:tars-webhook"
KUBE_SYSTEM = "system:serviceaccount:kube-system:"
APP, SERVER, NAME, POD_SEQ, ACTIVATED = (
    "tars.io/ServerApp",
    "tars.io/ServerName",
    "tars.io/ConfigName",
    "tars.io/PodSeq",
    "tars.io/Activated",
)
DEACTIVATE, DELETING = "tars.io/Deactivate", "tars.io/Deleting"
DELETION_GUARD_SECONDS = 48
IMMUTABLE = (
    "app",
    "server",
    "podSeq",
    "configName",
    "configContent",
    "version",
    "updateTime",
    "updatePerson",
    "updateReason",
)


class Refused(Exception):
    """The webhook's answer: not allowed, with its message."""


@dataclass
class Answer:
    """One admission request and the webhook's verdict."""

    operation: str
    name: str
    user: str
    dry_run: bool
    allowed: bool
    message: str = ""


@dataclass
class Api:
    """The API server, as the cluster's admin, optionally impersonating a service account."""

    server: str
    context: ssl.SSLContext

    @classmethod
    def of(cls, cluster_root: Path) -> Api:
        """The API server of ``tools/e2e/cluster``'s cluster directory ``DIR/<cluster>``."""
        pki = cluster_root / "pki"
        port = json.loads((cluster_root / "cluster.json").read_text(encoding="utf-8"))
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        return cls(f"https://127.0.0.1:{port['ports']['kube-apiserver']}", context)

    def call(
        self, method: str, path: str, body: Any = None, as_user: str = "", content: str = ""
    ) -> Any:
        headers = {"Accept": "application/json"}
        if as_user:
            headers["Impersonate-User"] = as_user
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content or "application/json"
        request = urllib.request.Request(self.server + path, data, headers, method=method)
        with urllib.request.urlopen(request, context=self.context, timeout=10) as response:
            return json.loads(response.read() or b"{}")

    def tconfigs(self, namespace: str, selector: str = "") -> list[dict[str, Any]]:
        query = "?" + urllib.parse.urlencode({"labelSelector": selector}) if selector else ""
        path = f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/tconfigs{query}"
        return list(self.call("GET", path).get("items") or [])

    def patch(self, namespace: str, name: str, ops: list[dict[str, Any]], as_user: str) -> None:
        path = f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/tconfigs/{name}"
        self.call("PATCH", path, ops, as_user, "application/json-patch+json")

    def delete(self, namespace: str, name: str, as_user: str) -> None:
        path = f"/apis/{GROUP}/{VERSION}/namespaces/{namespace}/tconfigs/{name}"
        self.call("DELETE", path, as_user=as_user)


def _selector(**labels: str | None) -> str:
    """A label selector: ``key=value``, or ``!key`` for None."""
    return ",".join(f"!{k}" if v is None else f"{k}={v}" for k, v in labels.items())


def _label(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


@dataclass
class TConfigAdmission:
    """The webhook on 127.0.0.1 and the controller's loop, for one loopback cluster."""

    api: Api
    pki: Path
    namespaces: tuple[str, ...]
    answers: list[Answer] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    # --- the webhook -------------------------------------------------------------------

    def admit(self, request: dict[str, Any]) -> None:
        """Raise :class:`Refused` where v1.4.1's webhook refuses (after its side effects)."""
        operation = request["operation"]
        user = request.get("userInfo", {}).get("username", "")
        if operation == "CREATE":
            self._create(request["object"])
        elif operation == "UPDATE" and user != CONTROLLER:
            self._update(request["object"], request["oldObject"])
        elif operation == "DELETE" and user != CONTROLLER and not user.startswith(KUBE_SYSTEM):
            self._delete(request["oldObject"])

    def _create(self, new: dict[str, Any]) -> None:
        labels = new["metadata"].get("labels") or {}
        for forbidden in (DEACTIVATE, DELETING):
            if forbidden in labels:
                raise Refused(f"can not set label [{forbidden}] when create")
        if not new.get("server") and new.get("podSeq") != "m":
            raise Refused("app level tconfig does not support master/slave")
        if new.get("podSeq") != "m":
            masters = self.api.tconfigs(
                new["metadata"]["namespace"],
                _selector(
                    **{
                        APP: new.get("app", ""),
                        SERVER: new.get("server", ""),
                        NAME: new.get("configName", ""),
                        POD_SEQ: "m",
                        ACTIVATED: "true",
                        DEACTIVATE: None,
                        DELETING: None,
                    }
                ),
            )
            if not masters:
                raise Refused("no activated master tconfig found")
        if new.get("activated", True):
            self._activate(new)

    def _activate(self, new: dict[str, Any]) -> None:
        namespace = new["metadata"]["namespace"]
        others = [
            item["metadata"]["name"]
            for item in self.api.tconfigs(
                namespace,
                _selector(
                    **{
                        APP: new.get("app", ""),
                        SERVER: new.get("server", ""),
                        NAME: new.get("configName", ""),
                        POD_SEQ: new.get("podSeq", ""),
                        ACTIVATED: "true",
                    }
                ),
            )
            if item["metadata"]["name"] != new["metadata"]["name"]
        ]
        if not others:
            return
        if len(others) != 1:
            raise Refused(
                f"get unexpected activated tconfigs({namespace}/{new.get('app')}-"
                f"{new.get('server')}/{new.get('configName')}:{new.get('podSeq')}) "
                f"counts({len(others)})"
            )
        op = {
            "op": "add",
            "path": f"/metadata/labels/{_label(DEACTIVATE)}",
            "value": "Deactivating",
        }
        self.api.patch(namespace, others[0], [op], WEBHOOK)

    def _update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        if DELETING in (old["metadata"].get("labels") or {}):
            raise Refused("can not update deleting tconfig")
        for name in IMMUTABLE:
            if new.get(name) != old.get(name):
                raise Refused(f"tconfig /{name} is immutable")
        was, now = old.get("activated", True), new.get("activated", True)
        if was and not now:
            raise Refused("only use authorized account can update /activated from true to false")
        if now and not was:
            self._activate(new)

    def _delete(self, old: dict[str, Any]) -> None:
        if not old.get("activated", True):
            return
        created = datetime.strptime(
            old["metadata"]["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ"
        ).replace(tzinfo=timezone.utc)
        if (datetime.now(timezone.utc) - created).total_seconds() <= DELETION_GUARD_SECONDS:
            raise Refused(f"tconfig during deletion guard time({DELETION_GUARD_SECONDS}s)")
        labels = old["metadata"].get("labels") or {}
        if DEACTIVATE in labels or DELETING in labels:
            return
        namespace, name = old["metadata"]["namespace"], old["metadata"]["name"]
        same = {APP: old.get("app", ""), SERVER: old.get("server", ""), NAME: old["configName"]}
        if old.get("podSeq") != "m":
            same[POD_SEQ] = old["podSeq"]
        siblings = [
            item
            for item in self.api.tconfigs(namespace, _selector(**same))
            if item["metadata"]["name"] != name
        ]
        if old.get("podSeq") == "m" and any(
            (s["metadata"].get("labels") or {}).get(POD_SEQ) != "m" for s in siblings
        ):
            raise Refused(  # sic: the original's words
                f"cannot delete tconfig {namespace}/{name} "
                "because it is reference by anther tconfig"
            )
        op = {"op": "add", "path": f"/metadata/labels/{_label(DELETING)}", "value": "Deleting"}
        for sibling in siblings:
            self.api.patch(namespace, sibling["metadata"]["name"], [op], WEBHOOK)

    # --- the controller ----------------------------------------------------------------

    def reconcile(self) -> None:
        """One pass of the controller: deactivate what the webhook marked, delete what it
        marked for deletion."""
        deactivate = [
            {"op": "remove", "path": f"/metadata/labels/{_label(DEACTIVATE)}"},
            {"op": "add", "path": f"/metadata/labels/{_label(ACTIVATED)}", "value": "false"},
            {"op": "replace", "path": "/activated", "value": False},
        ]
        for namespace in self.namespaces:
            for item in self.api.tconfigs(namespace, DEACTIVATE):
                self.api.patch(namespace, item["metadata"]["name"], deactivate, CONTROLLER)
            for item in self.api.tconfigs(namespace, DELETING):
                self.api.delete(namespace, item["metadata"]["name"], CONTROLLER)

    def _controller(self) -> None:
        while not self._stop.wait(0.3):
            try:
                self.reconcile()
            except (OSError, urllib.error.URLError, ValueError):
                continue  # the API server is down (a fault test): retry, as the controller does

    # --- serving -----------------------------------------------------------------------

    def review(self, body: dict[str, Any]) -> dict[str, Any]:
        """The AdmissionReview answer to one AdmissionReview request."""
        request = body["request"]
        obj = request.get("object") or request.get("oldObject") or {}
        answer = Answer(
            request["operation"],
            obj.get("metadata", {}).get("name", ""),
            request.get("userInfo", {}).get("username", ""),
            bool(request.get("dryRun")),
            True,
        )
        response: dict[str, Any] = {"uid": request["uid"], "allowed": True}
        try:
            self.admit(request)
        except Refused as exc:
            answer.allowed, answer.message = False, str(exc)
            response = {"uid": request["uid"], "allowed": False, "status": {"message": str(exc)}}
        self.answers.append(answer)
        return {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": response,
        }

    def start(self) -> str:
        """Serve on a free port of 127.0.0.1, start the controller; the webhook's URL."""
        admission = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                out = json.dumps(admission.review(body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, format: str, *args: Any) -> None:
                return

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(str(self.pki / "serving.crt"), str(self.pki / "serving.key"))
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        self._server = server
        for target in (server.serve_forever, self._controller):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return f"https://127.0.0.1:{server.server_address[1]}/validate-tconfig"

    def objects(self, url: str) -> dict[str, Any]:
        """What to apply: the webhook's configuration, as the TarsK8S chart declares it for
        TConfigs, and the RBAC of the two service accounts it and the controller act as."""
        role = "tars-e2e-tconfig-admission"
        return {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "ClusterRole",
                    "metadata": {"name": role},
                    "rules": [
                        {
                            "apiGroups": [GROUP],
                            "resources": ["tconfigs"],
                            "verbs": ["get", "list", "watch", "patch", "update", "delete"],
                        }
                    ],
                },
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "ClusterRoleBinding",
                    "metadata": {"name": role},
                    "roleRef": {
                        "apiGroup": "rbac.authorization.k8s.io",
                        "kind": "ClusterRole",
                        "name": role,
                    },
                    "subjects": [
                        {"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}
                        for user in (CONTROLLER, WEBHOOK)
                    ],
                },
                {
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "ValidatingWebhookConfiguration",
                    "metadata": {"name": role},
                    "webhooks": [
                        {
                            "name": "validating.crd.tars.io",
                            "clientConfig": {
                                "url": url,
                                "caBundle": base64.b64encode(
                                    (self.pki / "ca.crt").read_bytes()
                                ).decode(),
                            },
                            "admissionReviewVersions": ["v1"],
                            "sideEffects": "None",
                            "timeoutSeconds": 15,
                            "failurePolicy": "Fail",
                            "rules": [
                                {
                                    "apiGroups": [GROUP],
                                    "apiVersions": [VERSION],
                                    "operations": ["CREATE", "UPDATE", "DELETE"],
                                    "resources": ["tconfigs"],
                                    "scope": "Namespaced",
                                }
                            ],
                        }
                    ],
                },
            ],
        }

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def settle(self, seconds: float = 30) -> None:
        """Wait until the controller has acted on every mark."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            marked = [
                item
                for ns in self.namespaces
                for selector in (DEACTIVATE, DELETING)
                for item in self.api.tconfigs(ns, selector)
            ]
            if not marked:
                return
            time.sleep(0.3)
        raise AssertionError(f"the controller did not settle in {seconds:.0f} s")
