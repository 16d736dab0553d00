"""``tars:index:TConfig``: one version of a server's (or an app's) config file.

**TConfig and previews.** The TConfig webhook deactivates the live version when a new
activated version is admitted (create, or an update from deactivated to activated), even in
a server-side dry run, which ``pulumi preview`` sends. So in a preview an activated TConfig
whose activation is not already deployed carries ``activated`` as an unknown value:
pulumi-kubernetes sends no request for a resource whose inputs are not known in a preview
(no dry run, no webhook call), and ``pulumi up`` applies the real value.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, overload

import pulumi

from ..models import TConfig as TConfigDocument
from .args import TConfigArgs, split_args
from .document import DocumentComponent
from .failure import refusing
from .scope import HasScope


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


class TConfig(DocumentComponent):
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


__all__ = ["TConfig", "unknown_in_preview"]
