"""The TarsK8S mutating webhook for TConfig, TImage, TTree and TAccount (reference §5.3-§5.6).

Pure functions, like :mod:`tars_components.mutation` for TServer and TTemplate. Deliberate
differences, all for deterministic output:

* the clock is never read: a TConfig's ``version`` and ``updateTime`` (M-TC6, M-TC7) and a
  TImage release's ``createTime`` (M-TI4) are left as written (the webhook fills them on
  create; an exported object keeps the values the cluster gave it, which TC001 requires);
* a TAccount password is hashed with the salt that ``hashing`` gives the account, never one
  derived from the password (M-TA1, see :mod:`tars_components.secrets`); a credential that
  references a Pulumi config secret is resolved from ``secrets`` when given, otherwise
  replaced by the placeholder hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .models import Document, SecretRef, TAccount, TConfig, TImage, TTree
from .models.timage import ImageType
from .secrets import AccountHashing, hash_password, placeholder

LABEL_APP = "tars.io/ServerApp"
LABEL_SERVER = "tars.io/ServerName"
LABEL_CONFIG_NAME = "tars.io/ConfigName"
LABEL_POD_SEQ = "tars.io/PodSeq"
LABEL_ACTIVATED = "tars.io/Activated"
LABEL_VERSION = "tars.io/Version"
LABEL_DEACTIVATE = "tars.io/Deactivate"
LABEL_DELETING = "tars.io/Deleting"
LABEL_IMAGE_TYPE = "tars.io/ImageType"
SUPPORTED_PREFIX = "tars.io/Supported."


def mutate_kind(
    doc: Document,
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> Document:
    """One document of a wave-2 kind as the webhook admits it on create; others unchanged
    (``secrets`` and ``hashing``: see :func:`mutate_account`)."""
    if isinstance(doc, TConfig):
        return mutate_config(doc)
    if isinstance(doc, TImage):
        return mutate_image(doc)
    if isinstance(doc, TTree):
        return mutate_tree(doc)
    if isinstance(doc, TAccount):
        return mutate_account(doc, secrets, hashing)
    return doc


def _with_labels(doc: Document, labels: dict[str, str], **update: Any) -> Any:
    meta = doc.metadata.model_copy(update={"labels": labels or None})
    mutated = doc.model_copy(update={"metadata": meta, **update})
    mutated.with_source(doc.source)
    return mutated


def mutate_config(config: TConfig) -> TConfig:
    """M-TC1…M-TC5 and M-TC8: the identity labels, ``tars.io/Activated`` and, when a version
    is known, ``tars.io/Version`` (M-TC6/M-TC7 need the clock and are left to the webhook)."""
    labels = dict(config.labels)
    labels[LABEL_APP] = config.app  # M-TC1
    labels[LABEL_SERVER] = config.server  # M-TC2
    labels[LABEL_CONFIG_NAME] = config.config_name  # M-TC3
    labels[LABEL_POD_SEQ] = config.pod_seq  # M-TC4
    labels[LABEL_ACTIVATED] = "true" if config.activated else "false"  # M-TC5
    if config.version:
        labels[LABEL_VERSION] = config.version  # M-TC8
    result: TConfig = _with_labels(config, labels)
    return result


def mutate_image(image: TImage) -> TImage:
    """M-TI1…M-TI3: ``tars.io/ImageType``, the ``tars.io/Supported.<type>`` labels of a base
    image (others removed), duplicate release ids removed (the first is kept)."""
    image_type = image.image_type or ""
    labels = dict(image.labels)
    labels[LABEL_IMAGE_TYPE] = str(image_type)  # M-TI1
    wanted: dict[str, str] = {}
    if image_type == ImageType.BASE.value and image.supported_type:  # M-TI2
        wanted = {f"{SUPPORTED_PREFIX}{t}": str(t) for t in image.supported_type}
    for key in [k for k in labels if k.startswith(SUPPORTED_PREFIX) and k not in wanted]:
        del labels[key]
    for key, value in wanted.items():
        labels.setdefault(key, value)
    update: dict[str, Any] = {}
    if image.releases:
        seen: set[str] = set()
        unique = []
        for release in image.releases:  # M-TI3
            if release.id not in seen:
                seen.add(release.id)
                unique.append(release)
        if len(unique) != len(image.releases):
            update["releases"] = unique
    result: TImage = _with_labels(image, labels, **update)
    return result


def mutate_tree(tree: TTree) -> TTree:
    """M-TR1: an app whose ``businessRef`` names no business gets ``""``."""
    names = {b.name for b in tree.businesses}
    apps = [
        app
        if app.business_ref == "" or app.business_ref in names
        else app.model_copy(update={"business_ref": ""})
        for app in tree.apps
    ]
    mutated = tree.model_copy(update={"apps": apps})
    mutated.with_source(tree.source)
    return mutated


def mutate_account(
    account: TAccount,
    secrets: Mapping[str, Any] | None = None,
    hashing: AccountHashing | None = None,
) -> TAccount:
    """M-TA1, M-TA2 (create): the password becomes its bcrypt hash, tokens are reset.

    ``secrets`` maps a config key (``KEY`` of ``{configSecret: KEY}``) to its value; a
    reference that it does not resolve becomes the placeholder hash. ``hashing`` gives the
    account's salt (:class:`~tars_components.secrets.AccountHashing`; without one, a salt
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
        hashed = _when_known(hash_password, password, salt)
    new_auth = auth.model_copy(update={"password": None, "bcrypt_password": hashed, "tokens": []})
    spec = account.spec.model_copy(update={"authentication": new_auth})
    mutated = account.model_copy(update={"spec": spec})
    mutated.with_source(account.source)
    return mutated


def _when_known(fn: Any, *values: Any) -> Any:
    """``fn(*values)``, or, when a value is deferred (has ``apply``, like ``pulumi.Output``),
    the deferred result of calling it once every value is known."""
    deferred = [
        i for i, v in enumerate(values) if not isinstance(v, (str, bytes)) and hasattr(v, "apply")
    ]
    if deferred:
        i = deferred[0]
        before, after = values[:i], values[i + 1 :]
        return values[i].apply(lambda known: _when_known(fn, *before, known, *after))
    return fn(*values)


__all__ = [
    "LABEL_ACTIVATED",
    "LABEL_CONFIG_NAME",
    "LABEL_DEACTIVATE",
    "LABEL_DELETING",
    "LABEL_IMAGE_TYPE",
    "LABEL_POD_SEQ",
    "LABEL_VERSION",
    "SUPPORTED_PREFIX",
    "mutate_account",
    "mutate_config",
    "mutate_image",
    "mutate_kind",
    "mutate_tree",
]
