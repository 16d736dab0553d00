"""``tars:index:TAccount``: a TarsWeb account.

**TAccount and secrets.** The password (or hash) is a Pulumi secret; it is hashed inside
``apply`` with a salt that never depends on the password (:mod:`tars_components.secrets`):
derived from a salt key, or drawn once and kept in the state, so the same password gives
the same hash on every run (no perpetual diff) and the hash never appears in plaintext in
the state, outputs or messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import pulumi

from ..models import Document
from ..models import TAccount as TAccountDocument
from ..models.taccount import SecretRef
from ..secrets import AccountHashing, check_key, is_placeholder, keyed_salt
from .account_salt import TAccountSalt
from .args import TAccountArgs, split_args
from .document import DocumentComponent, kind_object
from .failure import refusing
from .scope import FrameworkScope, HasScope
from .shapes import AuthorizationArgsDict

SALT_KEY_NAME = "the TAccount salt key (tars:accountSaltKey)"
"""How the salt key is named in an error or warning (never its text)."""


def _keyed_salt(key: str, namespace: str, name: str) -> str:
    """The salt of an account under the salt key (an error when the key is empty, a warning
    when it is short)."""
    raw = key.encode("utf-8")
    warning = check_key(raw, SALT_KEY_NAME)
    if warning:
        pulumi.log.warn(warning)
    return keyed_salt(raw, namespace, name)


TOKENS_PATH = "spec.authentication.tokens"
"""TarsWeb's login tokens: written on login, reset by the webhook on create (M-TA2)."""


class TAccount(DocumentComponent):
    """A TAccount (TarsWeb user), validated by the rules TA* and, in crd mode, applied as a
    custom resource whose ``bcryptPassword`` is a Pulumi secret: a password is hashed inside
    ``apply`` (bcrypt of its SHA-1, as the webhook does) with a salt that never depends on the
    password: derived from ``salt_key`` when given, else drawn once and kept in the state of
    a ``<name>-salt`` :class:`~tars_components.components.account_salt.TAccountSalt` child
    (same password, same hash: no perpetual diff; a new password keeps the salt). A literal
    hash is wrapped as a secret too. TarsWeb's login tokens are left to TarsWeb
    (``ignore_changes`` on ``spec.authentication.tokens``). Outputs: ``object_name``,
    ``namespace``, ``objects``, ``manifests``, ``mutated``."""

    salt_resource: TAccountSalt | None
    """The ``TAccountSalt`` that keeps the salt (crd mode, a password to hash, no
    ``salt_key``), else None."""

    @overload
    def __init__(
        self, resource_name: str, args: TAccountArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TAccountDocument | None = None,
        username: str | None = None,
        password: pulumi.Input[str] | None = None,
        bcrypt_password: pulumi.Input[str] | None = None,
        activated: bool = True,
        authorization: Sequence[AuthorizationArgsDict] = ...,
        extra: Sequence[str] | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
        secrets: Mapping[str, pulumi.Input[str]] = ...,
        salt_key: pulumi.Input[str] | None = None,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TAccount(name, TAccountArgs(...), opts)`` or ``TAccount(name, opts,
        framework=..., username=..., password=config.require_secret(...), ...)``."""
        account_args, opts = split_args(TAccountArgs, "TAccount", args, kwargs)
        with refusing(f"TAccount {resource_name!r}"):
            scope = account_args.framework.scope
            self.document: TAccountDocument = account_args.to_document(scope.namespace)
            """The TAccount document as given (its credential a reference, an Output or text)."""
            self.salt_resource = None
            self._resource_name = resource_name
            self._salt_key = account_args.salt_key
            secrets = {
                key: pulumi.Output.secret(value) for key, value in account_args.secrets.items()
            }
            self._declare_document(
                "tars:index:TAccount",
                resource_name,
                self.document,
                account_args.framework,
                opts,
                secrets=secrets,
                ignore_changes=[TOKENS_PATH],
            )

    def _kind_object(
        self, document: Document, scope: FrameworkScope, secrets: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        password = self.document.spec.authentication.password
        if isinstance(password, SecretRef) and password.config_secret not in (secrets or {}):
            password = None  # the placeholder: nothing to salt
        hashing = None if password is None else AccountHashing(salt=self._salt())
        return kind_object(document, scope, secrets, hashing)

    def _salt(self) -> pulumi.Output[str]:
        """The account's salt: from the salt key, else from a ``TAccountSalt`` child."""
        namespace, name = self.document.namespace, self.document.name
        if self._salt_key is not None:
            return pulumi.Output.secret(self._salt_key).apply(
                lambda key: _keyed_salt(key, namespace, name)
            )
        self.salt_resource = TAccountSalt(
            f"{self._resource_name}-salt", namespace, name, pulumi.ResourceOptions(parent=self)
        )
        return self.salt_resource.salt

    def _raw(self, document: Document) -> dict[str, Any]:
        # A literal credential (warned TA005) reaches the validation's state only as a secret.
        raw = document.to_dict()
        auth = raw["spec"]["authentication"]
        for key in ("password", "bcryptPassword"):
            if isinstance(auth.get(key), str):
                auth[key] = pulumi.Output.secret(auth[key])
        return raw

    def _applied(self, obj: dict[str, Any], guard: bool) -> dict[str, Any]:
        spec = obj["spec"]
        auth = dict(spec["authentication"])
        hashed = auth.get("bcryptPassword")
        literal = isinstance(hashed, str) and not is_placeholder(hashed)
        if literal or isinstance(hashed, pulumi.Output):
            auth["bcryptPassword"] = pulumi.Output.secret(hashed)
        return {**obj, "spec": {**spec, "authentication": auth}}


__all__ = ["SALT_KEY_NAME", "TOKENS_PATH", "TAccount"]
