"""Solve: n sweeps of a point on the device, whatever its k sweeps per launch.

n sweeps = n // k launches of the point + n % k launches of its single-sweep point
(``single_sweep_point``: the nearest point of the space that runs one sweep per launch), the
buffers of the spec's ``ping_pong`` pairs swapped after every launch and shared by both kernels.
Both variants are checked against numpy first, as every variant gencl runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gencl.errors import GenclError
from gencl.spec import steps_per_launch


def solve_on(engine: Any, spec: Any, point: Mapping[str, Any], sweeps: int,
             sizes: Mapping[str, int], values: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The arrays after *sweeps* sweeps from *values*: each ping-pong pair's output name →
    the last sweep's result (the input's shape)."""
    import pyopencl as cl

    from gencl.generate import generate
    from gencl.measure._run import evaluate_variant
    from gencl.measure._sweeps import single_sweep_point

    pairs = spec.hooks.ping_pong
    if not pairs:
        raise GenclError(f"{spec.path or spec.name}: hooks.ping_pong: no (output, input) pairs, "
                         "so a launch's result cannot feed the next sweep")
    if sweeps < 0:
        raise GenclError(f"sweeps {sweeps}: must be at least 0")
    k = steps_per_launch(spec, point)
    plan = [(dict(point), sweeps // k)]
    if sweeps % k:
        plan.append((single_sweep_point(spec, point, engine.info), sweeps % k))
    plan = [(p, n) for p, n in plan if n > 0]
    if not plan:
        return {out: np.array(values[inp]) for out, inp in pairs}
    kernels = []
    for p, _ in plan:
        evaluation = evaluate_variant(engine, spec, generate(spec, p), sizes, time=False)
        m = evaluation.measurement
        if not m.ok or evaluation.built is None:
            raise GenclError(f"{spec.name} point {p}: {m.status}: {m.reason}")
        try:
            bound = engine.bind(evaluation.built, sizes, values)
        except (KeyError, ValueError) as exc:
            raise GenclError(f"{spec.name} point {p}: the inputs do not fit its buffers "
                             f"({exc}); the single-sweep point must share the layout") from None
        kernels.append((evaluation.built, bound))
    try:
        names = [[a.name for a in built.variant.args] for built, _ in kernels]
        # the first kernel's buffers are the arrays; the other kernels use them by name
        first = dict(zip(names[0], kernels[0][1].arg_sets[0]))
        arrays = {a.name: first[a.name] for a in kernels[0][0].variant.args
                  if a.kind not in ("scalar", "local")}
        for (_, bound), args in zip(kernels[1:], names[1:]):
            own = dict(zip(args, bound.arg_sets[0]))
            for name in arrays.keys() & own.keys():
                if own[name].size != arrays[name].size:
                    raise GenclError(f"{spec.name}: array {name} is {own[name].size} B in the "
                                     f"single-sweep point, {arrays[name].size} B in {point}")
        for (built, bound), args, (_, launches) in zip(kernels, names, plan):
            own = dict(zip(args, bound.arg_sets[0]))
            for _ in range(launches):
                built.kernel.set_args(*[arrays.get(name, own[name]) for name in args])
                cl.enqueue_nd_range_kernel(engine.queue, built.kernel, bound.global_size,
                                           bound.local_size)
                for out, inp in pairs:
                    arrays[out], arrays[inp] = arrays[inp], arrays[out]
        engine.queue.finish()
        result = {}
        for out, inp in pairs:  # after the last swap the newest values sit in the input's slot
            host = np.empty_like(np.asarray(values[inp]))
            cl.enqueue_copy(engine.queue, host, arrays[inp])
            result[out] = host
        engine.queue.finish()
        return result
    finally:
        for _, bound in kernels:
            bound.release()
