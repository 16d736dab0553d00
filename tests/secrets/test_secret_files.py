"""Files that hold a secret are private from their first byte (issue #16, item 2): every file
holding a private key, a Secret's data, a password hash or credentials is created 0600 by
``render``, ``controller``, ``framework`` and ``import``, never chmod'ed afterwards, and a
command killed at any instant leaves no copy of one readable by others; other files keep the
modes the umask gives (0644 and 0755 under the usual 022)."""

from __future__ import annotations

import base64
import hashlib
import os
import random
import signal
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from support.assertions.platform import FIXTURES
from support.builders.documents import FRAMEWORK, NAMESPACE, stack_text, tars_server, template
from support.builders.export import NAMESPACE as EXPORT_NAMESPACE
from support.builders.export import namespace_export
from support.engines.cli import run
from support.engines.render import loop_writing

from tars_components.jobs import tree_writer
from tars_components.jobs.tree_writer import holds_secret, staging_dirs, write_tree

SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "db"},
    "type": "Opaque",
    "data": {"password": base64.b64encode(b"s3cr3t-db").decode()},
}
ACCOUNT = {
    "apiVersion": "k8s.tars.io/v1beta3",
    "kind": "TAccount",
    "metadata": {"name": hashlib.md5(b"admin").hexdigest()},
    "spec": {
        "username": "admin",
        "authentication": {"password": "Adm1n-secret!"},
        "authorization": [{"role": "admin", "flag": "*"}],
    },
}
PEM_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The modes asserted below are those of the usual umask, 022 (children inherit it)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, int]:
    """``{relative path: permission bits}`` of every file and directory under ``root``."""
    return {str(p.relative_to(root)): stat.S_IMODE(p.lstat().st_mode) for p in root.rglob("*")}


def secret_content(path: Path) -> bool:
    """Whether a file holds a secret, judged independently of ``holds_secret``: a Secret with
    data, a TAccount with a credential, or a private key (PEM, or base64 in a Secret)."""
    text = path.read_text(encoding="utf-8")
    if "PRIVATE KEY" in text:
        return True
    if path.suffix != ".yaml":
        return False
    for doc in yaml.safe_load_all(text):
        if not isinstance(doc, dict):
            continue
        if doc.get("kind") == "Secret" and (doc.get("data") or doc.get("stringData")):
            return True
        auth = (doc.get("spec") or {}).get("authentication") if doc.get("kind") else None
        if doc.get("kind") == "TAccount" and auth:
            return True
    return False


def assert_private_exactly_where_secret(root: Path) -> tuple[set[str], set[str]]:
    """Every file holding a secret is 0600 and every other file 0644, every directory 0755;
    returns (secret files, other files)."""
    secret, other = set(), set()
    for relative, mode in modes(root).items():
        path = root / relative
        if path.is_dir():
            assert mode == 0o755, (relative, oct(mode))
        elif secret_content(path):
            assert mode == 0o600, (relative, oct(mode))
            secret.add(relative)
        else:
            assert mode == 0o644, (relative, oct(mode))
            other.add(relative)
    assert stat.S_IMODE(root.stat().st_mode) == 0o755
    return secret, other


def test_holds_secret_by_content() -> None:
    assert holds_secret(yaml.safe_dump(SECRET, sort_keys=False))
    assert holds_secret(yaml.safe_dump_all([{"kind": "ConfigMap"}, ACCOUNT], sort_keys=False))
    assert holds_secret("apiVersion: v1\nkind: ConfigMap\ndata:\n  key: |\n    " + PEM_KEY)
    assert holds_secret("kind: 'Secret'\n")
    assert not holds_secret("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: |\n    kind: Secret\n")
    certificate = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    assert not holds_secret(f"kind: ConfigMap\ndata:\n  ca.crt: |\n    {certificate}")


def test_controller_writes_the_ca_key_0600_and_nothing_else(tmp_path: Path) -> None:
    out = tmp_path / "controller"
    values = str(FIXTURES / "controller-minimal.values.yaml")
    result = run("controller", "--values", values, "--out", str(out))
    assert result.returncode == 0, result.stderr
    secret, other = assert_private_exactly_where_secret(out)
    assert secret == {"1-manifest/v1-secret-tars-system-tars-webhook-ca.yaml"}
    assert len(other) > 20


def test_framework_files_keep_the_usual_modes(tmp_path: Path) -> None:
    out = tmp_path / "framework"
    values = str(FIXTURES / "framework-full.values.yaml")
    result = run("framework", "--values", values, "--namespace", "tars", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    secret, other = assert_private_exactly_where_secret(out)
    assert other and not secret


def test_render_writes_secret_data_and_account_hashes_0600(tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    docs = [FRAMEWORK, template("tars.default"), template("tars.cpp", "tars.default")]
    docs += [tars_server(), SECRET, ACCOUNT]
    (stack / "stack.yaml").write_text(stack_text(*docs))
    out = tmp_path / "out"
    for _ in range(2):  # a new directory, then an exchange with the previous render
        command = ["render", str(stack), "--out", str(out), "--mode", "crd"]
        result = run(*command, "--namespace", NAMESPACE)
        assert result.returncode == 0, result.stdout + result.stderr
        secret, other = assert_private_exactly_where_secret(out)
        assert secret == {
            "1-manifest/v1-secret-tars-dev-db.yaml",
            f"1-manifest/k8s.tars.io_v1beta3-taccount-tars-dev-{ACCOUNT['metadata']['name']}.yaml",
        }
        assert "1-manifest/k8s.tars.io_v1beta3-tserver-tars-dev-test-demotest.yaml" in other


def test_import_writes_accounts_and_secrets_0600(tmp_path: Path) -> None:
    export = namespace_export()
    export["items"].append({**SECRET, "metadata": {"name": "db", "namespace": EXPORT_NAMESPACE}})
    path = tmp_path / "export.yaml"
    path.write_text(yaml.safe_dump(export, sort_keys=False))
    out = tmp_path / "stack"
    result = run("import", str(path), "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    found = modes(out)
    assert found.pop("pulumi-secrets.sh") == 0o700  # run by its owner, read by nobody else
    assert found["accounts.yaml"] == found["kubernetes.yaml"] == 0o600
    assert {mode for name, mode in found.items() if name.startswith("app-")} == {0o644}
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    for name in found:
        assert (found[name] == 0o600) == secret_content(out / name), name


def test_a_restrictive_umask_is_honoured(tmp_path: Path) -> None:
    os.umask(0o077)
    write_tree(tmp_path / "out", {"1-manifest/a.yaml": "kind: ConfigMap\n"})
    assert modes(tmp_path / "out")["1-manifest/a.yaml"] == 0o600
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o700


OLD = {
    "1-manifest/v1-secret-ns-old.yaml": yaml.safe_dump(SECRET, sort_keys=False),
    "1-manifest/v1-configmap-ns-old.yaml": "kind: ConfigMap\n",
}
NEW = {
    "1-manifest/v1-secret-ns-new.yaml": yaml.safe_dump(SECRET, sort_keys=False) + "# new\n",
    **{f"1-manifest/v1-configmap-ns-new-{i}.yaml": "kind: ConfigMap\n" * 50 for i in range(200)},
}


def readable_secrets(root: Path) -> list[str]:
    """Files under ``root`` (staging directories included) that hold a secret and that
    another user could read."""
    found = []
    for path in root.rglob("*"):
        if not path.is_file() or path.is_symlink() or not holds_secret(path.read_text()):
            continue
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            found.append(str(path.relative_to(root)))
    return found


def test_killed_right_after_the_swap_leaves_no_readable_secret(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, OLD)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child dies inside write_tree
        try:
            exchange = tree_writer.exchange_paths

            def exchange_then_die(a: Path, b: Path) -> None:
                exchange(a, b)
                os.kill(os.getpid(), signal.SIGKILL)

            tree_writer.exchange_paths = exchange_then_die  # type: ignore[assignment]
            write_tree(out, NEW)
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert {p for p in modes(out) if p.endswith(".yaml")} == set(NEW)
    (left,) = staging_dirs(out)  # the previous render, not yet deleted
    assert any(holds_secret(p.read_text()) for p in left.rglob("*.yaml"))
    assert readable_secrets(tmp_path) == []
    write_tree(out, OLD)  # the next render deletes it
    assert staging_dirs(out) == [] and readable_secrets(tmp_path) == []


def test_killed_at_random_instants_leaves_no_readable_secret(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_tree(out, OLD)
    rng = random.Random(16)
    for _ in range(25):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            loop_writing(out, OLD, NEW)
        time.sleep(rng.uniform(0.0, 0.3))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert readable_secrets(tmp_path) == []
        assert {p for p in modes(out) if p.endswith(".yaml")} in (set(OLD), set(NEW))
