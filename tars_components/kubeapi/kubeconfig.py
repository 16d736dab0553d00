"""A kubeconfig's context as a connection: the API server, how to trust it and who to be.

The files are found as kubectl finds them: ``$KUBECONFIG`` (a list of files, the first to
set a value wins), else ``~/.kube/config``; the context is the one named, else the
``current-context``. Credentials: a bearer token (``token``, ``tokenFile``), a client
certificate (``client-certificate(-data)``, ``client-key(-data)``), or an ``exec`` plugin
(its ``ExecCredential`` status gives a token or a certificate), as pulumi-kubernetes itself
would authenticate with the same kubeconfig.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .errors import LiveReadError


@dataclass(frozen=True)
class Connection:
    """One API server and the credentials to read it with (PEM texts, never files)."""

    server: str
    context: str
    ca_pem: str | None = None
    insecure: bool = False
    token: str | None = None
    client_cert_pem: str | None = None
    client_key_pem: str | None = None

    def __repr__(self) -> str:  # credentials never printed
        return f"Connection(server={self.server!r}, context={self.context!r})"


def kubeconfig_paths(environ: Mapping[str, str] | None = None) -> list[Path]:
    """``$KUBECONFIG``'s files in order, else ``~/.kube/config``."""
    env = os.environ if environ is None else environ
    listed = [p for p in env.get("KUBECONFIG", "").split(os.pathsep) if p]
    if listed:
        return [Path(p).expanduser() for p in listed]
    return [Path(env.get("HOME", "~")).expanduser() / ".kube" / "config"]


def _merged(paths: Sequence[Path]) -> tuple[dict[str, Any], Path]:
    """The files merged as kubectl merges them: by name, the first file that sets one wins;
    ``current-context`` from the first that has one. Relative paths inside a file are
    relative to that file (kept with each entry)."""
    merged: dict[str, Any] = {"clusters": {}, "users": {}, "contexts": {}}
    current = None
    first: Path | None = None
    for path in paths:
        if not path.is_file():
            continue
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise LiveReadError(f"kubeconfig {path}: cannot be read: {exc}") from None
        if not isinstance(loaded, dict):
            raise LiveReadError(f"kubeconfig {path}: not a mapping")
        first = first or path
        current = current or loaded.get("current-context")
        for section, key in (("clusters", "cluster"), ("users", "user"), ("contexts", "context")):
            for entry in loaded.get(section) or []:
                if isinstance(entry, dict) and isinstance(entry.get(key), dict):
                    merged[section].setdefault(str(entry.get("name")), (entry[key], path.parent))
    if first is None:
        shown = ", ".join(str(p) for p in paths)
        raise LiveReadError(f"no kubeconfig found (looked at {shown})")
    merged["current-context"] = current
    return merged, first


def _file_or_data(entry: Mapping[str, Any], key: str, base: Path) -> str | None:
    """``<key>-data`` (base64) or the file ``<key>`` (relative to its kubeconfig)."""
    data = entry.get(f"{key}-data")
    if isinstance(data, str) and data:
        return base64.b64decode(data).decode("utf-8")
    name = entry.get(key)
    if isinstance(name, str) and name:
        try:
            return (base / name).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise LiveReadError(f"kubeconfig {key} {name}: {exc.strerror}") from None
    return None


def _exec_credential(spec: Mapping[str, Any], context: str) -> Mapping[str, Any]:
    """Run an ``exec`` credential plugin; its ``status``."""
    command = spec.get("command")
    if not isinstance(command, str):
        raise LiveReadError(f"context {context}: the exec credential plugin has no command")
    env = dict(os.environ)
    for item in spec.get("env") or []:
        if isinstance(item, dict) and "name" in item:
            env[str(item["name"])] = str(item.get("value", ""))
    info = {
        "apiVersion": spec.get("apiVersion", "client.authentication.k8s.io/v1"),
        "kind": "ExecCredential",
        "spec": {"interactive": False},
    }
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    try:
        done = subprocess.run(
            [command, *[str(a) for a in spec.get("args") or []]],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LiveReadError(f"context {context}: exec credential {command}: {exc}") from None
    if done.returncode != 0:
        raise LiveReadError(
            f"context {context}: exec credential {command} exited {done.returncode}"
        )
    try:
        status = json.loads(done.stdout).get("status") or {}
    except (ValueError, AttributeError):
        raise LiveReadError(f"context {context}: exec credential {command}: not JSON") from None
    return status if isinstance(status, dict) else {}


def connection(
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
    paths: Sequence[Path] | None = None,
) -> Connection:
    """The connection of ``context`` (None: the current context) of the kubeconfig files
    (``paths``, else :func:`kubeconfig_paths`). Raises :class:`LiveReadError`."""
    merged, first = _merged(list(paths) if paths is not None else kubeconfig_paths(environ))
    name = context or merged["current-context"]
    if not name:
        raise LiveReadError(f"kubeconfig {first}: no context given and no current-context")
    if name not in merged["contexts"]:
        raise LiveReadError(f"kubeconfig {first}: no context {name!r}")
    ctx, _ = merged["contexts"][name]
    cluster_name, user_name = ctx.get("cluster"), ctx.get("user")
    if cluster_name not in merged["clusters"]:
        raise LiveReadError(f"context {name}: no cluster {cluster_name!r} in the kubeconfig")
    cluster, cluster_base = merged["clusters"][cluster_name]
    server = cluster.get("server")
    if not isinstance(server, str) or not server:
        raise LiveReadError(f"context {name}: cluster {cluster_name!r} has no server")
    user, user_base = merged["users"].get(user_name, ({}, first.parent))
    token = user.get("token") if isinstance(user.get("token"), str) else None
    if token is None and isinstance(user.get("tokenFile"), str):
        try:
            token = (user_base / user["tokenFile"]).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise LiveReadError(f"context {name}: tokenFile: {exc.strerror}") from None
    cert = _file_or_data(user, "client-certificate", user_base)
    key = _file_or_data(user, "client-key", user_base)
    if token is None and cert is None and isinstance(user.get("exec"), dict):
        status = _exec_credential(user["exec"], name)
        token = status.get("token")
        cert = status.get("clientCertificateData")
        key = status.get("clientKeyData")
    return Connection(
        server=server.rstrip("/"),
        context=name,
        ca_pem=_file_or_data(cluster, "certificate-authority", cluster_base),
        insecure=bool(cluster.get("insecure-skip-tls-verify")),
        token=token,
        client_cert_pem=cert,
        client_key_pem=key,
    )


def connection_from_text(text: str, label: str) -> Connection:
    """The connection of the current context of a kubeconfig given as text (a Pulumi
    secret: a cluster's credentials, the management cluster's kubeconfig), named ``label`` in
    errors, which never quote it. Raises :class:`LiveReadError`."""
    with tempfile.TemporaryDirectory(prefix="tars-kubeconfig-") as tmp:
        path = Path(tmp) / "kubeconfig"
        path.touch(mode=0o600)
        path.write_text(text, encoding="utf-8")
        try:
            return connection(None, paths=[path])
        except LiveReadError as exc:
            raise LiveReadError(str(exc).replace(f"kubeconfig {path}", label)) from None


__all__ = ["Connection", "connection", "connection_from_text", "kubeconfig_paths"]
