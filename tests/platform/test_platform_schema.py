"""The platform install's Kubernetes objects are valid for the oldest and newest Kubernetes
that kubernetes-validate ships (strict: unknown fields fail), i.e. current API versions only.

TarsK8S custom resources (TServer, TImage, ...) are checked against the CRD schemas elsewhere;
the CRDs themselves are validated as CustomResourceDefinitions here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
from support.assertions.platform import NAMESPACE, values_text

from tars_components.platform import (
    CertificateAuthority,
    ControllerValues,
    FrameworkValues,
    build_controller_with_ca,
    build_framework,
    parse_values,
)

SCHEMAS = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
VERSIONS = sorted(
    {
        p.name[1:].split("-")[0].rsplit(".", 1)[0]
        for p in SCHEMAS.iterdir()
        if p.name.startswith("v")
    },
    key=lambda v: tuple(int(x) for x in v.split(".")),
)
OLDEST, NEWEST = VERSIONS[0], VERSIONS[-1]
CA = CertificateAuthority(
    cert_pem="-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    key_pem="-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n",
)


def _objects() -> list[dict[str, Any]]:
    framework = build_framework(
        parse_values(values_text("framework-full"), FrameworkValues), NAMESPACE
    ).objects
    controller = build_controller_with_ca(
        parse_values(values_text("controller-full"), ControllerValues), CA
    )
    return [o for o in [*controller, *framework] if not o["apiVersion"].startswith("k8s.tars.io/")]


OBJECTS = _objects()


def test_oldest_is_at_least_1_25() -> None:
    assert tuple(int(x) for x in OLDEST.split(".")) >= (1, 25)


@pytest.mark.parametrize("version", sorted({OLDEST, NEWEST}))
@pytest.mark.parametrize(
    "obj", OBJECTS, ids=[f"{o['kind']}-{o['metadata']['name']}" for o in OBJECTS]
)
def test_valid_kubernetes(obj: dict[str, Any], version: str) -> None:
    kubernetes_validate.validate(obj, version, strict=True)
