"""A credential of a stack document: a reference to a Pulumi config secret
(``{configSecret: KEY}``), a deferred value (a ``pulumi.Output``, typically a secret) or a
plain string. TAccount passwords (docs/concepts/namespace.md#taccount-credentials) and
TFrameworkConfig ``expand`` values take one.
"""

from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from .base import TarsModel, is_deferred, pattern

P_CONFIG_KEY = r"^[A-Za-z0-9][-_.A-Za-z0-9]*$"


class SecretRef(TarsModel):
    """A reference to a Pulumi config secret: ``{configSecret: KEY}`` names ``tars:KEY``
    (set with ``pulumi config set --secret tars:KEY``)."""

    config_secret: Annotated[str, pattern(P_CONFIG_KEY, 200)]


def _credential(value: Any) -> Any:
    """A :class:`SecretRef` from ``{configSecret: KEY}``, a deferred value as is, or a string."""
    if isinstance(value, SecretRef) or is_deferred(value) or isinstance(value, str):
        return value
    if isinstance(value, dict):
        return SecretRef.model_validate(value)
    raise PydanticCustomError(
        "credential_type", "must be a string or a mapping {configSecret: KEY}"
    )


_SECRET_REF_SCHEMA = {
    "type": "object",
    "properties": {"configSecret": {"type": "string", "pattern": P_CONFIG_KEY, "maxLength": 200}},
    "required": ["configSecret"],
    "additionalProperties": False,
}

Credential = Annotated[
    Any,
    PlainValidator(_credential),
    PlainSerializer(lambda v: v.to_dict() if isinstance(v, SecretRef) else v, return_type=Any),
    WithJsonSchema({"anyOf": [{"type": "string"}, _SECRET_REF_SCHEMA]}),
]
"""A secret reference, a deferred value (``pulumi.Output``), or a plain string."""


__all__ = ["P_CONFIG_KEY", "Credential", "SecretRef"]
