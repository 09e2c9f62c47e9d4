"""gencl: abstract loopy programs → OpenCL variants → measurements → device profile → tuning.

The tree follows the pipeline: ``spec`` → ``generate`` → ``measure`` → ``characterize`` →
``profile`` → ``model`` → ``tune`` → ``verify``; ``cli`` is a thin layer over it.
"""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any

from gencl._version import __version__

if TYPE_CHECKING:
    from gencl.profile import DeviceProfile

__all__ = ["__version__", "load_profile"]


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
