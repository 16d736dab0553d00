"""``tars:index:TConfig``, ``tars:index:TImage``, ``tars:index:TTree`` and
``tars:index:TAccount``: the rest of a TarsK8S namespace as components (issue #11), built like
:class:`~tars_components.components.TTemplate`: one validation resource per document (the same
rules and change rules as ``validate``, through the dynamic provider), and in crd mode the
document as the webhook admits it (:mod:`tars_components.mutation`) as a custom resource
that depends on the validation, named ``<component>-<kind>``. Expand mode has no controller for
these kinds: the components then validate and apply nothing (``render`` warns TX001).

Each is designed around a trap of reference §10 (README, "Namespace components"):

* **TConfig and previews.** The TConfig webhook deactivates the live version when a new
  activated version is admitted (create, or an update from deactivated to activated), even in
  a server-side dry run, which ``pulumi preview`` sends. So in a preview an activated TConfig
  whose activation is not already deployed carries ``activated`` as an unknown value:
  pulumi-kubernetes sends no request for a resource whose inputs are not known in a preview
  (no dry run, no webhook call), and ``pulumi up`` applies the real value.
* **TAccount and secrets.** The password (or hash) is a Pulumi secret; it is hashed inside
  ``apply`` with a salt that never depends on the password (:mod:`tars_components.secrets`):
  derived from a salt key, or drawn once and kept in the state, so the same password gives
  the same hash on every run (no perpetual diff) and the hash never appears in plaintext in
  the state, outputs or messages.
* **TImage and TarsWeb.** Releases published through TarsWeb are not the program's: by default
  the declared releases are written on create and ``releases`` is then ignored
  (``ignore_changes``); ``own_releases`` hands the whole list to the program.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, overload

import pulumi

from ..models import Document
from ..models import TAccount as TAccountDocument
from ..models import TConfig as TConfigDocument
from ..models import TImage as TImageDocument
from ..models import TTree as TTreeDocument
from ..models.taccount import SecretRef
from ..mutation import mutate_kind
from ..options import Mode
from ..secrets import AccountHashing, check_key, is_placeholder, keyed_salt
from .account_salt import TAccountSalt
from .args import split_args
from .failure import refusing
from .kind_args import TAccountArgs, TConfigArgs, TImageArgs, TTreeArgs
from .kube import child_name, kubernetes_resource, object_id
from .outputs import deferred_leaves, known, lift, with_secrecy_of
from .placement import place
from .scope import FrameworkScope, HasScope
from .shapes import (
    AuthorizationArgsDict,
    BusinessArgsDict,
    ImageReleaseArgsDict,
    ImageTypeValue,
    TreeAppArgsDict,
)
from .validation import retain_on_delete, validation_resource


def kind_object(
    document: Document,
    scope: FrameworkScope,
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> dict[str, Any]:
    """The custom resource of a wave-2 document, exactly as ``render --mode crd`` writes it
    (:func:`tars_components.expansion.kinds.kind_documents`); a credential resolved from
    ``secrets`` stays the Output it is, and so does a hash salted by an Output of
    ``hashing``."""
    body = mutate_kind(document, secrets, hashing).to_dict()
    body["apiVersion"] = scope.options.crd_api_version
    return body


def unknown_in_preview(value: Any) -> Any:
    """``value`` as an Output that is unknown in a preview (and known, equal to ``value``,
    in an update): pulumi-kubernetes does not send a resource with unknown inputs to the API
    server in a preview, so no server-side dry run (and no webhook) sees it."""
    if not pulumi.runtime.is_dry_run():
        return value
    loop = asyncio.get_event_loop()
    result: asyncio.Future[Any] = loop.create_future()
    result.set_result(value)
    is_known: asyncio.Future[bool] = loop.create_future()
    is_known.set_result(False)
    return pulumi.Output(set(), result, is_known)


def _retain(
    opts: pulumi.ResourceOptions | None, scope: FrameworkScope, default: bool
) -> bool | None:
    """``retain_on_delete`` of the object: the component's, else the framework's, else
    ``default``."""
    retain = retain_on_delete(opts, scope.retain_on_delete)
    return default if retain is None else retain


class _NamespaceComponent(pulumi.ComponentResource):
    """What the four components share: validation resource, crd object, outputs."""

    object_name: pulumi.Output[str]
    """``metadata.name`` of the document."""
    namespace: pulumi.Output[str]
    """The document's namespace."""
    objects: pulumi.Output[list[str]]
    """The applied objects (``apiVersion/kind:namespace/name``); empty in expand mode."""
    mutated: pulumi.Output[dict[str, Any]]
    """The document after the mutating webhook's rules, as the validation resource computed
    (secret when an input of the document is)."""

    def _declare_document(
        self,
        type_token: str,
        name: str,
        document: Document,
        framework: HasScope,
        opts: pulumi.ResourceOptions | None,
        secrets: Mapping[str, Any] | None = None,
        ignore_changes: Sequence[str] | None = None,
        guard: bool = False,
        retain_by_default: bool = False,
    ) -> None:
        scope = framework.scope
        kind = type_token.rsplit(":", 1)[-1]
        opts, provider = place(opts, scope.resource, f"{kind} {name!r}")
        super().__init__(type_token, name, None, opts)
        position = scope.register(document)
        raw = self._raw(document)
        leaves = deferred_leaves(raw)
        self.validation = validation_resource(
            f"{name}-validation", document, position, raw, leaves, scope, self, opts
        )
        """The validation resource the object depends on."""
        self.resources: dict[str, pulumi.CustomResource] = {}
        """The component's Kubernetes resources by kind (none in expand mode)."""
        manifests: list[dict[str, Any]] = []
        if scope.options.mode == Mode.CRD:
            obj = self._kind_object(document, scope, secrets)
            manifests.append(obj)
            applied = self._applied(obj, guard)
            self.resources[str(obj["kind"])] = kubernetes_resource(
                child_name(name, obj),
                applied,
                pulumi.ResourceOptions(
                    parent=self,
                    provider=provider,
                    depends_on=[self.validation],
                    retain_on_delete=_retain(opts, scope, retain_by_default),
                    ignore_changes=list(ignore_changes) if ignore_changes else None,
                ),
            )
        self._manifests = manifests
        self.object_name = known(document.name)
        self.namespace = known(document.namespace)
        self.objects = known([object_id(m) for m in manifests])
        self.mutated = with_secrecy_of(self.validation.mutated, leaves)
        self.register_outputs(
            {
                "objectName": self.object_name,
                "namespace": self.namespace,
                "objects": self.objects,
                "mutated": self.mutated,
            }
        )

    def _raw(self, document: Document) -> dict[str, Any]:
        """The document as its validation resource receives it."""
        return document.to_dict()

    def _kind_object(
        self, document: Document, scope: FrameworkScope, secrets: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """The custom resource (crd mode; the component is registered by then)."""
        return kind_object(document, scope, secrets)

    def _applied(self, obj: dict[str, Any], guard: bool) -> dict[str, Any]:
        """The object as registered (the kind-specific guards of the module doc)."""
        return obj

    @cached_property
    def manifests(self) -> pulumi.Output[list[dict[str, Any]]]:
        """The applied objects, as ``render --mode crd`` writes them (secret when a
        credential in them is)."""
        return lift(self._manifests)


class TConfig(_NamespaceComponent):
    """A TConfig: one version of a server's (or an app's) config file, validated by the rules
    TC* (incl. the change rules: immutable content, no deactivation by hand, podSeq) and, in
    crd mode, applied as a custom resource.

    Preview safety: an activated version that ``previous`` does not show activated already is
    registered with ``activated`` unknown during ``pulumi preview``, so no server-side dry run
    reaches the TConfig webhook (which would deactivate the live version). A version removed
    from the program stays on the cluster as history (``retain_on_delete`` unless the
    component's or the framework's options say otherwise), as the Helm library keeps TConfigs:
    deleting versions is TarsWeb's business (and the webhook patches siblings on delete).
    Outputs:
    ``object_name``, ``namespace``, ``objects``, ``manifests``, ``mutated``.
    """

    @overload
    def __init__(
        self, resource_name: str, args: TConfigArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TConfigDocument | None = None,
        name: str | None = None,
        app: str | None = None,
        server: str = "",
        config_name: str | None = None,
        config_content: str = "",
        pod_seq: str = "m",
        activated: bool = True,
        version: str | None = None,
        update_reason: str | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
        previous: TConfigDocument | None = None,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TConfig(name, TConfigArgs(...), opts)`` or ``TConfig(name, opts, framework=...,
        app=..., config_name=..., ...)``."""
        config_args, opts = split_args(TConfigArgs, "TConfig", args, kwargs)
        with refusing(f"TConfig {resource_name!r}"):
            scope = config_args.framework.scope
            self.document: TConfigDocument = config_args.to_document(scope.namespace)
            """The TConfig document as given (before mutation)."""
            previous = config_args.previous
            self.preview_guarded: bool = self.document.activated and not (
                previous is not None and previous.activated and previous.name == self.document.name
            )
            """True when the activation is new (so unknown in a preview, see the class doc)."""
            self._declare_document(
                "tars:index:TConfig",
                resource_name,
                self.document,
                config_args.framework,
                opts,
                guard=self.preview_guarded,
                retain_by_default=True,
            )

    def _applied(self, obj: dict[str, Any], guard: bool) -> dict[str, Any]:
        if not guard:
            return obj
        return {**obj, "activated": unknown_in_preview(obj["activated"])}


class TImage(_NamespaceComponent):
    """A TImage: a catalogue of releases, validated by the rules TI* and, in crd mode,
    applied as a custom resource. Unless ``own_releases``, ``releases`` is written on create
    and then left to TarsWeb and tarsimage (``ignore_changes``). Outputs: ``object_name``,
    ``namespace``, ``objects``, ``manifests``, ``mutated``, ``release_ids``."""

    release_ids: pulumi.Output[list[str]]
    """The ids of the declared releases."""

    @overload
    def __init__(
        self, resource_name: str, args: TImageArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TImageDocument | None = None,
        name: str | None = None,
        image_type: ImageTypeValue | None = None,
        supported_type: Sequence[str] | None = None,
        releases: Sequence[ImageReleaseArgsDict] | None = None,
        default: str | None = None,
        mark: str | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
        own_releases: bool = False,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TImage(name, TImageArgs(...), opts)`` or ``TImage(name, opts, framework=...,
        name=..., releases=[...], ...)``."""
        image_args, opts = split_args(TImageArgs, "TImage", args, kwargs)
        with refusing(f"TImage {resource_name!r}"):
            scope = image_args.framework.scope
            self.document: TImageDocument = image_args.to_document(scope.namespace)
            """The TImage document as given."""
            self.release_ids = known([r.id for r in self.document.releases or ()])
            self._declare_document(
                "tars:index:TImage",
                resource_name,
                self.document,
                image_args.framework,
                opts,
                ignore_changes=None if image_args.own_releases else ["releases"],
            )


class TTree(_NamespaceComponent):
    """The TTree (``tars-tree``): the business tree TarsWeb shows, validated by the rules
    TR* and, in crd mode, applied as a custom resource. Outputs: ``object_name``,
    ``namespace``, ``objects``, ``manifests``, ``mutated``."""

    @overload
    def __init__(
        self, resource_name: str, args: TTreeArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None: ...

    @overload
    def __init__(
        self,
        resource_name: str,
        opts: pulumi.ResourceOptions | None = None,
        *,
        framework: HasScope,
        document: TTreeDocument | None = None,
        businesses: Sequence[BusinessArgsDict] | None = None,
        apps: Sequence[TreeAppArgsDict] | None = None,
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        api_version: str = ...,
    ) -> None: ...

    def __init__(self, resource_name: str, *args: Any, **kwargs: Any) -> None:
        """``TTree(name, TTreeArgs(...), opts)`` or ``TTree(name, opts, framework=...,
        businesses=[...], apps=[...])``."""
        tree_args, opts = split_args(TTreeArgs, "TTree", args, kwargs)
        with refusing(f"TTree {resource_name!r}"):
            scope = tree_args.framework.scope
            self.document: TTreeDocument = tree_args.to_document(scope.namespace)
            """The TTree document as given."""
            self._declare_document(
                "tars:index:TTree", resource_name, self.document, tree_args.framework, opts
            )


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


class TAccount(_NamespaceComponent):
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


__all__ = ["TAccount", "TConfig", "TImage", "TTree", "kind_object", "unknown_in_preview"]
