"""Redaction that cannot be escaped (issue 16 part 4).

A secret appears in no message whatever characters it holds (backslashes, both quote kinds,
control characters, newlines, unicode): messages are built with the secret already masked,
at the value level, so no quoting or escaping can print it. Covered on every route a secret
takes today:

* a Pulumi secret (``pulumi.Output.secret``) in a component's document, checked by the
  dynamic provider: in process, under mocks (the components' ``record``), and over gRPC
  (``python -m pulumi.dynamic``: Check failures and the Create error);
* a TAccount credential in a stack file (the CLI's only secrets: a literal password, or a
  ``{configSecret: KEY}`` reference the CLI never resolves), quoted at a parent field, in
  ``validate`` and every ``diff`` format;
* ``diff`` of TAccount credentials whatever the apiVersion spelling.

A release image cannot be a secret in a stack file (stack files are plaintext and ``secure``
``tars:*`` config values are refused), so the CLI half of "a secret release image" is the
TAccount credential; a plaintext image with the same characters is also never printed raw.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import grpc
import pulumi
import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, stack_text, tars_server
from support.engines.cli import run
from support.engines.grpc_provider import (
    PROVIDER_KEY,
    DynamicProviderProcess,
    engine_strips_secrets,
    registered_inputs,
)

from tars_components.cli import main as cli_main
from tars_components.components import TFramework, TFrameworkArgs, TServer, TServerArgs
from tars_components.components.testing import Recording, ValidationFailed, record, strip_secrets
from tars_components.diff import diff_stacks
from tars_components.diff.printers import to_json, to_markdown, to_text
from tars_components.loading.documents import parse_document
from tars_components.loading.load import load_texts
from tars_components.provider import (
    AdmissionError,
    Subject,
    TarsValidation,
    TarsValidationProvider,
    ValidationInputs,
    check_failures,
    evaluate,
)
from tars_components.secrets.redaction import MASK, masking, quote, redact_text
from tars_components.settings.options import Mode, Options

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
URN = "urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::v"

ACCEPTANCE_IMAGE = "a\\b'c\"d"  # the Python string a\b'c"d: its repr differs from its text
SECRETS = [
    pytest.param(ACCEPTANCE_IMAGE, id="backslash-and-quotes"),
    pytest.param("ctl\x00\x07\x1b[31m\tx", id="control-characters"),
    pytest.param("first line\nsecond\r\nthird", id="newlines"),
    pytest.param("пароль-秘密-🔑-Ünï", id="unicode"),
    pytest.param("'''\"\"\"\\\\'\\x41", id="escapes-and-repr-lookalikes"),
]


def forms(secret: str) -> set[str]:
    """Every way a message could spell ``secret``: as it is, as Python and JSON quote it
    (with and without its quotes), and each of its lines of four characters or more."""
    found = {
        secret,
        repr(secret),
        repr(secret)[1:-1],
        json.dumps(secret),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        secret.encode("unicode_escape").decode("ascii"),
    }
    found.update(line for line in secret.splitlines() if len(line.strip()) >= 4)
    return {form for form in found if form}


def assert_hidden(text: str, secret: str) -> None:
    leaked = sorted(form for form in forms(secret) if form in text or form.lower() in text.lower())
    assert not leaked, f"secret leaked as {leaked!r} in:\n{text}"


# --- the value->text function -------------------------------------------------------------


@pytest.mark.parametrize("secret", SECRETS)
def test_quote_masks_an_active_secret_wherever_it_sits(secret: str) -> None:
    value = {"env": [{"name": "PW", "value": secret}], "image": f"registry/{secret}:v1"}
    with masking([secret]):
        quoted = quote(value)
        alone = quote(secret)
    assert alone == MASK
    assert_hidden(quoted, secret)
    assert quoted == (
        "{'env': [{'name': 'PW', 'value': [secret]}], 'image': 'registry/[secret]:v1'}"
    )
    # Outside the masking context the value is quoted as it is (the test is not vacuous).
    assert quote(secret) == repr(secret)


def test_quote_masks_a_secret_path_whole_and_a_lowercased_secret() -> None:
    with masking(["ShopApp"], [("spec", "k8s", "env", 0, "value")]):
        assert quote({"value": 42}, ("spec", "k8s", "env", 0)) == "{'value': [secret]}"
        assert quote("shopapp-order") == "'[secret]-order'"


def test_quote_masks_credentials_of_the_kind_at_any_depth_keeping_their_shape() -> None:
    subtrees = (("spec", "authentication"),)
    keys = frozenset({"authentication", "password"})
    spec = {"username": "admin", "authentication": [{"password": "Hunter2-Literal"}]}
    assert quote(spec, ("spec",), subtrees, keys) == (
        "{'username': 'admin', 'authentication': [{'password': [secret]}]}"
    )
    # misplaced under a list: found by its key
    assert quote([spec], ("spec",), subtrees, keys) == (
        "[{'username': 'admin', 'authentication': [{'password': [secret]}]}]"
    )


def test_the_second_belt_finds_a_secret_in_any_casing_and_escaping() -> None:
    text = f"a {ACCEPTANCE_IMAGE!r} b {json.dumps(ACCEPTANCE_IMAGE)} c A\\B'C\"D"
    assert redact_text(text, [ACCEPTANCE_IMAGE]) == "a '[secret]' b \"[secret]\" c [secret]"


# --- the provider, in process ---------------------------------------------------------------


def secret_props(secret: str, where: str = "image") -> dict[str, Any]:
    """Input properties of a TServer with ``secret`` as a Pulumi secret, as the provider
    receives them (the engine strips secret markers; ``secretFields`` names the paths)."""
    document = tars_server()
    secret_fields = ["spec.release.image"]
    if where == "image":
        document["spec"]["release"]["image"] = secret
    elif where == "env-parent":  # env written as a mapping: the error is at spec.k8s.env
        document["spec"]["k8s"]["env"] = {"name": "PW", "value": secret}
        secret_fields = ["spec.k8s.env.value"]
    return {
        "document": document,
        "namespace": NAMESPACE,
        "templates": TEMPLATES,
        "frameworkNodeImage": FRAMEWORK["nodeImage"],
        "secretFields": secret_fields,
    }


@pytest.mark.parametrize("secret", SECRETS)
def test_messages_are_built_with_the_secret_masked(secret: str) -> None:
    result = evaluate(Subject.parse(secret_props(secret)))
    [violation] = [v for v in result.violations if v.is_error]
    assert (violation.code, violation.field) == ("TS021", "spec.release.image")
    # The message itself, before any text search, holds no form of the secret.
    assert violation.message.startswith(f"{MASK} is not valid")
    assert_hidden(violation.message, secret)


@pytest.mark.parametrize("secret", SECRETS)
def test_check_failures_create_error_and_outputs_hold_no_secret(secret: str) -> None:
    props = secret_props(secret)
    failures = check_failures({}, props)
    assert [(field, reason.split(":")[0]) for field, reason in failures] == [
        ("spec.release.image", "TS021")
    ]
    assert_hidden(repr(failures), secret)
    with pytest.raises(AdmissionError) as raised:
        TarsValidationProvider().create(props)
    assert "TS021" in str(raised.value)
    assert_hidden(str(raised.value), secret)
    assert_hidden(repr(evaluate(Subject.parse(props)).outputs(props)["violations"]), secret)


@pytest.mark.parametrize("secret", SECRETS)
def test_a_secret_quoted_at_a_parent_field_is_masked(secret: str) -> None:
    props = secret_props(secret, where="env-parent")
    [(field, reason)] = check_failures({}, props)
    assert field == "spec.k8s.env" and reason.startswith("TS021: must be a list, got")
    assert "'name': 'PW'" in reason and f"'value': {MASK}" in reason
    assert_hidden(reason, secret)


def test_an_update_masks_the_old_secret_a_change_rule_quotes() -> None:
    old = secret_props("reg.example.com/x:v1")
    old["document"]["spec"]["app"] = "HiddenOld"
    old["secretFields"] = ["spec.app"]
    new = secret_props("reg.example.com/x:v1")
    failures = check_failures(old, new)
    assert [reason.split(":")[0] for _, reason in failures] == ["TS001"]
    for _, reason in failures:
        assert_hidden(reason, "HiddenOld")
    with pytest.raises(AdmissionError) as raised:
        TarsValidationProvider().update("id", old, new)
    assert "TS001" in str(raised.value)
    assert_hidden(str(raised.value), "HiddenOld")


def test_no_secret_in_the_validation_id() -> None:
    props = secret_props("reg.example.com/x:v1")
    props["document"]["spec"]["app"] = "Hidden"
    props["document"]["metadata"]["name"] = "hidden-demotest"
    props["secretFields"] = ["spec.app"]
    result = TarsValidationProvider().create(props)
    assert result.id == f"TServer/{NAMESPACE}/{MASK}"
    assert "hidden" not in result.id.lower()
    plain = TarsValidationProvider().create(secret_props("reg.example.com/x:v1"))
    assert plain.id == f"TServer/{NAMESPACE}/test-demotest"


# --- under mocks: the components ------------------------------------------------------------


def secret_image_server(image: str) -> None:
    fw = TFramework(
        "fw",
        TFrameworkArgs(
            namespace=NAMESPACE,
            config=parse_document(FRAMEWORK, NAMESPACE),  # type: ignore[arg-type]
            templates=TEMPLATES,
        ),
    )
    TServer(
        "srv",
        TServerArgs(
            fw,
            app="Shop",
            server="Order",
            tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
            k8s={"replicas": 1},
            release={"id": "v42", "image": pulumi.Output.secret(image)},
        ),
    )


@pytest.mark.parametrize("secret", SECRETS)
def test_under_mocks_a_failing_secret_image_prints_no_secret(secret: str) -> None:
    recording = Recording()
    with pytest.raises(ValidationFailed) as raised:
        record(lambda: secret_image_server(secret), recording=recording, preview=True)
    message = str(raised.value)
    assert "spec.release.image" in message and "TS021" in message and MASK in message
    assert_hidden(message, secret)
    assert recording.plaintext(secret) == []


# --- over gRPC: python -m pulumi.dynamic ----------------------------------------------------


def registered_with_secret_image(image: str) -> Any:
    def build() -> TarsValidation:
        document: dict[str, Any] = tars_server()
        document["spec"]["release"]["image"] = pulumi.Output.secret(image)
        inputs = ValidationInputs(
            document=document,
            namespace=NAMESPACE,
            templates=TEMPLATES,
            framework_node_image=FRAMEWORK["nodeImage"],
            secret_fields=["spec.release.image"],
        )
        return TarsValidation("v", inputs)

    _, struct = registered_inputs("v", build)
    return engine_strips_secrets(struct)


@pytest.mark.parametrize("secret", SECRETS)
def test_over_grpc_check_and_create_print_no_secret(
    provider: DynamicProviderProcess, secret: str
) -> None:
    news = registered_with_secret_image(secret)
    _, failures = provider.check(URN, None, news)
    assert [(f.property, f.code) for f in failures] == [("spec.release.image", "TS021")]
    assert_hidden(repr([(f.property, f.reason) for f in failures]), secret)
    with pytest.raises(grpc.RpcError) as raised:
        provider.create(URN, news)
    details = raised.value.details() or ""
    # the exception's name is printed by newer SDKs only ("Exception calling application:" at
    # the declared floor); the rule code and field are the provider's own
    assert "TS021" in details and "spec.release.image" in details
    assert_hidden(details, secret)
    assert_hidden(provider.stderr(), secret)


# --- the CLI: TAccount credentials ----------------------------------------------------------

ACCOUNT_NAME = "21232f297a57a5a743894a0e4a801fc3"  # md5("admin")


def account(authentication: Any, api_version: str = "k8s.tars.io/v1beta3") -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "TAccount",
        "metadata": {"name": ACCOUNT_NAME, "namespace": NAMESPACE},
        "spec": {
            "username": "admin",
            "authentication": authentication,
            "authorization": [{"role": "admin", "flag": "*"}],
        },
    }


def write_stack(directory: Path, *documents: dict[str, Any]) -> Path:
    directory.mkdir(parents=True)
    (directory / "accounts.yaml").write_text(stack_text(*documents), encoding="utf-8")
    return directory


BROKEN_ACCOUNTS = [
    pytest.param(lambda pw: account([{"password": pw}]), id="authentication-list"),
    pytest.param(lambda pw: account([{"password": pw}], "k8s.tars.io/v1beta2"), id="v1beta2-list"),
    pytest.param(lambda pw: account(pw), id="authentication-string"),
    pytest.param(
        lambda pw: {**account({}), "spec": [{"authentication": {"password": pw}}]},
        id="spec-list",
    ),
    pytest.param(
        lambda pw: account({"password": pw, "tokens": {"content": pw}}), id="tokens-mapping"
    ),
]
PASSWORDS = ["Hunter2-Literal", ACCEPTANCE_IMAGE, "pw\twith\x1bctl\nand-line", "пароль-秘密-🔑"]


def commands(old: Path, new: Path) -> list[list[str]]:
    """``validate`` of the new stack and ``diff`` in every format."""
    diff = ["diff", str(old), str(new), "--format"]
    return [["validate", str(new)], *([*diff, f] for f in ("text", "json", "markdown"))]


@pytest.mark.parametrize("broken", BROKEN_ACCOUNTS[:2])
def test_a_misshapen_taccount_prints_no_password_in_validate_or_diff(
    tmp_path: Path, broken: Any
) -> None:
    """As a user runs it: ``python -m tars_components`` in a subprocess (the list of the
    acceptance check, in both versions; every shape is run in process below)."""
    old = write_stack(tmp_path / "old", account({"password": {"configSecret": "adminPassword"}}))
    new = write_stack(tmp_path / "new", broken(ACCEPTANCE_IMAGE))
    for args in commands(old, new):
        result = run(*args)
        assert result.returncode == 1, result.stderr
        assert "TA003" in result.stdout + result.stderr
        assert_hidden(result.stdout + result.stderr, ACCEPTANCE_IMAGE)


@pytest.mark.parametrize("broken", BROKEN_ACCOUNTS)
@pytest.mark.parametrize("password", PASSWORDS)
def test_no_password_of_any_characters_in_validate_or_diff(
    tmp_path: Path, broken: Any, password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same commands in process (quicker), for passwords of every kind of character."""
    old = write_stack(tmp_path / "old", account({"password": {"configSecret": "adminPassword"}}))
    new = write_stack(tmp_path / "new", broken(password))
    for args in commands(old, new):
        assert cli_main(args) == 1
        out, err = capsys.readouterr()
        assert "TA003" in out + err
        assert_hidden(out + err, password)


def test_a_list_authentication_is_reported_with_its_shape_and_no_password() -> None:
    stack = load_texts({"a.yaml": stack_text(account([{"password": "Hunter2-Literal"}]))})
    [violation] = stack.violations
    assert violation.field == "spec.authentication"
    assert violation.message == "must be a mapping, got list [{'password': [secret]}]"


def test_a_plaintext_image_is_never_printed_raw_by_the_cli(tmp_path: Path) -> None:
    document = tars_server()
    document["spec"]["release"]["image"] = ACCEPTANCE_IMAGE
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "s.yaml").write_text(stack_text(document), encoding="utf-8")
    result = run("validate", str(stack), "--namespace", NAMESPACE)
    assert result.returncode == 1 and "TS021" in result.stdout
    assert ACCEPTANCE_IMAGE not in result.stdout + result.stderr


# --- diff: TAccount credentials whatever the apiVersion -------------------------------------


@pytest.mark.parametrize(
    "api_version",
    ["k8s.tars.io/v1beta2", "k8s.tars.io/v1beta3", "K8S.tars.io/v1beta3", "k8s.TARS.IO/v1beta2"],
)
@pytest.mark.parametrize("mode", [Mode.CRD, Mode.EXPAND])
def test_diff_masks_taccount_credentials_whatever_the_api_version(
    api_version: str, mode: Mode
) -> None:
    def stack(password: str, token: str) -> Any:
        auth = {"password": password, "tokens": [token_of(token)]}
        return load_texts({"a.yaml": stack_text(account(auth, api_version))}, NAMESPACE)

    before, after = stack("OldPass\\'\"1", "tok-old-1"), stack("NewPass\\'\"2", "tok-new-2")
    result = diff_stacks(before, after, Options(namespace=NAMESPACE, mode=mode))
    if not api_version.startswith("k8s.tars.io/"):
        # an API group is lowercase: the API server refuses the object (TX006), and the
        # refusal quotes no credential either
        assert result.diff is None and {v.code for v in result.violations} == {"TX006"}
        for secret in ("NewPass\\'\"2", "tok-new-2"):
            assert_hidden("\n".join(v.format() for v in result.violations), secret)
        return
    assert result.diff is not None, result.violations
    texts = [to_json(result.diff), to_markdown(result.diff, 65536), to_text(result.diff)]
    for secret in ("OldPass\\'\"1", "NewPass\\'\"2", "tok-old-1", "tok-new-2"):
        for text in texts:
            assert_hidden(text, secret)
    if api_version.startswith("k8s.tars.io/") and mode == Mode.EXPAND:
        return  # a TAccount is not emitted in expand mode (TX001)
    changed = {f.path: (f.old, f.new) for c in result.diff.changes for f in c.fields}
    assert "[secret: after]" in json.dumps(changed), changed


def token_of(content: str) -> dict[str, Any]:
    return {"name": "tk", "content": content, "expirationTime": "2030-01-01T00:00:00Z"}


def test_a_taccount_with_a_mixed_case_group_is_refused_without_its_password() -> None:
    def stack(password: str) -> Any:
        document = copy.deepcopy(account({}, "K8s.Tars.Io/v1beta3"))
        document["spec"] = [{"authentication": {"password": password}}]
        return load_texts({"a.yaml": stack_text(document)}, NAMESPACE)

    # a mixed-case API group is refused (TX006) before any diff: no password in the message
    result = diff_stacks(stack("Old-Pass-1"), stack("New-Pass-2"), Options(namespace=NAMESPACE))
    assert result.diff is None and {v.code for v in result.violations} == {"TX006"}
    text = "\n".join(v.format() for v in result.violations)
    assert "Old-Pass-1" not in text and "New-Pass-2" not in text


def test_a_component_with_a_secret_app_gets_a_validation_id_without_it() -> None:
    def program() -> None:
        fw = TFramework(
            "fw",
            TFrameworkArgs(
                namespace=NAMESPACE,
                config=parse_document(FRAMEWORK, NAMESPACE),  # type: ignore[arg-type]
                templates=TEMPLATES,
            ),
        )
        TServer(
            "srv",
            TServerArgs(
                fw,
                app=pulumi.Output.secret("Hiddenapp"),
                server="Order",
                tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
                k8s={"replicas": 1},
                release={"id": "v42", "image": "reg.example.com/x:v1"},
            ),
        )

    recording = record(program)
    [validation] = [r for r in recording.validations() if r.name == "srv-validation"]
    props = strip_secrets({k: v for k, v in validation.inputs.items() if k != PROVIDER_KEY})
    created = TarsValidationProvider().create(props)
    assert "hiddenapp" not in created.id.lower()
    assert created.id == f"TServer/{NAMESPACE}/{MASK}"
    assert recording.plaintext("Hiddenapp") == []


def test_a_short_secret_never_blurs_the_rule_code() -> None:
    props = secret_props("Bad Image 1")
    props["document"]["spec"]["k8s"]["env"] = [{"name": "N", "value": "1"}]
    props["secretFields"] = ["spec.k8s.env[0].value"]
    [(field, reason)] = check_failures({}, props)
    assert field == "spec.release.image"
    assert reason.startswith("TS021: 'Bad Image [secret]' is not valid")
    outputs = evaluate(Subject.parse(props)).outputs(props)
    assert outputs["violations"][0].startswith("TS021 error spec.release.image: ")
