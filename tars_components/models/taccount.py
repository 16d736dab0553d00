"""The TAccount custom resource (docs/concepts/namespace.md#taccount-credentials): a TarsWeb user
account.

Credentials never appear in a stack file in plaintext. ``spec.authentication.password`` and
``bcryptPassword`` each accept a :class:`SecretRef` (``{configSecret: KEY}``), resolved from
the Pulumi config secret ``tars:KEY`` when the program runs; a deferred value (a
``pulumi.Output``, typically a secret); or, discouraged (warning TA005), a plain string.
The mutating webhook replaces a password by its bcrypt hash (M-TA1); see
:mod:`tars_components.secrets.hashing` for what the offline render writes instead.
"""

from enum import Enum
from typing import Annotated, Any, ClassVar

from pydantic import Field, model_validator

from .base import TarsModel, pattern
from .credential import Credential
from .document import Document
from .kube import Lax

P_USERNAME = r"^[\x21-\x7e\p{Han}]*$"
P_TOKEN_NAME = r"^[\x21-\x7e]*$"
P_PASSWORD = r"^[\x21-\x7e]{6,32}$"
BCRYPT_LENGTH = 60


class Role(str, Enum):
    """A TarsWeb role."""

    ADMIN = "admin"
    OPERATOR = "operator"
    DEVELOPER = "developer"


class Token(TarsModel):
    """A TarsWeb login token (written by TarsWeb; reset by the webhook, M-TA2/M-TA3)."""

    name: Annotated[str, pattern(P_TOKEN_NAME), Field(min_length=2, max_length=32)]
    content: Annotated[str, Field(max_length=8092)]
    update_time: str | None = None
    expiration_time: str
    valid: bool = True


class Authentication(TarsModel):
    """``spec.authentication``: ``password`` or ``bcryptPassword`` (the password wins)."""

    password: Credential | None = None
    bcrypt_password: Credential | None = None
    activated: bool = False
    tokens: list[Token] | None = None

    @model_validator(mode="before")
    @classmethod
    def _password_wins(cls, data: Any) -> Any:
        """v1.4.1's mutating webhook runs before the schema: given a ``password`` it writes
        ``bcryptPassword`` from it (replacing any there) and drops the password, on create
        and on update, so both together are admitted and the password wins."""
        if isinstance(data, dict) and data.get("password") is not None:
            for key in ("bcryptPassword", "bcrypt_password"):
                if data.get(key) is not None:
                    data = {k: v for k, v in data.items() if k != key}
        return data

    @model_validator(mode="after")
    def _one_credential(self) -> "Authentication":
        """The CRD's oneOf: exactly one of password and bcryptPassword; a literal bcrypt hash
        has exactly 60 characters. Messages never quote the value."""
        if (self.password is None) == (self.bcrypt_password is None):
            raise ValueError("exactly one of password and bcryptPassword is required")
        hashed = self.bcrypt_password
        if isinstance(hashed, str) and len(hashed) != BCRYPT_LENGTH:
            raise ValueError(f"bcryptPassword must have exactly {BCRYPT_LENGTH} characters")
        return self


class Authorization(TarsModel):
    """One role grant; ``flag`` scopes it (``*`` or ``App.Server`` patterns)."""

    role: Annotated[Role, Lax]
    """The role granted. Required."""
    flag: Annotated[str, Field(max_length=1600)]
    """What it applies to (``*``, an app, ``app.server``). Required."""
    update_time: str | None = None
    """When it was last changed (written by TarsWeb)."""


class TAccountSpec(TarsModel):
    """``spec`` of a TAccount. ``metadata.name`` is the MD5 hex of ``username`` (TA001)."""

    username: Annotated[str, pattern(P_USERNAME), Field(min_length=2, max_length=16)]
    extra: list[Annotated[str, Field(max_length=1024)]] | None = None
    authentication: Authentication
    authorization: list[Authorization]


class TAccountDocument(Document):
    """A TarsWeb account (``kind: TAccount``)."""

    KIND: ClassVar[str] = "TAccount"

    spec: TAccountSpec
