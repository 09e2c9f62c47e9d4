"""gencl: abstract loopy programs → OpenCL variants → measurements → device profile → tuning.

The tree follows the pipeline: ``spec`` → ``generate`` → ``measure`` → ``characterize`` →
``profile`` → ``model`` → ``tune`` → ``verify``; ``api`` is one call per command (re-exported
here, lazily: ``gencl.tune(spec, ...)``, ``gencl.space``, ``gencl.explain``, ``gencl.profile``,
``gencl.verify``, ``gencl.simulate``, ``gencl.run``, ``gencl.load``) and ``cli`` a face over it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gencl._version import __version__

if TYPE_CHECKING:
    from gencl.profile import DeviceProfile

__all__ = ["__version__", "describe", "explain", "load", "load_profile", "profile", "run",
           "simulate", "space", "tune", "verify"]

#: API calls whose name is also a stage package: the package itself is callable
_PACKAGES = ("tune", "space", "verify", "profile")
_FUNCTIONS = ("explain", "load", "run", "simulate", "describe")


def __getattr__(name: str) -> Any:
    if name in _PACKAGES:
        return importlib.import_module(f"gencl.{name}")
    if name in _FUNCTIONS:
        return getattr(importlib.import_module("gencl.api"), name)
    raise AttributeError(f"module 'gencl' has no attribute {name!r}")


def load_profile(path: Any) -> DeviceProfile:
    """Read a device profile (profile.json or its folder): see ``gencl.profile.load_profile``."""
    from gencl.profile import load_profile as _load

    return _load(path)
