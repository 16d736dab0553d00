"""Arguments of :class:`~tars_components.components.TConfig`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..models import V1BETA3, TConfigDocument
from .args_common import build_metadata, drop_none, given_or_built, parse_built
from .scope import HasScope


@dataclass
class TConfigArgs:
    """Arguments of a :class:`~tars_components.components.TConfig`: one version of a server's
    (or an app's) config file."""

    framework: HasScope
    """The framework (namespace) the config belongs to. Required."""

    document: TConfigDocument | None = None
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

    previous: TConfigDocument | None = None
    """The config as last deployed (``tars:previousStackDir``). When it is the same
    activated version, the preview guard is not needed (see
    :class:`~tars_components.components.TConfig`). Defaults to None: every activated version
    is guarded."""

    def to_document(self, namespace: str) -> TConfigDocument:
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

        def build() -> TConfigDocument:
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
                "kind": TConfigDocument.KIND,
                "metadata": build_metadata(
                    self.name or default, namespace, self.labels, self.annotations
                ),
                **drop_none(
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
            return parse_built(raw, namespace, TConfigDocument)

        return given_or_built("TConfigArgs", self.document, fields, namespace, build)


__all__ = ["TConfigArgs"]
