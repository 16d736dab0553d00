"""The tkestack TApp of a server (``--workload tapp``, docs/concepts/rollout.md).

``apps.tkestack.io/v1`` ``TApp`` (fields of the TApp Go types: ``replicas``, ``selector``,
``template``, ``templatePool``, ``templates``, ``statuses``, ``updateStrategy``,
``serviceName``, ``volumeClaimTemplates``, ``defaultTemplateName`` and the switches
``forceDeletePod``, ``neverMigrate``, ``autoDeleteUnusedTemplate``) built from the same pod
template and claim templates as the StatefulSet of :mod:`.statefulset`. Instances are ids
``"0"`` to ``"R-1"``, as StatefulSet ordinals. A Rollout's versions are pool templates named
after their release ids (:func:`_versions`): at a partial step the default ``template`` is the
stable release and the step's instances take the TServer's release through ``templates``;
pinned instances take their own release; TApp updates an instance in place when only its
image changes. Stopped instances are ``statuses: Killed``. Without a Rollout, at its last
step without ``maxUnavailable``, or on abort, the ``template`` is the release to run and only
pinned instances have pool templates. The switches come from the TServer's
``tars-components.io/tapp`` annotation (:mod:`tars_components.models.tapp`).
"""

from __future__ import annotations

from typing import Any

from ..models import TFrameworkConfigDocument, TServerDocument
from ..models.rollout import RolloutStep
from ..models.tapp import TAppSettings, tapp_settings
from ..settings.options import Options
from .awaits import WAIT_FOR_ANNOTATION
from .pod import build_pod_template
from .statefulset import build_statefulset

TAPP_API_VERSION = "apps.tkestack.io/v1"
"""The apiVersion of tkestack's TApp."""

KILLED = "Killed"
"""The desired instance status that stops one instance (``spec.statuses``)."""

CANARY_TEMPLATE = "canary"
"""The pool template's name when the release id is not known yet (a Pulumi Output)."""


def build_tapp(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    step: RolloutStep | None = None,
) -> dict[str, object]:
    """The TApp of a StatefulSet server (see the module docstring), at ``step`` of its
    Rollout, if one holds it."""
    statefulset = build_statefulset(server, framework, options, step)
    source: dict[str, Any] = dict(statefulset["spec"])  # type: ignore[call-overload]
    spec: dict[str, Any] = {
        "replicas": source["replicas"],
        "selector": source["selector"],
        "template": source["template"],
        "serviceName": source["serviceName"],
    }
    if "volumeClaimTemplates" in source:
        spec["volumeClaimTemplates"] = source["volumeClaimTemplates"]
    settings = tapp_settings(server.metadata.annotations)
    spec.update(settings.fields())
    if step is not None:
        _versions(spec, server, framework, options, step, settings)
        if step.rollout.stopped:
            spec["statuses"] = {str(ordinal): KILLED for ordinal in step.rollout.stopped}
    meta = dict(statefulset["metadata"])  # type: ignore[call-overload]
    # a TApp has no status.updatedReplicas to wait for: no pulumi.com/waitFor
    annotations = {
        k: v for k, v in (meta.pop("annotations", None) or {}).items() if k != WAIT_FOR_ANNOTATION
    }
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": TAPP_API_VERSION, "kind": "TApp", "metadata": meta, "spec": spec}


def _on(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    release_id: str,
    image: str,
) -> dict[str, object]:
    """The pod template of ``server`` on another release (its image and ``tars.io/ServerID``)."""
    release = server.spec.release
    assert release is not None
    other = server.replaced(
        spec=server.spec.replaced(release=release.replaced(id=release_id, image=image))
    )
    return build_pod_template(other, framework, options, daemon=False)


def _versions(
    spec: dict[str, Any],
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    step: RolloutStep,
    settings: TAppSettings,
) -> None:
    """The Rollout's versions as TApp keeps them: a pool template per release besides the
    default ``template``, ``templates`` naming each instance's, and the rolling update of the
    release's template.

    * a partial step: ``template`` is the stable release, the TServer's release is the pool
      entry named after its id, given to the step's instances (``spec.order`` first);
    * ``maxUnavailable``: ``updateStrategy.template`` names the release's entry, which TApp
      needs to apply it (without it TApp updates every instance of a template at once); so
      at a full step too the release is a pool entry given to every instance;
    * ``spec.pinned``: one entry per pinned release, given to its instances (third versions);
    * ``defaultTemplate=release`` (the ``tars-components.io/tapp`` annotation): scale-outs
      take the release's entry (``defaultTemplateName``), not the default template.
    """
    release, rollout = server.spec.release, step.rollout
    if release is None:
        return
    name = release.id if isinstance(release.id, str) else CANARY_TEMPLATE
    pool: dict[str, object] = {}
    templates: dict[int, str] = {}
    for ordinal, release_id, image in rollout.pinned:
        if ordinal < step.replicas:
            pool[release_id] = _on(server, framework, options, release_id, image)
            templates[ordinal] = release_id
    partial = not rollout.abort and step.partition > 0
    rolling = rollout.max_unavailable is not None and not rollout.abort
    if partial or rolling:
        pool[name] = spec["template"]
        templates.update(dict.fromkeys(step.updated, name))
        if partial:
            spec["template"] = _on(
                server, framework, options, rollout.stable_id, rollout.stable_image
            )
    if rolling:
        spec["updateStrategy"] = {"template": name, "maxUnavailable": rollout.max_unavailable}
    if pool:
        spec["templatePool"] = pool
        spec["templates"] = {str(o): templates[o] for o in sorted(templates)}
        if settings.default_template == "release" and name in pool:
            spec["defaultTemplateName"] = name


__all__ = ["KILLED", "TAPP_API_VERSION", "build_tapp"]
