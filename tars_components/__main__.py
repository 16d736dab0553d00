"""``python -m tars_components``: the same as the ``tars-components`` command."""

import sys

from .cli import main

sys.exit(main())
