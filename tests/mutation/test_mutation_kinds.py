"""The mutating webhook for TConfig (M-TC*), TImage (M-TI*), TTree (M-TR*) and TAccount
(M-TA*), and the password hashing (salts: tests/mutation/test_account_hashing.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from support.builders.namespace_documents import account, config, image, tree
from support.engines.cli import run

from tars_components.loading.document_set import DocumentSet
from tars_components.loading.documents import parse_document
from tars_components.models import TAccountDocument, TConfigDocument, TImageDocument, TTreeDocument
from tars_components.mutation import (
    mutate,
    mutate_account,
    mutate_config,
    mutate_image,
    mutate_tree,
)
from tars_components.secrets.hashing import bcrypt_password, is_placeholder, placeholder, verify

NS = "tars-dev"


def _parse(doc: dict[str, Any]) -> Any:
    doc["metadata"]["namespace"] = NS
    return parse_document(doc, NS)


def test_tconfig_labels() -> None:
    doc = config(pod_seq="0", activated=False)
    doc["metadata"]["labels"] = {"team": "a"}
    mutated = mutate_config(_parse(doc))
    assert mutated.labels == {
        "team": "a",
        "tars.io/ServerApp": "Test",  # M-TC1
        "tars.io/ServerName": "DemoTest",  # M-TC2
        "tars.io/ConfigName": "server.conf",  # M-TC3
        "tars.io/PodSeq": "0",  # M-TC4
        "tars.io/Activated": "false",  # M-TC5
    }
    assert mutated.version is None and mutated.update_time is None  # no clock (M-TC6/7)
    versioned = mutate_config(_parse(config(version="20240302100000-a1b2")))
    assert versioned.labels["tars.io/Version"] == "20240302100000-a1b2"  # M-TC8
    assert mutate_config(versioned) == versioned  # idempotent


def test_timage_labels_and_duplicate_releases() -> None:
    base = image(imageType="base", supportedType=["cpp", "go"])
    base["metadata"]["labels"].update({"tars.io/Supported.cpp": "", "tars.io/Supported.php": "php"})
    mutated = mutate_image(_parse(base))
    assert mutated.labels == {
        "tars.io/ServerApp": "Test",
        "tars.io/ServerName": "DemoTest",
        "tars.io/ImageType": "base",  # M-TI1
        "tars.io/Supported.cpp": "",  # M-TI2: an existing label is kept as is
        "tars.io/Supported.go": "go",
    }
    server = image(releases=[{"id": "v1", "image": "a"}, {"id": "v1", "image": "b"}])
    server["metadata"]["labels"]["tars.io/Supported.cpp"] = "cpp"
    mutated = mutate_image(_parse(server))
    assert "tars.io/Supported.cpp" not in mutated.labels  # not a base image
    assert [(r.id, r.image) for r in mutated.releases or []] == [("v1", "a")]  # M-TI3


def test_ttree_blanks_dangling_business_refs() -> None:
    doc = tree(apps=[{"name": "Test", "businessRef": "Gone"}, {"name": "A", "businessRef": "Shop"}])
    mutated = mutate_tree(_parse(doc))
    assert [a.business_ref for a in mutated.apps] == ["", "Shop"]  # M-TR1


def test_taccount_password_becomes_a_bcrypt_hash() -> None:
    original = _parse(account(password="Secret-1"))
    first = mutate_account(original)
    auth = first.spec.authentication
    assert auth.password is None and auth.tokens == []  # M-TA1, M-TA2
    assert isinstance(auth.bcrypt_password, str) and auth.bcrypt_password.startswith("$2a$10$")
    assert verify("Secret-1", auth.bcrypt_password) and not verify("Secret-2", auth.bcrypt_password)
    # without an AccountHashing (validate, diff): the same hash every run, so a build compares
    assert mutate_account(original) == first
    other = _parse(account("ops", password="Secret-1"))
    assert mutate_account(other).spec.authentication.bcrypt_password != auth.bcrypt_password
    assert "Secret-1" not in repr(first.to_dict())


def test_taccount_secret_references_resolve_or_become_a_placeholder() -> None:
    doc = _parse(account(password={"configSecret": "adminPassword"}))
    unresolved = mutate_account(doc).spec.authentication.bcrypt_password
    assert unresolved == placeholder("adminPassword") and len(unresolved) == 60
    assert is_placeholder(unresolved) and not verify("anything", unresolved)
    resolved = mutate_account(doc, {"adminPassword": "Secret-1"})
    hashed = resolved.spec.authentication.bcrypt_password
    assert verify("Secret-1", hashed)
    assert hashed == bcrypt_password("Secret-1", NS, doc.name)
    stored = _parse(account())  # bcryptPassword: {configSecret: adminHash}
    assert (
        mutate_account(stored, {"adminHash": "$2a$06$x"}).spec.authentication.bcrypt_password
        == "$2a$06$x"
    )


class _Deferred:
    """A stand-in for pulumi.Output: apply() runs later, values stay inside."""

    def __init__(self, value: str) -> None:
        self.value = value

    def apply(self, fn: Any) -> _Deferred:
        return _Deferred(fn(self.value))


def test_taccount_deferred_password_is_hashed_inside_apply() -> None:
    doc = _parse(account(password="placeholder-1"))
    deferred = doc.model_copy(
        update={
            "spec": doc.spec.model_copy(
                update={
                    "authentication": doc.spec.authentication.model_copy(
                        update={"password": _Deferred("Secret-1")}
                    )
                }
            )
        }
    )
    hashed = mutate_account(deferred).spec.authentication.bcrypt_password
    assert isinstance(hashed, _Deferred) and verify("Secret-1", hashed.value)


def test_mutate_applies_the_kind_mutations_to_a_stack() -> None:
    docs = [_parse(config()), _parse(image()), _parse(tree()), _parse(account(password="Secret-1"))]
    mutated = mutate(DocumentSet.of(docs, NS)).documents
    assert [type(d) for d in mutated] == [
        TConfigDocument,
        TImageDocument,
        TTreeDocument,
        TAccountDocument,
    ]
    assert mutated[0].labels["tars.io/Activated"] == "true"
    assert mutated[3].spec.authentication.password is None


def test_rerender_of_a_password_is_byte_identical_and_never_plaintext(tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    doc = account(password="Secret-1")
    doc["metadata"]["namespace"] = NS
    (stack / "accounts.yaml").write_text(yaml.safe_dump(doc))
    texts = []
    for _ in range(2):  # the same --out: the previous render's salt is kept
        result = run("render", str(stack), "--out", str(tmp_path / "out"), "--mode", "crd")
        assert result.returncode == 0, result.stdout
        assert "Secret-1" not in result.stdout + result.stderr
        (path,) = (tmp_path / "out" / "1-manifest").iterdir()
        texts.append(path.read_text())
    assert texts[0] == texts[1] and "Secret-1" not in texts[0]
    hashed = yaml.safe_load(texts[0])["spec"]["authentication"]["bcryptPassword"]
    assert verify("Secret-1", hashed)
