"""Stateful safety: a change that makes pulumi-kubernetes replace a StatefulSet with volume
claim templates is reported before it is applied."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, tars_server

from tars_components.components import TFramework, TFrameworkArgs, TServer, TServerArgs
from tars_components.components.stateful import (
    STATEFULSET_REPLACE_FIELDS,
    replacement_warning,
    replacing_fields,
)
from tars_components.components.testing import record
from tars_components.loading.documents import parse_document
from tars_components.pipeline import expand_server
from tars_components.settings.options import Options

CONFIG = parse_document(FRAMEWORK)
TEMPLATES = {"tars.cpp": "tars.cpp"}
CLAIM = {
    "name": "data",
    "mountPath": "/data",
    "source": {
        "persistentVolumeClaimTemplate": {
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
            }
        }
    },
}


def stateful(**k8s: Any) -> dict[str, Any]:
    return tars_server(mounts=[copy.deepcopy(CLAIM)], **k8s)


def objects(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return expand_server(parse_document(raw, NAMESPACE), CONFIG, Options(namespace=NAMESPACE))


def sts(raw: dict[str, Any]) -> dict[str, Any]:
    return next(o for o in objects(raw) if o["kind"] == "StatefulSet")


def test_replace_fields_are_pulumi_kubernetes_force_new_fields() -> None:
    assert set(STATEFULSET_REPLACE_FIELDS) == {
        "spec.volumeClaimTemplates",
        "spec.serviceName",
        "spec.podManagementPolicy",
        "spec.selector",
        "spec.revisionHistoryLimit",
    }


def test_unchanged_or_in_place_changes_replace_nothing() -> None:
    assert replacing_fields(sts(stateful()), sts(stateful())) == []
    bigger = stateful(replicas=3)
    bigger["spec"]["release"]["image"] = "reg.example.com/test.demotest:v2"
    assert replacing_fields(sts(stateful()), sts(bigger)) == []
    assert replacement_warning(objects(stateful()), objects(bigger)) is None


def test_claim_and_policy_changes_are_named() -> None:
    bigger_claim = stateful(podManagementPolicy="OrderedReady")
    claim = bigger_claim["spec"]["k8s"]["mounts"][0]["source"]["persistentVolumeClaimTemplate"]
    claim["spec"]["resources"]["requests"]["storage"] = "5Gi"
    assert replacing_fields(sts(stateful()), sts(bigger_claim)) == [
        "spec.volumeClaimTemplates",
        "spec.podManagementPolicy",
    ]
    message = replacement_warning(objects(stateful()), objects(bigger_claim))
    assert message is not None
    assert "StatefulSet tars-dev/test-demotest will be replaced" in message
    assert "spec.volumeClaimTemplates, spec.podManagementPolicy" in message


def test_servers_without_claims_are_not_reported() -> None:
    assert (
        replacement_warning(
            objects(tars_server()), objects(tars_server(podManagementPolicy="OrderedReady"))
        )
        is None
    )


def test_adding_the_first_claim_template_is_reported() -> None:
    message = replacement_warning(objects(tars_server()), objects(stateful()))
    assert message is not None and "spec.volumeClaimTemplates" in message


def test_turning_into_a_daemonset_deletes_the_statefulset() -> None:
    message = replacement_warning(objects(stateful()), objects(tars_server(daemonSet=True)))
    assert message is not None and "is deleted" in message


@pytest.mark.parametrize(
    ("previous", "warned"),
    [(None, False), (stateful(), False), (stateful(podManagementPolicy="OrderedReady"), True)],
    ids=["no-previous", "unchanged", "policy-changed"],
)
def test_server_warns_with_pulumi_log(previous: dict[str, Any] | None, warned: bool) -> None:
    # the replacement acknowledged (else it is refused: TV001), so the component warns
    acknowledged = stateful()
    acknowledged["metadata"]["annotations"] = {"tars-components.io/accept-outage": "true"}

    def program() -> None:
        fw = TFramework(
            "fw", TFrameworkArgs(namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)
        )
        TServer(
            "srv",
            TServerArgs(
                fw,
                document=parse_document(acknowledged, NAMESPACE),
                previous=parse_document(previous, NAMESPACE) if previous else None,
            ),
        )

    warnings = [w for w in record(program).warnings() if "will be replaced" in w]
    assert bool(warnings) is warned
