"""Generate ``tars_components/polyglot/types.py``: the argument types of the multi-language
components, from which Pulumi's analyzer infers ``plugin/schema.json``
(docs/pulumi/multi-language.md):

* one TypedDict per document section the components take (``Servant``, ``K8sSpec``, …), from
  the pydantic models: their fields of the served version (:data:`VERSION`) under their
  camelCase keys, which are required, and the descriptions, the first paragraph of each
  model's and each field's docstring. In the TServer sections (``INPUT_ROOTS`` of
  ``tools/gen_argsdicts.py``) every leaf is a ``pulumi.Input`` (an enum's a
  ``pulumi.Input[str]``) but the ``PLAIN_FIELDS``; a Kubernetes structure (:data:`OPAQUE`) is
  an object as in YAML;
* one ``...Args`` TypedDict per component (:data:`SURFACES`), from the fields of its
  arguments dataclass that the multi-language surface takes: their types (a section as its
  TypedDict, an enum as itself, another component as the string that names it) and whether
  they are required there; their descriptions, written for every language, are here.

Usage: ``python tools/gen_polyglot_types.py`` rewrites the file (formatted by ruff);
``python tools/gen_polyglot_types.py --check`` says, in one line, when the file is not what it
would write (exit 1). A test runs the check.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import inspect
import re
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # gen_argsdicts, when imported

import pulumi
from gen_argsdicts import (
    ENVELOPE,
    INPUT_ROOTS,
    PLAIN_FIELDS,
    PLAIN_ROOTS,
    args_dict_name,
    formatted,
    model_of,
    yaml_key,
)
from pydantic import BaseModel

import tars_components.models as models
from tars_components.components import (
    TAccountArgs,
    TConfigArgs,
    TFrameworkArgs,
    TImageArgs,
    TServerArgs,
    TTemplateArgs,
    TTreeArgs,
)
from tars_components.components.platform import TarsControllerArgs, TarsFrameworkInstallArgs
from tars_components.components.scope import HasScope
from tars_components.loading.documents import VERSION_ONLY_FIELDS, VERSION_REQUIRED_FIELDS
from tars_components.models import (
    KINDS,
    V1BETA3,
    Authorization,
    Business,
    EnvFromSource,
    EnvVar,
    ExecutorRef,
    HostPort,
    ImageRef,
    ImageRelease,
    K8sSpec,
    Mount,
    NodeSelectorRequirement,
    NormalSpec,
    RegistryRef,
    Release,
    Resources,
    Servant,
    ServerPort,
    TarsModel,
    TarsSpec,
    TFrameworkConfigDocument,
    TreeApp,
    UpdateStrategy,
)
from tars_components.models.kube import EnvVarSource
from tars_components.models.tframework import ImageBuild, RecordLimit, UpChainEndpoint
from tars_components.settings.options import Options

REPO = Path(__file__).resolve().parents[1]
"""The project's root."""

TYPES = REPO / "tars_components" / "polyglot" / "types.py"
"""The generated module."""

VERSION = V1BETA3
"""The apiVersion of the documents the multi-language components build: their sections have
this version's fields (``readinessGates``, ``imageUpload``) and its required ones."""

DOCUMENTS: dict[type[BaseModel], tuple[str, str]] = {
    TFrameworkConfigDocument: (
        "FrameworkConfig",
        "The namespace's ``tars-framework`` TFrameworkConfig, as its fields "
        f"({VERSION.rsplit('/', 1)[1]}).",
    ),
}
"""Documents taken as their fields (no apiVersion, kind or metadata): the TypedDict's name and
description."""

SAME_SHAPE: dict[type[BaseModel], type[BaseModel]] = {ExecutorRef: ImageRef}
"""Models typed with the TypedDict of another model with the same fields: the image builder
is an image and its pull secret."""

OPAQUE: tuple[type[BaseModel], ...] = (
    EnvVarSource,
    EnvFromSource,
    Mount,
    NodeSelectorRequirement,
    Resources,
    UpdateStrategy,
)
"""Kubernetes structures taken as in YAML: a ``pulumi.Input[dict[str, Any]]`` each."""

LEFT_OUT: set[tuple[type[BaseModel], str]] = {
    (Business, "create_time"),
    (Business, "create_person"),
    (TreeApp, "create_time"),
    (TreeApp, "create_person"),
    (Authorization, "update_time"),
}
"""Fields the multi-language surface leaves to TarsWeb, which writes them."""


SECTIONS: dict[type[BaseModel], str] = {
    EnvVar: "An environment variable of the server's container: ``spec.k8s.env[]``.",
    Authorization: "One authorization of a TAccount: ``authorization[]``.",
    ImageRef: "An image and its pull secret.",
    RegistryRef: "A registry and its push secret.",
    ImageBuild: "How TarsK8S builds server images: ``imageBuild``.",
    RecordLimit: "How much history the framework keeps: ``recordLimit`` (each 10 to 100).",
    UpChainEndpoint: (
        "An endpoint outside the cluster that a Tars service calls: ``upChain.<name>[]``."
    ),
    ImageRelease: "One release of a TImage: ``releases[]``.",
    Servant: "One servant (Tars object) of a Tars server: ``spec.tars.servants[]``.",
    ServerPort: "A plain port of a server: ``spec.tars.ports[]`` or ``spec.normal.ports[]``.",
    TarsSpec: "``spec.tars`` of a Tars server: its template, profile, servants and ports.",
    NormalSpec: "``spec.normal`` of a normal (non-Tars) server.",
    HostPort: "A port bound on the node: ``spec.k8s.hostPorts[]``.",
    K8sSpec: "``spec.k8s``: how the server runs on Kubernetes (the fields of the TServer CRD).",
    Release: "``spec.release``: the image the server runs.",
    Business: "One business of the TTree: ``businesses[]``.",
    TreeApp: "One app of the TTree: ``apps[]``.",
}
"""The description of each document section, written for the multi-language surface (the
model's own docstring speaks to Python readers and to the editors' schemas, ``tars-components
schema``)."""


@dataclasses.dataclass(frozen=True)
class Surface:
    """The multi-language arguments of one component: the fields of its arguments dataclass
    ``args`` that other languages give, in the order of ``fields``, which holds their
    descriptions."""

    args: type
    """The component's arguments dataclass."""
    doc: str
    """The TypedDict's description."""
    fields: dict[str, str]
    """The fields taken, each with its description."""
    required: frozenset[str] = frozenset()
    """Fields required here though optional in ``args``, which takes a whole document instead
    or fills a default in."""
    types: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Fields taken as another type than in ``args``: plain values, which the provider needs
    known (a framework's namespace names it to the other components)."""
    sources: Mapping[str, type] = dataclasses.field(default_factory=dict)
    """Fields of another dataclass, flattened into the arguments (``TFramework``'s ``mode``,
    one of its ``options``)."""

    @property
    def name(self) -> str:
        """The TypedDict's name: the dataclass's."""
        return self.args.__name__


LABELS = "``metadata.labels``. Defaults to none."
ANNOTATIONS = "``metadata.annotations``. Defaults to none."


def belongs_to(what: str) -> str:
    """The description of a component's ``framework`` argument."""
    return (
        f"The TFramework the {what} belongs to: its resource name, or its ``namespace`` when no\n"
        "other framework has it. Required."
    )


SURFACES: tuple[Surface, ...] = (
    Surface(
        TFrameworkArgs,
        "Arguments of the multi-language ``TFramework``.",
        {
            "namespace": (
                "The framework's namespace: the other components name the framework by it (or "
                "by the\nframework's resource name) in their ``framework`` argument. Required."
            ),
            "config": (
                "The namespace's ``tars-framework`` config (default node image). Defaults to none."
            ),
            "mode": (
                "``expand`` (Kubernetes workloads) or ``crd`` (TarsK8S custom resources). "
                "Defaults to\n``expand``."
            ),
            "templates": (
                "Templates the namespace has besides the TTemplate components, "
                "``{name: parent}``.\nDefaults to none."
            ),
            "skip_await": "Do not wait for the workloads' pods to become ready. Defaults to false.",
            "external_replicas": (
                "Replicas belong to another field manager (an HPA): changes to them are ignored.\n"
                "Defaults to false."
            ),
            "existing_config": (
                "crd mode: the cluster has its ``tars-framework`` config already. Defaults to "
                "false."
            ),
        },
        required=frozenset({"namespace"}),
        types={"namespace": "str", "templates": "dict[str, str]"},
        sources={"mode": Options},
    ),
    Surface(
        TServerArgs,
        "Arguments of the multi-language ``TServer``.",
        {
            "framework": (
                "The TFramework (of this package, in the same program) the server belongs to: "
                "its\nresource name, or its ``namespace`` when no other framework has it. Required."
            ),
            "app": "``spec.app`` (letters and digits). Required.",
            "server": "``spec.server`` (letters and digits). Required.",
            "sub_type": (
                "``spec.subType``. Defaults to ``tars`` when ``tars`` is given, else ``normal``."
            ),
            "important": "``spec.important`` (1..20). Defaults to 3.",
            "tars": "``spec.tars`` of a Tars server. Defaults to none.",
            "normal": "``spec.normal`` of a normal server. Defaults to none.",
            "k8s": "``spec.k8s``. Defaults to the CRD defaults.",
            "release": "``spec.release``. Defaults to none (not released: no pods).",
            "labels": LABELS,
            "annotations": ANNOTATIONS,
            "skip_await": "Override of the framework's ``skipAwait``. Defaults to the framework's.",
            "external_replicas": (
                "Override of the framework's ``externalReplicas``. Defaults to the framework's."
            ),
        },
        required=frozenset({"app", "server"}),
    ),
    Surface(
        TTemplateArgs,
        "Arguments of the multi-language ``TTemplate``.",
        {
            "framework": belongs_to("template"),
            "template_name": "``metadata.name`` of the template. Required.",
            "content": "``spec.content``: the template text. Required.",
            "parent": "``spec.parent``: the parent template (its own name for a root). Required.",
            "labels": LABELS,
            "annotations": ANNOTATIONS,
        },
        required=frozenset({"template_name", "content", "parent"}),
    ),
    Surface(
        TConfigArgs,
        "Arguments of the multi-language ``TConfig``.",
        {
            "framework": belongs_to("config"),
            "app": "``app``. Required.",
            "config_name": "``configName``: the file's name. Required.",
            "config_content": "``configContent``. Defaults to empty.",
            "server": "``server``; empty for an app-level config. Defaults to empty.",
            "name": "``metadata.name``. Defaults to a name derived from app, server and file.",
            "pod_seq": "``podSeq``: ``m`` (master) or a pod's ordinal. Defaults to ``m``.",
            "activated": "``activated``. Defaults to true.",
            "version": "``version``. Defaults to one derived from the content.",
            "update_reason": "``updateReason``. Defaults to none.",
            "labels": LABELS,
            "annotations": ANNOTATIONS,
        },
        required=frozenset({"app", "config_name"}),
    ),
    Surface(
        TImageArgs,
        "Arguments of the multi-language ``TImage``.",
        {
            "framework": belongs_to("image"),
            "name": "``metadata.name``. Required.",
            "image_type": "``imageType``. Required.",
            "supported_type": "``supportedType``. Defaults to none.",
            "releases": "``releases``. Defaults to none.",
            "default": "``default``: the id of the default release. Defaults to none.",
            "mark": "``mark``. Defaults to none.",
            "labels": LABELS,
            "annotations": ANNOTATIONS,
            "own_releases": (
                "Pulumi owns ``releases`` (else it leaves releases added by TarsWeb alone). "
                "Defaults to\nfalse."
            ),
        },
        required=frozenset({"name", "image_type"}),
    ),
    Surface(
        TTreeArgs,
        "Arguments of the multi-language ``TTree``.",
        {
            "framework": belongs_to("tree"),
            "businesses": "``businesses``. Defaults to none.",
            "apps": "``apps``. Defaults to none.",
            "labels": LABELS,
            "annotations": ANNOTATIONS,
        },
    ),
    Surface(
        TAccountArgs,
        "Arguments of the multi-language ``TAccount``.",
        {
            "framework": belongs_to("account"),
            "username": "``spec.username``. Required.",
            "password": (
                "The password in clear (hashed as the webhook does; keep it a secret). Give this "
                "or\n``bcryptPassword``."
            ),
            "bcrypt_password": "The password's bcrypt hash. Give this or ``password``.",
            "activated": "``spec.authentication.activated``. Defaults to true.",
            "authorization": "``spec.authorization``. Defaults to none.",
            "extra": "``spec.extra``. Defaults to none.",
            "labels": LABELS,
            "annotations": ANNOTATIONS,
            "salt_key": (
                "A secret key from which the account's salt is derived (stable across runs). "
                "Defaults\nto a random salt kept in the state."
            ),
        },
        required=frozenset({"username"}),
    ),
    Surface(
        TarsControllerArgs,
        "Arguments of the multi-language ``TarsController``: the controller install.",
        {
            "values": (
                "The ``tarscontroller`` chart's values, as in its values file "
                "(``controller.registry``,\n``controller.tag``, …); chart defaults apply. "
                "Required."
            ),
            "ca_cert_pem": (
                "An existing webhook CA certificate (PEM). With ``caKeyPem``. Without both, a new "
                "CA is\nmade with pulumi-tls, which the plugin does not install: from another "
                "language, give\nboth."
            ),
            "ca_key_pem": "The CA's key (PKCS#1 RSA PEM; keep it a secret). With ``caCertPem``.",
            "existing_namespace": (
                "``tars-system`` exists already: its label is patched instead. Defaults to false."
            ),
        },
    ),
    Surface(
        TarsFrameworkInstallArgs,
        "Arguments of the multi-language ``TarsFrameworkInstall``: one framework install.",
        {
            "values": (
                "The ``tarsframework`` chart's values, as in its values file; chart defaults "
                "apply.\nRequired."
            ),
            "namespace": "The framework namespace. Required.",
            "controller": (
                "The resource name of the ``TarsController`` (of this package, in the same "
                "program) to\nwait for and whose cluster to use. Defaults to none."
            ),
            "nodes": "Nodes labelled ``tars.io/node.<namespace>``. Defaults to none.",
            "local_volume_nodes": (
                "Nodes also labelled ``tars.io/SupportLocalVolume``. Defaults to none."
            ),
            "create_namespace": "Create the namespace. Defaults to true.",
        },
    ),
)
"""The components' multi-language arguments, in the order of the module."""


def first_paragraph(docstring: str) -> str:
    """The first paragraph of a docstring, its lines without their indentation."""
    lines = inspect.cleandoc(docstring).split("\n")
    end = lines.index("") if "" in lines else len(lines)
    return "\n".join(lines[:end])


def field_docstrings(model: type) -> dict[str, str]:
    """The docstring of each field declared in ``model`` or its bases, by field name, read as
    Pulumi's analyzer reads the TypedDicts: the string right after the field's declaration."""
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        [node] = ast.parse(inspect.getsource(cls)).body
        assert isinstance(node, ast.ClassDef)
        for statement, after in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                found[statement.target.id] = first_paragraph(after.value.value)
    return found


def model_at(document: type[BaseModel], path: tuple[str, ...]) -> type[BaseModel]:
    """The model of the section at ``path`` (camelCase keys) of ``document``."""
    model = document
    for key in path:
        [info] = [i for n, i in model.model_fields.items() if yaml_key(model, n, i) == key]
        model = model_of(info.annotation)
    return model


def version_fields(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    """The keys of ``model`` that :data:`VERSION` does not have, and those it requires."""
    absent: set[str] = set()
    required: set[str] = set()
    for table, keys in ((VERSION_ONLY_FIELDS, absent), (VERSION_REQUIRED_FIELDS, required)):
        for (kind, version), paths in table.items():
            if version == VERSION:
                keys.update(p[-1] for p in paths if model_at(KINDS[kind], p[:-1]) is model)
    return absent, required


def docstring(text: str, indent: str = "    ") -> str:
    """``text`` as a docstring at ``indent``, its lines as they are."""
    if '"""' in text or "\\" in text or text.endswith('"'):
        raise SystemExit(f"cannot write {text!r} as a docstring")
    return f'{indent}"""{text.replace(chr(10), chr(10) + indent)}"""'


def _is_a(value: object, kind: type) -> bool:
    return isinstance(value, type) and issubclass(value, kind)


class Module:
    """The generated module: its TypedDicts, each after the ones it uses, and the enums they
    name."""

    def __init__(self) -> None:
        self.sections: list[str] = []
        self.arguments: list[str] = []
        self.shapes: dict[type[BaseModel], tuple[str, bool]] = {}
        self.enums: dict[str, type[enum.Enum]] = {}
        self.args_dicts = {
            args_dict_name(m): m
            for m in vars(models).values()
            if _is_a(m, TarsModel) and m is not TarsModel
        }

    # --- document sections, from the models ---------------------------------------------------

    def section(self, model: type[BaseModel], inputs: bool) -> str:
        """The TypedDict of ``model`` (written first when it is new): its name."""
        model = SAME_SHAPE.get(model, model)
        if model in self.shapes:
            name, was = self.shapes[model]
            if was != inputs:
                raise SystemExit(f"{model.__name__} is both a TServer section and another kind's")
            return name
        name, doc = DOCUMENTS.get(model) or (model.__name__, SECTIONS.get(model, ""))
        if not doc:
            raise SystemExit(f"{model.__module__}.{model.__name__}: no entry in SECTIONS")
        self.shapes[model] = (name, inputs)
        for copy, original in SAME_SHAPE.items():
            if original is model and set(copy.model_fields) != set(model.model_fields):
                raise SystemExit(f"{copy.__name__} and {model.__name__} differ in their fields")
        absent, version_required = version_fields(model)
        docs = field_docstrings(model)
        lines = [f"class {name}(TypedDict):", docstring(doc), ""]
        for field, info in model.model_fields.items():
            key = yaml_key(model, field, info)
            envelope = model in DOCUMENTS and field in ENVELOPE
            if envelope or key in absent or (model, field) in LEFT_OUT:
                continue
            plain = not inputs or (model.__name__, field) in PLAIN_FIELDS
            value = self.value(info.annotation, not plain)
            required = info.is_required() or key in version_required
            if field not in docs:
                raise SystemExit(
                    f"{model.__module__}.{model.__name__}.{field}: no docstring to describe it"
                )
            lines.append(f"    {key}: {value if required else f'Optional[{value}]'}")
            lines.append(docstring(docs[field]))
        self.sections.append("\n".join(lines))
        return name

    def value(self, annotation: Any, inputs: bool) -> str:
        """The type of a model field: a ``pulumi.Input`` leaf when ``inputs``."""
        origin = typing.get_origin(annotation)
        arguments = typing.get_args(annotation)
        if origin is typing.Annotated:
            return self.value(arguments[0], inputs)
        if origin in (typing.Union, types.UnionType):
            parts = [a for a in arguments if a is not type(None)]
            found = list(dict.fromkeys(self.value(a, inputs) for a in parts))
            if len(found) != 1:
                raise SystemExit(f"{annotation!r}: a union of {found}")
            return found[0]
        if origin is list:
            return f"list[{self.value(arguments[0], inputs)}]"
        if origin is dict:
            return f"dict[str, {self.value(arguments[1], inputs)}]"
        if annotation in OPAQUE:
            return "pulumi.Input[dict[str, Any]]" if inputs else "dict[str, Any]"
        if _is_a(annotation, BaseModel):
            return self.section(annotation, inputs)
        if _is_a(annotation, enum.Enum):
            return "pulumi.Input[str]" if inputs else self.enum(annotation)
        if annotation in (int, bool, str):
            return f"pulumi.Input[{annotation.__name__}]" if inputs else annotation.__name__
        return "pulumi.Input[str]"  # ``Any``: a value the model accepts deferred

    def enum(self, kind: type[enum.Enum]) -> str:
        """The name of an enum the module imports."""
        self.enums[kind.__name__] = kind
        return kind.__name__

    # --- component arguments, from the dataclasses --------------------------------------------

    def surface(self, surface: Surface) -> None:
        """The TypedDict of a component's arguments."""
        lines = [f"class {surface.name}(TypedDict):", docstring(surface.doc), ""]
        for name, description in surface.fields.items():
            source = surface.sources.get(name, surface.args)
            fields = {f.name: f for f in dataclasses.fields(source)}
            if name not in fields:
                raise SystemExit(f"{source.__name__} has no field {name!r}")
            item = fields[name]
            value = surface.types.get(name) or self.annotation(item.type, source)
            required = name in surface.required or (
                item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING
            )
            lines.append(f"    {name}: {value if required else f'Optional[{value}]'}")
            lines.append(docstring(description))
        self.arguments.append("\n".join(lines))

    def annotation(self, written: object, owner: type) -> str:
        """The type of a dataclass field annotated ``written`` (as text) in ``owner``."""
        names = vars(sys.modules[owner.__module__])
        found = self.term(ast.parse(str(written), mode="eval").body, names)
        if found is None:
            raise SystemExit(f"{owner.__name__}: no type of other languages for {written}")
        return found

    def term(self, node: ast.expr, names: Mapping[str, Any]) -> str | None:
        """One term of an annotation; None for what other languages cannot give (None, an
        Output, a Python object such as a whole document or a values class)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            parts = [self.term(n, names) for n in (node.left, node.right)]
            found = list(dict.fromkeys(p for p in parts if p is not None))
            if len(found) > 1:
                raise SystemExit(f"{ast.unparse(node)}: a union of {found}")
            return found[0] if found else None
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if isinstance(node, ast.Subscript):
            base = ast.unparse(node.value)
            if base == "pulumi.Output":
                return None
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            inner = [self.term(i, names) for i in items]
            if None not in inner:
                if base == "pulumi.Input":
                    return f"pulumi.Input[{inner[0]}]"
                if base in ("Mapping", "dict"):
                    return f"dict[{inner[0]}, {inner[1]}]"
                if base in ("Sequence", "list"):
                    return f"list[{inner[0]}]"
            raise SystemExit(f"{ast.unparse(node)}: no type of other languages")
        if isinstance(node, ast.Name):
            return self.named(names.get(node.id, getattr(builtins, node.id, None)))
        raise SystemExit(f"{ast.unparse(node)}: no type of other languages")

    def named(self, value: object) -> str | None:
        """The type of a name of an annotation."""
        if value in (str, int, bool):
            return typing.cast(type, value).__name__
        if value is Any:
            return "Any"
        if value is HasScope or _is_a(value, pulumi.ComponentResource):
            return "str"  # another component, named by its resource name
        if _is_a(value, TarsModel):
            return self.section(typing.cast(type[BaseModel], value), _inputs(value))
        model = self.args_dicts.get(getattr(value, "__name__", ""))
        if model is not None and _is_a(value, dict):  # a section's ``...ArgsDict``
            return self.section(model, _inputs(model))
        if _is_a(value, enum.Enum):
            return self.enum(typing.cast(type[enum.Enum], value))
        if typing.get_origin(value) is typing.Literal:  # an enum's ``...Value``
            return self.enum(_enum_of(typing.get_args(value)))
        return None

    # --- the module ---------------------------------------------------------------------------

    def text(self) -> str:
        """The module's text (before formatting)."""
        body = "\n\n\n".join(self.sections + self.arguments)
        used = [n for n in ("Any", "Optional", "TypedDict") if re.search(rf"\b{n}\b", body)]
        by_module: dict[str, list[str]] = {}
        for name, kind in sorted(self.enums.items()):
            by_module.setdefault(_import_from(kind), []).append(name)
        enums = "".join(f"from {m} import {', '.join(n)}\n" for m, n in sorted(by_module.items()))
        names = [name for name, _ in self.shapes.values()] + [s.name for s in SURFACES]
        all_list = "\n".join(f'    "{n}",' for n in sorted(names))
        return (
            f"{HEADER}\nfrom typing import {', '.join(used)}\n\nimport pulumi\n\n{enums}\n\n"
            f"{body}\n\n\n__all__ = [\n{all_list}\n]\n"
        )


def _inputs(model: object) -> bool:
    """Whether the leaves of a section the components take are ``pulumi.Input`` values."""
    if model in INPUT_ROOTS:
        return True
    if model in PLAIN_ROOTS:
        return False
    raise SystemExit(f"{model!r} is a section of no component (gen_argsdicts' roots)")


def _enum_of(values: tuple[Any, ...]) -> type[enum.Enum]:
    """The enum of the models whose values are ``values``."""
    [kind] = [
        e
        for e in vars(models).values()
        if _is_a(e, enum.Enum) and tuple(m.value for m in e) == values
    ]
    return typing.cast(type[enum.Enum], kind)


def _import_from(kind: type[enum.Enum]) -> str:
    """Where the module imports an enum from: the models' package, else the enum's module."""
    if getattr(models, kind.__name__, None) is kind:
        return "..models"
    return "." + kind.__module__.removeprefix("tars_components")


HEADER = '''"""The argument types of the multi-language components (docs/pulumi/multi-language.md).
Generated by ``tools/gen_polyglot_types.py`` from the pydantic models (the document sections,
described by the models' docstrings) and the components' arguments dataclasses; do not edit.

Plain ``pulumi.Input`` types, TypedDicts and enums only, so that Pulumi's analyzer infers the
package schema from them: the attribute docstrings become the schema's descriptions. Nested
document sections keep the camelCase field names of the TarsK8S YAML (``asyncThread``,
``nodeImage``), so a section reaches the pure core as the document field it is.

This module must not use ``from __future__ import annotations``: the analyzer reads the
annotations as types, not as text.
"""
'''


def generate() -> str:
    """The module's text, formatted."""
    module = Module()
    for surface in SURFACES:
        module.surface(surface)
    return formatted(module.text(), TYPES)


def main(argv: list[str]) -> int:
    """Write the module, or with ``--check`` say that it is stale (exit 1)."""
    check = argv == ["--check"]
    if argv and not check:
        sys.stderr.write("usage: gen_polyglot_types.py [--check]\n")
        return 2
    text = generate()
    where = TYPES.relative_to(REPO)
    if TYPES.read_text("utf-8") == text:
        return 0
    if check:
        sys.stderr.write(f"{where} is not up to date: run python tools/gen_polyglot_types.py\n")
        return 1
    TYPES.write_text(text, "utf-8")
    sys.stderr.write(f"{where}: written\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
