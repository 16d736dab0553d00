"""What can go wrong reading a cluster."""

from __future__ import annotations


class LiveReadError(Exception):
    """The cluster could not be read: no kubeconfig or context, unreachable, refused. The
    message names the context or the request and never a credential."""


__all__ = ["LiveReadError"]
