"""Arguments of the components: one dataclass per component, in a module named like the
component's (``args/server.py`` for :class:`~tars_components.components.TServer`), every field
documented with its default; :mod:`.common` is the one place where a document is built from
fields.

A component takes its arguments either as this object (``TServer(name, TServerArgs(...),
opts)``) or as keywords (``TServer(name, opts, framework=..., app=...)``); the keyword
``@overload`` of each component is generated from these dataclasses by
``tools/gen_argsdicts.py``.
"""

from .args_common import split_args
from .args_framework import TFrameworkArgs
from .args_server import TServerArgs
from .args_taccount import TAccountArgs
from .args_tconfig import TConfigArgs
from .args_template import TTemplateArgs
from .args_timage import TImageArgs
from .args_ttree import TTreeArgs

__all__ = [
    "TAccountArgs",
    "TConfigArgs",
    "TFrameworkArgs",
    "TImageArgs",
    "TServerArgs",
    "TTemplateArgs",
    "TTreeArgs",
    "split_args",
]
