"""Several sweeps of a one-sweep kernel by ping-pong buffers, checked against numpy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gencl.measure import compare


def run_sweeps(engine: Any, built: Any, bound: Any, sweeps: int, *, src: str = "u",
               dst: str = "u_new") -> Any:
    """Launch *sweeps* times, swapping the *src* and *dst* buffers; return the last output buffer."""
    import pyopencl as cl

    names = [a.name for a in built.variant.args]
    args = list(bound.arg_sets[0])
    i, o = names.index(src), names.index(dst)
    for _ in range(sweeps):
        built.kernel.set_args(*args)
        cl.enqueue_nd_range_kernel(engine.queue, built.kernel, bound.global_size,
                                   bound.local_size)
        args[i], args[o] = args[o], args[i]
    engine.queue.finish()
    return args[i]  # after the swap, the buffer written last sits in the src slot


def verify_sweeps(engine: Any, spec: Any, built: Any, sizes: Mapping[str, int],
                  values: Mapping[str, Any], sweeps: int) -> float:
    """Scaled max error after *sweeps* ping-pong sweeps (≤ 1 passes); the spec's
    ``extra['reference_sweeps'](values, point, sizes, sweeps)`` is the numpy side."""
    import pyopencl as cl

    point = built.variant.point
    bound = engine.bind(built, sizes, values)
    try:
        out = run_sweeps(engine, built, bound, sweeps)
        dtype, count = bound.output_info["u_new"]
        got = np.empty(count, dtype=dtype)
        cl.enqueue_copy(engine.queue, got, out)
        engine.queue.finish()
    finally:
        bound.release()
    expected = np.asarray(spec.extra["reference_sweeps"](values, point, sizes, sweeps)["u_new"])
    rtol = float(spec.tolerance.get(expected.dtype.name, 0.0)) * sweeps
    got = got.reshape(expected.shape)
    grid = spec.extra.get("grid")  # the logical grid of a padded layout (pads hold NaN)
    if grid is not None:
        got, expected = grid(got, point, sizes["n"]), grid(expected, point, sizes["n"])
    return compare(got, expected, rtol)
