"""``pulumi.Input`` everywhere (issue #8 item 3): every leaf of the ``tars``, ``normal``,
``k8s`` and ``release`` sections and ``app``/``server`` of a TServer may be an Output.

* Known Outputs register exactly the objects that plain values register (same URNs, kinds
  and values), only as secret as the inputs that reach them.
* In a preview where they are unknown nothing crashes: the resources are the same, the
  validation resource gets the document with its unknowns, and the other rules still fail
  the preview.
* ``k8s.daemonSet`` decides which objects exist: it is a plain bool, an Output there (or a
  whole ``k8s`` Output) is refused naming the field before anything is registered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest
from pulumi.output import Unknown
from support.builders.documents import FRAMEWORK, NAMESPACE
from support.engines.components import output, registered, same, unknown

from tars_components.components import ComponentError, TFramework, TServer
from tars_components.components.testing import (
    Recording,
    ValidationFailed,
    contains_secret,
    is_secret_value,
    record,
    strip_secrets,
)
from tars_components.loading.documents import parse_document
from tars_components.settings.options import Mode, Options

CONFIG = parse_document(FRAMEWORK, NAMESPACE)
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
PASSWORD = "hunter2-s3cr3t-pw"
Wrap = Callable[[Any], Any]


def server_program(
    wrap: Wrap,
    daemon: Any = False,
    mode: Mode = Mode.EXPAND,
    app: Any = "Shop",
    servants: list[dict[str, Any]] | None = None,
) -> Callable[[], None]:
    """One TServer whose app, server, a servant name, a port, replicas and daemonSet go
    through ``wrap``, with a secret env value."""

    def program() -> None:
        fw = TFramework(
            "fw",
            namespace=NAMESPACE,
            config=CONFIG,  # type: ignore[arg-type]
            templates=TEMPLATES,
            options=Options(namespace=NAMESPACE, mode=mode),
        )
        srv = TServer(
            "srv",
            framework=fw,
            app=wrap(app),
            server=wrap("Order"),
            sub_type=wrap("tars"),
            important=wrap(5),
            tars={
                "template": "tars.cpp",
                "servants": servants
                or [
                    {"name": wrap("OrderObj"), "port": wrap(10000)},
                    {"name": "PayObj", "port": 10001},
                ],
            },
            k8s={
                "replicas": wrap(2),
                "daemonSet": daemon,
                "env": [{"name": "PW", "value": pulumi.Output.secret(PASSWORD)}],
            },
            release={"id": "v1", "image": "reg.example.com/shop/order:v1"},
        )
        pulumi.export("objectName", srv.object_name)
        pulumi.export("objects", srv.objects)
        pulumi.export("mutated", srv.mutated)
        pulumi.export("manifests", srv.manifests)

    return program


def one(recording: Recording, type_: str) -> Any:
    [found] = recording.of_type(type_)
    return found


@pytest.mark.parametrize(
    ("daemon", "mode"), [(False, Mode.EXPAND), (True, Mode.EXPAND), (False, Mode.CRD)]
)
def test_known_outputs_register_what_plain_values_register(daemon: bool, mode: Mode) -> None:
    plain = record(server_program(same, daemon, mode))
    lifted = record(server_program(output, daemon, mode))
    assert registered(lifted) == registered(plain)
    assert strip_secrets(lifted.outputs) == strip_secrets(plain.outputs)
    kinds = {r.type.rsplit(":", 1)[1] for r in lifted.kubernetes() if r.name.startswith("srv-")}
    expected = (
        {"TServer"} if mode == Mode.CRD else {"DaemonSet"} if daemon else {"Service", "StatefulSet"}
    )
    assert kinds == expected
    assert lifted.outputs["objectName"] == "shop-order"


def test_a_secret_reaches_only_what_it_is_part_of() -> None:
    recording = record(server_program(output))
    assert recording.plaintext(PASSWORD) == []
    sts = one(recording, "kubernetes:apps/v1:StatefulSet")
    assert is_secret_value(sts.inputs["spec"]) and PASSWORD in str(sts.inputs["spec"])
    # The names come from app and server, which are not secret.
    assert not contains_secret(sts.inputs["metadata"])
    assert not is_secret_value(recording.outputs["objects"])
    assert is_secret_value(recording.outputs["mutated"])


def test_a_secret_app_stays_secret_everywhere() -> None:
    app = "Shopsecretapp"
    recording = record(server_program(lambda v: v, app=pulumi.Output.secret(app)))
    assert recording.plaintext(app) == []
    assert recording.plaintext(app.lower()) == []
    sts = one(recording, "kubernetes:apps/v1:StatefulSet")
    assert is_secret_value(sts.inputs["metadata"])
    assert strip_secrets(sts.inputs["metadata"])["name"] == "shopsecretapp-order"


def test_unknown_in_a_preview_registers_the_same_resources_and_checks_the_rest() -> None:
    recording = record(server_program(lambda v: unknown()), preview=True)
    assert sorted(r.name for r in recording.kubernetes()) == ["srv-service", "srv-statefulset"]
    [validation] = [r for r in recording.validations() if r.name == "srv-validation"]
    document = strip_secrets(validation.inputs)["document"]
    assert isinstance(document["spec"]["app"], Unknown)
    assert isinstance(document["metadata"]["name"], Unknown)
    # A rule about known fields still fails the preview: two servants named alike (TS003).
    servants = [
        {"name": unknown(), "port": unknown()},
        {"name": "BObj", "port": 10001},
        {"name": "bobj", "port": 10002},
    ]
    with pytest.raises(ValidationFailed, match=r"TS003") as raised:
        record(server_program(lambda v: unknown(), servants=servants), preview=True)
    assert "servants[2].name" in str(raised.value) and "app" not in str(raised.value)


@pytest.mark.parametrize("preview", [False, True])
@pytest.mark.parametrize("daemon", [unknown, lambda: pulumi.Output.from_input(True)])
def test_an_output_daemon_set_is_refused_naming_the_field(
    daemon: Callable[[], Any], preview: bool
) -> None:
    recording = Recording()
    with pytest.raises(ComponentError, match=r"^TServer 'srv': spec\.k8s\.daemonSet: decides"):
        record(server_program(output, daemon=daemon()), preview=preview, recording=recording)
    assert not recording.of_type("tars:index:TServer")


def test_a_value_known_only_later_is_checked_when_known() -> None:
    # An app that breaks the CRD pattern: the validation resource refuses it at ``up``.
    with pytest.raises(ValidationFailed, match=r"spec\.app"):
        record(server_program(output, app="shop-order"))


def test_a_server_named_by_outputs_is_checked_against_later_servers() -> None:
    def program() -> None:
        fw = TFramework("fw", namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)  # type: ignore[arg-type]
        for name, app in (("first", output("Shop")), ("second", "Shop")):
            TServer(name, framework=fw, app=app, server="Order", normal={"ports": []})

    with pytest.raises(ValidationFailed, match=r"TS017"):
        record(program)


def test_a_whole_k8s_section_given_as_an_output_is_refused() -> None:
    def program() -> None:
        fw = TFramework("fw", namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES)  # type: ignore[arg-type]
        TServer(
            "srv",
            framework=fw,
            app="Shop",
            server="Order",
            tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
            k8s=pulumi.Output.from_input({"replicas": 2}),  # type: ignore[arg-type]
        )

    with pytest.raises(ComponentError, match=r"^TServer 'srv': spec\.k8s: decides"):
        record(program)
