"""TAccount rules (docs/rules/index.md). Messages never quote a credential.

TA001: the name is the MD5 hex of the username. TA002: a literal password matches
``^[\\x21-\\x7e]{6,32}$`` (the webhook's check). TA003 (the CRD schema, including the
password/bcryptPassword oneOf) is reported by the loader. TA004 refuses two TAccounts with
one name. TA005 warns about a literal password in a stack file (use ``{configSecret: KEY}``).
TA006 (crd mode) tells that an offline render writes a placeholder for a credential kept in a
Pulumi config secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, check, rule
from ..loading.document_set import DocumentSet
from ..models import SecretRef, TAccountDocument
from ..models.taccount import P_PASSWORD
from ..secrets.redaction import quote
from .common import same_names

_PASSWORD = re.compile(P_PASSWORD)


def account_name(username: str) -> str:
    """The name TarsK8S requires for a username: its lowercase hex MD5."""
    import hashlib  # here: loading OpenSSL costs every CLI start-up (see ..secrets)

    return hashlib.md5(username.encode("utf-8")).hexdigest()


TA004 = rule(
    "TA004",
    ERROR,
    "TAccount",
    "one TAccount per name in a namespace (a second would replace the first)",
    origin="tars-components",
)


@check()
def check_accounts(stack: DocumentSet) -> Iterator[Violation]:
    """Every TAccount rule of one stack (TA001, TA002, TA004, TA005)."""
    for account in stack.accounts:
        yield from _name(account)
        yield from _password(account)
    yield from same_names(stack.accounts, TA004)


TA001 = rule(
    "TA001",
    ERROR,
    "TAccount",
    "metadata.name is the lowercase hex MD5 of spec.username",
    origin="controller",
)


def _name(account: TAccountDocument) -> Iterator[Violation]:
    """TA001."""
    expected = account_name(account.spec.username)
    if account.name != expected:
        yield TA001.at(
            account,
            "metadata.name",
            f"must be the MD5 of spec.username "
            f"{quote(account.spec.username, ('spec', 'username'))}: {expected}",
        )


TA002 = rule(
    "TA002",
    ERROR,
    "TAccount",
    "a password has 6 to 32 printable ASCII characters",
    origin="controller",
)
TA005 = rule(
    "TA005",
    WARNING,
    "TAccount",
    "no plaintext password in a stack file (use {configSecret: KEY})",
    origin="tars-components",
)


def _password(account: TAccountDocument) -> Iterator[Violation]:
    """TA002 for a literal password, TA005 for any literal credential."""
    auth = account.spec.authentication
    password = auth.password
    path = "spec.authentication.password"
    if isinstance(password, str) and not _PASSWORD.fullmatch(password):
        yield TA002.at(
            account,
            path,
            "password should match pattern ^[\\x21-\\x7e]{6,32}$ (6 to 32 printable ASCII "
            "characters, no space); the value is not shown",
        )
    for field, value, what in (
        ("password", password, "a plaintext password"),
        ("bcryptPassword", auth.bcrypt_password, "a password hash"),
    ):
        if isinstance(value, str):
            yield TA005.at(
                account,
                f"spec.authentication.{field}",
                f"{what} in a stack file: keep it in a Pulumi config secret (pulumi config "
                f"set --secret tars:KEY) and write {field}: {{configSecret: KEY}}",
            )


TA006 = rule(
    "TA006",
    WARNING,
    "TAccount",
    "crd mode: a credential kept in a Pulumi config secret is rendered offline as a placeholder "
    "hash",
    origin="tars-components",
)


def unresolved_credentials(stack: DocumentSet) -> Iterator[Violation]:
    """TA006 (crd mode): credentials kept in Pulumi config secrets, which an offline render
    cannot read; it writes a placeholder hash that no password verifies against."""
    for account in stack.accounts:
        auth = account.spec.authentication
        for field, value in (("password", auth.password), ("bcryptPassword", auth.bcrypt_password)):
            if isinstance(value, SecretRef):
                yield TA006.at(
                    account,
                    f"spec.authentication.{field}",
                    f"comes from the Pulumi config secret tars:{value.config_secret}: an "
                    "offline render writes a placeholder bcryptPassword (pulumi up resolves "
                    "the secret)",
                )
