"""Typed values of the ``tarscontroller`` and ``tarsframework`` 1.4.1 charts.

The charts' own values files are accepted unchanged, partial ones included: what a file leaves
out takes the chart default. Besides what ``values.schema.json`` declares, the models carry the
values the templates use without declaring them (``crds.servers``, ``crds.storage``,
``agent.tlv_in_host``, ``controller.secret``, ``elk.nodes``, ``web``).

Stricter than helm, on purpose: the ``_FRAMEWORK_REGISTRY_``-style placeholders of the
published values files (which helm renders into image names nobody can pull) and an empty
``upload.registry`` are refused. Every problem is reported as ``FILE:LINE: field: message`` in
one :class:`~tars_components.kernel.errors.UsageError` (exit 2 at the CLI).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator

from ..kernel.errors import UsageError
from ..kernel.limits import Limits
from ..kernel.paths import format_path
from ..kernel.yaml_reader import YamlLimitError, YamlLoader, describe_yaml_error, load_documents
from ..secrets.redaction import MASK, names_secret, quote

# values.schema.json of both charts
REGISTRY_PATTERN = r"^[\w.~%-]+(:\d{1,5})?(/[\w.~%-]+){0,5}$"
SECRET_PATTERN = r"^([\da-z][-\da-z]*)?[\da-z]?(\.([\da-z][-\da-z]*)?[\da-z])*$"
PLACEHOLDER = re.compile(r"^_[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_$")
"""``_FRAMEWORK_REGISTRY_``, ``_CONTROLLER_TAG_``, ``_CRD_SERVED_VERSIONS_``, ..."""

CrdVersion = Literal["v1beta1", "v1beta2", "v1beta3"]
CRD_VERSIONS: tuple[CrdVersion, ...] = ("v1beta1", "v1beta2", "v1beta3")
DEFAULT_CRD_SERVERS: tuple[CrdVersion, ...] = ("v1beta2", "v1beta3")
"""What the K8SFramework 1.4.1 build writes into the chart (``_CRD_SERVED_VERSIONS_``); the
chart's own values.yaml holds only the placeholder."""
DEFAULT_CRD_STORAGE: CrdVersion = "v1beta3"
DEFAULT_TLV_IN_HOST = "/usr/local/app/tars/host-mount"
DEFAULT_ELK_NODES = ("tars-elasticsearch:9200",)


def _no_placeholder(value: str) -> str:
    if PLACEHOLDER.match(value):
        raise ValueError(
            f"{quote(value)} is a placeholder of the published values file: set the real value"
        )
    return value


class _Values(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


def _null_is_empty(value: Any) -> Any:
    # helm renders a null like an empty value (``{{ if .Values.x }}`` is false)
    return "" if value is None else value


class ImageSource(_Values):
    """Where a chart's images come from: ``<registry>/<image>:<tag>``, pulled with ``secret``."""

    registry: StrictStr = Field(pattern=REGISTRY_PATTERN)
    tag: StrictStr = Field(min_length=1)
    secret: StrictStr = Field(default="", max_length=253, pattern=SECRET_PATTERN)

    @field_validator("registry", "tag", "secret")
    @classmethod
    def _placeholder(cls, value: str) -> str:
        return _no_placeholder(value)

    _null_secret = field_validator("secret", mode="before")(_null_is_empty)

    def image(self, name: str) -> str:
        """``<registry>/<name>:<tag>``, as the charts spell every image."""
        return f"{self.registry}/{name}:{self.tag}"


class Crds(_Values):
    """``crds.servers`` (served versions) and ``crds.storage`` of the controller chart's CRDs."""

    servers: tuple[CrdVersion, ...] = DEFAULT_CRD_SERVERS
    storage: CrdVersion = DEFAULT_CRD_STORAGE

    @field_validator("servers", "storage", mode="before")
    @classmethod
    def _placeholder(cls, value: Any) -> Any:
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, str):
                _no_placeholder(item)
        return value


class Agent(_Values):
    """``agent.tlv_in_host``: the host directory of tLocalVolume data (tarsagent)."""

    tlv_in_host: StrictStr = Field(default=DEFAULT_TLV_IN_HOST, pattern=r"^/")


class ControllerValues(_Values):
    """Values of the ``tarscontroller`` chart."""

    controller: ImageSource
    crds: Crds = Crds()
    agent: Agent = Agent()


class Upload(_Values):
    """``upload``: where tarsimage pushes the images it builds."""

    registry: StrictStr = Field(pattern=REGISTRY_PATTERN)
    secret: StrictStr = Field(default="", max_length=253, pattern=SECRET_PATTERN)

    _null_secret = field_validator("secret", mode="before")(_null_is_empty)

    @field_validator("registry", mode="before")
    @classmethod
    def _empty(cls, value: Any) -> Any:
        if value == "" or value is None:
            raise ValueError(
                "must not be empty: tarsimage pushes the images it builds there, so set it "
                "(e.g. registry.example.com/tars-upload)"
            )
        return value

    @field_validator("registry", "secret")
    @classmethod
    def _placeholder(cls, value: str) -> str:
        return _no_placeholder(value)


class Elk(_Values):
    """``elk.nodes``: Elasticsearch ``host:port`` lines for tars.es and tarslog."""

    nodes: tuple[StrictStr, ...] = DEFAULT_ELK_NODES

    @field_validator("nodes", mode="before")
    @classmethod
    def _null_nodes(cls, value: Any) -> Any:
        return () if value is None else value


class FrameworkValues(_Values):
    """Values of the ``tarsframework`` chart."""

    framework: ImageSource
    upload: Upload
    web: StrictStr = ""
    elk: Elk = Elk()

    _null_web = field_validator("web", mode="before")(_null_is_empty)

    @field_validator("elk", mode="before")
    @classmethod
    def _null_elk(cls, value: Any) -> Any:
        return {"nodes": ()} if value is None else value


Model = TypeVar("Model", ControllerValues, FrameworkValues)


def parse_values(text: str, model: type[Model], file: str = "<values>") -> Model:
    """Values from the text of a values file (pure), read within the default input limits
    (:class:`~tars_components.kernel.limits.Limits`: nesting, alias expansion). Raises
    :class:`UsageError` listing every problem as ``FILE:LINE: field: message``."""
    try:
        documents = load_documents(text, Limits())
    except yaml.YAMLError as exc:
        line, message = describe_yaml_error(exc)
        raise UsageError(f"{file}:{line}: invalid YAML: {message}") from None
    except YamlLimitError as exc:
        raise UsageError(f"{file}:{exc.line or 1}: {exc.message}") from None
    if len(documents) > 1:
        raise UsageError(f"{file}:1: a values file is one YAML document, got {len(documents)}")
    data = documents[0] if documents else None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise UsageError(f"{file}:1: a values file is a mapping, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        root = yaml.compose(text, Loader=YamlLoader)  # within the limits: checked above
        problems = []
        for error in exc.errors():
            path = tuple(error["loc"])
            problems.append((_line(root, path), f"{_dotted(path)}: {_message(error)}"))
        lines = [f"{file}:{line}: {text}" for line, text in sorted(problems)]
        raise UsageError("invalid values:\n" + "\n".join(lines)) from None


def values_from_mapping(data: Mapping[str, Any], model: type[Model]) -> Model:
    """Values from a mapping (the Pulumi components' args). Raises :class:`UsageError`."""
    try:
        return model.model_validate(dict(data))
    except ValidationError as exc:
        problems = [f"{_dotted(tuple(e['loc']))}: {_message(e)}" for e in exc.errors()]
        raise UsageError("invalid values: " + "; ".join(problems)) from None


def _dotted(path: tuple[Any, ...]) -> str:
    return format_path(part if isinstance(part, int) else str(part) for part in path)


def _message(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    if kind == "missing":
        return "required (the chart has no usable default)"
    if kind == "string_type":
        return f"must be a string, got {_shown(error)} (quote it in YAML)"
    if kind == "string_pattern_mismatch":
        return f"{_shown(error)} does not match the chart's schema pattern"
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def _shown(error: Mapping[str, Any]) -> str:
    """The value of one error as a message may show it: a scalar quoted with its secrets
    masked, a mapping or list by its type only (a values file holds registry passwords, and
    the line the message points at is where the value is)."""
    value, path = error.get("input"), tuple(str(p) for p in error["loc"])
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if any(names_secret(part) for part in path):
        return MASK
    return quote(value, path)


def _line(node: yaml.Node | None, path: tuple[Any, ...]) -> int:
    """1-based line of the deepest node of ``path`` present in the composed document."""
    if node is None:
        return 1
    line = node.start_mark.line + 1
    for part in path:
        found: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if getattr(key, "value", None) == part:
                    found = value
                    line = key.start_mark.line + 1
                    break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            found = node.value[part]
            line = found.start_mark.line + 1
        if found is None:
            break
        node = found
    return line
