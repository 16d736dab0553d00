"""``tars-components import``: a live namespace export → a clean stack directory (issue 11).

:func:`import_texts` is pure (``{file: YAML text}`` in, ``{relative path: text}`` out);
:func:`import_export` reads the export (a file or a directory) and writes the stack directory.

What the stack directory holds, one YAML file per kind or per app, documents sorted by kind
then name:

* ``framework.yaml`` (TFrameworkConfig), ``templates.yaml`` (TTemplate), ``tree.yaml``
  (TTree), ``images.yaml`` (TImages of no app: base and node images), ``accounts.yaml``
  (TAccount), ``kubernetes.yaml`` (plain Kubernetes objects, TFrameworkKey, TPlugin);
* ``app-<App>.yaml`` per app: its TServers, its TConfigs and the TImages labelled
  ``tars.io/ServerApp=<App>``;
* ``pulumi-secrets.sh``: the commands that move each TAccount credential from the cluster into
  a Pulumi config secret (``kubectl get … | pulumi config set --secret tars:KEY``), so the
  credential is never written to a file; the TAccount itself says
  ``bcryptPassword: {configSecret: KEY}``;
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
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import UsageError, Violation
from .loader import CLUSTER_SCOPED_KINDS, load_texts, read_texts
from .models import API_VERSIONS, FRAMEWORK_CONFIG_NAME, KINDS, V1BETA3
from .models.taccount import P_CONFIG_KEY
from .stack import Stack
from .yamlio import Limits

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


@dataclass(frozen=True)
class ImportResult:
    """What an import makes: the stack files, what was skipped or noticed, and the secrets
    that the user moves into Pulumi config (config key → how to read it from the cluster)."""

    files: dict[str, str] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    stack: Stack = field(default_factory=Stack)


def import_texts(
    texts: Mapping[str, str],
    namespace: str | None = None,
    pulumi_plan: bool = False,
    limits: Limits | None = None,
) -> ImportResult:
    """The stack files of an export (pure). Raises :class:`LoadError` for input that cannot be
    read at all (the same as ``validate``)."""
    cleaned: list[dict[str, Any]] = []
    stack = load_texts(texts, namespace, cleaned, limits)  # every load problem is raised here
    groups: dict[str, list[dict[str, Any]]] = {}
    secrets: dict[str, str] = {}
    for doc in cleaned:
        if str(doc.get("apiVersion")) not in API_VERSIONS or doc["kind"] not in KINDS:
            groups.setdefault(PLAIN_FILE, []).append(doc)
            continue
        if doc["kind"] == "TAccount":
            doc = _account_reference(doc, secrets)
        groups.setdefault(_file_for(doc), []).append(doc)
    files = {name: _dump_all(sorted(docs, key=_order)) for name, docs in sorted(groups.items())}
    if secrets:
        files[SECRETS_SCRIPT] = _secrets_script(secrets)
    if pulumi_plan:
        files[PULUMI_IMPORT_FILE] = pulumi_import_plan(
            [d for name, docs in sorted(groups.items()) for d in sorted(docs, key=_order)]
        )
    notes = list(stack.notes)
    if secrets:
        notes.append(
            f"{len(secrets)} TAccount credential(s) now reference Pulumi config secrets: run "
            f"{SECRETS_SCRIPT} once per Pulumi stack (it pipes them from the cluster into "
            "pulumi config set --secret, nothing is written to disk)"
        )
    with_data = sorted(
        f"{d['metadata'].get('namespace', '')}/{d['metadata']['name']}"
        for d in groups.get(PLAIN_FILE, [])
        if d.get("kind") == "Secret" and (d.get("data") or d.get("stringData"))
    )
    if with_data:
        notes.append(
            f"{PLAIN_FILE} holds the data of Secret(s) {', '.join(with_data)} as exported "
            "(base64, not encrypted): keep that file out of version control, or create those "
            "Secrets from Pulumi config secrets in your program instead"
        )
    skipped = [v for v in stack.violations if v.code == "TX002"]
    return ImportResult(files=files, violations=skipped, notes=notes, secrets=secrets, stack=stack)


def _file_for(doc: Mapping[str, Any]) -> str:
    kind = doc["kind"]
    if kind in ("TServer", "TConfig"):
        app = doc["spec"]["app"] if kind == "TServer" else doc["app"]
        return f"app-{app}.yaml"
    if kind == "TImage":
        app = (doc["metadata"].get("labels") or {}).get("tars.io/ServerApp")
        if app and _KEY_SAFE.fullmatch(app):
            return f"app-{app}.yaml"
    return KIND_FILES[kind]


def _order(doc: Mapping[str, Any]) -> tuple[int, str, str, str]:
    kind = str(doc["kind"])
    rank = _KIND_ORDER.index(kind) if kind in _KIND_ORDER else len(_KIND_ORDER)
    meta = doc.get("metadata") or {}
    return rank, kind, str(meta.get("namespace") or ""), str(meta.get("name"))


def secret_key(username: str, name: str) -> str:
    """The Pulumi config key (without ``tars:``) of a TAccount's hash: readable when the
    username is a valid key, the object name (the username's MD5) otherwise."""
    who = username if _KEY_SAFE.fullmatch(username) else name
    return f"taccount-{who}-bcryptPassword"


def _account_reference(doc: dict[str, Any], secrets: dict[str, str]) -> dict[str, Any]:
    """The TAccount with its credential replaced by a config secret reference and its login
    tokens dropped; ``secrets`` gets the key and how to read the value from the cluster."""
    spec = doc.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("authentication"), dict):
        return doc
    meta = doc["metadata"]
    auth = dict(spec["authentication"])
    auth.pop("tokens", None)
    field_name = "bcryptPassword" if "bcryptPassword" in auth else "password"
    if field_name in auth:
        key = secret_key(str(spec.get("username", "")), str(meta["name"]))
        auth[field_name] = {"configSecret": key}
        secrets[key] = (
            f"kubectl get taccounts.k8s.tars.io -n {shlex.quote(str(meta['namespace']))} "
            f"{shlex.quote(str(meta['name']))} "
            f"-o jsonpath='{{.spec.authentication.{field_name}}}'"
        )
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
        lines.append(f"{command} | pulumi config set --secret {shlex.quote('tars:' + key)}")
    return "\n".join(lines) + "\n"


def pulumi_import_plan(objects: list[dict[str, Any]], crd_api_version: str = V1BETA3) -> str:
    """The ``pulumi import --file`` JSON, named exactly as
    :func:`tars_components.components.components_from_stack` registers the stack in crd mode
    (the program of ``tars:mode: crd``), so that the next ``pulumi up`` adopts every object
    instead of recreating it:

    * one empty component per framework (``tars:index:TFramework``, named ``<namespace>``)
      and per TarsK8S document (``tars:index:<Kind>``, named ``<namespace>/<name>``), created
      by the import (``component: true``; the entry's ``name`` is unique in the file,
      ``logicalName`` is the resource's name);
    * per object its resource type (``kubernetes:<apiVersion>:<Kind>``, TarsK8S kinds at
      ``crd_api_version``, ``core`` for the core group), its logical name (the component's
      name and ``-<kind>``; ``<namespace>-tframeworkconfig`` for the ``tars-framework``
      config, a child of the framework; ``<namespace>/<name>-<kind>`` for a plain object, a
      child of its namespace's framework) and its id (``<namespace>/<name>``, or the name of a
      cluster-scoped object).

    The validation resources are not imported: they hold no cluster object and are created by
    the next ``pulumi up``."""
    frameworks: list[str] = []
    for obj in objects:
        if _is_tars(obj):
            namespace = str(obj["metadata"].get("namespace") or "default")
            if namespace not in frameworks:
                frameworks.append(namespace)
    resources: list[dict[str, Any]] = [
        {"type": "tars:index:TFramework", "name": namespace, "component": True}
        for namespace in frameworks
    ]
    for obj in objects:
        api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
        meta = obj["metadata"]
        name = str(meta["name"])
        own = meta.get("namespace") if kind not in CLUSTER_SCOPED_KINDS else None
        namespace = str(own) if own else ""
        object_id = f"{namespace}/{name}" if namespace else name
        if not _is_tars(obj):
            group_version = api_version if "/" in api_version else f"core/{api_version}"
            logical = (
                f"{namespace}/{name}-{kind.lower()}" if namespace else f"{name}-{kind.lower()}"
            )
            entry = {"type": f"kubernetes:{group_version}:{kind}", "name": logical, "id": object_id}
            parent = namespace if namespace in frameworks else next(iter(frameworks), None)
            if parent is not None:
                entry["parent"] = parent
            resources.append(entry)
            continue
        object_type = f"kubernetes:{crd_api_version}:{kind}"
        if kind == "TFrameworkConfig" and name == FRAMEWORK_CONFIG_NAME:
            resources.append(
                {
                    "type": object_type,
                    "name": f"{namespace}-{kind.lower()}",
                    "id": object_id,
                    "parent": namespace,
                }
            )
            continue
        component = f"{namespace}/{name}"
        key = f"{kind}:{component}"
        resources.append(
            {
                "type": f"tars:index:{kind}",
                "name": key,
                "logicalName": component,
                "component": True,
                "parent": namespace,
            }
        )
        resources.append(
            {
                "type": object_type,
                "name": f"{component}-{kind.lower()}",
                "id": object_id,
                "parent": key,
            }
        )
    return json.dumps({"resources": resources}, indent=2, ensure_ascii=False) + "\n"


def _is_tars(obj: Mapping[str, Any]) -> bool:
    return str(obj.get("apiVersion")) in API_VERSIONS and obj.get("kind") in KINDS


_SAFE_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _BlockDumper(_SAFE_DUMPER):  # type: ignore[misc, valid-type]
    """Multi-line strings (config contents, templates) as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str)


def _dump_all(docs: list[dict[str, Any]]) -> str:
    return yaml.dump_all(docs, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)


def read_export(path: str | Path, limits: Limits | None = None) -> dict[str, str]:
    """The YAML texts of an export: one file, or every ``*.yaml``/``*.yml``/``*.json`` of a
    directory, within ``limits``. Raises :class:`LoadError` when it cannot be read."""
    return read_texts(path, limits or Limits(), (".yaml", ".yml", ".json"), "export directory")


def import_export(
    export: str | Path, out_dir: str | Path, namespace: str | None = None, pulumi_plan: bool = False
) -> ImportResult:
    """The ``import`` job: read the export, write the stack directory (which must not exist
    or be empty; nothing is written when the export cannot be read)."""
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {out}: exists and is not an empty directory")
    result = import_texts(read_export(export), namespace, pulumi_plan)
    out.mkdir(parents=True, exist_ok=True)
    for relative, text in result.files.items():
        (out / relative).write_text(text, encoding="utf-8")
    if SECRETS_SCRIPT in result.files:
        (out / SECRETS_SCRIPT).chmod(0o755)
    return result


__all__ = [
    "PULUMI_IMPORT_FILE",
    "SECRETS_SCRIPT",
    "ImportResult",
    "import_export",
    "import_texts",
    "pulumi_import_plan",
    "read_export",
    "secret_key",
]
