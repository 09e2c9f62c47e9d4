"""The peers a stencil's user compares with first, built from one kernel text and one torch
function: a naive one-thread-per-point kernel in OpenCL C (on gencl's own device) and in CUDA C
(CuPy), and torch eager and torch.compile of the update."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gencl.peers._context import PeerContext
from gencl.peers._cuda import cupy_kernel_peer, torch_compile_peer, torch_peer
from gencl.peers._opencl import opencl_kernel_peer


def portable_source(text: str, language: str, real: str) -> str:
    """*text*, a kernel written with the macros KERNEL, GLOBAL, GX, GY, GZ and the type
    ``real``, as CUDA C (``language`` ``"cuda"``) or OpenCL C (else) for element type *real*
    (``"float"`` or ``"double"``)."""
    if language == "cuda":
        head = ('#define KERNEL extern "C" __global__\n#define GLOBAL\n'
                "#define GX (blockIdx.x * blockDim.x + threadIdx.x)\n"
                "#define GY (blockIdx.y * blockDim.y + threadIdx.y)\n"
                "#define GZ (blockIdx.z * blockDim.z + threadIdx.z)\n")
    else:
        head = ("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if real == "double" else "")
        head += ("#define KERNEL __kernel\n#define GLOBAL __global\n"
                 "#define GX get_global_id(0)\n#define GY get_global_id(1)\n"
                 "#define GZ get_global_id(2)\n")
    return head + f"#define real {real}\n" + text


def naive_and_torch_peers(kernel: str, *, source: str,
                          args: Sequence[str], block: Sequence[int], extents: Sequence[str],
                          update: Callable[..., Any], inputs: Callable[[PeerContext], Any],
                          expected: Callable[[PeerContext], Any]) -> Mapping[str, Any]:
    """``ApplicationHooks.peers`` for a kernel named *kernel*.

    Args:
        source: the naive kernel in the portable form ``portable_source`` turns into OpenCL C
            and CUDA C, with ``real`` the point's dtype.
        args: the kernel's argument names, in order; block: the work-group (thread block) shape,
            x first; extents: the size names the grid covers along x, y(, z), one thread a point.
        update: the step written with torch ops; inputs, expected: the logical inputs and the
            numpy reference each peer is checked against before its time counts.
    """
    block = tuple(block)

    def real(ctx: PeerContext) -> str:
        return "double" if ctx.point["dtype"] == "float64" else "float"

    def grid(ctx: PeerContext) -> tuple[int, ...]:
        return tuple(-(-ctx.sizes[n] // b) for n, b in zip(extents, block))

    return {
        "hand_opencl": opencl_kernel_peer(
            lambda ctx: portable_source(source, "opencl", real(ctx)), kernel, args=args,
            global_size=lambda ctx: tuple(g * b for g, b in zip(grid(ctx), block)),
            local_size=lambda ctx: block, inputs=inputs, expected=expected),
        "pytorch_eager": torch_peer(update, inputs=inputs, expected=expected),
        "torch_compile": torch_compile_peer(update, inputs=inputs, expected=expected),
        "cuda_naive": cupy_kernel_peer(
            lambda ctx: portable_source(source, "cuda", real(ctx)), kernel, args=args,
            launch=lambda ctx: (grid(ctx), block), inputs=inputs, expected=expected),
    }
