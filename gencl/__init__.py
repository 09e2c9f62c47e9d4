"""gencl: abstract loopy programs → OpenCL variants → measurements → device profile → tuning.

The tree follows the pipeline: ``spec`` → ``generate`` → ``measure`` → ``characterize`` →
``profile`` → ``model`` → ``tune`` → ``verify``; ``cli`` is a thin layer over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gencl._version import __version__

if TYPE_CHECKING:
    from gencl.profile import DeviceProfile

__all__ = ["__version__", "load_profile"]


def load_profile(path: Any) -> DeviceProfile:
    """Read a device profile (profile.json or its folder): see ``gencl.profile.load_profile``."""
    from gencl.profile import load_profile as _load

    return _load(path)
