"""Peers on a CUDA GPU: torch eager, torch.compile, a CUDA C kernel through CuPy, and a
library call through CuPy (cuSPARSE, cuBLAS, cuFFT behind ``cupyx``/``cupy``).

Timed with CUDA events (batches of calls ≥ 0.2 ms, median of the samples) after their answer
matched the reference. Without torch/cupy, or without a CUDA device, they raise PeerUnavailable:
peers run on the GPU only, and the summary says why one did not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gencl.peers._args import Data, host_arguments
from gencl.peers._context import PeerContext, PeerUnavailable, median_of_batches

Peer = Callable[[PeerContext], float]


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise PeerUnavailable("torch is not installed") from None
    if not torch.cuda.is_available():
        raise PeerUnavailable("no CUDA device (torch peers run on the GPU only)")
    return torch


def _cupy() -> Any:
    try:
        import cupy
    except ImportError:
        raise PeerUnavailable("cupy is not installed") from None
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise PeerUnavailable("no CUDA device (CuPy peers run on the GPU only)")
    except cupy.cuda.runtime.CUDARuntimeError as exc:
        raise PeerUnavailable(f"no CUDA device ({exc})") from None
    return cupy


def cuda_event_time(call: Callable[[], Any], make_event: Callable[[], Any],
                    elapsed_ms: Callable[[Any, Any], float], synchronize: Callable[[], Any],
                    repeats: int) -> float:
    """Median seconds per *call* by CUDA events, after three warm-up calls."""
    for _ in range(3):
        call()
    synchronize()

    def batch(k: int) -> float:
        start, end = make_event(), make_event()
        start.record()
        for _ in range(k):
            call()
        end.record()
        end.synchronize()
        return elapsed_ms(start, end) * 1e-3

    return median_of_batches(batch, batch(1), repeats)


def torch_peer(fn: Callable[..., Mapping[str, Any]], *, compile: bool = False,
               inputs: Data | None = None, expected: Data | None = None) -> Peer:
    """A peer from a function written with torch ops.

    Args:
        fn: called with the inputs as keywords (arrays as CUDA tensors, scalars as numbers);
            returns the outputs by name (tensors). It may write into an input tensor in place.
        compile: run ``torch.compile(fn)`` (compiled on the first call, before timing).
        inputs / expected: the data and reference in another layout than the spec's.
    """

    def peer(ctx: PeerContext) -> float:
        torch = _torch()
        host = inputs(ctx) if inputs is not None else ctx.inputs
        args = {k: torch.from_numpy(np.ascontiguousarray(v)).cuda() if isinstance(v, np.ndarray)
                else (v.item() if isinstance(v, np.generic) else v) for k, v in host.items()}
        call = torch.compile(fn) if compile else fn
        got = call(**args)
        torch.cuda.synchronize()
        ctx.check({k: v.detach().cpu().numpy() for k, v in got.items()},
                  expected(ctx) if expected is not None else None)
        return cuda_event_time(lambda: call(**args), lambda: torch.cuda.Event(enable_timing=True),
                               lambda a, b: a.elapsed_time(b), torch.cuda.synchronize,
                               ctx.repeats)

    return peer


def torch_compile_peer(fn: Callable[..., Mapping[str, Any]], **options: Any) -> Peer:
    """``torch_peer(fn, compile=True)``."""
    return torch_peer(fn, compile=True, **options)


def cupy_kernel_peer(source: str | Callable[[PeerContext], str], name: str, *,
                     args: Sequence[str],
                     launch: Callable[[PeerContext], tuple[tuple[int, ...], tuple[int, ...]]],
                     options: Sequence[str] = (), inputs: Data | None = None,
                     expected: Data | None = None) -> Peer:
    """A CUDA C kernel (the one a user writes first) run by ``cupy.RawKernel``.

    Args:
        source: CUDA C text, or a function of the context giving it (to choose the element type:
            ``"float"`` or ``"double"`` from the point's dtype).
        name: the ``extern "C" __global__`` function.
        args: kernel argument names in order: inputs, reference outputs (poisoned), sizes.
        launch: (grid, block) in CUDA's sense: blocks per grid, threads per block.
        options: nvrtc options (``-O3`` is nvrtc's default).
        inputs / expected: the data and reference in another layout than the spec's.
    """

    def peer(ctx: PeerContext) -> float:
        cp = _cupy()
        text = source(ctx) if callable(source) else source
        kernel = cp.RawKernel(text, name, options=tuple(options))
        host, want = host_arguments(ctx, args, inputs, expected)
        dev = [(k, cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in host]
        values = tuple(v for _, v in dev)
        grid, block = launch(ctx)

        def call() -> None:
            kernel(tuple(grid), tuple(block), values)

        call()
        cp.cuda.Device().synchronize()
        ctx.check({k: cp.asnumpy(v) for k, v in dev if k in want}, want)
        return cuda_event_time(call, cp.cuda.Event, cp.cuda.get_elapsed_time,
                               cp.cuda.Device().synchronize, ctx.repeats)

    return peer


def cupy_call_peer(setup: Callable[[PeerContext, Any], Callable[[], Mapping[str, Any]]]) -> Peer:
    """A vendor library's call through CuPy (``cupyx.scipy.sparse`` → cuSPARSE, ``cupy.matmul``
    → cuBLAS …).

    Args:
        setup: ``setup(ctx, cupy)`` builds the library's data on the device from the context's
            inputs, once (a sparse matrix's format conversion is not timed), and returns the
            call that is timed; the call returns the outputs by name (device arrays).
    """

    def peer(ctx: PeerContext) -> float:
        cp = _cupy()
        call = setup(ctx, cp)
        got = call()
        cp.cuda.Device().synchronize()
        ctx.check({k: cp.asnumpy(v) for k, v in got.items()})
        return cuda_event_time(call, cp.cuda.Event, cp.cuda.get_elapsed_time,
                               cp.cuda.Device().synchronize, ctx.repeats)

    return peer
