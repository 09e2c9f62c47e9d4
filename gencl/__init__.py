"""gencl: abstract loopy programs → OpenCL variants → measurements → device profile → tuning.

The tree follows the pipeline: ``spec`` → ``generate`` → ``measure`` → ``characterize`` →
``profile`` → ``model`` → ``tune`` → ``verify``; ``api`` is one call per command (re-exported
here, lazily: ``gencl.tune(spec, ...)``, ``gencl.space``, ``gencl.explain``, ``gencl.profile``,
``gencl.verify``, ``gencl.simulate``, ``gencl.run``, ``gencl.solve``, ``gencl.rank``,
``gencl.load``) and
``cli`` a face over it.
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import TYPE_CHECKING, Any

from gencl._version import __version__

if TYPE_CHECKING:
    from gencl.profile import DeviceProfile

__all__ = ["__version__", "describe", "explain", "load", "load_profile", "profile", "rank",
           "run", "simulate", "solve", "space", "tune", "verify"]

#: API calls whose name is also a stage package: the package itself is callable
_PACKAGES = ("tune", "space", "verify", "profile")
_FUNCTIONS = ("explain", "load", "rank", "run", "simulate", "solve", "describe")


def __getattr__(name: str) -> Any:
    if name in _PACKAGES:
        return importlib.import_module(f"gencl.{name}")
    if name in _FUNCTIONS:
        return getattr(importlib.import_module("gencl.api"), name)
    raise AttributeError(f"module 'gencl' has no attribute {name!r}")


#: Modules whose own warnings the CLI hides unless ``-v``: loopy's scheduler notes ("falling back
#: to a slow scheduler…") and pyopencl's "non-empty compiler output" are about those libraries,
#: not about the user's kernel (a build's log is kept with its measurement).
_THIRD_PARTY = r"(loopy|pytools|pymbolic|islpy|pyopencl)(\.|$)"


def show_third_party_warnings(show: bool) -> None:
    """Show (``-v``) or hide loopy's own warnings, here and in the worker processes gencl starts
    (they import gencl and read ``GENCL_VERBOSE``)."""
    os.environ["GENCL_VERBOSE"] = "1" if show else "0"
    warnings.filterwarnings("default" if show else "ignore", module=_THIRD_PARTY)


if os.environ.get("GENCL_VERBOSE") == "0":  # a worker of a gencl command run without -v
    warnings.filterwarnings("ignore", module=_THIRD_PARTY)


def load_profile(path: Any) -> DeviceProfile:
    """Read a device profile (profile.json or its folder): see ``gencl.profile.load_profile``."""
    from gencl.profile import load_profile as _load

    return _load(path)
