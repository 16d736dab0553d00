"""Helpers shared by the tests of several layers (``pythonpath = ["tests"]`` in
pyproject.toml makes this package importable as ``support``)."""
