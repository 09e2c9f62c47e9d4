"""Compute rates of vectorized variants: the vector-typed chains' figure, not the scalar one.

The chain benchmark measures dependent multiply-add chains both scalar and vector-typed
(floatN). A GPU issues both at the same rate per lane; a CPU runtime (PoCL, Intel's) runs scalar
chains one lane at a time and floatN chains across its SIMD units, several times faster
(pocl-debian-cpu: 49 vs 271 GFLOP/s). A variant whose arithmetic is vector-typed (a global access
moves whole vectors, not lane by lane) is priced by the vector figure (``sp_madd_peak_flops``,
``dp_peak_flops``, ``int_peak_ops``: the chains' peak), the others by the scalar one
(``*_scalar_peak_*``).
"""

from __future__ import annotations

from gencl.model._params import ModelParams
from gencl.model._stats import KernelStats


def vectorized(stats: KernelStats) -> bool:
    """Vector-typed arithmetic: some global access moves whole vectors (not lane by lane)."""
    return any(a.vec_width > 1 and not a.per_lane for a in stats.accesses if a.space == "global")


def op_rate(key: str, p: ModelParams, vector: bool = False) -> float:
    """Instructions per second for one ``dtype:op`` key (scalar or vector-typed code)."""
    dtype, _, op = key.partition(":")
    if op.startswith("func:") or op in ("div", "pow"):
        return p.sf_ops
    if dtype == "float64":
        return (p.dp_vector_flops if vector and p.dp_vector_flops else p.dp_flops) / 2
    if dtype.startswith(("int", "uint")):
        return p.int_vector_ops if vector and p.int_vector_ops else p.int_ops
    return (p.sp_vector_flops if vector and p.sp_vector_flops else p.sp_flops) / 2
