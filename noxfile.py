"""Tasks: ``nox -s lint types tests floors docs`` (``nox -l`` lists them).

Each session installs the project into its own virtualenv. ``floors`` pins the declared
minimum versions of pulumi, pulumi-kubernetes and pydantic exactly, as ``.ci/run`` does.
Nox itself needs Python 3.11 or newer (``tomllib``).
"""

from __future__ import annotations

import re
from pathlib import Path

import nox
import tomllib

nox.options.sessions = ["lint", "types", "tests", "docs"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
FLOORED = {"pulumi", "pulumi-kubernetes", "pydantic"}


def floor_pins() -> list[str]:
    """``name==X`` for every runtime dependency of :data:`FLOORED` declared as ``name>=X``."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        dependencies = tomllib.load(f)["project"]["dependencies"]
    pins = []
    for spec in dependencies:
        match = re.match(r"^([A-Za-z0-9_.-]+)\s*>=\s*([0-9][^,;\s]*)", spec)
        if match and match.group(1).lower() in FLOORED:
            pins.append(f"{match.group(1)}=={match.group(2)}")
    if len(pins) != len(FLOORED):
        raise ValueError(f"pyproject.toml declares no floor for some of {sorted(FLOORED)}: {pins}")
    return pins


@nox.session
def lint(session: nox.Session) -> None:
    """``ruff check`` and ``ruff format --check`` over the repository."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def types(session: nox.Session) -> None:
    """``mypy --strict tars_components``, then the fuzz harness (settings in pyproject's
    ``[tool.mypy]``)."""
    session.install(".[test]")
    session.run("mypy", "--strict", "tars_components")
    session.run("mypy", "--strict", "fuzz", env={"MYPYPATH": "tests"})


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite; arguments after ``--`` go to pytest."""
    session.install(".[test]")
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *session.posargs)


@nox.session
def floors(session: nox.Session) -> None:
    """The test suite with the declared dependency floors installed exactly."""
    constraints = Path(session.create_tmp()) / "floors.txt"
    constraints.write_text("\n".join(floor_pins()) + "\n", encoding="utf-8")
    session.install("-c", str(constraints), ".[test]")
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """``mkdocs build --strict`` of the documentation site."""
    session.install(".[docs]")
    site = Path(session.create_tmp()) / "site"
    session.run("mkdocs", "build", "--strict", "--site-dir", str(site))
