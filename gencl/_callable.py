"""Stage packages that are also the API's calls: ``gencl.tune(...)`` and ``gencl.tune.SearchSpace``.

``gencl.tune``, ``gencl.space``, ``gencl.verify`` and ``gencl.profile`` are packages of the
pipeline; importing one sets it as an attribute of ``gencl``, so a plain function of that name
would be replaced by the module. Calling the module forwards to ``gencl.api`` instead.
"""

from __future__ import annotations

import sys
import types
from typing import Any


def make_callable(module_name: str, api_name: str) -> None:
    """Make the module *module_name* callable as ``gencl.api.<api_name>``."""
    module = sys.modules[module_name]

    class CallableModule(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            from gencl import api

            return getattr(api, api_name)(*args, **kwargs)

    CallableModule.__name__ = f"CallableModule[{api_name}]"
    module.__class__ = CallableModule
