"""``tars-components import``: a live export becomes a clean stack directory whose crd render
is the export minus the server-written fields, with credentials moved to Pulumi secrets."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from crd_schema import crd_errors
from export import BCRYPT_HASHES, NAMESPACE, PASSWORDS, export_text, namespace_export
from test_cli import run

from tars_components.importer import import_texts, secret_key
from tars_components.loader import load_texts
from tars_components.options import Mode, Options
from tars_components.pipeline import build


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
        "bcryptPassword": {"configSecret": "taccount-admin-bcryptPassword"},
        "activated": True,
    }
    script = result.files["pulumi-secrets.sh"]
    assert (
        "kubectl get taccounts.k8s.tars.io -n tars 21232f297a57a5a743894a0e4a801fc3 -o "
        "jsonpath='{.spec.authentication.bcryptPassword}' | pulumi config set --secret "
        "tars:taccount-admin-bcryptPassword"
    ) in script
    assert ops["spec"]["authentication"]["bcryptPassword"] == {
        "configSecret": "taccount-ops-bcryptPassword"
    }


def test_secret_keys_fall_back_to_the_object_name() -> None:
    assert secret_key("admin", "x") == "taccount-admin-bcryptPassword"
    assert secret_key("管理员", "abc123") == "taccount-abc123-bcryptPassword"


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
