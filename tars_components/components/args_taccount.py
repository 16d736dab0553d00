"""Arguments of :class:`~tars_components.components.TAccount`.

Only a TAccount's credential accepts a ``pulumi.Input`` (typically a Pulumi secret); every other
field of the namespace components is structural (the rules look at it) and plain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi

from ..models import V1BETA3, TAccountDocument
from ..rules.taccount import account_name
from .args_common import build_metadata, drop_none, given_or_built, parse_built
from .scope import HasScope
from .shapes import AuthorizationArgsDict


@dataclass
class TAccountArgs:
    """Arguments of a :class:`~tars_components.components.TAccount`: a TarsWeb account."""

    framework: HasScope
    """The framework (namespace). Required."""

    document: TAccountDocument | None = None
    """A whole TAccount document. Give either this or the fields below. Defaults to None."""

    username: str | None = None
    """``spec.username``; ``metadata.name`` is its MD5 (TA001). Required without
    ``document``."""

    password: pulumi.Input[str] | None = None
    """``spec.authentication.password``: give a Pulumi secret (``config.require_secret``);
    it is hashed as the webhook does (M-TA1) inside ``apply`` and never leaves the secret
    (the salt: see ``salt_key``). Give this or ``bcrypt_password``."""

    bcrypt_password: pulumi.Input[str] | None = None
    """``spec.authentication.bcryptPassword``: an existing hash (also best given as a
    secret). Defaults to None."""

    activated: bool = True
    """``spec.authentication.activated``. Defaults to true."""

    authorization: Sequence[AuthorizationArgsDict] = field(default_factory=list)
    """``spec.authorization``: ``{role, flag}`` each; ``role`` is ``admin``, ``operator`` or
    ``developer`` (TA003), ``flag`` ``*`` or an ``App.Server`` pattern. Defaults to none."""

    extra: Sequence[str] | None = None
    """``spec.extra``. Defaults to None."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels``. Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document. Defaults to ``k8s.tars.io/v1beta3``."""

    secrets: Mapping[str, pulumi.Input[str]] = field(default_factory=dict)
    """Values of the ``{configSecret: KEY}`` references of a ``document`` (KEY → the Pulumi
    config secret ``tars:KEY``); :func:`components_from_stack` fills it from the stack's
    config. A reference without a value is applied as the placeholder hash (TA006), which no
    password verifies against."""

    salt_key: pulumi.Input[str] | None = None
    """A secret key (``config.require_secret("accountSaltKey")``, at least 16 bytes) from which
    the password's bcrypt salt is derived (HMAC-SHA256 over ``<namespace>/<name>``): the same
    salt on every machine and in every stack that shares the key. Without it, a random salt
    is drawn once and kept in the state (a ``<name>-salt`` TAccountSalt resource). Defaults
    to None."""

    def to_document(self, namespace: str) -> TAccountDocument:
        """The TAccount document in ``namespace`` (errors as
        :meth:`~tars_components.components.TConfigArgs.to_document`;
        messages never quote the credential)."""
        fields = {
            "username": self.username,
            "password": self.password,
            "bcrypt_password": self.bcrypt_password,
            "authorization": self.authorization or None,
            "extra": self.extra,
            "labels": self.labels,
            "annotations": self.annotations,
        }

        def build() -> TAccountDocument:
            if not self.username:
                raise TypeError("TAccountArgs needs a document or a username")
            authentication = drop_none(
                {
                    "password": self.password,
                    "bcryptPassword": self.bcrypt_password,
                    "activated": self.activated,
                }
            )
            raw = {
                "apiVersion": self.api_version,
                "kind": TAccountDocument.KIND,
                "metadata": build_metadata(
                    account_name(self.username), namespace, self.labels, self.annotations
                ),
                "spec": drop_none(
                    {
                        "username": self.username,
                        "extra": list(self.extra) if self.extra is not None else None,
                        "authentication": authentication,
                        "authorization": [dict(a) for a in self.authorization],
                    }
                ),
            }
            return parse_built(raw, namespace, TAccountDocument)

        return given_or_built("TAccountArgs", self.document, fields, namespace, build)


__all__ = ["TAccountArgs"]
