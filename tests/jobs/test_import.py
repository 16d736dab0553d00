"""``tars-components import``: a live export becomes a clean stack directory whose crd render
is the export minus the server-written fields, with credentials moved to Pulumi secrets."""

from __future__ import annotations

import copy
import errno
import json
import os
from pathlib import Path

import pytest
import yaml
from support.assertions.crd_schema import crd_errors
from support.builders.export import (
    BCRYPT_HASHES,
    NAMESPACE,
    PASSWORDS,
    account,
    export_text,
    namespace_export,
)
from support.engines.cli import run

from tars_components.cli import main
from tars_components.jobs import tree_writer
from tars_components.jobs.importer import import_texts, secret_key
from tars_components.jobs.tree_writer import staging_dirs
from tars_components.loading.load import load_texts
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options


def _manifests(root: Path) -> dict[tuple[str, str], dict]:
    found = {}
    for path in sorted((root / "1-manifest").glob("*.yaml")):
        obj = yaml.safe_load(path.read_text())
        found[(obj["kind"], obj["metadata"]["name"])] = obj
    return found


def test_files_per_kind_and_per_app_sorted() -> None:
    result = import_texts({"export.yaml": export_text()}, NAMESPACE)
    assert sorted(result.files) == [
        "accounts.yaml",
        "app-Shop0.yaml",
        "app-tars.yaml",
        "framework.yaml",
        "images.yaml",
        "kubernetes.yaml",
        "pulumi-secrets.sh",
        "templates.yaml",
        "tree.yaml",
    ]
    shop = list(yaml.safe_load_all(result.files["app-Shop0.yaml"]))
    kinds = [d["kind"] for d in shop]
    assert kinds == sorted(kinds, key=["TServer", "TImage", "TConfig"].index)
    names = [d["metadata"]["name"] for d in shop if d["kind"] == "TServer"]
    assert names == sorted(names)
    images = [d["metadata"]["name"] for d in yaml.safe_load_all(result.files["images.yaml"])]
    assert images == ["cppbase", "javabase", "node", "nodejsbase", "php74base"]
    assert result.files == import_texts({"export.yaml": export_text()}, NAMESPACE).files


def test_no_server_field_and_no_credential_is_written() -> None:
    result = import_texts({"export.yaml": export_text()}, NAMESPACE, pulumi_plan=True)
    text = "".join(result.files.values())
    for word in (
        "managedFields",
        "resourceVersion",
        "creationTimestamp",
        "last-applied",
        "4f6b1c2a",
    ):
        assert word not in text
    assert "status:" not in text
    for secret in [*PASSWORDS.values(), *BCRYPT_HASHES.values(), "do-not-leak"]:
        assert secret not in text
    (admin, ops) = yaml.safe_load_all(result.files["accounts.yaml"])
    assert admin["spec"]["authentication"] == {
        "bcryptPassword": {"configSecret": "taccount.tars.admin.bcryptPassword"},
        "activated": True,
    }
    script = result.files["pulumi-secrets.sh"]
    assert (
        "kubectl get taccounts.k8s.tars.io -n tars 21232f297a57a5a743894a0e4a801fc3 -o "
        "jsonpath='{.spec.authentication.bcryptPassword}' | pulumi config set --secret "
        "tars:taccount.tars.admin.bcryptPassword"
    ) in script
    assert ops["spec"]["authentication"]["bcryptPassword"] == {
        "configSecret": "taccount.tars.ops.bcryptPassword"
    }


def test_secret_keys_fall_back_to_the_object_name() -> None:
    assert secret_key("tars", "admin", "x") == "taccount.tars.admin.bcryptPassword"
    assert secret_key("tars", "管理员", "abc123") == "taccount.tars.abc123.bcryptPassword"
    assert secret_key("a-b", "c", "x") != secret_key("a", "b-c", "x")


def test_the_imported_stack_renders_the_export_minus_server_fields() -> None:
    imported = import_texts({"export.yaml": export_text()}, NAMESPACE)
    stack_files = {k: v for k, v in imported.files.items() if k.endswith(".yaml")}
    options = Options(namespace=NAMESPACE, mode=Mode.CRD)
    again = build(load_texts(stack_files, NAMESPACE), options)
    direct = build(load_texts({"export.yaml": export_text()}, NAMESPACE), options)
    assert again.ok and direct.ok
    key = lambda o: (o["kind"], o["metadata"]["name"])  # noqa: E731
    ours = {key(o): o for o in again.objects}
    theirs = {key(o): o for o in direct.objects}
    assert set(ours) == set(theirs)
    for k, obj in theirs.items():
        if k[0] == "TAccount":
            # the only difference: the hash comes from a Pulumi secret (placeholder offline)
            assert ours[k]["spec"]["authentication"]["bcryptPassword"].startswith("!unresolved")
            ours[k]["spec"]["authentication"]["bcryptPassword"] = obj["spec"]["authentication"][
                "bcryptPassword"
            ]
        assert ours[k] == obj, k
        if obj["apiVersion"].startswith("k8s.tars.io/"):
            assert crd_errors(ours[k]) == []


def test_pulumi_import_plan() -> None:
    result = import_texts({"export.yaml": export_text()}, NAMESPACE, pulumi_plan=True)
    plan = json.loads(result.files["pulumi-import.json"])["resources"]
    by_id = {(r["type"], r["id"]): r["name"] for r in plan if not r.get("component")}
    assert by_id[("kubernetes:k8s.tars.io/v1beta3:TServer", "tars/tars-tarsweb")] == (
        "tars/tars-tarsweb-tserver"
    )
    assert by_id[("kubernetes:core/v1:ServiceAccount", "tars/tars-tarsweb")] == (
        "tars/tars-tarsweb-serviceaccount"
    )
    assert by_id[("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "tars:tars-tarsweb")]
    items = [o for o in namespace_export()["items"] if o["kind"] != "TEndpoint"]
    assert len([r for r in plan if not r.get("component")]) == len(items) == len(set(by_id))


def test_cli_import_then_validate_and_render(tmp_path: Path) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(export_text())
    out = tmp_path / "stack"
    imported = run("import", str(export), "--out", str(out), "--pulumi")
    assert imported.returncode == 0, imported.stderr
    assert "TX002 warning TEndpoint tars/tars-tarsconfig" in imported.stdout
    assert "imported 59 TarsK8S objects" in imported.stdout
    assert (out / "pulumi-import.json").is_file() and (
        out / "pulumi-secrets.sh"
    ).stat().st_mode & 0o100
    checked = run("validate", str(out), "--namespace", NAMESPACE)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rendered = run("render", str(out), "--out", str(tmp_path / "r"), "--mode", "crd")
    assert rendered.returncode == 0, rendered.stdout
    objects = _manifests(tmp_path / "r")
    assert len(objects) == len(namespace_export()["items"]) - 1  # without the TEndpoint
    for obj in objects.values():
        if obj["apiVersion"].startswith("k8s.tars.io/"):
            assert crd_errors(obj) == []
    text = "".join(p.read_text() for p in (tmp_path / "r").rglob("*.yaml"))
    for secret in [*PASSWORDS.values(), *BCRYPT_HASHES.values(), "do-not-leak"]:
        assert secret not in text + imported.stdout + rendered.stdout
    again = run("import", str(export), "--out", str(out))
    assert again.returncode == 2 and "not an empty directory" in again.stderr


def test_cli_validate_and_render_an_export_directly(tmp_path: Path) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(export_text())
    checked = run("validate", str(export))
    assert checked.returncode == 0, checked.stdout
    assert "note: ignored the fields a live cluster writes" in checked.stderr
    rendered = run("render", str(export), "--out", str(tmp_path / "r"), "--mode", "crd")
    assert rendered.returncode == 0 and "note: ignored" in rendered.stdout
    assert len(_manifests(tmp_path / "r")) == len(namespace_export()["items"]) - 1


def test_cli_import_of_unreadable_input_writes_nothing(tmp_path: Path) -> None:
    export = tmp_path / "export.yaml"
    export.write_text("apiVersion: k8s.tars.io/v1beta3\nkind: TRelease\n")
    result = run("import", str(export), "--out", str(tmp_path / "stack"))
    assert result.returncode == 2 and "unknown kind 'TRelease'" in result.stderr
    assert not (tmp_path / "stack").exists()


def test_a_secret_is_imported_as_exported_with_a_note() -> None:
    export = namespace_export()
    export["items"].append(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "db", "namespace": NAMESPACE},
            "type": "Opaque",
            "data": {"password": "czNjcjN0"},
        }
    )
    text = yaml.safe_dump(export, sort_keys=False, allow_unicode=True)
    result = import_texts({"export.yaml": text}, NAMESPACE)
    (secret,) = [
        d for d in yaml.safe_load_all(result.files["kubernetes.yaml"]) if d["kind"] == "Secret"
    ]
    assert secret["data"] == {"password": "czNjcjN0"}  # plain objects pass through unchanged
    assert any("Secret(s) tars/db" in note for note in result.notes)


def test_v1beta2_documents_of_the_new_kinds_load_and_convert() -> None:
    export = namespace_export()
    for item in export["items"]:
        if item["kind"] in ("TConfig", "TImage", "TTree", "TAccount"):
            item["apiVersion"] = "k8s.tars.io/v1beta2"
    # v1.4.1 cannot store a v1beta2 TFrameworkConfig (TF005): the cluster keeps its own
    export["items"] = [o for o in export["items"] if o["kind"] != "TFrameworkConfig"]
    text = yaml.safe_dump(export, sort_keys=False, allow_unicode=True)
    stack = load_texts({"export.yaml": text}, NAMESPACE)
    for version in ("k8s.tars.io/v1beta3", "k8s.tars.io/v1beta2"):
        options = Options(
            namespace=NAMESPACE,
            mode=Mode.CRD,
            crd_api_version=version,
            existing_framework_config=True,
        )
        result = build(stack, options)
        assert result.ok
        kinds = [o for o in result.objects if o["kind"] in ("TConfig", "TImage", "TTree")]
        assert kinds and {o["apiVersion"] for o in kinds} == {version}
        assert all(crd_errors(o) == [] for o in kinds)


def _list(*items: dict) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(items)})


def test_accounts_of_two_namespaces_import_under_two_keys() -> None:
    first = account("admin", "admin")
    second = copy.deepcopy(first)
    second["metadata"]["namespace"] = "tars-b"
    second["spec"]["authentication"]["bcryptPassword"] = BCRYPT_HASHES["ops"]
    result = import_texts({"export.yaml": _list(first, second)})
    assert result.ok, [v.format() for v in result.violations]
    keys = [
        d["spec"]["authentication"]["bcryptPassword"]["configSecret"]
        for d in yaml.safe_load_all(result.files["accounts.yaml"])
    ]
    assert keys == ["taccount.tars.admin.bcryptPassword", "taccount.tars-b.admin.bcryptPassword"]
    script = result.files["pulumi-secrets.sh"].splitlines()
    for namespace, key in (("tars", keys[0]), ("tars-b", keys[1])):
        (line,) = [x for x in script if x.endswith(f"tars:{key}")]
        assert f" -n {namespace} 21232f297a57a5a743894a0e4a801fc3 " in line


def test_a_password_beside_a_hash_is_dropped() -> None:
    both = account("admin", "admin")
    both["spec"]["authentication"]["password"] = "Plain-Text-1"
    result = import_texts({"export.yaml": _list(both)})
    assert result.ok, [v.format() for v in result.violations]
    (written,) = yaml.safe_load_all(result.files["accounts.yaml"])
    assert written["spec"]["authentication"] == {
        "bcryptPassword": {"configSecret": "taccount.tars.admin.bcryptPassword"},
        "activated": True,
    }
    everything = "".join(result.files.values()) + "".join(result.notes)
    assert "Plain-Text-1" not in everything and BCRYPT_HASHES["admin"] not in everything


def test_a_plaintext_password_moves_to_a_config_secret(tmp_path: Path) -> None:
    plain = account("admin", "admin")
    plain["spec"]["authentication"] = {"password": "Plain-Text-1", "activated": True}
    export = tmp_path / "export.yaml"
    export.write_text(_list(plain))
    result = run("import", str(export), "--out", str(tmp_path / "stack"))
    assert result.returncode == 0, result.stdout + result.stderr
    written = {p.name: p.read_text() for p in (tmp_path / "stack").iterdir()}
    (account_doc,) = yaml.safe_load_all(written["accounts.yaml"])
    assert account_doc["spec"]["authentication"]["password"] == {
        "configSecret": "taccount.tars.admin.password"
    }
    assert "pulumi config set --secret tars:taccount.tars.admin.password" in (
        written["pulumi-secrets.sh"].splitlines()
    )
    assert "Plain-Text-1" not in "".join(written.values()) + result.stdout + result.stderr


def test_counts_are_what_was_written(tmp_path: Path) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(export_text())
    out = tmp_path / "stack"
    result = run("import", str(export), "--out", str(out))
    assert result.returncode == 0, result.stderr
    docs = [d for p in out.glob("*.yaml") for d in yaml.safe_load_all(p.read_text())]
    tars = [d for d in docs if d["apiVersion"].startswith("k8s.tars.io/")]
    summary = result.stdout.splitlines()[-1]
    assert summary.startswith(f"imported {len(tars)} TarsK8S objects (")
    assert f" and {len(docs) - len(tars)} plain objects from " in summary
    assert "validate" in summary and "--mode crd" in summary


def test_a_malformed_item_is_a_violation_at_its_line_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    export = namespace_export()
    (server,) = [
        i
        for i in export["items"]
        if i["kind"] == "TServer" and i["metadata"]["name"] == "shop0-order1server"
    ]
    del server["spec"]["app"]
    path = tmp_path / "export.yaml"
    path.write_text(yaml.safe_dump(export, sort_keys=False))
    lines = path.read_text().splitlines()
    out = tmp_path / "stack"
    result = run("import", str(path), "--out", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    (error,) = [x for x in result.stdout.splitlines() if " error " in x]
    assert error.startswith(f"{path}:")
    assert "TServer tars/shop0-order1server spec.app" in error
    item = lines[: int(error.split(":")[1])]
    start = max(n for n, text in enumerate(item) if text.startswith("- "))
    item = lines[start : start + 30]  # the export item the error points into
    assert "kind: TServer" in [x.strip() for x in item]
    assert "name: shop0-order1server" in [x.strip() for x in item]
    assert "import refused: 1 error(s), nothing written" in result.stdout
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_what_validate_refuses_is_not_written(tmp_path: Path) -> None:
    export = namespace_export()
    export["items"] = [i for i in export["items"] if i["metadata"]["name"] != "tars.cpp"]
    path = tmp_path / "export.yaml"
    path.write_text(yaml.safe_dump(export, sort_keys=False))
    out = tmp_path / "stack"
    out.mkdir()  # an empty directory is fine, and stays as it was
    result = run("import", str(path), "--out", str(out))
    assert result.returncode == 1 and " TS010 error " in result.stdout
    assert list(out.iterdir()) == []


def test_an_empty_out_directory_is_replaced_whole(tmp_path: Path) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(export_text())
    out = tmp_path / "stack"
    out.mkdir()
    assert run("import", str(export), "--out", str(out)).returncode == 0
    assert "accounts.yaml" in {p.name for p in out.iterdir()}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.yaml", "stack"]


def test_a_bad_namespace_is_a_usage_error(tmp_path: Path) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(export_text())
    result = run("import", str(export), "--out", str(tmp_path / "s"), "--namespace", "Bad_NS")
    assert result.returncode == 2 and "--namespace 'Bad_NS'" in result.stderr
    assert not (tmp_path / "s").exists()


def test_no_space_left_leaves_no_out_and_a_rerun_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "export.yaml"
    export.write_text(export_text())
    out = tmp_path / "stack"
    create = tree_writer._create_file
    calls = []

    def full_disk(path: Path, text: str, mode: int) -> None:
        calls.append(path)
        if len(calls) == 3:
            with open(path, "wb") as stream:  # a partial file, as a full disk leaves it
                stream.write(text.encode()[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        create(path, text, mode)

    monkeypatch.setattr(tree_writer, "_create_file", full_disk)
    assert main(["import", str(export), "--out", str(out)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not out.exists() and staging_dirs(out) == []
    monkeypatch.setattr(tree_writer, "_create_file", create)
    assert main(["import", str(export), "--out", str(out)]) == 0
    assert (out / "accounts.yaml").is_file()


def test_a_tars_kind_passed_through_needs_a_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "export.yaml"
    for metadata in ("x", [1], {}):
        plugin = {"apiVersion": "k8s.tars.io/v1beta3", "kind": "TPlugin", "metadata": metadata}
        export.write_text(_list(account("admin", "admin"), plugin))
        result = main(["import", str(export), "--out", str(tmp_path / "stack")])
        assert result == 2
        assert f"{export}:" in capsys.readouterr().err  # FILE:LINE: TPlugin without …
        assert not (tmp_path / "stack").exists()
