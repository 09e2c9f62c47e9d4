"""DRAM bandwidth against the rows one work item walks, the items run one at a time.

A CPU runtime that cannot run a work-group's items as lanes of packed instructions (an item
with a loop of its own: LLVM vectorizes innermost loops only; a vector-typed item) runs them one
after another, and an item that walks down its column (a stencil streamed along y: rows j … j +
s - 1 of each array, a vector of each) goes from row to row every few bytes. The next item walks
the same rows a vector further on: the work-group interleaves s × arrays streams at the grain of
one item's vector, where items run as lanes (``row_streams``) take a whole run of a row before
the next. This benchmark measures that: ``out[b, r, i] = Σₐ inₐ[b, r, i]`` over A input arrays
and one output, floatW items, each item (i, b) looping over the s rows r of its band b (``s`` a
kernel argument: a loop, so its items are never lanes), work-groups of one row of 256 or 257
items. Two array counts, like row_streams', tell the rows of each array from the rows of all
arrays together; two row pitches tell the streams from a first-level cache's sets: 16 KiB and a
line (each row of an array a set further on in a cache indexed by 4 KiB, as x86 cores' L1 are)
and 16 KiB (every row of every array in one set, as a power-of-two image's rows are: the item's
lines evict one another before the next items read the rest of them). The footprint past the
device's global cache as row_streams' (every byte from DRAM once; no buffer rotation).
"""

import loopy as lp

from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.array_sums import (
    footprint_bytes, summed_inputs, summed_program, summed_reference)

ARRAYS = (1, 3)
WIDTHS = (4, 8)
ROWS = (1, 2, 4, 8, 16, 32)
#: bytes of a row of the arrays: 16 KiB and a line (each row a set further on in a first-level
#: cache indexed by 4 KiB, as x86 cores' are: an item's rows of one array in different sets) or
#: 16 KiB (every row of every array in one set: a power-of-two image's rows)
ROW_BYTES = {"offset": (16 << 10) + 64, "aliased": 16 << 10}
#: items along x of a work-group (one row of them), a whole number of which make each pitch's
#: row of float4 or float8 (a partial group at a row's end would cost a CPU runtime a group of
#: its own: a scratch run measured a one-row walk 0.6× as fast so)
GROUP_ITEMS = {"offset": 257, "aliased": 256}


def program(point):
    t = summed_program("column_walk", point["arrays"], point["vector_width"],
                       (("b", "nb"), ("r", "s"), ("i", "c")))
    x, y = point["workgroup"]
    # whole work-groups (``sizes`` makes them so): no bounds checks
    return lp.assume(t, f"c mod {x} = 0 and c >= {x} and nb mod {y} = 0 and nb >= {y} "
                        "and s >= 1")


def sizes(point, device, quick):
    """Rows of the point's pitch (``c`` items of floatW), ``s`` rows a band (its ``rows``) and the
    bands ``nb`` of the footprint, each array within max alloc."""
    a, w, s = point["arrays"], point["vector_width"], point["rows"]
    c = ROW_BYTES[point["pitch"]] // (4 * w)
    per_array = min(footprint_bytes(device, quick) // (a + 1), device.max_alloc_bytes)
    return {"nb": max(1, per_array // (c * w * 4) // s), "s": s, "c": c}


def verify_sizes(point, device):
    return {"nb": 2, "s": point["rows"], "c": 2 * GROUP_ITEMS[point["pitch"]]}


def inputs(point, sizes, rng):
    shape = (sizes["nb"], sizes["s"], sizes["c"], point["vector_width"])
    return summed_inputs(point["arrays"], shape, rng)


def reference(values, point, sizes):
    return summed_reference(values, point["arrays"])


def bytes_moved(point, sizes):
    return (point["arrays"] + 1) * sizes["nb"] * sizes["s"] * sizes["c"] \
        * point["vector_width"] * 4


def _fits(point, device):
    x = GROUP_ITEMS[point["pitch"]]
    if tuple(point["workgroup"]) != (x, 1):
        return f"work-groups of one row of {x} items at the {point['pitch']} pitch"
    if device is not None and x > device.max_work_group_size:
        return f"work-group {x} > device maximum {device.max_work_group_size}"
    return None


SPEC = BenchmarkSpec(
    name="column_walk",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"arrays": ARRAYS, "vector_width": WIDTHS, "rows": ROWS, "pitch": tuple(ROW_BYTES)},
    knobs={"workgroup": Knob("workgroup", tuple((x, 1) for x in GROUP_ITEMS.values()),
                             {"inames": ("i", "b")})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved},
    constraints=(_fits,),
    sweep=[{"arrays": a, "vector_width": w, "rows": s, "pitch": p,
            "workgroup": (GROUP_ITEMS[p], 1)}
           for p in ROW_BYTES for w in WIDTHS for a in ARRAYS for s in ROWS],
    # float4 only: the rows an item walks, not its width, are what the model reads
    quick_sweep=[{"arrays": a, "vector_width": 4, "rows": s, "pitch": p,
                  "workgroup": (GROUP_ITEMS[p], 1)}
                 for p in ROW_BYTES for a in ARRAYS for s in ROWS],
    analysis="column_walk",
    group="memory",
    tolerance={"float32": 1e-6},
    rotate_buffers=False,  # the footprint is past the caches by construction
    # the shares are ratios between points: timed in interleaved rounds (row_streams')
    rounds=30,
)
