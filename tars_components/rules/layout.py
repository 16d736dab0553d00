"""Output file names (the layout of pulumi-kubernetes' ``renderYamlToDirectory``) and the rule
that no two objects of a stack share one (TS026, TT008, TF004; TX004 for the other kinds and
plain Kubernetes objects).

The layout joins namespace and name with ``-``, so two different objects can map to one file
name (TTemplates ``b-c`` in namespace ``a`` and ``c`` in namespace ``a-b``); applied, the
second would overwrite the first. :func:`layout_violations` reports that before anything is
rendered. In expand mode only TServers produce objects, and a TServer's name is
``lower(app)-lower(server)`` with exactly one ``-`` (TS016), so the namespace is everything
before the last two parts and no collision can happen; the check runs there all the same.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import Need, check
from ..loading.document_set import DocumentSet, KubeObject
from ..models import Document, TServerDocument
from ..settings.options import Mode, Options
from .output import file_collision

CRD_DIR = "0-crd"
MANIFEST_DIR = "1-manifest"

# What one TServer becomes in expand mode: (apiVersion, kind) of each object it may produce.
_EXPANDED = (("v1", "Service"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet"))


def output_path(api_version: str, kind: str, namespace: str, name: str) -> str:
    """Relative file path of one object, exactly as ``renderYamlToDirectory`` names it:
    ``1-manifest/<apiVersion with / and : as _>-<kind lowercased>-<namespace>-<name>.yaml``
    (``0-crd/`` for CustomResourceDefinitions)."""
    sanitised = api_version.replace("/", "_").replace(":", "_")
    directory = CRD_DIR if kind == "CustomResourceDefinition" else MANIFEST_DIR
    return f"{directory}/{sanitised}-{kind.lower()}-{namespace or 'default'}-{name}.yaml"


def document_paths(document: Document, options: Options) -> list[str]:
    """The file names that ``document`` renders to with these options (none for a TTemplate
    or TFrameworkConfig in expand mode)."""
    if options.mode == Mode.CRD:
        return [
            output_path(options.crd_api_version, document.kind, document.namespace, document.name)
        ]
    if isinstance(document, TServerDocument):
        return [
            output_path(api, kind, document.namespace, document.name) for api, kind in _EXPANDED
        ]
    return []


@check(Need.OPTIONS)
def layout_violations(stack: DocumentSet, options: Options = Options()) -> list[Violation]:
    """One violation at ``metadata.name`` of every document whose output file name an earlier
    document of another namespace or name already takes (same namespace and name is TS017,
    TT007 or TF003)."""
    return list(_collisions(stack, options))


def _collisions(stack: DocumentSet, options: Options) -> Iterator[Violation]:
    taken: dict[str, Document | KubeObject] = {}
    sources: list[tuple[Document | KubeObject, list[str]]] = [
        (obj, [output_path(obj.api_version, obj.kind, obj.namespace, obj.name)])
        for obj in stack.objects
    ]
    sources.extend((document, document_paths(document, options)) for document in stack.documents)
    for item, paths in sources:
        for path in paths:
            first = taken.setdefault(path, item)
            if first is item:
                continue
            if (first.namespace, first.name) == (item.namespace, item.name) and not (
                first.kind != item.kind and first.kind.lower() == item.kind.lower()
            ):
                # the same object twice: reported by TS017 / TT007 / TF003 / TX003 ...; kinds
                # that differ in casing only are two objects of one file name, told here
                break
            yield file_collision(item, first, path)
            break


__all__ = ["document_paths", "layout_violations", "output_path"]
