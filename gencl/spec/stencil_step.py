"""One explicit stencil step as a tuning spec: what every ping-pong stencil file of ``tuning/``
states the same way.

A step reads some grids once and writes one once per interior point (its compulsory traffic),
runs over the interior only (its sizes are the interior's extents), and checks itself over
several launches with its ping-pong buffers swapped. ``stencil_step_spec`` builds the
``BenchmarkSpec`` from what differs: the program, data, reference, sizes, the number of grids
touched, the flops a point and the peers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gencl.spec._hooks import ApplicationHooks
from gencl.spec._spec import BenchmarkSpec

#: the suite's element types, by the ``dtype`` parameter's values
DTYPES = {"float32": np.float32, "float64": np.float64}


def interior_points(point: Mapping[str, Any], sizes: Mapping[str, int]) -> int:
    """Points of the interior: the product of the sizes (each an extent of the domain)."""
    return math.prod(int(n) for n in sizes.values())


def stencil_step_spec(*, name: str, description: str, program: Callable[..., Any],
                      inputs: Callable[..., Any], reference: Callable[..., Any],
                      sizes: Callable[..., Any], verify_sizes: Callable[..., Any], grids: int,
                      flops_per_point: float, peers: Any,
                      ping_pong: Sequence[tuple[str, str]]) -> BenchmarkSpec:
    """The spec of a step that touches *grids* grids once per interior point (those it reads
    and the one it writes; a grid read and written counts twice), *flops_per_point* a point,
    whose *ping_pong* pairs (output, input) swap after each launch. Metrics: ``bytes`` (the
    compulsory traffic), ``points``, ``flops``."""
    def compulsory_bytes(point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
        return grids * np.dtype(DTYPES[point["dtype"]]).itemsize * interior_points(point, sizes)

    return BenchmarkSpec(
        name=name,
        description=description,
        program=program,
        params={"dtype": tuple(DTYPES)},
        inputs=inputs,
        reference=reference,
        sizes=sizes,
        verify_sizes=verify_sizes,
        metrics={"bytes": compulsory_bytes, "points": interior_points,
                 "flops": lambda p, s: flops_per_point * interior_points(p, s)},
        group="application",
        # the output feeds the input on the next sweep: correctness is checked over launches
        hooks=ApplicationHooks(ping_pong=tuple(ping_pong), compulsory_bytes=compulsory_bytes,
                               peers=peers),
        tolerance={"float32": 1e-5, "float64": 1e-12},
    )
