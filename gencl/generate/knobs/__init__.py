"""Knobs: each a loopy transform in a module of its own, registered by name.

A spec binds a knob to its program with ``Knob(transform, values, options)``; the generator calls
``TRANSFORMS[transform].apply(t_unit, value, point=point, **options)`` in the spec's order.
"""

from gencl.generate.knobs import (
    array_layout,
    branch,
    ilp,
    local_memory,
    local_tile,
    register_block,
    streaming,
    sum_order,
    temporal,
    trip_count,
    unroll,
    vector,
    workgroup,
)
from gencl.generate.knobs._base import Transform
from gencl.generate.knobs.branch import layout_branches
from gencl.generate.knobs.ilp import interleave_chains
from gencl.generate.knobs.local_memory import (
    PAD_ARG,
    cache_in_local,
    local_temporary_to_argument,
    pad_local_memory,
)
from gencl.generate.knobs.streaming import stream
from gencl.generate.knobs.trip_count import fix_trip_count
from gencl.generate.knobs.unroll import unroll as unroll_loop
from gencl.generate.knobs.vector import extract_unaligned_reads, vectorize
from gencl.generate.knobs.workgroup import map_to_workgroups

TRANSFORMS: dict[str, Transform] = {
    tr.name: tr for tr in (
        vector.TRANSFORM, unroll.TRANSFORM, ilp.TRANSFORM, trip_count.TRANSFORM,
        workgroup.TRANSFORM, branch.TRANSFORM, local_memory.TRANSFORM,
        local_memory.PAD_TRANSFORM, local_memory.ALLOCATION_TRANSFORM,
        register_block.TRANSFORM, local_tile.TRANSFORM, streaming.TRANSFORM,
        array_layout.TRANSFORM, temporal.TRANSFORM, temporal.PARAMETER_TRANSFORM,
        sum_order.TRANSFORM)
}

__all__ = ["PAD_ARG", "TRANSFORMS", "Transform", "cache_in_local", "extract_unaligned_reads",
           "fix_trip_count", "interleave_chains", "layout_branches", "local_temporary_to_argument",
           "map_to_workgroups", "pad_local_memory", "stream", "unroll_loop", "vectorize"]
