"""Pure global read bandwidth (clpeak "global memory bandwidth"): float1..float16 loads, buffer ≫ LLC.

Each work item reads ``reads`` vectors strided by the number of work items (coalesced), sums them
and stores one guarded value (the result guard of seed 000 §VI-A keeps the loads alive). The
metric counts the bytes read only, as clpeak does; the one store per work item is 1/``reads`` of
the traffic. The read volume is 1 GiB on a GPU (≥ 20× the 50 MB L2 of an H100/H200), 64 MiB on a
CPU (32 MiB in quick mode, 4 MiB on a GPU); input buffers rotate so no launch finds its data in
a cache.

clpeak times two layouts and keeps the faster: successive reads of a work item one launch-width
apart (its "global offset", ``layout=strided``) or one work-group apart, each work-group's rows in
one block (its "local offset", ``layout=blocked``), 16 reads per work item, work-groups of 256.
Both are points of this sweep; the analysis takes the best of all.
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob, load_spec


def program(point):
    """The copy kernel's abstract program in float32 (written once, in specs/copy.py), for sizes
    that are whole work-groups (``sizes`` makes them so): loopy then emits no bounds check, which
    clpeak's kernels do not pay either."""
    t = load_spec("copy").program({**point, "dtype": "float32"})
    return lp.assume(t, f"n mod {point['vector_width'] * point['workgroup']} = 0")


def sizes(point, device, quick):
    gpu = device.device_type.upper() == "GPU"
    total = (4 << 20 if gpu else 32 << 20) if quick else (1 << 30 if gpu else 64 << 20)
    total = min(total, device.max_alloc_bytes // 2)
    unit = point["vector_width"] * point["workgroup"]
    n = max(unit, total // (point["reads"] * 4) // unit * unit)
    return {"n": n, "R": point["reads"]}


def verify_sizes(point, device):
    return {"n": 3 * point["vector_width"] * point["workgroup"], "R": point["reads"]}


def inputs(point, sizes, rng):
    return {"src": rng.standard_normal((sizes["R"], sizes["n"])).astype(np.float32), "flag": 1}


def rows_as_read(src, point):
    """The (reads, n) rows the work items sum, from the buffer as the layout stores it."""
    if point["layout"] == "strided":
        return src
    reads, n = src.shape
    group = point["workgroup"] * point["vector_width"]  # elements (lanes) of one work-group
    blocks = src.reshape(n // group, reads, group)  # block g: every row of group g's elements
    return blocks.transpose(1, 0, 2).reshape(reads, n)


def reference(values, point, sizes):
    rows = rows_as_read(values["src"], point)
    acc = np.zeros(rows.shape[1], dtype=np.float32)
    for row in rows:
        acc = (acc + row).astype(np.float32)
    return {"dst": np.where(acc != 0, acc, 0).astype(np.float32)}


def bytes_read(point, sizes):
    return sizes["n"] * sizes["R"] * 4


WIDTHS = (1, 2, 4, 8, 16)
#: clpeak's global_bandwidth kernels: 16 reads of floatW per work item, work-groups of 256, both
#: layouts; and the reads as a loop whose trip count is a kernel argument (Intel's CPU compiler
#: keeps it a loop over one work item's reads, as in clpeak's kernel, where the unrolled reads
#: get interleaved over 16 work items: 24 against 27 GB/s on the 2-core Xeon)
CLPEAK_SWEEP = [{"vector_width": w, "reads": 16, "layout": layout}
                for w in (4, 8, 16) for layout in ("strided", "blocked")] \
    + [{"vector_width": w, "reads": 16, "layout": layout, "loop": "dynamic", "unroll": "none"}
       for w in (8, 16) for layout in ("strided", "blocked")]


def _full_unroll_needs_constant(point, device):
    if point["unroll"] == "full" and point["loop"] == "dynamic":
        return "a dynamic loop cannot be fully unrolled"
    return None

SPEC = BenchmarkSpec(
    name="read_bandwidth",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"reads": (32, 8, 16)},
    knobs={
        "vector_width": Knob("vector", WIDTHS,
                             {"iname": "i", "arrays": ("src", "dst"), "temporaries": ("acc",),
                              "size": "n"}),
        "loop": Knob("trip_count", ("constant", "dynamic"), {"param": "R", "source": "reads"}),
        "unroll": Knob("unroll", ("full", "none"), {"iname": "r"}),
        "workgroup": Knob("workgroup", (256, 64, 128, 512, 1024), {"inames": ("i",)}),
        "layout": Knob("array_layout", ("strided", "blocked"), {"arrays": ("src",), "axis": 1}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read},
    sweep=[{"vector_width": w} for w in WIDTHS]
    + [{"vector_width": 4, "workgroup": wg} for wg in (64, 128, 512, 1024)]
    + [{"vector_width": 4, "reads": 8}]
    + CLPEAK_SWEEP,
    quick_sweep=[{"vector_width": w} for w in (1, 4, 16)]
    + [{"vector_width": 16, "reads": 16, "layout": layout} for layout in ("strided", "blocked")]
    + [{"vector_width": 16, "reads": 16, "loop": "dynamic", "unroll": "none"}],
    constraints=[_full_unroll_needs_constant],
    analysis="read_bandwidth",
    group="memory",
    tolerance={"float32": 1e-5},
    rotate_buffers=True,
)
