"""``tars-components controller|framework`` as a user runs them (subprocess): exit codes,
the renderYamlToDirectory layout, byte-identical output, refusals that write nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support.assertions.platform import FIXTURES, values_path
from support.engines.cli import run

from tars_components.platform.certificates import generate_ca

ROOT = Path(__file__).resolve().parents[2]


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def ca_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    ca = generate_ca()
    directory = tmp_path_factory.mktemp("ca")
    (directory / "ca.crt").write_text(ca.cert_pem)
    (directory / "ca.key").write_text(ca.key_pem)
    return directory / "ca.crt", directory / "ca.key"


def test_framework_writes_the_layout_byte_identically(tmp_path: Path) -> None:
    values = str(FIXTURES / "framework-full.values.yaml")
    first = run(
        "framework", "--values", values, "--namespace", "tars-dev", "--out", str(tmp_path / "a")
    )
    second = run(
        "framework", "--values", values, "--namespace", "tars-dev", "--out", str(tmp_path / "b")
    )
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    files = tree(tmp_path / "a")
    assert files == tree(tmp_path / "b")
    assert len(files) == 63
    assert all(name.startswith("1-manifest/") for name in files)
    assert "1-manifest/k8s.tars.io_v1beta3-tserver-tars-dev-tars-tarsregistry.yaml" in files
    assert "1-manifest/networking.k8s.io_v1-ingress-tars-dev-tars-web.yaml" in files
    assert "63 objects" in first.stdout


def test_framework_refuses_the_published_values_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run(
        "framework",
        "--values",
        str(values_path("framework-published")),
        "--namespace",
        "tars-dev",
        "--out",
        str(out),
    )
    assert result.returncode == 2
    assert "framework.registry: '_FRAMEWORK_REGISTRY_' is a placeholder" in result.stderr
    assert "upload.registry: must not be empty" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_framework_bad_namespace_and_missing_file_are_usage_errors(tmp_path: Path) -> None:
    values = str(FIXTURES / "framework-full.values.yaml")
    bad = run(
        "framework", "--values", values, "--namespace", "Bad_NS", "--out", str(tmp_path / "o")
    )
    assert bad.returncode == 2 and "--namespace" in bad.stderr
    missing = run(
        "framework", "--values", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o")
    )
    assert missing.returncode == 2 and "cannot read values file" in missing.stderr
    assert not (tmp_path / "o").exists()


def test_controller_with_a_given_ca_is_byte_identical(
    tmp_path: Path, ca_files: tuple[Path, Path]
) -> None:
    cert, key = ca_files
    values = str(FIXTURES / "controller-full.values.yaml")
    args = ["--values", values, "--ca-cert", str(cert), "--ca-key", str(key)]
    first = run("controller", *args, "--out", str(tmp_path / "a"))
    second = run("controller", *args, "--out", str(tmp_path / "b"))
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    files = tree(tmp_path / "a")
    assert files == tree(tmp_path / "b")
    crds = [n for n in files if n.startswith("0-crd/")]
    assert len(crds) == 11
    assert "from --ca-cert/--ca-key" in first.stdout
    secret_file = "1-manifest/v1-secret-tars-system-tars-webhook-ca.yaml"
    assert "PRIVATE KEY" in first.stderr and secret_file in first.stderr
    assert (tmp_path / "a" / secret_file).stat().st_mode & 0o077 == 0
    secret = yaml.safe_load(files[secret_file])
    assert set(secret["data"]) == {"ca.crt", "ca.key"}


def test_controller_generates_a_fresh_ca_each_run(tmp_path: Path) -> None:
    values = str(FIXTURES / "controller-minimal.values.yaml")
    first = run("controller", "--values", values, "--out", str(tmp_path / "a"))
    second = run("controller", "--values", values, "--out", str(tmp_path / "b"))
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert "generated in this run" in first.stdout
    assert "PRIVATE KEY" in first.stderr
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert set(a) == set(b)
    differ = {n for n in a if a[n] != b[n]}
    # only what holds the CA: the Secret, the webhook (fingerprint), the CA bundles
    assert differ == {
        "1-manifest/v1-secret-tars-system-tars-webhook-ca.yaml",
        "1-manifest/apps_v1-deployment-tars-system-tars-webhook-manger.yaml",
        "1-manifest/admissionregistration.k8s.io_v1-validatingwebhookconfiguration-default-tars-validating-webhook.yaml",
        "1-manifest/admissionregistration.k8s.io_v1-mutatingwebhookconfiguration-default-tars-mutating-webhook.yaml",
        "0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-tservers.k8s.tars.io.yaml",
        "0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-tframeworkconfigs.k8s.tars.io.yaml",
    }


def test_controller_refuses_placeholders_and_half_a_ca(
    tmp_path: Path, ca_files: tuple[Path, Path]
) -> None:
    out = tmp_path / "out"
    published = run(
        "controller",
        "--values",
        str(values_path("controller-published")),
        "--out",
        str(out),
    )
    assert published.returncode == 2
    assert "controller.registry: '_CONTROLLER_REGISTRY_' is a placeholder" in published.stderr
    assert "crds.servers" in published.stderr
    half = run(
        "controller",
        "--values",
        str(FIXTURES / "controller-full.values.yaml"),
        "--ca-cert",
        str(ca_files[0]),
        "--out",
        str(out),
    )
    assert half.returncode == 2 and "--ca-key" in half.stderr
    wrong = run(
        "controller",
        "--values",
        str(FIXTURES / "controller-full.values.yaml"),
        "--ca-cert",
        str(ca_files[1]),
        "--ca-key",
        str(ca_files[1]),
        "--out",
        str(out),
    )
    assert wrong.returncode == 2 and "not a PEM X.509 certificate" in wrong.stderr
    assert not out.exists()
