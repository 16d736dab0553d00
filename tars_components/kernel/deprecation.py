"""Renamed public names and moved modules that still work, with a warning, for one minor
version."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

MOVED_MODULES: dict[str, str] = {
    # 0.2.0: the package's rooms (docs/development.md, "The map")
    "account_salts": "jobs.account_salts",
    "batch": "kernel.batch",
    "config": "jobs.config",
    "convert": "jobs.convert",
    "deprecation": "kernel.deprecation",
    "document_set": "loading.document_set",
    "errors": "kernel.errors",
    "expansion.layout": "rules.layout",
    "expansion.rollout": "stages.rollouts",
    "helmlib": "loading.helm",
    "import_plan": "jobs.import_plan",
    "importer": "jobs.importer",
    "karmada": "jobs.karmada",
    "lazy": "kernel.lazy",
    "legacy": "loading.legacy",
    "limits": "kernel.limits",
    "loading.files": "fileio.files",
    "multicluster": "jobs.multicluster",
    "options": "settings.options",
    "paths": "kernel.paths",
    "redaction": "secrets.redaction",
    "render": "jobs.render",
    "rollout": "loading.rollout",
    "rules.registry": "kernel.registry",
    "rules.schema": "loading.schema_rules",
    "schema": "crds.editor_schema",
    "tdeploy": "loading.tdeploy",
    "text": "kernel.text",
    "tree_writer": "jobs.tree_writer",
    "version": "kernel.version",
    "yaml_reader": "kernel.yaml_reader",
    "yaml_writer": "fileio.yaml_writer",
}
"""Every module that moved, ``{old: new}`` below the package: ``import
tars_components.options`` still gives :mod:`tars_components.settings.options`, with a
``DeprecationWarning`` (type checkers only know the new paths)."""


def _warn(old: str, new: str) -> None:
    """Warn that ``old`` goes in the next minor version; ``new`` says what to do instead
    (at the line that used the old name: two frames up)."""
    warnings.warn(
        f"{old} is deprecated and will be removed in the next minor version: {new}",
        DeprecationWarning,
        stacklevel=3,
    )


def renamed_attributes(
    package: str,
    renamed: Mapping[str, str],
    namespace: dict[str, Any],
    fallback: Callable[[str], Any] | None = None,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that answers each old name of ``renamed``
    (``{old: new}``) with the object now called ``new`` and a ``DeprecationWarning``; other
    names go to ``fallback`` (a package's lazy ``__getattr__``) or raise ``AttributeError``.
    Install it under ``if not TYPE_CHECKING`` so type checkers report the old names."""

    def lookup(name: str) -> Any:
        if name in namespace:
            return namespace[name]
        if fallback is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return fallback(name)

    def __getattr__(name: str) -> Any:
        new = renamed.get(name)
        if new is None:
            return lookup(name)
        _warn(f"{package}.{name}", f"use {package}.{new}")
        return lookup(new)

    return __getattr__


def moved_attributes(module: str, moved: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``module`` that answers each name of ``moved`` (``{name:
    the module it moved to}``) with that module's object and a ``DeprecationWarning``. Install
    it under ``if not TYPE_CHECKING`` so type checkers report the old place."""

    def __getattr__(name: str) -> Any:
        target = moved.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        _warn(f"{module}.{name}", f"use {target}.{name}")
        return getattr(importlib.import_module(target), name)

    return __getattr__


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds each old module path of :data:`MOVED_MODULES` and loads it as the module now at
    the new path (the same module object: ``isinstance`` and monkeypatching hold)."""

    def __init__(self, package: str, moved: Mapping[str, str]) -> None:
        self._moved = {f"{package}.{old}": f"{package}.{new}" for old, new in moved.items()}
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self._moved:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self._moved[spec.name]
        _warn(spec.name, f"import {new}")
        module = importlib.import_module(new)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system set the module's __spec__ to the old path's; the module is the
        # new path's and keeps its own.
        module.__spec__ = self._specs.pop(module.__spec__.name if module.__spec__ else "", None)


def install_moved_modules(package: str, moved: Mapping[str, str] = MOVED_MODULES) -> None:
    """Let ``package``'s moved modules be imported by their old paths (once per process)."""
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedModules(package, moved))


__all__ = ["MOVED_MODULES", "install_moved_modules", "moved_attributes", "renamed_attributes"]
