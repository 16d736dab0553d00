"""``tars:index:TDeploy``: a TDeploy request of a stack (docs/concepts/tdeploy.md).

The request deploys nothing itself: an approved request's ``apply`` is deployed by the
:class:`~tars_components.components.TServer` that :func:`components_from_stack` declares for
it, which depends on this component's validation resource. That resource keeps the request in
the Pulumi state, so its provider compares every later version of the request with the one last
deployed, without a previous stack directory: a request created with its own ``approve``
(TD001), an ``apply`` changed after the decision (TD002) and a changed ``approve`` (TD008) fail
a plain ``pulumi preview``.
"""

from __future__ import annotations

import pulumi

from ..models.tdeploy import Request
from ..provider import TarsValidation, ValidationInputs, document_text
from .outputs import known
from .server import TServer

TYPE_TOKEN = "tars:index:TDeploy"


class TDeploy(pulumi.ComponentResource):
    """One TDeploy request and its state.

    Outputs: ``request_name``, ``namespace``, ``server_name`` (the TServer an approval
    deploys, ``lower(app)-lower(server)``) and ``state``: ``pending``, ``rejected``, or, for
    an approved request, ``deployed`` once its server's objects exist (unknown in the preview
    that approves it, known in every later one).
    """

    request_name: pulumi.Output[str]
    """``metadata.name`` of the request."""
    namespace: pulumi.Output[str]
    """The request's namespace."""
    server_name: pulumi.Output[str]
    """The TServer the request deploys once approved."""
    state: pulumi.Output[str]
    """``pending``, ``rejected`` or ``deployed``."""

    def __init__(
        self, resource_name: str, request: Request, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Register the request's validation (``request``: as loaded with its stack; no
        Kubernetes object, so no provider); an approved request's state is set by
        :meth:`deploys` (its server is declared after it, since it waits for it)."""
        opts = opts or pulumi.ResourceOptions()
        super().__init__(TYPE_TOKEN, resource_name, None, opts)
        self.request = request
        self.validation = TarsValidation(
            f"{resource_name}-request-validation",  # not the server's "-validation"
            ValidationInputs(
                document=document_text(dict(request.document)) or dict(request.document),
                namespace=request.namespace,
            ),
            pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on),
        )
        """The validation resource that keeps the request in the state; the server of an
        approved request depends on it."""
        self.request_name = known(request.name)
        self.namespace = known(request.namespace)
        self.server_name = known(request.server_name)
        self.state = known(request.state)
        if request.state != "approved":
            self._register()

    def deploys(self, server: TServer) -> None:
        """Record the TServer that deploys the approved request: ``state`` is ``deployed``
        once its Kubernetes objects exist."""
        ids = [resource.id for resource in server.resources.values()]
        self.state = pulumi.Output.all(self.validation.id, *ids).apply(lambda _: "deployed")
        self._register()

    def _register(self) -> None:
        self.register_outputs(
            {
                "requestName": self.request_name,
                "namespace": self.namespace,
                "serverName": self.server_name,
                "state": self.state,
            }
        )


__all__ = ["TDeploy"]
