"""crd mode's own rules: what the custom resources of the chosen served version need that
the loader's schema check cannot see, because it depends on ``--crd-api-version`` or on what
the v1.4.1 controller does with the object (TF005, TS025; TF001 and TS021 where the target
version or the CRD's own patterns refuse a loaded document)."""

from __future__ import annotations

import re

from pydantic import ValidationError

from ..kernel.errors import Violation
from ..kernel.paths import lookup
from ..kernel.registry import ERROR, WARNING, Need, check, rule
from ..loading.document_set import DocumentSet
from ..loading.documents import VERSION_REQUIRED_FIELDS
from ..loading.schema_rules import TF001, TS021
from ..models import V1BETA2, V1BETA3, ExecutorRef, TFrameworkConfigDocument, UpdateStrategyType
from ..models.base import P_IMAGE_OR_EMPTY
from ..models.conversion import convert
from ..models.vocabulary import CONVERSION_ANNOTATION
from ..settings.options import Mode, Options
from .objects import controller_only_objects

TF005 = rule(
    "TF005",
    ERROR,
    "TFrameworkConfig",
    "crd mode: not written as k8s.tars.io/v1beta2 (v1.4.1's conversion to the storage version "
    "stamps v1beta1, so the API server cannot store it)",
    origin="controller",
)


def conversion_violations(stack: DocumentSet, options: Options) -> list[Violation]:
    """What the target version's CRD requires but the conversion cannot supply (crd mode):
    a v1beta2 TFrameworkConfig has no ``imageBuild.executor`` (unless its conversion
    annotation carries one with an image), which v1beta3 requires (TF001); and a
    TFrameworkConfig written as v1beta2, which v1.4.1 cannot store (TF005)."""
    found: list[Violation] = _crd_pattern_violations(stack)
    if options.crd_api_version == V1BETA2:
        found.extend(
            TF005.at(
                config,
                "apiVersion",
                "TarsK8S v1.4.1 cannot store a k8s.tars.io/v1beta2 TFrameworkConfig: its "
                "conversion webhook turns it into the storage version v1beta3 but stamps "
                "apiVersion k8s.tars.io/v1beta1 on the result, which the API server refuses "
                "as an invalid conversion response; render with --crd-api-version "
                "k8s.tars.io/v1beta3, or remove this document from the stack and leave the "
                "TFrameworkConfig to the cluster (--existing-framework-config; the flag alone "
                "does not: a document of the stack is always written)",
            )
            for config in stack.frameworks
        )
    key = (TFrameworkConfigDocument.KIND, options.crd_api_version)
    required = VERSION_REQUIRED_FIELDS.get(key, ())
    if options.crd_api_version == V1BETA3:
        required = (*required, ("imageBuild", "executor", "image"))
    for config in stack.frameworks:
        converted = convert(config.to_dict(), options.crd_api_version)
        missing: list[tuple[str, ...]] = []
        for path in required:
            if any(path[: len(m)] == m for m in missing):
                continue  # its parent is already reported
            if lookup(converted, path, None) is None:
                missing.append(path)
                found.append(
                    TF001.at(
                        config,
                        path,
                        f"crd mode writes {options.crd_api_version}, which requires "
                        f"{'.'.join(path)}: add it, or write this TFrameworkConfig as "
                        f"{options.crd_api_version}",
                    )
                )
        executor = lookup(converted, ("imageBuild", "executor"), None)
        if config.api_version == V1BETA2 and executor and not missing:
            try:  # restored from the conversion annotation, not checked by the loader
                ExecutorRef.model_validate(executor)
            except ValidationError as exc:
                found.append(
                    TF001.at(
                        config,
                        ("metadata", "annotations", CONVERSION_ANNOTATION),
                        f"restores an imageBuild.executor that {options.crd_api_version} "
                        f"refuses: {exc.errors()[0]['msg']}",
                    )
                )
    return found


TS025 = rule(
    "TS025",
    WARNING,
    "TServer",
    "crd mode: the controller copies updateStrategy into the StatefulSet, which the API server "
    "refuses under OnDelete with a rollingUpdate block or with a negative partition",
    origin="tars-components",
)


def refused_statefulset_violations(stack: DocumentSet) -> list[Violation]:
    """TS025 (crd mode, warning): the v1.4.1 controller copies ``spec.k8s.updateStrategy``
    into the StatefulSet as it is. The CRD defaults ``rollingUpdate: {partition: 0}`` even
    under OnDelete, and the API server refuses a StatefulSet with OnDelete and a rollingUpdate
    block, or with a negative partition. Expand mode builds a valid one (no rollingUpdate
    under OnDelete, partition at least 0)."""
    found: list[Violation] = []
    for server in stack.servers:
        k8s = server.spec.k8s
        if k8s.daemon_set:
            continue
        strategy = k8s.update_strategy
        if strategy.type == UpdateStrategyType.ON_DELETE.value:
            found.append(
                TS025.at(
                    server,
                    "spec.k8s.updateStrategy.type",
                    "the TarsK8S v1.4.1 controller would build a StatefulSet that the API server "
                    "refuses: the CRD adds rollingUpdate {partition: 0} and the controller "
                    "copies it next to type OnDelete; use RollingUpdate with a partition, or "
                    "expand mode",
                )
            )
        elif strategy.rolling_update is not None and strategy.rolling_update.partition < 0:
            found.append(
                TS025.at(
                    server,
                    "spec.k8s.updateStrategy.rollingUpdate.partition",
                    f"the TarsK8S v1.4.1 controller would copy partition "
                    f"{strategy.rolling_update.partition} into the StatefulSet, which the API "
                    "server refuses (a partition is at least 0); write 0",
                )
            )
    return found


def _crd_pattern_violations(stack: DocumentSet) -> list[Violation]:
    """TS021 for what the TServer CRD's own patterns refuse although Kubernetes admits it:
    release images with ``@``, uppercase or ``_`` (a digest-pinned image is fine in expand
    mode), and env key references with ``.`` or ``_`` (``db.password``)."""
    crd_pattern = re.compile(P_IMAGE_OR_EMPTY)
    found: list[Violation] = []
    for server in stack.servers:
        release = server.spec.release
        if release is None:
            continue
        for field, value in (("image", release.image), ("nodeImage", release.node_image)):
            if isinstance(value, str) and crd_pattern.fullmatch(value) is None:
                found.append(
                    TS021.at(
                        server,
                        ("spec", "release", field),
                        "crd mode: the TServer CRD accepts only lowercase letters, digits and "
                        "- . / : in images (no digest '@', uppercase or '_'); use expand mode "
                        "or a tag",
                    )
                )
        for index, env in enumerate(server.spec.k8s.env or ()):
            source = env.value_from
            if source is None:
                continue
            refs = (
                ("secretKeyRef", source.secret_key_ref),
                ("configMapKeyRef", source.config_map_key_ref),
            )
            for field, ref in refs:
                if ref is not None and _CRD_KEY.fullmatch(ref.key) is None:
                    found.append(
                        TS021.at(
                            server,
                            ("spec", "k8s", "env", index, "valueFrom", field, "key"),
                            f"crd mode: the TServer CRD (v1.4.1) accepts only letters, digits "
                            f"and inner '-' in {field}.key, so the cluster refuses {ref.key!r} "
                            "(Kubernetes itself admits it: expand mode writes it as is)",
                        )
                    )
    return found


# The v1.4.1 TServer CRD's pattern of env secretKeyRef/configMapKeyRef keys: narrower than
# Kubernetes' own key rule (no '.' or '_'), which the models follow.
_CRD_KEY = re.compile(r"^([0-9A-Za-z][-0-9A-Za-z]*)?[0-9A-Za-z]$")


@check(Need.OPTIONS)
def crd_mode_violations(stack: DocumentSet, options: Options) -> list[Violation]:
    """In crd mode: what the target apiVersion requires that the documents' own version does
    not (TF001), what the controller would turn into a StatefulSet the API server refuses
    (TS025) and the plain workloads the TarsK8S webhook admits from the controller only
    (TX005)."""
    if options.mode != Mode.CRD:
        return []
    return [
        *conversion_violations(stack, options),
        *refused_statefulset_violations(stack),
        *controller_only_objects(stack),
    ]


__all__ = ["conversion_violations", "crd_mode_violations", "refused_statefulset_violations"]
