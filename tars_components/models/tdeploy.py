"""The TDeploy deployment request (docs/concepts/tdeploy.md): ``apply`` holds a TServer
spec, ``approve`` says whether a named person approved it.

TarsK8S removed the kind (no CRD since 2022); tars-components keeps the idea as a stack source:
an approved request deploys its ``apply`` as a TServer, a pending or rejected one deploys
nothing (:mod:`tars_components.loading.tdeploy`). ``apply`` is validated as a TServer spec when the
request is approved; this model checks the request's own fields.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import Field

from .base import TarsModel, pattern
from .document import Document, Source

P_APPROVER = r"^[A-Za-z][0-9A-Za-z_.-]{0,15}$"


class Approve(TarsModel):
    """``approve``: who decided, when, why, and the decision (all four required)."""

    person: Annotated[str, pattern(P_APPROVER)]
    time: str
    reason: Annotated[str, Field(max_length=300)]
    result: bool


class TDeployDocument(Document):
    """A deployment request (``kind: TDeploy``, ``k8s.tars.io/v1beta2`` or ``v1beta3``)."""

    KIND: ClassVar[str] = "TDeploy"

    apply: dict[str, Any]
    approve: Approve | None = None
    deployed: bool | None = None

    @property
    def state(self) -> str:
        """``pending`` (no ``approve``), ``approved`` or ``rejected``."""
        if self.approve is None:
            return "pending"
        return "approved" if self.approve.result else "rejected"


@dataclass(frozen=True)
class Request:
    """One TDeploy of a stack, whatever its state (pending, approved, rejected)."""

    namespace: str
    name: str
    state: str
    apply: Mapping[str, Any]
    approve: Mapping[str, Any] | None
    server_name: str
    """``lower(apply.app)-lower(apply.server)`` (empty when apply lacks them)."""
    source: Source | None = field(default=None, compare=False)
    has_deployed: bool = False
    """The request carries ``deployed`` (the controller's field)."""
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The request as written (``apiVersion``, ``kind``, ``metadata``, ``apply``, ``approve``,
    ``deployed``), for the validation resource of the Pulumi program."""

    @property
    def kind(self) -> str:
        """``TDeploy`` (so that a request can be reported like a document)."""
        return TDeployDocument.KIND
