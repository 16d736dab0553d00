"""The ``controller`` and ``framework`` commands' jobs: read a values file, build, write the
files (the edge: file I/O and, for the controller, a fresh CA unless one is given)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fileio.files import UnreadableFile, read_text
from ..jobs.render import render_files
from ..jobs.tree_writer import check_out_dir, write_tree
from ..kernel.batch import suspended_gc
from ..kernel.errors import UsageError, Violation
from ..kernel.limits import Limits
from . import require_platform_extra
from .framework import FrameworkBuild, build_framework
from .values import ControllerValues, FrameworkValues, Model, parse_values

if TYPE_CHECKING:
    from .ca import CertificateAuthority

PEM_MAX_BYTES = 1024 * 1024
"""The largest CA certificate or key file read (PEM text; a real one is a few KiB)."""


def read_values(path: str | Path, model: type[Model]) -> Model:
    """A values file, parsed and checked, read under the rules of a stack file (a regular
    file within the default :class:`~tars_components.kernel.limits.Limits`). Raises
    :class:`UsageError`."""
    try:
        text = read_text(path, Limits().max_file_bytes)
    except UnreadableFile as exc:
        raise UsageError(f"{exc.path}:0: cannot read values file: {exc.message}") from None
    return parse_values(text, model, str(path))


def read_ca(cert_path: str | None, key_path: str | None) -> CertificateAuthority | None:
    """The CA given by ``--ca-cert``/``--ca-key`` (both or neither), checked."""
    if not cert_path and not key_path:
        return None
    if not (cert_path and key_path):
        raise UsageError("--ca-cert and --ca-key go together")
    require_platform_extra("cryptography", "reading the webhook CA (--ca-cert, --ca-key)")
    from .certificates import load_ca  # cryptography: only when a CA is given

    try:
        cert = read_text(cert_path, PEM_MAX_BYTES)
        key = read_text(key_path, PEM_MAX_BYTES)
    except UnreadableFile as exc:
        raise UsageError(f"cannot read the CA: {exc.path}: {exc.message}") from None
    return load_ca(cert, key, f"{cert_path}, {key_path}")


@dataclass(frozen=True)
class PlatformRender:
    """What a platform render wrote: objects, files (relative paths), violations, and whether
    the CA was generated in this run."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    generated_ca: bool = False

    @property
    def ok(self) -> bool:
        """True when nothing blocked (files were written)."""
        return not any(v.is_error for v in self.violations)


def render_framework(
    values_path: str | Path, namespace: str, out_dir: str | Path
) -> PlatformRender:
    """``tars-components framework``: nothing is written when a rule error blocks."""
    check_out_dir(out_dir)
    values = read_values(values_path, FrameworkValues)
    with suspended_gc():
        result: FrameworkBuild = build_framework(values, namespace)
        if not result.ok:
            return PlatformRender(violations=result.violations)
        files = render_files(result.objects)
        write_tree(out_dir, files)
    return PlatformRender(result.objects, list(files), result.violations)


def render_controller(
    values_path: str | Path,
    out_dir: str | Path,
    ca_cert: str | None = None,
    ca_key: str | None = None,
) -> PlatformRender:
    """``tars-components controller``: the CA comes from the flags or is generated here."""
    from .controller import build_controller_with_ca

    check_out_dir(out_dir)
    values = read_values(values_path, ControllerValues)
    ca = read_ca(ca_cert, ca_key)
    generated = ca is None
    if ca is None:
        require_platform_extra("cryptography", "generating the webhook CA")
        from .certificates import generate_ca

        ca = generate_ca()
    objects = build_controller_with_ca(values, ca)
    files = render_files(objects)
    write_tree(out_dir, files)  # the Secret holding the CA's key is created 0600
    return PlatformRender(objects, list(files), [], generated)
