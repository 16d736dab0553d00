"""No secret in any message or output, whatever the document's shape; no traceback on any
input (docs/concepts/webhooks.md#taccount, docs/development.md#fuzzing).

Each reproduction is run as a user runs it (the CLI in process, its exit code, stdout and
stderr) and checked for what the user sees: the exit code, ``FILE:LINE`` and the field, and
the absence of the planted secret.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tars_components.cli import main as cli_main
from tars_components.kernel.paths import format_path
from tars_components.secrets.redaction import MASK, names_secret, quote

SECRET = "Zq9SECmarker4412y"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Exit code and everything the command printed (stdout and stderr)."""
    code = cli_main(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


def stack(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "a.yaml").write_text(text, encoding="utf-8")
    return folder


EMPTY = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"


def command_args(command: str, folder: Path, tmp_path: Path) -> list[str]:
    """The arguments of ``command`` on the stack ``folder`` (output: ``tmp_path/out``)."""
    return {
        "validate": ["validate", str(folder)],
        "render": ["render", str(folder), "--out", str(tmp_path / "out")],
        "diff": ["diff", str(stack(tmp_path, "old", EMPTY)), str(folder)],
        "convert": ["convert", "--out", str(tmp_path / "out"), str(folder / "a.yaml")],
    }[command]


# M1: masking that does not depend on a well-formed kind
MALFORMED = {
    "secret-under-api-version": (
        f"apiVersion:\n  kind: Secret\n  stringData: {{password: {SECRET}}}\n"
        "kind: Secret\nmetadata: {name: s}\n"
    ),
    "taccount-credentials-as-api-version": (
        f"apiVersion: {{authentication: {{password: {SECRET}}}}}\nkind: TAccount\n"
        "metadata: {name: a}\n"
    ),
    "secret-data-as-kind": (
        f"apiVersion: v1\nkind: {{stringData: {{password: {SECRET}}}}}\nmetadata: {{name: s}}\n"
    ),
}


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
@pytest.mark.parametrize("command", ["validate", "render", "diff", "convert"])
def test_a_malformed_api_version_or_kind_is_an_error_that_quotes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, command: str
) -> None:
    folder = stack(tmp_path, "s", text)
    code, printed = cli(capsys, *command_args(command, folder, tmp_path))
    assert code == 2, printed
    assert f"{folder / 'a.yaml'}:1: unknown " in printed
    assert SECRET not in printed
    assert not (tmp_path / "out").exists()


N1_ACCOUNT = (
    "apiVersion: {api}\nkind: TAccount\nmetadata: {{name: admin}}\nspec:\n  username: admin\n"
    f"  authentication:\n    password: {SECRET}\n"
)


@pytest.mark.parametrize("api", ["k8s.tars.com/v1beta3", "k8swtars.io/v1beta3", "v1"])
def test_a_tarsk8s_kind_under_another_group_is_an_error_never_a_plain_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], api: str
) -> None:
    folder = stack(tmp_path, "new", N1_ACCOUNT.format(api=api))
    old = stack(tmp_path, "old", EMPTY)
    for args in (
        ["validate", str(folder)],
        ["diff", str(old), str(folder), "--format", "markdown"],
        ["render", str(folder), "--out", str(tmp_path / "out")],
    ):
        code, printed = cli(capsys, *args)
        assert code == 2, printed
        assert f"{folder / 'a.yaml'}:1: TAccount is a TarsK8S kind, but apiVersion" in printed
        assert "did you mean k8s.tars.io/v1beta3?" in printed
        assert SECRET not in printed
    assert not (tmp_path / "out").exists()


def test_a_secret_written_as_a_key_never_shows_in_a_field_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "apiVersion: k8s.tars.io/v1beta3\nkind: TAccount\nmetadata: {name: admin}\nspec:\n"
        f"  username: admin\n  authentication:\n    password: {{{SECRET}: x}}\n"
    )
    code, printed = cli(capsys, "validate", str(stack(tmp_path, "s", text)))
    assert code == 1 and "spec.authentication.password" in printed
    assert SECRET not in printed
    assert format_path(("spec", "password", SECRET, 0)) == f"spec.password.{MASK}[0]"


def test_a_wrongly_tagged_value_is_never_echoed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
        f"data:\n  password: !!int {SECRET}\n"
    )
    code, printed = cli(capsys, "validate", str(stack(tmp_path, "s", text)))
    assert code == 2
    assert "a.yaml:5: invalid YAML: a value tagged !!int is not an integer" in printed
    assert SECRET not in printed


def test_a_key_naming_a_secret_is_masked_in_any_kind_and_shape() -> None:
    for key in ("password", "dbPassword", "client_secret", "apiToken", "tls.key", "ssh-privatekey"):
        assert names_secret(key), key
        assert SECRET not in quote({"x": [{key: {SECRET: [SECRET]}}]})
    for key in ("secretName", "name", "key", "imagePullSecrets", "tokenTTL"):
        assert not names_secret(key), key
    volume = {"secret": {"secretName": "certs"}}
    assert quote(volume) == repr(volume)  # a pod's secret volume names a Secret, holds none
    flag = {"automountServiceAccountToken": False}
    assert quote(flag) == repr(flag)


def test_secret_data_nested_in_another_objects_field_is_masked_in_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = stack(tmp_path, "old", EMPTY)
    text = (
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec:\n"
        f"  wrapped: {{kind: Secret, data: {{a: {SECRET}}}}}\n  dbPassword: {SECRET}x\n"
    )
    new = stack(tmp_path, "new", text)
    for form in ("text", "json", "markdown"):
        code, printed = cli(capsys, "diff", str(old), str(new), "--format", form)
        assert code == 0, printed
        assert SECRET not in printed and "[secret]" in printed


VALUES = f"helm:\n  dockerhub:\n    password: {SECRET}\ncontroller:\n  registry: [a]\n  tag: x\n"


@pytest.mark.parametrize("command", ["controller", "framework"])
def test_values_file_errors_quote_the_offending_field_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(VALUES, encoding="utf-8")
    code, printed = cli(capsys, command, "--values", str(values), "--out", str(tmp_path / "o"))
    assert code == 2 and f"{values}:" in printed
    assert SECRET not in printed
    assert not (tmp_path / "o").exists()


# --- no crash: exit 2 with file, line and one sentence ---------------------------------------

CRASHES = {
    "map-tag-on-a-list": ("metadata: !!map [a]\n", 3, "a value tagged !!map is not a mapping"),
    "set-tag-on-a-scalar": ("metadata:\n  name: !!set x\n", 4, "!!set values are not supported"),
    "int-tag-on-nothing": (
        "metadata: {name: c}\ndata: {a: !!int ''}\n",
        4,
        "a value tagged !!int is not an integer",
    ),
    "int-key": ("metadata: {name: c}\ndata:\n  1: x\n", 5, "a mapping key must be a string"),
    "yes-key": ("metadata: {name: c}\ndata:\n  yes: x\n", 5, "a mapping key must be a string"),
    "null-key": ("metadata: {name: c}\ndata:\n  ~: x\n", 5, "a mapping key must be a string"),
    "binary": ("metadata: {name: c}\ndata:\n  a: !!binary aGk=\n", 5, "!!binary values are not"),
}


@pytest.mark.parametrize(("body", "line", "message"), CRASHES.values(), ids=CRASHES.keys())
@pytest.mark.parametrize("command", ["validate", "render", "diff", "convert"])
def test_a_tag_or_key_that_does_not_fit_is_an_error_with_its_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    body: str,
    line: int,
    message: str,
    command: str,
) -> None:
    folder = stack(tmp_path, "s", "apiVersion: v1\nkind: ConfigMap\n" + body)
    code, printed = cli(capsys, *command_args(command, folder, tmp_path))
    assert code == 2, printed
    assert f"a.yaml:{line}: invalid YAML: {message}" in printed
    assert not (tmp_path / "out").exists()


CONVERT = {
    "kind-as-a-list": (
        "apiVersion: k8s.tars.io/v1beta2\nkind: [TServer]\nmetadata: {name: a}\n",
        "a.yaml:1: unknown kind (a list, not a string)",
    ),
    "profile-as-a-mapping": (
        "app: Demo\nserver: HelloServer\ntemplate: tars.cpp\nprofile: {a: b}\nservants:\n"
        "  - {name: HelloObj, port: 10000, isTars: true, isTcp: true}\n"
        "repo: {id: v1, image: 'registry.example.com/demo/helloserver:v1', secret: s}\n",
        "a.yaml:4: helm-lib values profile: must be a single value",
    ),
    "boolean-key-in-a-values-file": (
        "app: Demo\nserver: HelloServer\ntrue: 1\n",
        "a.yaml:3: invalid YAML: a mapping key must be a string",
    ),
}


@pytest.mark.parametrize(("text", "expected"), CONVERT.values(), ids=CONVERT.keys())
def test_convert_refuses_what_it_cannot_write_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    folder = stack(tmp_path, "s", text)
    out = tmp_path / "out"
    code, printed = cli(capsys, "convert", "--out", str(out), str(folder / "a.yaml"))
    assert code == 2, printed
    assert expected in printed
    assert not out.exists()


def test_a_v1beta1_document_whose_kind_is_a_mapping_is_reported_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = f"apiVersion: k8s.tars.io/v1beta1\nkind: {{stringData: {{password: {SECRET}}}}}\n"
    code, printed = cli(capsys, "validate", str(stack(tmp_path, "s", text)))
    assert code == 2 and "a.yaml:1: k8s.tars.io/v1beta1 is no longer served" in printed
    assert "(no kind)" in printed and SECRET not in printed


def test_convert_writes_a_file_holding_credentials_0600(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        N1_ACCOUNT.format(api="k8s.tars.io/v1beta2")
        + "  authorization: [{role: admin, flag: '*'}]\n"
    )
    source = stack(tmp_path, "s", text) / "a.yaml"
    out = tmp_path / "out"
    code, printed = cli(capsys, "convert", "--out", str(out), str(source))
    assert code == 0, printed
    assert (out / "a.yaml").stat().st_mode & 0o777 == 0o600
    assert SECRET not in printed


def test_a_file_with_a_password_key_or_a_misspelt_secret_kind_is_written_0600() -> None:
    from tars_components.jobs.tree_writer import holds_secret

    assert holds_secret("apiVersion: v1\nkind: secret\nmetadata: {name: s}\n")
    assert holds_secret("kind: Thing\nspec:\n  dbPassword: x\n")
    assert not holds_secret("kind: Pod\nspec:\n  automountServiceAccountToken: false\n")
    assert not holds_secret("kind: Pod\nspec:\n  volumes:\n  - secret: {secretName: s}\n")


def test_convert_of_a_framework_config_without_metadata_is_an_error_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "apiVersion: k8s.tars.io/v1beta2\nkind: TFrameworkConfig\nmetadata:\n"
    source = stack(tmp_path, "s", text) / "a.yaml"
    code, printed = cli(capsys, "convert", "--out", str(tmp_path / "out"), str(source))
    assert code in (1, 2) and "a.yaml" in printed and "internal error" not in printed
    assert not (tmp_path / "out").exists()


NESTED_EXPORT = f"""\
apiVersion: v1
kind: List
items:
- apiVersion: k8s.tars.io/v1beta3
  kind: TAccount
  metadata: {{name: 21232f297a57a5a743894a0e4a801fc3, namespace: tars}}
  spec:
    username: admin
    authentication: {{bcryptPassword: x}}
    authorization: {{kind: Secret, data: {{token: {SECRET}a}}, stringData: {{a: {SECRET}b}}}}
"""


def thing(token: str, other: str = "") -> str:
    """A plain object holding a Secret-like mapping in a field (and another one in a list)."""
    text = (
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t, namespace: tars}\n"
        f"spec:\n  wrapped: {{kind: Secret, data: {{token: {token}}}}}\n"
    )
    return text + (f"  other: [{{kind: Secret, stringData: {{x: {other}}}}}]\n" if other else "")


def test_import_errors_mask_secret_data_nested_in_a_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(NESTED_EXPORT, encoding="utf-8")
    code, printed = cli(capsys, "import", str(export), "--out", str(tmp_path / "out"))
    assert code == 1 and "export.yaml:10: TA003" in printed and "[secret]" in printed
    assert SECRET not in printed
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("form", ["text", "json", "markdown"])
def test_diff_live_masks_secret_data_nested_in_another_objects_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    folder = stack(tmp_path, "s", thing(f"{SECRET}old"))
    export = tmp_path / "export.yaml"
    export.write_text(thing(f"{SECRET}new", SECRET), encoding="utf-8")
    args = ["diff", str(folder), "--live", str(export), "--namespace", "tars", "--format", form]
    code, printed = cli(capsys, *args)
    assert code == 0, printed
    assert "spec.wrapped.data.token" in printed and SECRET not in printed


def test_a_label_that_is_a_mapping_of_credentials_is_not_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz harness: TX006 quoted a label's value as it was."""
    text = (
        "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: t\n  labels:\n"
        f"    data: {{password: {SECRET}}}\n"
    )
    code, printed = cli(capsys, "validate", str(stack(tmp_path, "s", text)))
    assert code == 1 and "a.yaml:6: TX006" in printed and "metadata.labels.data" in printed
    assert SECRET not in printed


def test_a_reference_to_a_config_secret_keeps_its_field_name_in_a_path() -> None:
    assert format_path(("spec", "password", "configSecret")) == "spec.password.configSecret"
    assert quote("hunter2", ("spec", "dbPassword")) == MASK
    assert quote("tars-image-secret", ("spec", "release", "secret")) == "'tars-image-secret'"


def test_plain_objects_register_their_credentials_as_pulumi_secrets() -> None:
    """Found by the fuzz harness: a plain object whose kind is a misspelt Secret, or that
    holds a password or tokens, went into the state in plaintext."""
    from tars_components.components.plain import KubernetesObject
    from tars_components.components.testing import record

    objects = [
        {
            "apiVersion": "v1",
            "kind": "secret",
            "metadata": {"name": "a"},
            "stringData": {"p": SECRET},
        },
        {
            "apiVersion": "example.com/v1",
            "kind": "Thing",
            "metadata": {"name": "b"},
            "spec": {"dbPassword": SECRET, "auth": {"tokens": [{"content": SECRET}]}},
        },
        # the 10,000-case run found a Secret whose stray top-level ``token`` was registered
        # in plaintext: a field that names a secret is one at any depth, the top included
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}, "token": SECRET},
        {
            "apiVersion": "example.com/v1",
            "kind": "Thing",
            "metadata": {"name": "d"},
            "apiKey": SECRET,
        },
    ]

    def program() -> None:
        for index, body in enumerate(objects):
            KubernetesObject(f"o{index}", body)

    recording = record(program)
    assert len(recording.registrations) == 4
    assert recording.plaintext(SECRET) == []


def test_two_objects_whose_kinds_differ_in_casing_only_are_a_rule_error_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz harness: both rendered to one file name, and render raised."""
    text = (
        "apiVersion: v1\nkind: secret\nmetadata: {name: db}\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\n"
    )
    out = tmp_path / "out"
    code, printed = cli(capsys, "render", str(stack(tmp_path, "s", text)), "--out", str(out))
    assert code == 1 and "a.yaml:7: TX004 error Secret default/db metadata.name" in printed
    assert not out.exists()


@pytest.mark.parametrize("form", ["text", "json", "markdown"])
def test_diff_masks_each_of_two_objects_of_one_identity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """Found by the fuzz harness: of two objects diff takes for one, only the last was
    masked."""
    body = "kind: ConfigMap\nmetadata: {{name: cm}}\ndata: {{api_token: {0}}}\n"
    text = f"apiVersion: x\n{body.format(SECRET + 'a')}---\napiVersion: v1\n{body.format(SECRET)}"
    new = stack(tmp_path, "new", text)
    code, printed = cli(
        capsys, "diff", str(stack(tmp_path, "old", EMPTY)), str(new), "--format", form
    )
    assert code in (0, 1) and SECRET not in printed, printed
