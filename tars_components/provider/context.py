"""The stack a verdict is computed on: the document of a property bag, loaded like a stack
file, next to stand-ins for the facts of its namespace (templates by name and parent, the
servers whose names it collides with, the framework's node image).

During a preview the engine sends values it does not know yet as ``pulumi.runtime.rpc.UNKNOWN``
(``pulumi.dynamic`` hands them to ``check`` and ``diff`` as :class:`pulumi.output.Unknown`). The
document is then checked with :data:`~.wire.PENDING` in their place (the models accept it where a
``pulumi.Input`` is allowed); an unknown number (say a port) stands in as a number that no
other field uses, so it collides with nothing and the other rules still run; an unknown string
in a structural field (``spec.app``, ``spec.server``, ``metadata.name``, a servant or port name,
``spec.tars.template``) stands in as a name that no other field uses (``unknown1``, …, valid
for every name pattern), so the other rules still run too. Violations at an unknown path, and
those of the rules that relate an unknown field to another one (:data:`~.wire.FIELD_RULES`),
are left out until the value is known (at ``pulumi up``). Only an unknown whole section (a
mapping or list the engine does not know) still leaves the document unchecked.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..errors import LoadError, LoadProblem
from ..loading.load import load_texts
from ..models import (
    FRAMEWORK_CONFIG_NAME,
    KINDS,
    MASTER,
    V1BETA3,
    Document,
    TConfig,
    TFrameworkConfig,
    TServer,
    TTemplate,
)
from ..paths import Segment, parse_path
from ..stack import Rejected, Stack
from ..yaml_writer import dump
from .wire import (
    CONFIG_MASTER,
    DOCUMENT,
    FIELD_RULES,
    FRAMEWORK_NODE_IMAGE,
    NAMESPACE,
    PENDING,
    SECRET_FIELDS,
    SERVER_NAMES,
    TEMPLATES,
    Path,
    plain,
)

DOCUMENT_FILE = "document.yaml"
"""Where the document is loaded from inside the provider; violations about it carry this file,
which tells them apart from violations about the stand-ins."""
PLACEHOLDER = "unknown"
"""Stand-in text for unknown values where YAML or a strict model needs a string."""


@dataclass(frozen=True)
class Subject:
    """A document and its facts, parsed from a property bag, with unknown values replaced
    by :data:`~.wire.PENDING` and their paths recorded."""

    document: dict[str, Any]
    namespace: str
    templates: dict[str, str]
    framework_node_image: dict[str, Any] | None
    server_names: list[str]
    secret_fields: tuple[str, ...] = ()
    config_master: bool = False
    unknown_fields: tuple[Path, ...] = ()
    unknown_context: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, props: Mapping[str, Any]) -> Subject:
        """Read the input properties (numbers normalized, secrets unwrapped).

        Raises ``ValueError`` when the document or the namespace is missing or not known.
        """
        unknown_fields: list[Path] = []
        document = plain(props.get(DOCUMENT), (), unknown_fields)
        if not isinstance(document, dict) or () in unknown_fields:
            raise ValueError("the document is missing or not known yet")
        namespace = plain(props.get(NAMESPACE) or "default", (), [])
        if not isinstance(namespace, str):
            raise ValueError("the namespace is not known yet")
        unknown_context: set[str] = set()

        def context(key: str, kind: type) -> Any:
            found: list[Path] = []
            value = plain(props.get(key), (), found, placeholder=PLACEHOLDER)
            if found:
                unknown_context.add(key)
            return value if isinstance(value, kind) else kind()

        node_image = context(FRAMEWORK_NODE_IMAGE, dict)
        if FRAMEWORK_NODE_IMAGE in props and not node_image:
            # ``{}``: the cluster's existing tars-framework, whose node image the program does
            # not know (crd mode); it exists (no TS020), and its webhook fills the default.
            unknown_context.add(FRAMEWORK_NODE_IMAGE)
        return cls(
            document=document,
            namespace=namespace,
            templates={str(k): str(v) for k, v in context(TEMPLATES, dict).items()},
            framework_node_image=node_image or None,
            server_names=[str(n) for n in context(SERVER_NAMES, list)],
            secret_fields=tuple(str(p) for p in context(SECRET_FIELDS, list)),
            config_master=context(CONFIG_MASTER, bool),
            unknown_fields=tuple(unknown_fields),
            unknown_context=frozenset(unknown_context),
        )

    def load(self) -> tuple[Stack, Document | Rejected]:
        """The document loaded like a stack file, next to stand-ins for its facts.

        Raises :class:`~tars_components.errors.LoadError` when the document cannot be read as
        a TarsK8S document.
        """
        raw = plain(self.document, (), [], placeholder=PLACEHOLDER)
        texts = self._stand_in_texts(raw)
        loaded = load_texts({DOCUMENT_FILE: dump(raw)}, self.namespace)
        numbers: dict[Path, int] = {}
        for step in ("high", "low", "absent"):
            # Where the schema refuses the text stand-in it wants a number (a port, replicas):
            # put numbers there that no other field of the document uses, so they collide with
            # nothing and the other rules still run; high ones first (ports), then low ones
            # (bounded fields such as replicas). A field that takes neither (a flag, an enum
            # such as imagePullPolicy) is left out: its default stands in.
            if loaded.documents:
                break
            refused = {
                tuple(parse_path(v.field)) for v in loaded.violations if v.file == DOCUMENT_FILE
            }
            paths = [path for path in self.unknown_fields if path in refused]
            if not paths:
                break
            if step == "absent":
                for path in paths:
                    remove(raw, path)
                    numbers.pop(path, None)
            else:
                for path, number in zip(paths, unused_numbers(raw, step == "high"), strict=False):
                    put(raw, path, number)
                    numbers[path] = number
            loaded = load_texts({DOCUMENT_FILE: dump(raw)}, self.namespace)
        if not loaded.documents and not loaded.rejected:  # a plain object, or a skipped kind
            kinds = [o.kind for o in loaded.objects] or ["a kind written by the controller"]
            raise LoadError([LoadProblem(DOCUMENT_FILE, 1, f"{kinds[0]} is not validated here")])
        target: Document | Rejected = (
            self._deferred(loaded.documents[0], numbers, texts)
            if loaded.documents
            else loaded.rejected[0]
        )
        documents, rejected = self._context(target)
        if isinstance(target, Document):
            documents.append(target)
        else:
            rejected.append(target)
        stack = Stack(
            namespace=loaded.namespace,
            documents=tuple(documents),
            violations=loaded.violations,
            rejected=tuple(rejected),
        )
        return stack, target

    def _stand_in_texts(self, raw: dict[str, Any]) -> dict[Path, str]:
        """Put a distinct name that no field of ``raw`` uses at each unknown path (``unknown1``,
        …: a lowercase letter then letters and digits fits every name pattern of the CRDs), and
        derive an unknown ``metadata.name`` from the stand-ins of ``spec.app`` and
        ``spec.server`` as the program derives it (so TS016 stays quiet)."""
        if not self.unknown_fields:
            return {}
        used = {text.lower() for text in strings(raw)}
        fresh = (f"unknown{i}" for i in range(1, 1 << 30) if f"unknown{i}" not in used)
        texts: dict[Path, str] = {}
        for path in self.unknown_fields:
            if path:
                texts[path] = next(fresh)
                put(raw, path, texts[path])
        name_path: Path = ("metadata", "name")
        spec = raw.get("spec")
        sub_type: Path = ("spec", "subType")
        if sub_type in texts and isinstance(spec, dict):
            # The section given says which subType it is (TS014 waits for the value).
            texts[sub_type] = "tars" if "tars" in spec else "normal"
            put(raw, sub_type, texts[sub_type])
        if name_path in texts and isinstance(spec, dict):
            app, server = spec.get("app"), spec.get("server")
            if isinstance(app, str) and isinstance(server, str):
                texts[name_path] = f"{app.lower()}-{server.lower()}"
                put(raw, name_path, texts[name_path])
        return texts

    def _deferred(
        self, doc: Document, numbers: Mapping[Path, int], texts: Mapping[Path, str]
    ) -> Document | Rejected:
        """The loaded document with :data:`PENDING` back where values are unknown and the model
        takes a deferred value (placed fields); unused numbers (``numbers``) and names
        (``texts``) stay where it does not. A document that still fails (an unknown whole
        section) is left unchecked (rejected)."""
        if not self.unknown_fields:
            return doc
        loaded = doc.to_dict()
        pending = [path for path in self.unknown_fields if path not in numbers]
        for _ in range(3):
            raw = copy.deepcopy(loaded)
            for path in pending:
                put(raw, path, PENDING)
            try:
                deferred = type(doc).model_validate(raw)
            except ValidationError as exc:
                refused = {tuple(error["loc"]) for error in exc.errors()}
                kept = [p for p in pending if not any(under(loc, p) for loc in refused)]
                if len(kept) == len(pending):
                    break
                pending = kept
                continue
            deferred.with_source(doc.source)
            return deferred
        return Rejected(doc.kind, doc.namespace, doc.name, doc.source)

    def deferred_rules(self) -> frozenset[str]:
        """The rules that relate an unknown field of the document to another field
        (:data:`~.wire.FIELD_RULES`): left out until the field is known."""
        codes: set[str] = set()
        for path in self.unknown_fields:
            text = ".".join("*" if isinstance(seg, int) else str(seg) for seg in path)
            for pattern, rules in FIELD_RULES.items():
                if text == pattern or text.startswith(pattern + "."):
                    codes.update(rules)
        return frozenset(codes)

    def _context(self, target: Document | Rejected) -> tuple[list[Document], list[Rejected]]:
        """Stand-ins for the facts: templates with their parents, the servers holding the
        names of :attr:`server_names`, the framework config."""
        ns = target.namespace
        raws: list[dict[str, Any]] = []
        for name, parent in self.templates.items():
            if not (target.kind == TTemplate.KIND and name == target.name):
                raws.append(stub_template(name, parent, ns))
        raws.extend(stub_server(name, ns) for name in self.server_names)
        if self.framework_node_image is not None and not (
            target.kind == TFrameworkConfig.KIND and target.name == FRAMEWORK_CONFIG_NAME
        ):
            raws.append(stub_framework(self.framework_node_image, ns))
        if self.config_master and isinstance(target, TConfig) and target.pod_seq != MASTER:
            raws.append(stub_master(target))
        return build_documents(raws)

    def secret_values(self) -> list[str]:
        """The texts of the secret values of the document (every leaf at or below a secret
        field; longest first), for redaction."""
        values: set[str] = set()
        for path in self.secret_fields:
            node: Any = self.document
            for seg in parse_path(path):
                try:
                    node = node[seg]
                except (KeyError, IndexError, TypeError):
                    node = None
                    break
            values.update(text for text in leaf_texts(node) if text)
        return sorted(values, key=lambda text: (-len(text), text))

    def secret_paths(self) -> list[Path]:
        """The field paths of the secret values of the document."""
        return [tuple(parse_path(path)) for path in self.secret_fields]


def leaf_texts(value: Any) -> Iterator[str]:
    """``str`` of every scalar leaf of ``value`` but flags (nothing for None or an unknown
    value)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaf_texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from leaf_texts(item)
    elif value is not None and value is not PENDING and not isinstance(value, bool):
        # a secret flag leaks nothing by its text (and "True" is in too many messages); its
        # path is masked all the same
        yield str(value)


# --- stand-ins for the rest of the namespace -----------------------------------------------


def stub_template(name: str, parent: str, namespace: str) -> dict[str, Any]:
    """A TTemplate known only by its name and parent."""
    return {
        "apiVersion": V1BETA3,
        "kind": TTemplate.KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"content": "", "parent": parent},
    }


def stub_server(name: str, namespace: str, template: str | None = None) -> dict[str, Any]:
    """A TServer known only by ``<app>-<server>`` (named lowercased, like its objects): a
    normal server, or a tars server of ``template``."""
    app, _, server = name.partition("-")
    spec: dict[str, Any] = {"app": app, "server": server or app, "k8s": {}}
    if template is None:
        spec.update(subType="normal", normal={"ports": []})
    else:
        spec.update(subType="tars", tars={"template": template, "servants": []})
    return {
        "apiVersion": V1BETA3,
        "kind": TServer.KIND,
        "metadata": {"name": name.lower(), "namespace": namespace},
        "spec": spec,
    }


def stub_framework(node_image: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """The namespace's ``tars-framework`` config, known only by its nodeImage."""
    return {
        "apiVersion": V1BETA3,
        "kind": TFrameworkConfig.KIND,
        "metadata": {"name": FRAMEWORK_CONFIG_NAME, "namespace": namespace},
        "nodeImage": dict(node_image),
    }


def stub_master(config: TConfig) -> dict[str, Any]:
    """The activated master version of a node-level TConfig's file, known only to exist."""
    return {
        "apiVersion": V1BETA3,
        "kind": TConfig.KIND,
        "metadata": {"name": f"{config.name}.master", "namespace": config.namespace},
        "app": config.app,
        "server": config.server,
        "configName": config.config_name,
        "configContent": "",
        "podSeq": MASTER,
        "activated": True,
    }


def build_documents(raws: Iterable[Mapping[str, Any]]) -> tuple[list[Document], list[Rejected]]:
    """Typed stand-ins; one the schema rejects is kept by identity (its name still counts)."""
    documents: list[Document] = []
    rejected: list[Rejected] = []
    for raw in raws:
        cls = KINDS[raw["kind"]]
        meta = raw["metadata"]
        try:
            documents.append(cls.model_validate(raw))
        except ValidationError:
            rejected.append(Rejected(cls.KIND, meta["namespace"], meta["name"]))
    return documents, rejected


# --- values --------------------------------------------------------------------------------


def unused_numbers(raw: Any, descending: bool) -> Iterator[int]:
    """Numbers from 1 to 65535 (the port range) that appear nowhere in ``raw``, from the top
    or from the bottom."""
    used: set[int] = set()
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, int) and not isinstance(node, bool):
            used.add(node)
    numbers = range(65535, 0, -1) if descending else range(1, 65536)
    return (number for number in numbers if number not in used)


def strings(raw: Any) -> Iterator[str]:
    """Every string (key or value) inside ``raw``."""
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                yield str(key)
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            yield node


def put(raw: Any, path: Path, value: Any) -> None:
    """Set ``raw[path] = value`` where the path still exists."""
    if not path:
        return
    node = raw
    for seg in path[:-1]:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(node, list):
        if isinstance(last, int) and last < len(node):
            node[last] = value
        return
    if isinstance(node, dict) and last in node:
        node[last] = value


def remove(raw: Any, path: Path) -> None:
    """Delete the mapping key at ``path`` where it exists (a list item stays)."""
    node = raw
    for seg in path[:-1]:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return
    if path and isinstance(node, dict):
        node.pop(path[-1], None)


def under(field_path: Sequence[Segment], prefix: Sequence[Segment]) -> bool:
    """True when ``field_path`` is ``prefix`` or below it."""
    return tuple(field_path[: len(prefix)]) == tuple(prefix)


def is_target(doc: Document) -> bool:
    """True for the document of the property bag (not a stand-in)."""
    return doc.source is not None and doc.source.file == DOCUMENT_FILE


__all__ = [
    "DOCUMENT_FILE",
    "PLACEHOLDER",
    "Subject",
    "build_documents",
    "is_target",
    "leaf_texts",
    "put",
    "remove",
    "strings",
    "stub_framework",
    "stub_master",
    "stub_server",
    "stub_template",
    "under",
    "unused_numbers",
]
