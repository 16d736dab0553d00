"""``TAccountSalt``: the random bcrypt salt of one TAccount, kept in the Pulumi state.

A :class:`~tars_components.components.TAccount` whose password tars-components hashes needs a
salt that never depends on the password and stays the same from run to run (a new salt would
give a new hash on every ``pulumi up``). Without a salt key (``tars:accountSaltKey``), that salt
is drawn once, with ``os.urandom``, by this dynamic resource's ``create``, and the engine then
hands the same value back on every run from the state; a new password is hashed with it too.
The salt is registered as a secret output, like the hash it goes into.

Type token ``pulumi-python:dynamic/tars:TAccountSalt`` (``tars:index:TAccountSalt`` when the
component provider plugin serves it: :mod:`tars_components.provider.hosting`); inputs
``namespace`` and ``accountName`` (the account it salts: another account is a replacement,
with a new salt); output ``salt`` (22 characters of bcrypt's base64). The provider class lives
here so that ``pulumi.dynamic`` pickles it by reference, as
``tars_components.components.account_salt.TAccountSaltProvider``.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import pulumi
import pulumi.dynamic
from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider

from ..provider.hosting import register
from ..secrets.hashing import SALT_BYTES, encode_salt

RESOURCE_TYPE = "pulumi-python:dynamic/tars:TAccountSalt"
"""The type token of :class:`TAccountSalt`."""
NAMESPACE = "namespace"
ACCOUNT_NAME = "accountName"
SALT = "salt"
IDENTITY = (NAMESPACE, ACCOUNT_NAME)


class TAccountSaltProvider(pulumi.dynamic.ResourceProvider):
    """Create (draw a random salt), diff (a different account is a replacement) and nothing
    else: the salt never changes while the resource lives. Holds nothing itself."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> pulumi.dynamic.CreateResult:
        """A new random salt; the id is ``<namespace>/<accountName>``."""
        salt = encode_salt(os.urandom(SALT_BYTES))
        identity = f"{props.get(NAMESPACE)}/{props.get(ACCOUNT_NAME)}"
        return pulumi.dynamic.CreateResult(identity, {**props, SALT: salt})

    def diff(
        self, _id: str, olds: dict[str, Any], news: dict[str, Any]
    ) -> pulumi.dynamic.DiffResult:
        """A replacement when the account differs (or the state holds no salt), else no
        change, so the engine keeps the salt of the state."""
        replaces = [key for key in IDENTITY if olds.get(key) != news.get(key)]
        if not isinstance(olds.get(SALT), str):
            replaces.append(SALT)
        return pulumi.dynamic.DiffResult(
            changes=bool(replaces), replaces=replaces, delete_before_replace=False
        )


class TAccountSalt(pulumi.dynamic.Resource, module="tars", name="TAccountSalt"):
    """The random bcrypt salt of one TAccount (module doc). Output: ``salt`` (secret)."""

    salt: pulumi.Output[str]
    """The salt: 22 characters of bcrypt's base64."""

    def __init__(
        self,
        name: str,
        namespace: pulumi.Input[str],
        account_name: str,
        opts: pulumi.ResourceOptions,
    ) -> None:
        args: dict[str, Any] = {NAMESPACE: namespace, ACCOUNT_NAME: account_name, SALT: None}
        args[PROVIDER_KEY] = _serialized_provider()
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=[SALT])
        )
        # As TarsValidation does: the provider is stateless and pickled by reference, so its
        # serialization is computed once instead of once per resource.
        register(self, self._resource_type_name, name, args, opts)


@functools.cache
def _serialized_provider() -> str:
    """The SDK's own serialization of :class:`TAccountSaltProvider` (not a secret)."""
    return str(serialize_provider(TAccountSaltProvider()))


__all__ = ["RESOURCE_TYPE", "TAccountSalt", "TAccountSaltProvider"]
