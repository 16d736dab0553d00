"""Arguments of the namespace components (issue #11): :class:`TConfigArgs`,
:class:`TImageArgs`, :class:`TTreeArgs` and :class:`TAccountArgs`, built like
:class:`~tars_components.components.TServerArgs`: a whole document, or its fields as keywords.

Only a TAccount's credential accepts a ``pulumi.Input`` (typically a Pulumi secret); every other
field is structural (the rules look at it) and plain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ..models import V1BETA3, TAccount, TConfig, TImage, TTree
from ..models.ttree import TREE_NAME
from ..rules.taccount import account_name
from .args import D, _in_namespace, _metadata, _no_fields, _parse
from .scope import HasScope
from .shapes import (
    AuthorizationArgsDict,
    BusinessArgsDict,
    ImageReleaseArgsDict,
    ImageTypeValue,
    TreeAppArgsDict,
)

Section = Mapping[str, Any]


def _document(
    owner: str,
    given: D | None,
    fields: Mapping[str, Any],
    namespace: str,
    build: Callable[[], D],
) -> D:
    if given is not None:
        _no_fields(owner, fields)
        return _in_namespace(given, namespace)
    return build()


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


@dataclass
class TConfigArgs:
    """Arguments of a :class:`~tars_components.components.TConfig`: one version of a server's
    (or an app's) config file."""

    framework: HasScope
    """The framework (namespace) the config belongs to. Required."""

    document: TConfig | None = None
    """A whole TConfig document (e.g. from :func:`tars_components.load_stack`). Give either
    this or the fields below. Defaults to None."""

    name: str | None = None
    """``metadata.name``. Defaults to ``lower(app)-lower(server or "app")-<configName with
    dots as dashes>[-<version>]``; give a new name per version (versions are immutable,
    TC004)."""

    app: str | None = None
    """``app``. Required without ``document``."""

    server: str = ""
    """``server``; empty for an app-level config. Defaults to ``""``."""

    config_name: str | None = None
    """``configName`` (the file name, e.g. ``server.conf``). Required without ``document``."""

    config_content: str = ""
    """``configContent``. Defaults to ``""``."""

    pod_seq: str = "m"
    """``podSeq``: ``m`` for the master config, a pod ordinal for a node-level one. Defaults to
    ``m``."""

    activated: bool = True
    """``activated``: the version tarsnode serves. Defaults to true."""

    version: str | None = None
    """``version``; the webhook fills it on create when absent. Defaults to None."""

    update_reason: str | None = None
    """``updateReason``. Defaults to None."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels``. Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document. Defaults to ``k8s.tars.io/v1beta3``."""

    previous: TConfig | None = None
    """The config as last deployed (``tars:previousStackDir``). When it is the same
    activated version, the preview guard is not needed (see
    :class:`~tars_components.components.TConfig`). Defaults to None: every activated version
    is guarded."""

    def to_document(self, namespace: str) -> TConfig:
        """The TConfig document in ``namespace``. Raises TypeError for contradicting arguments
        and ArgumentProblems (a ValueError listing the schema violations) for a document the
        CRD would reject."""
        fields = {
            "name": self.name,
            "app": self.app,
            "config_name": self.config_name,
            "version": self.version,
            "update_reason": self.update_reason,
            "labels": self.labels,
            "annotations": self.annotations,
        }

        def build() -> TConfig:
            if not self.app or not self.config_name:
                raise TypeError("TConfigArgs needs a document or both app and config_name")
            default = "-".join(
                part
                for part in (
                    self.app.lower(),
                    (self.server or "app").lower(),
                    self.config_name.replace(".", "-").replace("_", "-").lower(),
                    (self.version or "").lower(),
                )
                if part
            )
            raw = {
                "apiVersion": self.api_version,
                "kind": TConfig.KIND,
                "metadata": _metadata(
                    self.name or default, namespace, self.labels, self.annotations
                ),
                **_drop_none(
                    {
                        "app": self.app,
                        "server": self.server,
                        "configName": self.config_name,
                        "configContent": self.config_content,
                        "podSeq": self.pod_seq,
                        "activated": self.activated,
                        "version": self.version,
                        "updateReason": self.update_reason,
                    }
                ),
            }
            return _parse(raw, namespace, TConfig)

        return _document("TConfigArgs", self.document, fields, namespace, build)


@dataclass
class TImageArgs:
    """Arguments of a :class:`~tars_components.components.TImage`: a catalogue of releases."""

    framework: HasScope
    """The framework (namespace) the image belongs to. Required."""

    document: TImage | None = None
    """A whole TImage document. Give either this or the fields below. Defaults to None."""

    name: str | None = None
    """``metadata.name`` (``lower(app)-lower(server)`` for a server's image). Required without
    ``document``."""

    image_type: ImageTypeValue | None = None
    """``imageType``: ``server``, ``base`` or ``node``. Defaults to None."""

    supported_type: Sequence[str] | None = None
    """``supportedType`` of a base image. Defaults to None."""

    releases: Sequence[ImageReleaseArgsDict] | None = None
    """``releases``: ``{id, image, secret?, mark?}`` each. Defaults to None."""

    default: str | None = None
    """``default``: the default release id. Defaults to None."""

    mark: str | None = None
    """``mark``. Defaults to None."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels`` (``tars.io/ServerApp``, ``tars.io/ServerName`` for a server's
    image). Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document. Defaults to ``k8s.tars.io/v1beta3``."""

    own_releases: bool = False
    """False (default): the program's releases are written when the TImage is created and
    ``releases`` is then left to TarsWeb and tarsimage (``ignore_changes``), so releases
    published there are never deleted by ``pulumi up``. True: the program owns the whole list
    (every ``pulumi up`` writes exactly the declared releases)."""

    def to_document(self, namespace: str) -> TImage:
        """The TImage document in ``namespace`` (errors as :meth:`TConfigArgs.to_document`)."""
        fields = {
            "name": self.name,
            "image_type": self.image_type,
            "supported_type": self.supported_type,
            "releases": self.releases,
            "default": self.default,
            "mark": self.mark,
            "labels": self.labels,
            "annotations": self.annotations,
        }

        def build() -> TImage:
            if not self.name:
                raise TypeError("TImageArgs needs a document or a name")
            raw = {
                "apiVersion": self.api_version,
                "kind": TImage.KIND,
                "metadata": _metadata(self.name, namespace, self.labels, self.annotations),
                **_drop_none(
                    {
                        "imageType": self.image_type,
                        "supportedType": list(self.supported_type)
                        if self.supported_type is not None
                        else None,
                        "releases": [dict(r) for r in self.releases]
                        if self.releases is not None
                        else None,
                        "default": self.default,
                        "mark": self.mark,
                    }
                ),
            }
            return _parse(raw, namespace, TImage)

        return _document("TImageArgs", self.document, fields, namespace, build)


@dataclass
class TTreeArgs:
    """Arguments of a :class:`~tars_components.components.TTree`: the namespace's business
    tree (one object, named ``tars-tree``)."""

    framework: HasScope
    """The framework (namespace). Required."""

    document: TTree | None = None
    """A whole TTree document. Give either this or the fields below. Defaults to None."""

    businesses: Sequence[BusinessArgsDict] | None = None
    """``businesses``: ``{name, show, weight?, mark?}`` each. Defaults to ``[]``."""

    apps: Sequence[TreeAppArgsDict] | None = None
    """``apps``: ``{name, businessRef}`` each. Defaults to ``[]``."""

    labels: Mapping[str, str] | None = None
    """``metadata.labels``. Defaults to none."""

    annotations: Mapping[str, str] | None = None
    """``metadata.annotations``. Defaults to none."""

    api_version: str = V1BETA3
    """apiVersion of the document. Defaults to ``k8s.tars.io/v1beta3``."""

    def to_document(self, namespace: str) -> TTree:
        """The TTree document in ``namespace`` (errors as :meth:`TConfigArgs.to_document`)."""
        fields = {
            "businesses": self.businesses,
            "apps": self.apps,
            "labels": self.labels,
            "annotations": self.annotations,
        }

        def build() -> TTree:
            raw = {
                "apiVersion": self.api_version,
                "kind": TTree.KIND,
                "metadata": _metadata(TREE_NAME, namespace, self.labels, self.annotations),
                "businesses": [dict(b) for b in self.businesses or ()],
                "apps": [dict(a) for a in self.apps or ()],
            }
            return _parse(raw, namespace, TTree)

        return _document("TTreeArgs", self.document, fields, namespace, build)


@dataclass
class TAccountArgs:
    """Arguments of a :class:`~tars_components.components.TAccount`: a TarsWeb account."""

    framework: HasScope
    """The framework (namespace). Required."""

    document: TAccount | None = None
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

    def to_document(self, namespace: str) -> TAccount:
        """The TAccount document in ``namespace`` (errors as :meth:`TConfigArgs.to_document`;
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

        def build() -> TAccount:
            if not self.username:
                raise TypeError("TAccountArgs needs a document or a username")
            authentication = _drop_none(
                {
                    "password": self.password,
                    "bcryptPassword": self.bcrypt_password,
                    "activated": self.activated,
                }
            )
            raw = {
                "apiVersion": self.api_version,
                "kind": TAccount.KIND,
                "metadata": _metadata(
                    account_name(self.username), namespace, self.labels, self.annotations
                ),
                "spec": _drop_none(
                    {
                        "username": self.username,
                        "extra": list(self.extra) if self.extra is not None else None,
                        "authentication": authentication,
                        "authorization": [dict(a) for a in self.authorization],
                    }
                ),
            }
            return _parse(raw, namespace, TAccount)

        return _document("TAccountArgs", self.document, fields, namespace, build)


__all__ = ["TAccountArgs", "TConfigArgs", "TImageArgs", "TTreeArgs"]
