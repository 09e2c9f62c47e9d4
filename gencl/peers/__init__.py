"""Peers: what a user would otherwise run, timed in the same run as gencl's variants.

A spec declares peers as hooks (``ApplicationHooks.peers``: name → ``Peer``, a function of a
``PeerContext`` returning seconds per launch). The runners here build one from a few lines:
torch eager and torch.compile of a function written with torch ops, a CUDA C kernel through
CuPy's RawKernel, a vendor library's call through CuPy (cuSPARSE, cuBLAS), and a plain OpenCL C
kernel on gencl's own device. Each checks its answer against the spec's numpy reference before
its time counts; the CUDA ones run only on a CUDA GPU and raise ``PeerUnavailable`` with the
reason elsewhere.
"""

from gencl.peers._context import (
    PeerContext, PeerUnavailable, PeerWrong, median_of_batches, run_peers)
from gencl.peers._cuda import (
    cupy_call_peer, cupy_kernel_peer, torch_compile_peer, torch_peer)
from gencl.peers._naive import naive_and_torch_peers, portable_source
from gencl.peers._opencl import opencl_kernel_peer

__all__ = ["PeerContext", "PeerUnavailable", "PeerWrong", "cupy_call_peer", "cupy_kernel_peer",
           "median_of_batches", "naive_and_torch_peers", "opencl_kernel_peer", "portable_source",
           "run_peers", "torch_compile_peer", "torch_peer"]
