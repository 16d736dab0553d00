"""``python -m tars_components``: the same as the ``tars-components`` command."""

from .cli import console

console()
