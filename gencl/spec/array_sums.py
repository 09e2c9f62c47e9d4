"""``out = in₀ + … + in_{A−1}``, each element read or written once, past the device's caches:
the shared parts of the benchmarks that measure DRAM's bandwidth against how a kernel's
accesses interleave (row_streams: the rows a work-group keeps open; column_walk: the rows one
item walks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

MIN_FOOTPRINT = 256 << 20
#: a quick run's (a CPU's CI profile: the EPYC's DRAM plateau starts at 64 MB)
MIN_QUICK_FOOTPRINT = 128 << 20


def footprint_bytes(device: Any, quick: bool = False) -> int:
    """Bytes of all the arrays together: past the global cache (a power of two; at least 4×
    the cache: the EPYC VM's DRAM plateau starts at 64 MB, the H200's at 128 MB)."""
    cache = int(getattr(device, "global_cache_bytes", 0) or 0)
    want = max(MIN_QUICK_FOOTPRINT if quick else MIN_FOOTPRINT, 4 * cache)
    return 1 << (want - 1).bit_length()


def summed_inputs(arrays: int, shape: tuple[int, ...], rng: Any) -> dict[str, np.ndarray]:
    """The *arrays* inputs ``in0`` … of *shape*, random in [0.5, 1.5)."""
    return {f"in{k}": rng.random(shape, dtype=np.float32) + np.float32(0.5)
            for k in range(arrays)}


def summed_reference(values: Mapping[str, np.ndarray], arrays: int) -> dict[str, np.ndarray]:
    """``out``: the inputs' sum, in the kernel's order."""
    total = values["in0"].copy()
    for k in range(1, arrays):
        total += values[f"in{k}"]
    return {"out": total}


def summed_program(name: str, arrays: int, width: int,
                   axes: Sequence[tuple[str, str]]) -> Any:
    """``out[…, l] = in0[…, l] + …`` over *arrays* inputs of floatW items (*width*: a vector
    type from 2 on), each array of the *axes* (iname, its extent's value argument), outermost
    first, then the vector's lanes."""
    import loopy as lp

    inames = [iname for iname, _ in axes]
    extents = [extent for _, extent in axes]
    tags = ",".join(["c"] * len(axes) + ["vec" if width > 1 else "c"])
    shape = (*extents, width)
    args = [lp.GlobalArg(f"in{k}", np.float32, shape=shape, dim_tags=tags)
            for k in range(arrays)]
    args += [lp.GlobalArg("out", np.float32, shape=shape, dim_tags=tags,
                          is_input=False, is_output=True),
             *(lp.ValueArg(extent, np.int32) for extent in extents)]
    index = ", ".join([*inames, "l"])
    total = " + ".join(f"in{k}[{index}]" for k in range(arrays))
    bounds = " and ".join([*(f"0 <= {i} < {e}" for i, e in axes), f"0 <= l < {width}"])
    t = lp.make_kernel(f"{{[{index}]: {bounds}}}", f"out[{index}] = {total}", args,
                       name=name, target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.tag_inames(t, {"l": "vec" if width > 1 else "unr"})
