"""gencl: abstract loopy programs → OpenCL variants → measurements → device profile → tuning.

The tree follows the pipeline: ``spec`` → ``generate`` → ``measure`` → ``characterize`` →
``profile`` → ``model`` → ``tune`` → ``verify``; ``cli`` is a thin layer over it.
"""

from gencl._version import __version__

__all__ = ["__version__"]
