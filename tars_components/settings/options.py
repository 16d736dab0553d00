"""Options that change the output, the same for the CLI and the Pulumi program
(docs/cli/render.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any

from ..kernel.errors import UsageError
from ..models import API_VERSIONS, V1BETA3
from ..models.base import P_DNS1123SUB
from ..models.names import is_dns_label
from ..models.ownership import FieldOwnership
from ..models.tdeploy import P_APPROVER

DEFAULT_LOCAL_VOLUME_STORAGE_CLASS = "tars-storage-class"
EVERY_FIELD_MANAGED = FieldOwnership()
"""The default field ownership: Pulumi applies every field."""


class Mode(str, Enum):
    """``expand``: Kubernetes workloads; ``crd``: TarsK8S custom resources for its controller."""

    EXPAND = "expand"
    CRD = "crd"

    def __str__(self) -> str:
        return self.value


class Workload(str, Enum):
    """The engine of a StatefulSet server's pods in expand mode (docs/concepts/rollout.md):
    ``statefulset`` (apps/v1, the TarsK8S mapping), ``kruise`` (OpenKruise's Advanced
    StatefulSet, in-place updates) or ``tapp`` (tkestack's TApp, per-instance templates)."""

    STATEFULSET = "statefulset"
    KRUISE = "kruise"
    TAPP = "tapp"

    def __str__(self) -> str:
        return self.value


RELEASE_DATE_FORMAT = "%Y%m%d%H%M%S"
"""The date of a helm-lib release id, as ``exec-helm.sh`` writes it (``date +%Y%m%d%H%M%S``)."""
_RELEASE_DATE = re.compile(r"[0-9]{14}")
_IMAGE_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")  # a container image tag


@dataclass(frozen=True)
class ReleaseTag:
    """The release that TarsK8S's ``exec-helm.sh VALUES TAG`` packages into a helm-lib values
    file, whose committed ``repo.id`` is empty: ``repo.id`` becomes ``DATE-TAG`` and
    ``repo.image`` becomes ``IMAGE:TAG`` (``convert --tag``, ``tars:releaseTag``,
    docs/cli/convert.md). ``date`` is the build's ``YYYYmmddHHMMSS``; a value given here, not
    read from a clock, so that the same input gives the same release."""

    tag: str
    date: str

    def __post_init__(self) -> None:
        if not isinstance(self.tag, str) or not _IMAGE_TAG.fullmatch(self.tag):
            raise ValueError(
                f"release tag {self.tag!r}: not an image tag (letters, digits, '_', '.' and "
                "'-', at most 128, not starting with '.' or '-')"
            )
        if not isinstance(self.date, str) or not _RELEASE_DATE.fullmatch(self.date):
            raise ValueError(
                f"release date {self.date!r}: expected YYYYmmddHHMMSS (14 digits), as "
                "exec-helm.sh writes it (date +%Y%m%d%H%M%S)"
            )

    @property
    def id(self) -> str:
        """``repo.id``: ``DATE-TAG``."""
        return f"{self.date}-{self.tag}"

    def image(self, image: str) -> str:
        """``repo.image``: ``IMAGE:TAG``; an image that already names a tag or a digest
        (``…/countserver:latest``, as TarsCloudMarket commits them) gets TAG in its place, as
        the packaged charts of such files show."""
        name = image.split("@", 1)[0]
        slash = name.rfind("/")
        if ":" in name[slash + 1 :]:  # a tag; a colon before the last slash is a port
            name = name[: name.rfind(":")]
        return f"{name}:{self.tag}"


@dataclass(frozen=True)
class Options:
    """Output options. Every field has the default of the options table of docs/cli/render.md.

    * ``namespace``: stack namespace for documents without one. Defaults to ``default``.
    * ``mode``: ``expand`` or ``crd``. Defaults to ``expand``.
    * ``local_volume_storage_class``: storage class of tLocalVolume and ``delay-bind`` claim
      templates. Defaults to ``tars-storage-class``.
    * ``delay_bind``: add the ``delay-bind`` claim template to servers with hostIPC,
      hostNetwork or hostPorts. Defaults to true.
    * ``tars_readiness_gate``: keep the ``tars.io/active`` readiness gate on Tars servers (turn
      off only where no TarsK8S tarsregistry patches that condition). Defaults to true.
    * ``crd_api_version``: apiVersion of the custom resources in crd mode. Defaults to
      ``k8s.tars.io/v1beta3``.
    * ``skip_await``: annotate StatefulSets and DaemonSets ``pulumi.com/skipAwait: "true"``, for
      clusters where Tars pods never become Ready (no tarsregistry patches ``tars.io/active``),
      so ``pulumi up`` does not wait for them. Defaults to false.
    * ``await_tservers``: crd mode only: each TServer custom resource carries
      ``pulumi.com/waitFor`` conditions on the status the TarsK8S controller writes
      (``replicas``, ``currentReplicas``, ``readyReplicas`` equal to ``spec.k8s.replicas``), so
      ``pulumi up`` returns once the controller reports the pods Ready; only where the
      controller runs (nothing else writes that status). Defaults to false.
    * ``tconfig_config_maps``: expand mode only: render the activated TConfigs of each
      TServer as one ConfigMap (``<server name>-tconfig``). Defaults to false.
    * ``existing_framework_config``: crd mode against a live TarsK8S cluster whose namespace
      already has its ``tars-framework`` TFrameworkConfig (the chart installs it): the rules
      count it as present (TS020) and the cluster's webhook fills the node image; it is never
      created or owned. Defaults to false.
    * ``approvers``: who may approve a TDeploy request (``approve.person``, TD006); empty
      means anyone. Defaults to empty.
    * ``field_ownership``: which TServer fields Pulumi applies, sets once or leaves to another
      manager (:class:`~tars_components.models.ownership.FieldOwnership`; a mapping such as
      ``{"replicas": "external"}`` is accepted), docs/concepts/ownership.md. Defaults to
      every field managed.
    * ``workload``: expand mode only: the engine of StatefulSet servers (``statefulset``,
      ``kruise``, ``tapp``; docs/concepts/rollout.md). Defaults to ``statefulset``.
    * ``expandable_storage_classes`` / ``fixed_storage_classes``: StorageClasses declared to
      allow (or not) volume expansion, for offline commands that cannot look them up
      (docs/concepts/storage.md; TV002, TV003). Default to empty.
    * ``release``: the :class:`ReleaseTag` written into the stack's helm-lib values files, as
      ``exec-helm.sh VALUES TAG`` does. Defaults to none (the files' own ``repo``).
    * ``stack_manager_servers``: ``(namespace, object name)`` of servers whose objects are
      applied under the stack's field manager beyond those with a field ownership setting:
      the project's program fills it from the cluster (objects applied with ``kubectl apply``,
      or under that manager already; docs/concepts/live.md). Defaults to none.
    * ``held_fields``: ``(namespace, object name, dotted path)`` of the ``external`` fields
      that only the stack's managers hold on the cluster, which Pulumi keeps at their live
      value (``ignore_changes``); every other ``external`` field is left out of the apply and
      not ignored, so server-side apply gives it up. None (the default) when no one read the
      cluster: every ``external`` field is then ignored too, and pulumi-kubernetes decides at
      apply time (it keeps a field its manager holds).
    * ``live_context``: the kubeconfig context the project's program read the cluster with
      (``""``: the current one); ``pulumi up`` then waits for grown claims at their new
      capacity through it, restarting the pods of volumes that grow offline
      (docs/concepts/storage.md). None (the default): no cluster was read, nothing waits.
    """

    namespace: str = "default"
    mode: Mode = Mode.EXPAND
    local_volume_storage_class: str = DEFAULT_LOCAL_VOLUME_STORAGE_CLASS
    delay_bind: bool = True
    tars_readiness_gate: bool = True
    crd_api_version: str = V1BETA3
    skip_await: bool = False
    await_tservers: bool = False
    tconfig_config_maps: bool = False
    existing_framework_config: bool = False
    approvers: tuple[str, ...] = ()
    field_ownership: FieldOwnership = EVERY_FIELD_MANAGED
    workload: Workload = Workload.STATEFULSET
    expandable_storage_classes: tuple[str, ...] = ()
    fixed_storage_classes: tuple[str, ...] = ()
    release: ReleaseTag | None = None
    stack_manager_servers: frozenset[tuple[str, str]] = frozenset()
    held_fields: frozenset[tuple[str, str, str]] | None = None
    live_context: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.field_ownership, FieldOwnership):
            object.__setattr__(self, "field_ownership", FieldOwnership.parse(self.field_ownership))


OPTION_NAMES: dict[str, tuple[str, str]] = {
    "namespace": ("--namespace", "tars:namespace"),
    "mode": ("--mode", "tars:mode"),
    "local_volume_storage_class": ("--local-volume-storage-class", "tars:localVolumeStorageClass"),
    "delay_bind": ("--no-delay-bind", "tars:delayBind"),
    "tars_readiness_gate": ("--no-tars-readiness-gate", "tars:tarsReadinessGate"),
    "crd_api_version": ("--crd-api-version", "tars:crdApiVersion"),
    "skip_await": ("--skip-await", "tars:skipAwait"),
    "await_tservers": ("--await-tservers", "tars:awaitTServers"),
    "tconfig_config_maps": ("--tconfig-configmaps", "tars:tconfigConfigMaps"),
    "existing_framework_config": ("--existing-framework-config", "tars:frameworkConfig"),
    "approvers": ("--approvers", "tars:approvers"),
    "field_ownership": ("--field-ownership", "tars:fieldOwnership"),
    "workload": ("--workload", "tars:workload"),
    "expandable_storage_classes": (
        "--expandable-storage-classes",
        "tars:expandableStorageClasses",
    ),
    "fixed_storage_classes": ("--fixed-storage-classes", "tars:fixedStorageClasses"),
    "release": ("--release-tag/--release-date", "tars:releaseTag/tars:releaseDate"),
}
"""Each option's CLI flag and ``tars:*`` config key, as error messages name them."""

_DNS_SUBDOMAIN = re.compile(P_DNS1123SUB)


def _is_subdomain(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= 253 and bool(_DNS_SUBDOMAIN.fullmatch(value))


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "namespace": (
        lambda v: isinstance(v, str) and is_dns_label(v),
        "not a valid namespace: expected a DNS-1123 label (at most 63 lowercase letters, "
        "digits and '-', starting and ending with a letter or digit)",
    ),
    "local_volume_storage_class": (
        _is_subdomain,
        "not a valid storage class name: expected a DNS-1123 subdomain (at most 253 lowercase "
        "letters, digits, '-' and '.')",
    ),
    "mode": (lambda v: v in {m.value for m in Mode}, f"expected one of {', '.join(Mode)}"),
    "crd_api_version": (lambda v: v in API_VERSIONS, f"expected one of {', '.join(API_VERSIONS)}"),
    "delay_bind": (_is_bool, "expected true or false"),
    "tars_readiness_gate": (_is_bool, "expected true or false"),
    "skip_await": (_is_bool, "expected true or false"),
    "await_tservers": (_is_bool, "expected true or false"),
    "tconfig_config_maps": (_is_bool, "expected true or false"),
    "existing_framework_config": (_is_bool, "expected true or false"),
    "approvers": (
        lambda v: isinstance(v, tuple) and all(re.fullmatch(P_APPROVER, p) for p in v),
        "expected names separated by commas, each a letter then at most 15 letters, digits, "
        "'_', '.' or '-'",
    ),
    "field_ownership": (
        lambda v: isinstance(v, FieldOwnership),
        "expected field=managed|initial|external entries",
    ),
    "expandable_storage_classes": (
        lambda v: isinstance(v, tuple) and all(_is_subdomain(c) for c in v),
        "expected StorageClass names separated by commas",
    ),
    "fixed_storage_classes": (
        lambda v: isinstance(v, tuple) and all(_is_subdomain(c) for c in v),
        "expected StorageClass names separated by commas",
    ),
}


_CHECKS["release"] = (
    lambda v: v is None or isinstance(v, ReleaseTag),
    "expected a release tag and its date (YYYYmmddHHMMSS)",
)
_CHECKS["workload"] = (
    lambda v: v in {w.value for w in Workload},
    f"expected one of {', '.join(Workload)}",
)


def with_storage_classes(options: Options, classes: Mapping[str, bool]) -> Options:
    """``options`` with the StorageClasses read from the cluster (name: whether it allows
    volume expansion) declared expandable or fixed, each class the options declare already
    kept as declared (docs/concepts/live.md)."""
    declared = {*options.expandable_storage_classes, *options.fixed_storage_classes}
    expandable = [c for c, grows in sorted(classes.items()) if grows and c not in declared]
    fixed = [c for c, grows in sorted(classes.items()) if not grows and c not in declared]
    if not expandable and not fixed:
        return options
    return replace(
        options,
        expandable_storage_classes=(*options.expandable_storage_classes, *expandable),
        fixed_storage_classes=(*options.fixed_storage_classes, *fixed),
    )


def parse_storage_classes(text: str) -> tuple[str, ...]:
    """``"ssd, standard"`` → ``("ssd", "standard")`` (empty entries dropped)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def parse_approvers(text: str) -> tuple[str, ...]:
    """``"alice, bob"`` → ``("alice", "bob")`` (empty entries dropped)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def parse_release(tag: Any, date: Any, config: bool) -> ReleaseTag | None:
    """The release of a stack's helm-lib values files from its tag and date (both or
    neither; None for neither). Raises :class:`UsageError` naming the settings (``config``) or
    the flags."""
    names = (
        ("tars:releaseTag", "tars:releaseDate") if config else ("--release-tag", "--release-date")
    )
    if tag in (None, "") and date in (None, ""):
        return None
    if tag in (None, "") or date in (None, ""):
        given, missing = names if date in (None, "") else names[::-1]
        raise UsageError(
            f"{given} needs {missing}: a helm-lib release id is DATE-TAG "
            "(exec-helm.sh VALUES TAG); the date is the build's YYYYmmddHHMMSS, given, so that "
            "a preview does not make a new release every time"
        )
    try:
        return ReleaseTag(str(tag), str(date))
    except ValueError as exc:
        raise UsageError(f"{names[0]}/{names[1]}: {exc}") from None


CLUSTER_FACTS = frozenset({"stack_manager_servers", "held_fields", "live_context"})
"""The fields of :class:`Options` that are no setting: the project's program fills them from
the cluster it read, nobody gives them (no flag, no config key, nothing to check)."""


def option_problem(field: str, value: Any) -> str | None:
    """What Kubernetes would refuse in one option value (None when it is fine): the checks a
    document's own fields get, so that a bad option never reaches a manifest."""
    valid, problem = _CHECKS[field]
    return None if valid(value) else problem


def check_option_values(values: Mapping[str, Any], config: bool) -> None:
    """Raise :class:`UsageError` for the first bad value of ``{Options field: value}``,
    naming the option as the user gave it: its ``tars:*`` key when ``config``, else its flag.
    """
    for field, value in values.items():
        problem = option_problem(field, value)
        if problem:
            flag, key = OPTION_NAMES[field]
            raise UsageError(f"{key if config else flag} {value!r}: {problem}")


def check_options(options: Options, config: bool = False) -> None:
    """:func:`check_option_values` on every field of ``options``, then the combinations: an
    existing framework config is a crd-mode notion (expand mode builds pods and needs the node
    image from a TFrameworkConfig document of the stack, which it never applies)."""
    values = {
        f.name: getattr(options, f.name) for f in fields(options) if f.name not in CLUSTER_FACTS
    }
    values["mode"] = Mode(options.mode).value
    values["workload"] = Workload(options.workload).value
    check_option_values(values, config)
    if options.existing_framework_config and options.mode != Mode.CRD:
        raise UsageError(
            "tars:frameworkConfig existing needs tars:mode crd (expand mode needs the node "
            "image from a TFrameworkConfig document of the stack)"
            if config
            else "--existing-framework-config needs crd mode (--mode crd)"
        )
    if options.await_tservers and options.mode != Mode.CRD:
        raise UsageError(
            "tars:awaitTServers needs tars:mode crd (expand mode awaits its workloads already)"
            if config
            else "--await-tservers needs crd mode (--mode crd)"
        )
    both = sorted(set(options.expandable_storage_classes) & set(options.fixed_storage_classes))
    if both:
        raise UsageError(
            f"StorageClass {', '.join(both)} is declared both expandable and fixed "
            + (
                "(tars:expandableStorageClasses, tars:fixedStorageClasses)"
                if config
                else "(--expandable-storage-classes, --fixed-storage-classes)"
            )
        )
