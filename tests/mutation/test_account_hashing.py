"""TAccount hashes that cost a bcrypt per guess (issue #16, part 3): the salt never depends on
the password, the cost is at least the webhook's, and hashes are stable from run to run
(``render`` into the same ``--out``, or with a salt key anywhere; ``pulumi up`` from the
state or the key); hashes of the old scheme are re-hashed once."""

from __future__ import annotations

import hashlib
import hmac
import re
import runpy
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bcrypt
import pulumi
import pytest
import yaml
from pulumi.runtime import rpc
from support.assertions.upstream import shared_path
from support.builders.namespace_documents import account
from support.engines.cli import run
from support.engines.grpc_provider import DynamicProviderProcess, from_struct, registered_inputs

from tars_components.components.account_salt import RESOURCE_TYPE as SALT_TYPE
from tars_components.components.account_salt import TAccountSalt
from tars_components.components.testing import Recording, record, strip_secrets
from tars_components.jobs.account_salts import local_salt_key
from tars_components.loading.documents import parse_document
from tars_components.models import TAccountDocument
from tars_components.mutation import mutate_account
from tars_components.secrets.hashing import (
    BCRYPT_COST,
    AccountHashing,
    account_salt,
    encode_salt,
    is_old_scheme,
    keyed_salt,
    sha1_hex,
    verify,
)

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = shared_path("reference", "tarsk8s.md")
NS = "tars-dev"
ADMIN = hashlib.md5(b"admin").hexdigest()
KEY = b"0123456789abcdef-a-salt-key-of-32"


def salt(hashed: str) -> str:
    """Characters 8-29 of a bcrypt hash: its salt."""
    return hashed[7:29]


def checks(password: str, hashed: str) -> bool:
    """What TarsWeb does: bcrypt.checkpw of the lowercase hex SHA-1 of the password."""
    return bcrypt.checkpw(hashlib.sha1(password.encode()).hexdigest().encode(), hashed.encode())


def _hash(password: str, hashing: AccountHashing | None = None, username: str = "admin") -> str:
    doc = account(username, password=password)
    doc["metadata"]["namespace"] = NS
    parsed = parse_document(doc, NS)
    assert isinstance(parsed, TAccountDocument)
    mutated = mutate_account(parsed, hashing=hashing)
    hashed = mutated.spec.authentication.bcrypt_password
    assert isinstance(hashed, str)
    return hashed


def old_scheme_hash(password: str, namespace: str, name: str) -> str:
    """What tars-components wrote before: cost 6, salt from SHA-256 of the account and of
    the password's SHA-1 (so a guess cost one SHA-256)."""
    seed = hashlib.sha256(f"tars-components\0{namespace}\0{name}\0{sha1_hex(password)}".encode())
    return bcrypt.hashpw(
        sha1_hex(password).encode(), b"$2a$06$" + encode_salt(seed.digest()).encode()
    ).decode()


# --- the core ----------------------------------------------------------------------------------


def test_the_cost_is_at_least_the_webhook_s() -> None:
    # the webhook's cost as the reference records it (M-TA1; BcryptHashCost in
    # src/WebhookServer/webhook/mutating/tars/v1beta3/taccount.go of TarsK8S v1.4.1)
    row = next(line for line in REFERENCE.read_text().splitlines() if "| M-TA1 |" in line)
    match = re.search(r"bcrypt\(cost (\d+)", row)
    assert match is not None
    webhook = int(match.group(1))
    for hashing in (None, AccountHashing(key=KEY), AccountHashing(entropy=lambda n: b"\1" * n)):
        hashed = _hash("Secret-1", hashing)
        assert int(hashed[4:6]) == BCRYPT_COST >= webhook and checks("Secret-1", hashed)


@pytest.mark.parametrize(
    "hashing",
    [
        AccountHashing(key=KEY),
        AccountHashing(entropy=lambda n: bytes(range(n))),
        AccountHashing(previous={(NS, ADMIN): old_scheme_hash("x-other-pw", NS, ADMIN)}),
        None,
    ],
    ids=["key", "random", "old previous", "compare only"],
)
def test_the_salt_never_depends_on_the_password(hashing: AccountHashing | None) -> None:
    hashed = {pw: _hash(pw, hashing) for pw in ("Secret-1", "Another-pw-2", "third-PW-333")}
    assert len({salt(h) for h in hashed.values()}) == 1
    assert len(set(hashed.values())) == 3
    assert all(checks(pw, h) and verify(pw, h) for pw, h in hashed.items())


def test_a_key_salts_with_hmac_of_namespace_and_name() -> None:
    digest = hmac.new(KEY, f"{NS}/{ADMIN}".encode(), hashlib.sha256).digest()
    assert keyed_salt(KEY, NS, ADMIN) == encode_salt(digest[:16])
    hashed = _hash("Secret-1", AccountHashing(key=KEY))
    assert salt(hashed) == keyed_salt(KEY, NS, ADMIN)
    # another key, another account: another salt; the key wins over a previous hash
    assert salt(_hash("Secret-1", AccountHashing(key=b"another-key-of-16-bytes"))) != salt(hashed)
    assert salt(_hash("Secret-1", AccountHashing(key=KEY), "ops")) != salt(hashed)
    previous = {(NS, ADMIN): _hash("Secret-1", AccountHashing(entropy=lambda n: b"\7" * n))}
    assert _hash("Secret-1", AccountHashing(key=KEY, previous=previous)) == hashed


def test_a_previous_hash_is_kept_and_its_salt_reused() -> None:
    first = _hash("Secret-1", AccountHashing(entropy=lambda n: b"\5" * n))
    drawn: list[int] = []

    def entropy(n: int) -> bytes:
        drawn.append(n)
        return b"\6" * n

    again = AccountHashing(previous={(NS, ADMIN): first}, entropy=entropy)
    assert _hash("Secret-1", again) == first  # unchanged password: the very same hash
    changed = _hash("Changed-pw-2", again)
    assert salt(changed) == salt(first) and checks("Changed-pw-2", changed)
    assert drawn == []  # no random bytes needed
    # another account's previous hash is not this one's
    assert salt(_hash("Secret-1", again, "ops")) == encode_salt(b"\6" * 16)


def test_an_old_scheme_hash_is_rehashed_once() -> None:
    old = old_scheme_hash("Secret-1", NS, ADMIN)
    assert is_old_scheme(old) and checks("Secret-1", old)
    hashing = AccountHashing(previous={(NS, ADMIN): old}, entropy=lambda n: b"\3" * n)
    new = _hash("Secret-1", hashing)
    assert new != old and not is_old_scheme(new) and checks("Secret-1", new)
    assert salt(new) == encode_salt(b"\3" * 16) != salt(old)
    # the next run keeps it (no second re-hash)
    later = AccountHashing(previous={(NS, ADMIN): new}, entropy=lambda n: b"\4" * n)
    assert _hash("Secret-1", later) == new


def test_anything_but_a_bcrypt_hash_is_no_previous_hash() -> None:
    for previous in ("!unresolved-secret:tars:adminHash!" + "!" * 25, "$2a$10$short", ""):
        hashing = AccountHashing(previous={(NS, ADMIN): previous}, entropy=lambda n: b"\2" * n)
        assert salt(_hash("Secret-1", hashing)) == encode_salt(b"\2" * 16)


def test_without_hashing_the_salt_comes_from_the_account_alone() -> None:
    assert salt(_hash("Secret-1")) == account_salt(NS, ADMIN) != account_salt(NS, "other")


def test_the_key_and_previous_hashes_are_never_shown() -> None:
    previous = _hash("Secret-1")
    shown = repr(AccountHashing(key=KEY, previous={(NS, ADMIN): previous}))
    assert KEY.decode() not in shown and previous not in shown


# --- render -----------------------------------------------------------------------------------


def _stack(tmp_path: Path, password: str) -> Path:
    stack = tmp_path / "stack"
    stack.mkdir(exist_ok=True)
    doc = account(password=password)
    doc["metadata"]["namespace"] = NS
    (stack / "accounts.yaml").write_text(yaml.safe_dump(doc))
    return stack


def _render(stack: Path, out: Path, *flags: str) -> str:
    result = run("render", str(stack), "--out", str(out), "--mode", "crd", *flags)
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = (out / "1-manifest").iterdir()
    hashed = yaml.safe_load(path.read_text())["spec"]["authentication"]["bcryptPassword"]
    assert isinstance(hashed, str)
    return hashed


def test_two_renders_into_one_out_keep_the_salt_across_a_password_change(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    first = _render(_stack(tmp_path, "Secret-1"), out)  # no key, no previous render: random
    assert checks("Secret-1", first) and int(first[4:6]) == BCRYPT_COST
    second = _render(_stack(tmp_path, "Changed-pw-2"), out)
    assert salt(second) == salt(first) and checks("Changed-pw-2", second)
    assert not checks("Secret-1", second)
    assert _render(_stack(tmp_path, "Changed-pw-2"), out) == second  # a re-render: no change


def test_renders_on_one_machine_agree_without_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a key or a previous render, the salt comes from this machine's key (created
    0600 in $XDG_STATE_HOME on first use): renders into two directories agree, another
    machine (another state home) draws another salt."""
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    first = _render(_stack(tmp_path, "Secret-1"), tmp_path / "a")
    second = _render(_stack(tmp_path, "Changed-pw-2"), tmp_path / "b")
    assert salt(first) == salt(second) and checks("Changed-pw-2", second)
    assert _render(_stack(tmp_path, "Changed-pw-2"), tmp_path / "c") == second
    key = state / "tars-components" / "account-salt.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert key.read_text() not in "".join(p.read_text() for p in tmp_path.glob("*/1-manifest/*"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "other-machine"))
    assert salt(_render(_stack(tmp_path, "Changed-pw-2"), tmp_path / "d")) != salt(first)


def test_without_a_usable_machine_key_the_salt_is_random(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert local_salt_key(blocked / "tars-components") is None  # cannot be created: random
    folder = tmp_path / "state"
    key = local_salt_key(folder)
    assert key is not None and len(key) == 64 and local_salt_key(folder) == key


def test_a_salt_key_keeps_the_salt_across_output_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "salt.key"
    key_file.write_bytes(KEY + b"\n")
    flag = ("--account-salt-key-file", str(key_file))
    first = _render(_stack(tmp_path, "Secret-1"), tmp_path / "a", *flag)
    second = _render(_stack(tmp_path, "Changed-pw-2"), tmp_path / "b", *flag)
    assert salt(first) == salt(second) == keyed_salt(KEY, NS, ADMIN)
    assert checks("Secret-1", first) and checks("Changed-pw-2", second)
    monkeypatch.setenv("TARS_ACCOUNT_SALT_KEY", KEY.decode())
    assert _render(_stack(tmp_path, "Changed-pw-2"), tmp_path / "c") == second
    result = run("render", str(tmp_path / "stack"), "--out", str(tmp_path / "d"), "--mode", "crd")
    assert KEY.decode() not in result.stdout + result.stderr


def test_render_rehashes_an_old_scheme_hash_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _render(_stack(tmp_path, "Secret-1"), out)
    (path,) = (out / "1-manifest").iterdir()
    old = old_scheme_hash("Secret-1", NS, ADMIN)
    path.write_text(path.read_text().replace(first, old))  # as the old version rendered it
    new = _render(_stack(tmp_path, "Secret-1"), out)
    assert new != old and salt(new) != salt(old) and checks("Secret-1", new)
    assert int(new[4:6]) == BCRYPT_COST
    assert _render(_stack(tmp_path, "Secret-1"), out) == new


def test_an_empty_or_unreadable_salt_key_is_a_usage_error_that_writes_nothing(
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "salt.key"
    key_file.write_bytes(b"\n")
    stack = _stack(tmp_path, "Secret-1")
    out = tmp_path / "out"
    result = run("render", str(stack), "--out", str(out), "--account-salt-key-file", str(key_file))
    assert result.returncode == 2 and not out.exists()
    assert "the salt key is empty" in result.stderr and "Traceback" not in result.stderr
    missing = run(
        "render", str(stack), "--out", str(out), "--account-salt-key-file", str(tmp_path / "no")
    )
    assert missing.returncode == 2 and "cannot read the salt key" in missing.stderr
    assert not out.exists()


def test_a_short_salt_key_is_used_with_a_warning_that_does_not_show_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TARS_ACCOUNT_SALT_KEY", "tiny-k3y")
    hashed = _render(_stack(tmp_path, "Secret-1"), tmp_path / "out")
    assert salt(hashed) == keyed_salt(b"tiny-k3y", NS, ADMIN)
    result = run("render", str(tmp_path / "stack"), "--out", str(tmp_path / "out"))
    assert "TARS_ACCOUNT_SALT_KEY: a salt key of 8 bytes is easy to guess" in result.stderr
    assert "tiny-k3y" not in result.stdout + result.stderr


def test_render_stack_reads_a_pulumi_config_holding_secrets(tmp_path: Path) -> None:
    stack = _stack(tmp_path, "Secret-1")
    config = {
        "tars:stackDir": str(stack),
        "tars:namespace": NS,
        "tars:mode": "crd",
        "tars:accountSaltKey": {"secure": "v1:AAAA:encrypted"},
        "tars:adminPassword": {"secure": "v1:BBBB:encrypted"},
    }
    (tmp_path / "Pulumi.ns.yaml").write_text(yaml.safe_dump({"config": config}))
    args = ("--stack", "ns", "--project-dir", str(tmp_path), "--out", str(tmp_path / "out"))
    result = run("render", *args)
    assert result.returncode == 0, result.stderr
    config["tars:namespace"] = {"secure": "v1:CCCC:encrypted"}  # a setting cannot be secret
    (tmp_path / "Pulumi.ns.yaml").write_text(yaml.safe_dump({"config": config}))
    refused = run("render", *args)
    assert refused.returncode == 2 and "tars:namespace" in refused.stderr


# --- the Pulumi program ------------------------------------------------------------------------


def _program_hash(recording: Recording) -> str:
    [obj] = [r for r in recording.kubernetes() if r.type.endswith(":TAccount")]
    spec = obj.inputs["spec"]
    assert rpc.is_rpc_secret(spec) or rpc.is_rpc_secret(spec["authentication"]["bcryptPassword"])
    hashed = strip_secrets(spec)["authentication"]["bcryptPassword"]
    assert isinstance(hashed, str)
    return hashed


def _program(tmp_path: Path, password: str, **config: Any) -> Callable[..., Recording]:
    stack = _stack(tmp_path, password)
    full = {"tars:namespace": NS, "tars:stackDir": str(stack), "tars:mode": "crd", **config}

    def go(previous: Recording | None = None) -> Recording:
        return record(
            lambda: runpy.run_path(str(ROOT / "__main__.py")), config=full, previous=previous
        )

    return go


def test_the_program_keeps_the_salt_in_the_state(tmp_path: Path) -> None:
    first = _program(tmp_path, "Secret-1")()
    second = _program(tmp_path, "Changed-pw-2")(first)
    one, two = _program_hash(first), _program_hash(second)
    assert salt(one) == salt(two) and checks("Secret-1", one) and checks("Changed-pw-2", two)
    [kept] = second.of_type(SALT_TYPE)
    assert rpc.is_rpc_secret(kept.outputs["salt"]) and strip_secrets(kept.outputs["salt"]) == salt(
        one
    )
    assert second.plaintext(two) == [] and second.plaintext("Changed-pw-2") == []


def test_the_program_salts_with_tars_account_salt_key(tmp_path: Path) -> None:
    key = KEY.decode()
    first = _program(tmp_path, "Secret-1", **{"tars:accountSaltKey": key})()
    second = _program(tmp_path, "Changed-pw-2", **{"tars:accountSaltKey": key})()  # no state
    one, two = _program_hash(first), _program_hash(second)
    assert salt(one) == salt(two) == keyed_salt(KEY, NS, ADMIN)
    assert checks("Secret-1", one) and checks("Changed-pw-2", two)
    assert second.of_type(SALT_TYPE) == []
    assert first.plaintext(key) == [] and second.plaintext(key) == []


def test_the_salt_provider_over_grpc_draws_once_and_keeps_it() -> None:
    urn = f"urn:pulumi:dev::tars::{SALT_TYPE}::a-salt"
    _, news = registered_inputs(
        "a-salt", lambda: TAccountSalt("a-salt", NS, ADMIN, pulumi.ResourceOptions())
    )
    with DynamicProviderProcess(ROOT) as provider:
        provider.configure({})
        checked, failures = provider.check(urn, None, news)
        assert failures == []
        id_, outs = provider.create(urn, checked)
        kept = from_struct(outs)["salt"]
        assert id_ == f"{NS}/{ADMIN}" and re.fullmatch(r"[./A-Za-z0-9]{21}[.Oeu]", kept)
        same = provider.diff(urn, id_, outs, checked)
        assert same.changes == same.DIFF_NONE  # the engine keeps the state's salt
        _, other = provider.create(urn, checked)
        assert from_struct(other)["salt"] != kept  # each account its own random salt
        _, moved = registered_inputs(
            "a-salt", lambda: TAccountSalt("a-salt", NS, "other", pulumi.ResourceOptions())
        )
        diff = provider.diff(urn, id_, outs, moved)
        assert diff.changes == diff.DIFF_SOME and "accountName" in diff.replaces
