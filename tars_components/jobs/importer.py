"""``tars-components import``: a live namespace export → a clean stack directory.

:func:`import_texts` is pure (``{file: YAML text}`` in, ``{relative path: text}`` out);
:func:`import_export` reads the export (a file or a directory) and writes the stack directory.

What the stack directory holds, one YAML file per kind or per app, documents sorted by kind
then name:

* ``framework.yaml`` (TFrameworkConfig), ``templates.yaml`` (TTemplate), ``tree.yaml``
  (TTree), ``images.yaml`` (TImages of no app: base and node images), ``accounts.yaml``
  (TAccount), ``kubernetes.yaml`` (plain Kubernetes objects, TFrameworkKey, TPlugin);
* ``app-<App>.yaml`` per app: its TServers, its TConfigs and the TImages labelled
  ``tars.io/ServerApp=<App>``;
* ``pulumi-secrets.sh``: the commands that move each TAccount credential into a Pulumi config
  secret (``kubectl get … | pulumi config set --secret tars:KEY`` for a hash; Pulumi's own
  prompt for a plaintext password, which no cluster holds), so the credential is never
  written to a file; the TAccount itself says ``bcryptPassword: {configSecret: KEY}`` (or
  ``password: …``), ``KEY`` being ``taccount.<namespace>.<username>.<field>``
  (:func:`secret_key`); a ``password`` beside a ``bcryptPassword`` is dropped;
* with ``--pulumi``, ``pulumi-import.json``: the ``pulumi import --file`` plan (type, name, id
  and parent per object, named as the components of the crd-mode program register them) so
  an existing namespace is adopted without being recreated.

Every object is written as exported minus what the API server writes (status, uid,
resourceVersion, generation, creationTimestamp, managedFields, selfLink, controller
ownerReferences, the last-applied annotation) and minus TarsWeb's login tokens (session
credentials, reset by the webhook on create anyway); controller-owned kinds (TEndpoint,
TExitedRecord) and objects with a controller owner are left out with a TX002 warning. So
``render --mode crd`` of the imported stack gives the objects of the export minus those fields
(a TAccount's hash is the only difference: an offline render writes a placeholder, TA006).

The stack is checked before anything is written, as ``validate --mode crd`` would check the
written files, with violations at the export's files and lines: a rule error (a malformed
item included) writes nothing. The files are written like a render's, through a staging
directory renamed into place, files holding a secret created 0600.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..fileio.files import read_texts
from ..fileio.yaml_writer import dump_all_literal
from ..kernel.errors import Violation, has_errors
from ..kernel.limits import Limits
from ..loading.document_set import DocumentSet
from ..loading.documents import parse_document
from ..loading.load import load_texts
from ..models.credential import P_CONFIG_KEY
from ..models.document import Document, Source
from ..models.vocabulary import LABEL_APP
from ..pipeline import check
from ..rules.taccount import TA006
from ..settings.options import Mode, Options, check_option_values
from .import_plan import is_tars_document, pulumi_import_plan
from .tree_writer import check_new_dir, write_tree

SECRETS_SCRIPT = "pulumi-secrets.sh"
PULUMI_IMPORT_FILE = "pulumi-import.json"
KIND_FILES = {
    "TFrameworkConfig": "framework.yaml",
    "TTemplate": "templates.yaml",
    "TTree": "tree.yaml",
    "TImage": "images.yaml",
    "TAccount": "accounts.yaml",
}
PLAIN_FILE = "kubernetes.yaml"
_KIND_ORDER = ("TFrameworkConfig", "TTemplate", "TTree", "TServer", "TImage", "TConfig", "TAccount")
_KEY_SAFE = re.compile(P_CONFIG_KEY)


IMPORT_MODE = Mode.CRD
"""The imported stack is checked as ``validate --mode crd`` checks it: it holds the custom
resources of the cluster, for the crd-mode program (``tars:mode: crd``)."""
_APP_FILE = re.compile(r"[A-Za-z][0-9A-Za-z]*")


@dataclass(frozen=True)
class ImportResult:
    """What an import makes: the stack files (none when a rule error blocks), every violation
    of the imported stack (errors block; TX002 warns of what was left out), notes, the secrets
    that the user moves into Pulumi config (config key → shell command that reads it), and the
    number of TarsK8S objects per kind and of plain objects in the files."""

    files: dict[str, str] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    stack: DocumentSet = field(default_factory=DocumentSet)
    kinds: dict[str, int] = field(default_factory=dict)
    plain_objects: int = 0

    @property
    def ok(self) -> bool:
        """True when no violation is an error (the files can be written)."""
        return not has_errors(self.violations)


def import_texts(
    texts: Mapping[str, str],
    namespace: str | None = None,
    pulumi_plan: bool = False,
    limits: Limits | None = None,
) -> ImportResult:
    """The stack files of an export (pure). Raises :class:`LoadError` for input that cannot be
    read at all (the same as ``validate``).

    The stack the files hold is checked first, as ``validate --mode crd`` checks it, at the
    export's own files and lines: when a rule error blocks, ``files`` is empty (``ok`` is
    false). TAccounts are checked as written (credentials as config secret references);
    TA006 (an offline render writes a placeholder for such a reference) is left to ``render``,
    and said in a note instead."""
    cleaned: list[dict[str, Any]] = []
    loaded = load_texts(texts, namespace, cleaned, limits)  # every load problem is raised here
    stack_namespace = namespace or "default"
    secrets: dict[str, str] = {}
    written: list[dict[str, Any]] = []
    for doc in cleaned:
        if is_tars_document(doc) and doc["kind"] == "TAccount":
            doc = _account_reference(doc, secrets)
        written.append(doc)
    stack = _with_accounts(loaded, [d for d in written if _is_account(d)], stack_namespace)
    options = Options(namespace=stack_namespace, mode=IMPORT_MODE)
    violations = [v for v in check(stack, options) if v.code != TA006.code]
    if has_errors(violations):
        return ImportResult(violations=violations, notes=list(stack.notes), stack=stack)
    groups: dict[str, list[dict[str, Any]]] = {}
    for doc in written:
        groups.setdefault(_file_for(doc), []).append(doc)
    ordered = {name: sorted(docs, key=_order) for name, docs in sorted(groups.items())}
    files = {name: dump_all_literal(docs) for name, docs in ordered.items()}
    if secrets:
        files[SECRETS_SCRIPT] = _secrets_script(secrets)
    if pulumi_plan:
        files[PULUMI_IMPORT_FILE] = pulumi_import_plan(
            [doc for docs in ordered.values() for doc in docs]
        )
    kinds = Counter(str(d["kind"]) for d in written if is_tars_document(d))
    return ImportResult(
        files=files,
        violations=violations,
        notes=[*stack.notes, *_notes(secrets, groups.get(PLAIN_FILE, []))],
        secrets=secrets,
        stack=stack,
        kinds=dict(sorted(kinds.items())),
        plain_objects=sum(1 for d in written if not is_tars_document(d)),
    )


def _notes(secrets: Mapping[str, str], plain: Iterable[Mapping[str, Any]]) -> list[str]:
    notes = []
    if secrets:
        notes.append(
            f"{len(secrets)} TAccount credential(s) now reference Pulumi config secrets: run "
            f"{SECRETS_SCRIPT} once per Pulumi stack (it pipes them from the cluster into "
            "pulumi config set --secret, nothing is written to disk)"
        )
    with_data = sorted(
        f"{d['metadata'].get('namespace', '')}/{d['metadata']['name']}"
        for d in plain
        if d.get("kind") == "Secret" and (d.get("data") or d.get("stringData"))
    )
    if with_data:
        notes.append(
            f"{PLAIN_FILE} holds the data of Secret(s) {', '.join(with_data)} as exported "
            "(base64, not encrypted; the file is created 0600): keep that file out of version "
            "control, or create those Secrets from Pulumi config secrets in your program instead"
        )
    return notes


def _is_account(doc: Mapping[str, Any]) -> bool:
    return is_tars_document(doc) and doc["kind"] == "TAccount"


def _identity(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        return None
    namespace, name = meta.get("namespace"), meta.get("name")
    if isinstance(namespace, str) and isinstance(name, str):
        return namespace, name
    return None


def _with_accounts(
    loaded: DocumentSet, accounts: list[dict[str, Any]], namespace: str
) -> DocumentSet:
    """``loaded`` with each TAccount as the import writes it (its credential a config secret
    reference, a password dropped beside a hash), at the export's location; the loader's
    violations of those TAccounts give way to the rebuilt ones'. A TAccount that is still
    refused (or whose identity is not unique) keeps what the loader said."""
    bodies: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for body in accounts:
        identity = _identity(body)
        if identity is not None:
            bodies.setdefault(identity, []).append(body)
    sources: dict[tuple[str, str], Source | None] = {
        (d.namespace, d.name): d.source for d in loaded.documents if d.kind == "TAccount"
    }
    sources.update(
        ((r.namespace, r.name), r.source) for r in loaded.rejected if r.kind == "TAccount"
    )
    rebuilt: dict[tuple[str, str], Document] = {}
    for identity, found in bodies.items():
        if len(found) != 1 or identity not in sources:
            continue
        try:
            doc = parse_document(found[0], namespace)
        except ValueError:
            continue
        rebuilt[identity] = doc.with_source(sources[identity])

    def replaced(kind: str, identity: tuple[str, str]) -> bool:
        return kind == "TAccount" and identity in rebuilt

    documents = [d for d in loaded.documents if not replaced(d.kind, (d.namespace, d.name))]
    return replace(
        loaded,
        documents=(*documents, *rebuilt.values()),
        rejected=tuple(r for r in loaded.rejected if not replaced(r.kind, (r.namespace, r.name))),
        violations=tuple(
            v for v in loaded.violations if not replaced(v.kind, (v.namespace, v.name))
        ),
    )


def _file_for(doc: Mapping[str, Any]) -> str:
    """The stack file of a document (one the checks passed: every field it is placed by is
    valid; anything else goes to the file of its kind)."""
    if not is_tars_document(doc):
        return PLAIN_FILE
    kind = doc["kind"]
    spec = doc.get("spec")
    meta = doc.get("metadata")
    if kind == "TServer":
        app = spec.get("app") if isinstance(spec, dict) else None
    elif kind == "TConfig":
        app = doc.get("app")
    elif kind == "TImage":
        labels = meta.get("labels") if isinstance(meta, dict) else None
        app = labels.get(LABEL_APP) if isinstance(labels, dict) else None
    else:
        return KIND_FILES.get(kind, PLAIN_FILE)
    if isinstance(app, str) and _APP_FILE.fullmatch(app):
        return f"app-{app}.yaml"
    return KIND_FILES.get(kind, "apps.yaml")


def _order(doc: Mapping[str, Any]) -> tuple[int, str, str, str]:
    kind = str(doc["kind"])
    rank = _KIND_ORDER.index(kind) if kind in _KIND_ORDER else len(_KIND_ORDER)
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return rank, kind, str(meta.get("namespace") or ""), str(meta.get("name"))


def secret_key(namespace: str, username: str, name: str, field_name: str = "bcryptPassword") -> str:
    """The Pulumi config key (without ``tars:``) of a TAccount's credential,
    ``taccount.<namespace>.<who>.<field>``: ``who`` is the username when it is a valid key,
    else the object name (the username's MD5: 32 characters, a username has at most 16). A
    namespace holds no ``.``, so two accounts never share a key, whatever their namespaces and
    usernames."""
    who = username if _KEY_SAFE.fullmatch(username) else name
    return f"taccount.{namespace}.{who}.{field_name}"


def _account_reference(doc: dict[str, Any], secrets: dict[str, str]) -> dict[str, Any]:
    """The TAccount as the import writes it: login tokens dropped; a ``password`` dropped
    when a ``bcryptPassword`` is there (the hash is the credential the cluster verifies);
    the remaining literal credential replaced by a config secret reference, and ``secrets``
    gets its key and the shell command that reads its value (from the cluster for a hash;
    from the user for a password, which a live cluster never holds)."""
    spec = doc.get("spec")
    meta = doc.get("metadata")
    if not isinstance(spec, dict) or not isinstance(meta, dict):
        return doc
    auth = spec.get("authentication")
    if not isinstance(auth, dict):
        return doc
    auth = dict(auth)
    auth.pop("tokens", None)
    if "bcryptPassword" in auth:
        auth.pop("password", None)
    field_name = "bcryptPassword" if "bcryptPassword" in auth else "password"
    namespace, name, username = meta.get("namespace"), meta.get("name"), spec.get("username")
    if (
        isinstance(auth.get(field_name), str)
        and isinstance(namespace, str)
        and isinstance(name, str)
    ):
        key = secret_key(namespace, username if isinstance(username, str) else "", name, field_name)
        auth[field_name] = {"configSecret": key}
        if field_name == "bcryptPassword":
            secrets[key] = (
                f"kubectl get taccounts.k8s.tars.io -n {shlex.quote(namespace)} "
                f"{shlex.quote(name)} -o jsonpath='{{.spec.authentication.bcryptPassword}}'"
            )
        else:
            secrets[key] = ""  # asked by pulumi-secrets.sh
    return {**doc, "spec": {**spec, "authentication": auth}}


def _secrets_script(secrets: Mapping[str, str]) -> str:
    lines = [
        "#!/bin/sh",
        "# Written by `tars-components import`. Moves the TAccount credentials of the imported",
        "# namespace from the cluster into Pulumi config secrets, without writing them to any",
        "# file. Run it once per Pulumi stack (`pulumi stack select ENV` first), with kubectl",
        "# pointing at the cluster the export came from.",
        "set -eu",
    ]
    for key, command in sorted(secrets.items()):
        target = f"pulumi config set --secret {shlex.quote('tars:' + key)}"
        if command:
            lines.append(f"{command} | {target}")
        else:  # a password: no cluster holds it; Pulumi asks for it without echoing it
            ask = f"tars:{key}: type the password that the export held"
            lines.extend([f"echo {shlex.quote(ask)} >&2", target])
    return "\n".join(lines) + "\n"


def read_export(path: str | Path, limits: Limits | None = None) -> dict[str, str]:
    """The YAML texts of an export: one file, or every ``*.yaml``/``*.yml``/``*.json`` of a
    directory, within ``limits``. Raises :class:`LoadError` when it cannot be read."""
    return read_texts(path, limits or Limits(), (".yaml", ".yml", ".json"), "export directory")


def import_export(
    export: str | Path,
    out_dir: str | Path,
    namespace: str | None = None,
    pulumi_plan: bool = False,
    limits: Limits | None = None,
) -> ImportResult:
    """The ``import`` job: read the export, check the stack it makes, write the stack
    directory, which must not exist or be empty (:class:`UsageError` otherwise).

    Nothing is written when the export cannot be read (:class:`LoadError`) or a rule error
    blocks (``result.ok`` is false). The files are written like a render's
    (:func:`tars_components.jobs.tree_writer.write_tree`): in a staging directory renamed into
    place, so ``out_dir`` is absent or complete at every instant; files that hold a secret are
    created 0600, ``pulumi-secrets.sh`` 0700."""
    check_new_dir(out_dir)
    if namespace is not None:
        check_option_values({"namespace": namespace}, config=False)
    result = import_texts(read_export(export, limits), namespace, pulumi_plan, limits)
    if result.ok:
        write_tree(
            out_dir, result.files, directories=(), executable={SECRETS_SCRIPT}, replace=False
        )
    return result


__all__ = [
    "IMPORT_MODE",
    "PULUMI_IMPORT_FILE",
    "SECRETS_SCRIPT",
    "ImportResult",
    "import_export",
    "import_texts",
    "pulumi_import_plan",
    "read_export",
    "secret_key",
]
