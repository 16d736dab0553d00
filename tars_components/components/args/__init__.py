"""Arguments of the components: one dataclass per component, in a module named like the
component's (``args/server.py`` for :class:`~tars_components.components.TServer`), every field
documented with its default; :mod:`.common` is the one place where a document is built from
fields.

A component takes its arguments either as this object (``TServer(name, TServerArgs(...),
opts)``) or as keywords (``TServer(name, opts, framework=..., app=...)``); the keyword
``@overload`` of each component is generated from these dataclasses by
``tools/gen_argsdicts.py``.
"""

from .common import split_args
from .framework import TFrameworkArgs
from .server import TServerArgs
from .taccount import TAccountArgs
from .tconfig import TConfigArgs
from .template import TTemplateArgs
from .timage import TImageArgs
from .ttree import TTreeArgs

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
