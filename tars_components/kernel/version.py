"""The release: one declared version for the distribution (pyproject.toml reads it), the
component schema (``plugin/schema.json``, hence every generated SDK) and
``tars-components --version``; a git tag ``v<version>`` marks the release commit."""

__version__ = "0.2.0"
