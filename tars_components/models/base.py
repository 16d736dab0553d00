"""Shared model machinery: the base class, the CRD patterns, and deferred (``pulumi.Input``) values.

The core never imports Pulumi. A field that is only *placed* in the output (release image and
id, node image, env values, resource quantities) accepts either a plain value, which is checked
against the CRD pattern, or a deferred value (anything with an ``apply`` method, such as a
``pulumi.Output``, or an awaitable), which is carried through untouched and checked by the
dynamic provider once it is known.
"""

import inspect
import re
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError, PydanticUndefined

_Model = TypeVar("_Model", bound="TarsModel")


class TarsModel(BaseModel):
    """Base of every TarsK8S model: camelCase aliases, unknown fields rejected, strict types."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        strict=True,
        validate_default=False,
        arbitrary_types_allowed=True,
        use_enum_values=True,
        defer_build=True,
    )

    def to_dict(self) -> dict[str, Any]:
        """The document as YAML would carry it: camelCase keys, unset optional fields left out."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="python")

    def replaced(self: _Model, **fields: Any) -> _Model:
        """A shallow copy with ``fields`` (by field name) replaced, not validated: what
        ``model_copy(update=fields)`` gives these models, which forbid extra fields (the
        fields set updated, the private attributes copied), at a fraction of its cost (it
        copies each of the instance's dictionaries through the generic ``copy.copy``)."""
        copied = self.__class__.__new__(self.__class__)
        extra, private = self.__pydantic_extra__, self.__pydantic_private__
        if private is not None:
            private = {k: v for k, v in private.items() if v is not PydanticUndefined}
        object.__setattr__(copied, "__dict__", {**self.__dict__, **fields})
        object.__setattr__(copied, "__pydantic_extra__", None if extra is None else dict(extra))
        fields_set = self.__pydantic_fields_set__ | fields.keys()
        object.__setattr__(copied, "__pydantic_fields_set__", fields_set)
        object.__setattr__(copied, "__pydantic_private__", private)
        return copied


# Patterns of the TarsK8S CRDs (docs/rules/index.md#codes, named patterns).
P_APP = r"^[A-Za-z][0-9A-Za-z]*$"
P_DNS1123SUB = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
P_PORTNAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
P_IMAGE = r"^[\x2d-\x3a\x61-\x7a]+$"
P_IMAGE_OR_EMPTY = r"^[\x2d-\x3a\x61-\x7a]*$"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*(?::[0-9]+)?"
_PATH_PART = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
P_IMAGE_REF = rf"^(?:{_DOMAIN}/)?{_PATH_PART}(?:/{_PATH_PART})*(?::{_TAG})?(?:@{_DIGEST})?$"
"""A Kubernetes/OCI image reference (distribution/reference grammar): ``[domain[:port]/]path
[:tag][@algorithm:hex]``, so digest-pinned images (``repo@sha256:<64 hex>``) included. Used for
a TServer's release images; the TServer CRD's own pattern (:data:`P_IMAGE`, no ``@``) is
checked in crd mode. :func:`is_image_reference` adds what a regular expression cannot say."""
P_IMAGE_REF_OR_EMPTY = rf"^(?:{P_IMAGE_REF[1:-1]})?$"
P_REGISTRY = rf"^(?:(?:{_DOMAIN}/)?{_PATH_PART}(?:/{_PATH_PART})*|{_DOMAIN})?$"
"""Where images are pushed (TFrameworkConfig ``imageUpload.registry``): a repository name
without tag or digest, or a registry host alone; empty is admitted, as the CRD does."""
# A qualified name whose prefix is a DNS subdomain (Kubernetes) of at least two characters
# (the CRD's prefix pattern ``[0-9A-Za-z][-._0-9A-Za-z]*[0-9A-Za-z]/``): both must hold.
P_QUALNAME = (
    r"^(([a-z0-9][-a-z0-9]*[a-z0-9]|[a-z0-9](\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+)"
    r"(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
)
P_LABEL_KEY = (
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$"
)
"""A Kubernetes label or annotation key (a qualified name): an optional DNS-subdomain prefix and
``/``, then at most 63 letters, digits, ``-``, ``_`` and ``.``, alphanumeric at both ends."""
P_QTY = r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
P_ALNUM_DASH = r"^([0-9A-Za-z][-0-9A-Za-z]*)?[0-9A-Za-z]$"
P_SERVANT = r"^[A-Za-z][0-9A-Za-z]{0,62}$"
P_RELEASE_ID = r"^([0-9A-Za-z][-_.0-9A-Za-z]*)?[0-9A-Za-z]$"
P_SECRET = r"^([0-9a-z][-0-9a-z]*)?[0-9a-z]?(\.([0-9a-z][-0-9a-z]*)?[0-9a-z])*$"
P_LABEL_VALUE = r"^([0-9A-Za-z][-_.0-9A-Za-z]*)?[0-9A-Za-z]?$"
P_CONFIG_KEY = r"^[-._0-9A-Za-z]{1,253}$"
P_DATE_TIME = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
P_ENV_NAME = r"^[-._0-9A-Za-z]{1,63}$"
P_ENV_PREFIX = r"^[A-Za-z][_0-9A-Za-z]*$"
P_UID = r"^(0|[1-9][0-9]{0,5})$"

PATTERN_HINTS: dict[str, str] = {
    P_APP: "a letter followed by letters and digits",
    P_DNS1123SUB: "a lowercase DNS subdomain (a-z, 0-9, '-' and '.')",
    P_PORTNAME: "lowercase letters, digits and '-', not starting or ending with '-'",
    P_IMAGE: "only lowercase letters, digits and - . / : (no uppercase, '_' or '@')",
    P_IMAGE_OR_EMPTY: "only lowercase letters, digits and - . / : (no uppercase, '_' or '@')",
    P_QUALNAME: "a Kubernetes qualified name ([prefix/]name, a prefix of 2 characters or more)",
    P_IMAGE_REF: "an image reference [registry/]repository[:tag][@sha256:digest], lowercase path",
    P_IMAGE_REF_OR_EMPTY: (
        "an image reference [registry/]repository[:tag][@sha256:digest], lowercase path"
    ),
    P_REGISTRY: "a registry [host[:port]/]repository path, lowercase, without tag or digest",
    P_LABEL_KEY: "a qualified name [prefix/]name, the name at most 63 characters",
    P_QTY: "a Kubernetes quantity such as 500m or 2Gi",
    P_ALNUM_DASH: "letters, digits and '-', not starting or ending with '-'",
    P_SERVANT: "a letter followed by up to 62 letters and digits",
    P_RELEASE_ID: "letters, digits, '-', '_' and '.', starting and ending alphanumeric",
    P_SECRET: "lowercase letters, digits, '-' and '.' (the CRD's secret name pattern)",
    P_LABEL_VALUE: "a label value: letters, digits, '-', '_' and '.', starting alphanumeric",
    P_CONFIG_KEY: "1 to 253 letters, digits, '-', '.' and '_'",
    P_DATE_TIME: "an RFC 3339 date-time such as 2024-01-02T03:04:05Z",
    P_ENV_NAME: "1 to 63 letters, digits, '-', '.' and '_'",
    P_ENV_PREFIX: "a letter followed by letters, digits and '_'",
    P_UID: "a decimal number from 0 to 999999 without leading zeros",
}
"""Plain-language descriptions of the patterns, for violation messages."""


def pattern(regex: str, max_length: int | None = None) -> Any:
    """A strict string constrained by a CRD pattern (and maximum length)."""
    return Field(pattern=regex, max_length=max_length)


# Field defaults use these rather than ``default_factory=list``/``dict``: pydantic asks
# inspect.signature() whether a factory takes the validated data, and for a builtin type that
# compiles the tokenize module's regular expressions (about 3 ms of every CLI start-up).
def new_list() -> list[Any]:
    """A new empty list: the default of a list field."""
    return []


def new_dict() -> dict[str, Any]:
    """A new empty mapping: the default of a mapping field."""
    return {}


def is_deferred(value: object) -> bool:
    """True for values that are not known yet (``pulumi.Output``, awaitables)."""
    return callable(getattr(value, "apply", None)) or inspect.isawaitable(value)


_IMAGE_REF = re.compile(P_IMAGE_REF)
_REGISTRY = re.compile(P_REGISTRY)
_NAME_MAX = 255  # distribution/reference: a repository name (domain and path) is at most this
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}


def is_image_reference(value: str) -> bool:
    """True for an image reference a container runtime can pull: the whole string matches
    :data:`P_IMAGE_REF` (a trailing newline does not), the repository name is at most 255
    characters, and a ``sha256``/``sha384``/``sha512`` digest has that algorithm's length in
    lowercase hex."""
    if _IMAGE_REF.fullmatch(value) is None:
        return False
    name, _, digest = value.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name = name[:colon]
    if len(name) > _NAME_MAX:
        return False
    if digest:
        algorithm, _, encoded = digest.partition(":")
        length = _DIGEST_LENGTHS.get(algorithm)
        if length is not None and (len(encoded) != length or encoded != encoded.lower()):
            return False
    return True


def is_registry(value: str) -> bool:
    """True for a push target (:data:`P_REGISTRY`): a repository name without tag or digest,
    or a registry host alone, at most 255 characters; or the empty string."""
    return len(value) <= _NAME_MAX and _REGISTRY.fullmatch(value) is not None


def _mismatch(regex: str) -> PydanticCustomError:
    return PydanticCustomError(
        "string_pattern_mismatch", "String should match pattern '{pattern}'", {"pattern": regex}
    )


def _image_after(value: str) -> str:
    if value and not is_image_reference(value):
        raise _mismatch(P_IMAGE_REF)
    return value


def _registry_after(value: str) -> str:
    if not is_registry(value):
        raise _mismatch(P_REGISTRY)
    return value


ImageReferenceCheck = AfterValidator(_image_after)
"""Added to a string field already constrained by a CRD pattern: a non-empty value must also
be an image reference (:func:`is_image_reference`), reported as a mismatch of
:data:`P_IMAGE_REF`."""

RegistryCheck = AfterValidator(_registry_after)
"""Added to a registry field: the value must be :func:`is_registry`, reported as a mismatch
of :data:`P_REGISTRY`."""


def _placed_validator(
    regex: str | None, max_length: int | None, integers: bool = False
) -> PlainValidator:
    compiled = re.compile(regex) if regex else None
    images = regex in (P_IMAGE_REF, P_IMAGE_REF_OR_EMPTY)

    def validate(value: Any) -> Any:
        if is_deferred(value):
            return value
        if integers and isinstance(value, int) and not isinstance(value, bool):
            return value
        if not isinstance(value, str):
            raise PydanticCustomError("string_type", "Input should be a valid string")
        if max_length is not None and len(value) > max_length:
            raise PydanticCustomError(
                "string_too_long",
                "String should have at most {max_length} characters",
                {"max_length": max_length},
            )
        if compiled is not None and compiled.fullmatch(value) is None:
            raise _mismatch(regex or "")
        if images and value and not is_image_reference(value):
            raise _mismatch(regex or "")
        return value

    return PlainValidator(validate)


def _placed_schema(
    regex: str | None, max_length: int | None, integers: bool = False
) -> WithJsonSchema:
    """What the editor schema (``tars-components schema``) says of a placed field: the string
    it takes in a file (an Output only exists in a program)."""
    text: dict[str, Any] = {"type": "string"}
    if regex:
        text["pattern"] = regex
    if max_length is not None:
        text["maxLength"] = max_length
    return WithJsonSchema({"anyOf": [{"type": "integer"}, text]} if integers else text)


_AS_IS = PlainSerializer(lambda v: v, return_type=Any)

Quantity = Annotated[Any, _placed_validator(P_QTY, None), _placed_schema(P_QTY, None), _AS_IS]
"""A Kubernetes quantity (``500m``, ``2G``) or a deferred value."""

IntOrQuantity = Annotated[
    Any,
    _placed_validator(P_QTY, None, integers=True),
    _placed_schema(P_QTY, None, integers=True),
    _AS_IS,
]
"""A quantity of an ``x-kubernetes-int-or-string`` field: an integer, a quantity string, or a
deferred value."""

PlacedStr = Annotated[Any, _placed_validator(None, None), _placed_schema(None, None), _AS_IS]
"""Any string, or a deferred value."""

PlacedReleaseId = Annotated[
    Any, _placed_validator(P_RELEASE_ID, 63), _placed_schema(P_RELEASE_ID, 63), _AS_IS
]
"""A release id (``P_RELEASE_ID``, at most 63 characters) or a deferred value."""

PlacedImage = Annotated[
    Any, _placed_validator(P_IMAGE_REF, 500), _placed_schema(P_IMAGE_REF, 500), _AS_IS
]
"""An image reference (``P_IMAGE_REF``, digests included) or a deferred value."""

PlacedImageOrEmpty = Annotated[
    Any,
    _placed_validator(P_IMAGE_REF_OR_EMPTY, 500),
    _placed_schema(P_IMAGE_REF_OR_EMPTY, 500),
    _AS_IS,
]
"""An image reference, the empty string, or a deferred value."""
