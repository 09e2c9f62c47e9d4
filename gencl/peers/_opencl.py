"""A peer written in plain OpenCL C, run on gencl's own device and timed with OpenCL events."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gencl.peers._args import Data, host_arguments
from gencl.peers._context import PeerContext, PeerUnavailable, median_of_batches

Peer = Callable[[PeerContext], float]


def opencl_kernel_peer(source: str | Callable[[PeerContext], str], name: str, *,
                       args: Sequence[str],
                       global_size: Callable[[PeerContext], tuple[int, ...]],
                       local_size: Callable[[PeerContext], tuple[int, ...] | None] | None = None,
                       options: str = "", inputs: Data | None = None,
                       expected: Data | None = None) -> Peer:
    """The OpenCL kernel a user writes by hand (not a gencl variant), on the run's device.

    Args:
        source: OpenCL C text, or a function of the context giving it.
        name: the ``__kernel`` function.
        args: argument names in order: inputs, reference outputs (poisoned), sizes.
        global_size / local_size: NDRange of the launch (local None: the driver's choice).
        inputs / expected: the data and reference in another layout than the spec's.
    """

    def peer(ctx: PeerContext) -> float:
        import pyopencl as cl

        engine = ctx.engine
        if engine is None:
            raise PeerUnavailable("no OpenCL device in this run")
        text = source(ctx) if callable(source) else source
        kernel = getattr(cl.Program(engine.ctx, text).build(options=options), name)
        host, want = host_arguments(ctx, args, inputs, expected)
        mf = cl.mem_flags
        bufs: dict[str, Any] = {}
        values = []
        for k, v in host:
            if isinstance(v, np.ndarray):
                bufs[k] = cl.Buffer(engine.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=v)
                values.append(bufs[k])
            else:
                values.append(v)
        try:
            kernel.set_args(*values)
            gsize = tuple(global_size(ctx))
            lsize = local_size(ctx) if local_size is not None else None
            queue = engine.queue
            first = cl.enqueue_nd_range_kernel(queue, kernel, gsize, lsize)
            first.wait()
            got = {}
            for k, v in host:
                if k in want:
                    got[k] = np.empty_like(v)
                    cl.enqueue_copy(queue, got[k], bufs[k]).wait()
            ctx.check(got, want)

            def batch(count: int) -> float:
                events = [cl.enqueue_nd_range_kernel(queue, kernel, gsize, lsize)
                          for _ in range(count)]
                events[-1].wait()
                return (events[-1].profile.end - events[0].profile.start) * 1e-9

            probe = (first.profile.end - first.profile.start) * 1e-9
            return median_of_batches(batch, probe, ctx.repeats)
        finally:
            for buf in bufs.values():
                buf.release()

    return peer
