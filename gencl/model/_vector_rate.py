"""Compute rates of vectorized variants: the vector-typed chains' figure, not the scalar one.

The chain benchmark measures dependent multiply-add chains both scalar and vector-typed
(floatN). A GPU issues both at the same rate per lane; a CPU runtime (PoCL, Intel's) runs scalar
chains one lane at a time and floatN chains across its SIMD units, several times faster
(pocl-debian-cpu: 49 vs 271 GFLOP/s). A variant whose arithmetic is vector-typed (a global access
moves whole vectors, not lane by lane) is priced by the vector figure (``sp_madd_peak_flops``,
``dp_peak_flops``, ``int_peak_ops``: the chains' peak), the others by the scalar one
(``*_scalar_peak_*``).

Both figures are of chains a runtime vectorized across work items (PoCL's work-group loop, one
item a lane). Where the build's machine code shows it did not do so for a variant (a work-group
narrower than the vector loop's step, a ``floatN`` assembled lane by lane: ``with_isa``, from a
Measurement's ``extra["isa"]``, ``gencl.measure._isa``), the items run one at a time and its
code is priced by what one item issues (``_predict.item_issue_time``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gencl.measure._isa import vectorized_across_items
from gencl.model._params import ModelParams
from gencl.model._stats import KernelStats


def vectorized(stats: KernelStats) -> bool:
    """Vector-typed arithmetic: some global access moves whole vectors (not lane by lane)."""
    return any(a.vec_width > 1 and not a.per_lane for a in stats.accesses if a.space == "global")


#: math functions that are one arithmetic instruction (or a few) on GPUs and CPUs alike, not a
#: special-function unit's or a library routine's work: min/max (NVIDIA's FMNMX, x86's
#: vmaxps), absolute value and sign (a modifier or a bit mask); priced at their type's
#: arithmetic rate. upwind2d's fmax/fmin at the special functions' rate priced its EPYC
#: compute-bound variants at 1.37 of their time (docs/tuning.md, "Two more kernels written
#: after every term")
ARITHMETIC_FUNCTIONS = frozenset({"fmax", "fmin", "max", "min", "fabs", "abs", "copysign"})


def op_rate(key: str, p: ModelParams, vector: bool = False) -> float:
    """Instructions per second for one ``dtype:op`` key (scalar or vector-typed code)."""
    dtype, _, op = key.partition(":")
    special = op.startswith("func:") and op.removeprefix("func:") not in ARITHMETIC_FUNCTIONS
    if special or op in ("div", "pow"):
        return p.sf_ops
    if dtype == "float64":
        return (p.dp_vector_flops if vector and p.dp_vector_flops else p.dp_flops) / 2
    if dtype.startswith(("int", "uint")):
        return p.int_vector_ops if vector and p.int_vector_ops else p.int_ops
    return (p.sp_vector_flops if vector and p.sp_vector_flops else p.sp_flops) / 2


def items_as_lanes(stats: KernelStats) -> bool:
    """Whether a CPU runtime runs the work-group's items as lanes of packed instructions: as the
    build's machine code showed (``with_isa``); before a build, not where an item's own code is
    vector-typed or keeps a loop of its own between barriers (``extra["kept_loops"]``: the
    compiler vectorizes innermost loops only, and the work-group's loop is then an outer one),
    else as lanes. Over 14 of the EPYC's measured spaces (all but the strip's) no build ran as
    lanes what this takes for one at a time, and on the five stencils' it agrees with every
    build; on Jacobi's it misses 68 of 220 the other way (work-groups narrower than the vector
    loop's step, local tiles: the machine code's to tell; docs/tuning.md)."""
    seen = stats.extra.get("items_as_lanes")
    if seen is not None:
        return bool(seen)
    looped = bool(stats.extra.get("kept_loops")) and not stats.barriers_per_item
    return not (vectorized(stats) or looped)


def with_isa(stats: KernelStats, isa: Mapping[str, Any] | None) -> KernelStats:
    """*stats* with whether the CPU runtime ran the work-group's items as lanes of packed
    instructions (``extra["items_as_lanes"]``, ``vectorized_across_items``) and the elements an
    item moves with packed gathers and scatters (``extra["gathered_per_item"]``,
    ``extra["scattered_per_item"]``, ``gencl.measure._isa.loop_gathers``), from the counts of its
    work-group function (a Measurement's ``extra["isa"]``); unchanged without counts."""
    if not isa:
        return stats
    bits = max((a.itemsize * 8 * a.vec_width for a in stats.accesses if a.space == "global"),
               default=32)
    return dataclasses.replace(stats, extra={
        **stats.extra, "items_as_lanes": vectorized_across_items(isa, bits),
        # elements an item gathers and scatters a pass of the function's most-gathering loop
        "gathered_per_item": float(isa.get("loop_gathers_per_item") or 0.0),
        "scattered_per_item": float(isa.get("loop_scatters_per_item") or 0.0)})

