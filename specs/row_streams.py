"""DRAM bandwidth against the rows a work-group keeps open: out = in₀ + … over 2-D arrays.

A 2-D stencil's work-group of y rows touches y rows of every array it reads or writes (and its
neighbour rows), each a short run of the row; the next group along x carries on the same rows a
run further. A CPU runtime runs a group's items as a loop on one thread, row after row, and its
prefetchers follow those runs as streams; on the EPYC VM the Jacobi slice's groups of 8 and 16
rows ran 1.2–1.6× slower than groups of 1–4 rows at the same DRAM bytes (docs/tuning.md). This
benchmark measures that: ``out[j, i] = Σₐ inₐ[j, i]`` over A input arrays and one output
(A + 1 arrays, each element read or written once: no re-reads, so the bytes are DRAM's), floatW
items, work-groups of 1 KiB a row (256 / W items along x) and y = 1 … 32 rows. Two array counts
give the same rows open in all arrays at different heights (A = 1 at y = 2k against A = 3 at
y = k), which tells the rows of each array from the rows of all together (on the EPYC the rows
of each array set the share). Rows of 17 KiB (not a power of two: no 4 KiB aliasing between
rows), the footprint past the device's global cache (at least 256 MiB, 128 MiB in a quick run,
and 4× the cache: the EPYC VM's DRAM plateau starts at 64 MB, the H200's at 128 MB) so every
byte comes from DRAM; no buffer rotation (the footprint is the point).
"""

import loopy as lp

from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.array_sums import (
    footprint_bytes, summed_inputs, summed_program, summed_reference)

ARRAYS = (1, 3)
WIDTHS = (4, 16)
HEIGHTS = (1, 2, 4, 8, 16, 32)
#: bytes of a work-group's row (its items along x, one floatW each)
GROUP_ROW_BYTES = 1024
#: a row of the arrays: 17 group rows (17 KiB)
ROW_GROUPS = 17


def group_width(width: int) -> int:
    """Items along x of a work-group whose row is GROUP_ROW_BYTES of floatW."""
    return GROUP_ROW_BYTES // (4 * width)


def program(point):
    t = summed_program("row_streams", point["arrays"], point["vector_width"],
                       (("j", "m"), ("i", "c")))
    x, y = point["workgroup"]
    # whole work-groups (``sizes`` makes them so): no bounds checks
    return lp.assume(t, f"c mod {x} = 0 and c >= {x} and m mod {y} = 0 and m >= {y}")


def sizes(point, device, quick):
    """Rows of 17 KiB (``c`` items of floatW) and the rows ``m`` of the footprint, a whole number
    of the tallest work-group, each array within max alloc."""
    a, w = point["arrays"], point["vector_width"]
    c = ROW_GROUPS * group_width(w)
    row = c * w * 4
    per_array = min(footprint_bytes(device, quick) // (a + 1), device.max_alloc_bytes)
    tallest = max(HEIGHTS)
    return {"m": max(1, per_array // row // tallest) * tallest, "c": c}


def verify_sizes(point, device):
    return {"m": 2 * point["workgroup"][1], "c": 2 * group_width(point["vector_width"])}


def inputs(point, sizes, rng):
    return summed_inputs(point["arrays"], (sizes["m"], sizes["c"], point["vector_width"]), rng)


def reference(values, point, sizes):
    return summed_reference(values, point["arrays"])


def bytes_moved(point, sizes):
    return (point["arrays"] + 1) * sizes["m"] * sizes["c"] * point["vector_width"] * 4


def _fits(point, device):
    if point["workgroup"][0] != group_width(point["vector_width"]):
        return f"work-group rows of {GROUP_ROW_BYTES} B: x = {group_width(point['vector_width'])}"
    size = point["workgroup"][0] * point["workgroup"][1]
    if device is not None and size > device.max_work_group_size:
        return f"work-group {size} > device maximum {device.max_work_group_size}"
    return None


SHAPES = tuple((group_width(w), y) for w in WIDTHS for y in HEIGHTS)

SPEC = BenchmarkSpec(
    name="row_streams",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"arrays": ARRAYS, "vector_width": WIDTHS},
    knobs={"workgroup": Knob("workgroup", SHAPES, {"inames": ("i", "j")})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved},
    constraints=(_fits,),
    sweep=[{"arrays": a, "vector_width": w, "workgroup": (group_width(w), y)}
           for w in WIDTHS for a in ARRAYS for y in HEIGHTS],
    # float4 only: the open rows, not the item width, are what the model reads
    quick_sweep=[{"arrays": a, "vector_width": 4, "workgroup": (group_width(4), y)}
                 for a in ARRAYS for y in HEIGHTS],
    analysis="row_streams",
    group="memory",
    tolerance={"float32": 1e-6},
    rotate_buffers=False,  # the footprint is past the caches by construction
    # the shares are ratios between points: on a machine whose speed drifts (a VM) each point
    # timed back to back would carry its own moment's speed into them
    rounds=30,
)
