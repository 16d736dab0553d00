"""The webhook for TAccounts: M-TA* (docs/concepts/webhooks.md#ttree). A password is hashed with the
salt that ``hashing`` gives the account, never one derived from the password (M-TA1, see
:mod:`tars_components.secrets.hashing`); a credential that references a Pulumi config secret is
resolved from ``secrets`` when given, otherwise replaced by the placeholder hash."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import (
    SecretRef,
    TAccountDocument,
)
from ..secrets.hashing import AccountHashing, hash_password, placeholder
from .common import when_known


def mutate_account(
    account: TAccountDocument,
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> TAccountDocument:
    """M-TA1, M-TA2 (create): the password becomes its bcrypt hash, tokens are reset.

    ``secrets`` maps a config key (``KEY`` of ``{configSecret: KEY}``) to its value; a
    reference that it does not resolve becomes the placeholder hash. ``hashing`` gives the
    account's salt (:class:`~tars_components.secrets.hashing.AccountHashing`; without one, a salt
    derived from the account, for callers that write nothing). A deferred password or salt
    (``pulumi.Output``) is hashed inside ``apply``, so it stays secret.
    """
    auth = account.spec.authentication
    hashed: Any = auth.bcrypt_password
    password: Any = auth.password
    if isinstance(password, SecretRef):
        password = (secrets or {}).get(password.config_secret, password)
    if isinstance(hashed, SecretRef):
        hashed = (secrets or {}).get(hashed.config_secret, placeholder(hashed.config_secret))
    if isinstance(password, SecretRef):
        hashed = placeholder(password.config_secret)
    elif password is not None:
        salt = (hashing or AccountHashing()).salt_for(account.namespace, account.name)
        hashed = when_known(hash_password, password, salt)
    new_auth = auth.model_copy(update={"password": None, "bcrypt_password": hashed, "tokens": []})
    spec = account.spec.model_copy(update={"authentication": new_auth})
    mutated = account.model_copy(update={"spec": spec})
    mutated.with_source(account.source)
    return mutated
