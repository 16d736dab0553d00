"""GET and LIST against an API server over HTTPS, with the standard library only.

Reads, and two writes at ``pulumi up``: the JSON patch of an object's ``managedFields`` that
hands its client-side appliers' fields to the stack's manager, and the deletion of a pod
whose grown claim waits for a restart. A kind the server does
not serve (its CRD is not installed) lists as nothing, so a first preview against an empty
cluster reads an empty cluster; anything else that fails (unreachable, refused, forbidden)
raises :class:`LiveReadError` naming the request.
"""

from __future__ import annotations

import contextlib
import json
import os
import ssl
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .errors import LiveReadError
from .kubeconfig import Connection

TIMEOUT = 15.0
"""Seconds for one request."""

PAGE = 500
"""Objects per LIST page."""


def plural(kind: str) -> str:
    """The resource of a kind as the API server names it by default (kubectl's guess):
    ``TServer`` → ``tservers``, ``StorageClass`` → ``storageclasses``, ``Policy`` →
    ``policies``."""
    lower = kind.lower()
    if lower.endswith("s"):
        return f"{lower}es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return f"{lower[:-1]}ies"
    return f"{lower}s"


def resource_path(api_version: str, kind: str, namespace: str | None, name: str = "") -> str:
    """``/api/v1/namespaces/NS/services/NAME`` or ``/apis/GROUP/VERSION/...``."""
    root = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
    where = f"/namespaces/{urllib.parse.quote(namespace)}" if namespace else ""
    tail = f"/{urllib.parse.quote(name)}" if name else ""
    return f"{root}{where}/{plural(kind)}{tail}"


@contextlib.contextmanager
def _pem_files(cert: str, key: str) -> Iterator[tuple[str, str]]:
    """The client certificate and key as files only this process can read, for as long as
    ``ssl`` needs them to load (it loads from files only)."""
    with tempfile.TemporaryDirectory(prefix="tars-kubeapi-") as directory:
        os.chmod(directory, 0o700)
        paths = (Path(directory) / "client.crt", Path(directory) / "client.key")
        for path, text in zip(paths, (cert, key), strict=True):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
        yield str(paths[0]), str(paths[1])


class ApiClient:
    """Requests to one API server (:class:`Connection`): reads, the hand-over's JSON patch
    and a pod's restart."""

    def __init__(self, conn: Connection, timeout: float = TIMEOUT) -> None:
        self.conn = conn
        self.timeout = timeout
        context = ssl.create_default_context(cadata=conn.ca_pem) if conn.ca_pem else None
        if context is None:
            context = ssl.create_default_context()
        if conn.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        if conn.client_cert_pem and conn.client_key_pem:
            with _pem_files(conn.client_cert_pem, conn.client_key_pem) as (cert, key):
                context.load_cert_chain(cert, key)
        self._opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context))

    def get(self, path: str) -> dict[str, Any] | None:
        """The object at ``path``; None when the server has none (404)."""
        return self._send("GET", path)

    def json_patch(self, path: str, operations: list[dict[str, Any]]) -> dict[str, Any]:
        """The object at ``path`` after the JSON patch ``operations`` (the one write this
        client makes: the hand-over of ``managedFields``, docs/concepts/live.md)."""
        found = self._send("PATCH", path, json.dumps(operations).encode())
        if found is None:
            raise LiveReadError(f"PATCH {path} on {self.conn.server}: the object is gone")
        return found

    def delete(self, path: str, uid: str | None = None) -> bool:
        """Delete the object at ``path`` (only while its uid is ``uid``, when given): the
        restart of a pod whose claim waits for it (docs/concepts/storage.md); False when it
        was gone already."""
        body = None
        if uid is not None:
            options = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": uid}}
            body = json.dumps(options).encode()
        return self._send("DELETE", path, body, "application/json") is not None

    def _send(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "application/json-patch+json",
    ) -> dict[str, Any] | None:
        request = urllib.request.Request(self.conn.server + path, data=body, method=method)
        request.add_header("Accept", "application/json")
        if body is not None:
            request.add_header("Content-Type", content_type)
        if self.conn.token:
            request.add_header("Authorization", f"Bearer {self.conn.token}")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                found: dict[str, Any] = json.loads(response.read())
                return found
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            reason = _status_message(exc)
            raise LiveReadError(
                f"{method} {path} on {self.conn.server} (context {self.conn.context}): "
                f"{exc.code} {reason}"
            ) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why = getattr(exc, "reason", exc)
            raise LiveReadError(
                f"cannot read {self.conn.server} (context {self.conn.context}): {why}"
            ) from None

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        label_selector: str | None = None,
    ) -> list[dict[str, Any]]:
        """Every object of ``kind`` in ``namespace`` (None: cluster-scoped or all) that
        ``label_selector`` selects (None: all), each with its ``apiVersion`` and ``kind`` (a
        list's items carry neither); none when the server does not serve the kind."""
        items: list[dict[str, Any]] = []
        token = ""
        base = resource_path(api_version, kind, namespace)
        selector = {"labelSelector": label_selector} if label_selector else {}
        while True:
            query = {"limit": str(PAGE)} | selector | ({"continue": token} if token else {})
            page = self.get(f"{base}?{urllib.parse.urlencode(query)}")
            if page is None:
                return items
            for item in page.get("items") or []:
                items.append({"apiVersion": api_version, "kind": kind, **item})
            token = str((page.get("metadata") or {}).get("continue") or "")
            if not token:
                return items


def _status_message(exc: urllib.error.HTTPError) -> str:
    """The API server's ``Status.message`` of a refused request, else the HTTP reason."""
    try:
        status = json.loads(exc.read())
        return str(status.get("message") or exc.reason)
    except (ValueError, OSError, AttributeError):
        return str(exc.reason)


def read_objects(
    client: ApiClient,
    kinds: Sequence[tuple[str, str]],
    namespaces: Sequence[str],
    cluster_kinds: Sequence[tuple[str, str]] = (),
) -> list[dict[str, Any]]:
    """The objects of each ``(apiVersion, kind)`` of ``kinds`` in each namespace, and of
    each cluster-scoped one of ``cluster_kinds``, in that order (namespaces, then kinds, then
    the server's order: by name)."""
    found: list[dict[str, Any]] = []
    for namespace in namespaces:
        for api_version, kind in kinds:
            found.extend(client.list(api_version, kind, namespace))
    for api_version, kind in cluster_kinds:
        found.extend(client.list(api_version, kind, None))
    return found


__all__ = ["ApiClient", "LiveReadError", "plural", "read_objects", "resource_path"]
