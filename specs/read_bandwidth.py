"""Pure global read bandwidth (clpeak "global memory bandwidth"): floatW loads, buffer ≫ LLC.

clpeak's kernel, reproduced: each work item sums ``reads`` floatW values into a floatW
accumulator, adds its lanes (``acc.s0 + … + acc.sF``) and stores that one float through the
result guard of seed 000 §VI-A (the stored value depends on every load, so none can be dropped).
The metric counts the bytes read only, as clpeak does; the one float stored per work item is
1/(W × reads) of the traffic, as in clpeak (a floatW store per work item would be W times more
traffic that neither counts: 6 % of the H200's bandwidth at 16 reads).

clpeak (1.1.2 and 2.x, global_bandwidth.cpp) launches work-groups of 256 (its MAX_WG_SIZE cap),
16 reads per work item, global size = buffer floats / W / 16, over one buffer of min(max alloc /
2, 512 MiB) (1.1.2 on a CPU and 2.x on a GPU: 512 MiB; 2.x on a CPU 128 MiB; 1.1.2 on a GPU up
to 2 GiB), and keeps per width the faster of two layouts: successive reads of a work item one
launch-width apart (its "global offset", ``layout=strided``) or one work-group apart, each
work-group's rows in one block (its "local offset", ``layout=blocked``). It times each launch
with profiling events (START → END), ``queue.finish()`` between launches, after two warm-up
launches, and reports the mean (1.1.2: 20 launches on a CPU, 50 on a GPU; 2.x: as many as fill
0.5 s); its figure is the best width. gencl times the same START → END per launch (a sample holds
one launch whenever a launch lasts ≥ 50 timer ticks, always true here) and takes the median of
its samples. Every clpeak shape is a point of this sweep (``buffer_mib=512``), next to the
neighbours that can beat it: more reads per work item (bytes in flight), work-groups of 1024, a
runtime-bounded loop, grid-stride work items (256 reads each) and the suite's own buffer (1 GiB
on a GPU, 64 MiB on a CPU, ``buffer_mib=0``). The analysis takes the best point.
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

#: the type of ``m``, the row length: a uint makes every index expression unsigned
INDEX_TYPES = {"int32": np.int32, "uint32": np.uint32}
#: clpeak's work-group size (MAX_WG_SIZE) and reads per work item (FETCH_PER_WI): its buffer is a
#: whole number of (work-groups of 256) × 16 reads × float16
CLPEAK_GRANULE_BYTES = 256 * 16 * 16 * 4


def program(point):
    """clpeak's read kernel for W = ``vector_width`` lanes: ``src`` is (R, m, W) floatW rows of m
    work items ((R, m) floats for W = 1), the lane sum spelled out (``acc.s0 + acc.s1 + …``) as
    clpeak writes it."""
    w = point["vector_width"]
    vec = w > 1
    lanes = " + ".join(f"acc[{k}]" for k in range(w))
    load, shape = ("src[r, i, l1]", ("R", "m", w)) if vec else ("src[r, i]", ("R", "m"))
    t = lp.make_kernel(
        f"{{[i, l0, l1, r]: 0 <= i < m and 0 <= l0, l1 < {w} and 0 <= r < R}}",
        f"""
        for i
            acc[l0] = 0 {{id=init}}
            for r
                acc[l1] = acc[l1] + {load} {{id=sum, dep=init}}
            end
            <> total = {lanes} {{id=total, dep=sum}}
            dst[i] = if(flag * total != 0, total, 0) {{dep=total}}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=shape, dim_tags="c,c,vec" if vec else "c,c"),
         lp.GlobalArg("dst", np.float32, shape=("m",), is_input=False, is_output=True),
         lp.TemporaryVariable("acc", np.float32, shape=(w,), dim_tags="vec" if vec else "c",
                              address_space=lp.AddressSpace.PRIVATE),
         lp.ValueArg("flag", np.int32), lp.ValueArg("m", INDEX_TYPES[point["index"]]),
         lp.ValueArg("R", np.int32)],
        name="read", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    if vec:
        t = lp.tag_inames(t, {"l0": "vec", "l1": "vec"})
    else:
        t = lp.tag_inames(t, {"l0": "unr", "l1": "unr"})
    # whole work-groups (``sizes`` makes them so): no bounds check, which clpeak does not pay
    return lp.assume(t, f"m mod {point['workgroup']} = 0 and m >= {point['workgroup']}")


def read_bytes(point, device, quick):
    """Bytes one launch reads: clpeak's buffer (``buffer_mib`` capped at max alloc / 2, a whole
    number of clpeak's granules) or, with 0, the suite's (1 GiB on a GPU, 64 MiB on a CPU; 4 and
    32 MiB in quick mode)."""
    if point["buffer_mib"]:
        total = min(point["buffer_mib"] << 20, device.max_alloc_bytes // 2)
        return max(CLPEAK_GRANULE_BYTES, total // CLPEAK_GRANULE_BYTES * CLPEAK_GRANULE_BYTES)
    gpu = device.device_type.upper() == "GPU"
    total = (4 << 20 if gpu else 32 << 20) if quick else (1 << 30 if gpu else 64 << 20)
    return min(total, device.max_alloc_bytes // 2)


def sizes(point, device, quick):
    group, per_item = point["workgroup"], point["reads"] * point["vector_width"] * 4
    m = max(group, read_bytes(point, device, quick) // per_item // group * group)
    return {"m": m, "R": point["reads"]}


def verify_sizes(point, device):
    return {"m": 3 * point["workgroup"], "R": point["reads"]}


def inputs(point, sizes, rng):
    shape = (sizes["R"], sizes["m"] * point["vector_width"])
    # uniform in [0.5, 1.5), drawn as float32: 0.5 s a GiB where normal float64 took 4 s
    src = rng.random(shape, dtype=np.float32)
    src += np.float32(0.5)
    return {"src": src, "flag": 1}


def rows_as_read(src, point):
    """The (reads, m × W) rows the work items sum, from the buffer as the layout stores it."""
    if point["layout"] == "strided":
        return src
    reads, n = src.shape
    group = point["workgroup"] * point["vector_width"]  # floats of one work-group's row
    blocks = src.reshape(n // group, reads, group)  # block g: every row of group g's floats
    return blocks.transpose(1, 0, 2).reshape(reads, n)


def reference(values, point, sizes):
    rows = rows_as_read(values["src"], point)
    acc = np.zeros(rows.shape[1], dtype=np.float32)
    for row in rows:  # the kernel's order: lane accumulators over the reads, then the lanes
        acc = (acc + row).astype(np.float32)
    lanes = acc.reshape(-1, point["vector_width"])
    total = lanes[:, 0].copy()
    for k in range(1, lanes.shape[1]):
        total = (total + lanes[:, k]).astype(np.float32)
    return {"dst": np.where(total != 0, total, 0).astype(np.float32)}


def bytes_read(point, sizes):
    return sizes["m"] * point["vector_width"] * sizes["R"] * 4


WIDTHS = (1, 2, 4, 8, 16)
#: clpeak's global_bandwidth kernels exactly: 16 reads of floatW per work item, work-groups of
#: 256, its 512 MiB buffer, both layouts
CLPEAK_SWEEP = [{"vector_width": w, "reads": 16, "layout": layout, "buffer_mib": 512}
                for w in WIDTHS for layout in ("strided", "blocked")]
#: what can beat it: more bytes in flight per work item (32, 64 reads; 128-, 256- and 512-bit
#: loads), work-groups of 1024, the reads as a loop whose trip count is a kernel argument (Intel's
#: CPU compiler then keeps one work item's reads together, as in clpeak's kernel), grid-stride
#: work items (256 reads, a runtime loop) and the suite's buffer size
NEIGHBOUR_SWEEP = (
    [{"vector_width": w, "reads": r, "buffer_mib": 512} for w in (4, 8, 16) for r in (32, 64)]
    + [{"vector_width": w, "reads": r, "workgroup": 1024, "buffer_mib": 512}
       for w in (4, 8) for r in (16, 32)]
    + [{"vector_width": w, "reads": 16, "layout": layout, "loop": "dynamic", "unroll": "none",
        "buffer_mib": 512} for w in (8, 16) for layout in ("strided", "blocked")]
    + [{"vector_width": w, "reads": 256, "loop": "dynamic", "unroll": "none", "buffer_mib": 512}
       for w in (4, 16)]
    + [{"vector_width": w, "reads": 32} for w in (4, 8, 16)])
#: clpeak's widest shapes with the row index computed in unsigned arithmetic (``m`` a uint, as
#: clpeak's ``uint id``): Intel's CPU compiler reads ~10 % faster so (24 → 26 GB/s, 2026-11-22)
UNSIGNED_SWEEP = [{"vector_width": w, "reads": 16, "layout": layout, "buffer_mib": 512,
                   "index": "uint32"} for w in (8, 16) for layout in ("strided", "blocked")]
#: bandwidth against work-group size (float4, 32 reads; the 256 point is in NEIGHBOUR_SWEEP)
OCCUPANCY_SWEEP = [{"vector_width": 4, "reads": 32, "workgroup": wg, "buffer_mib": 512}
                   for wg in (64, 128, 512)]


def _full_unroll_needs_constant(point, device):
    if point["unroll"] == "full" and point["loop"] == "dynamic":
        return "a dynamic loop cannot be fully unrolled"
    return None


SPEC = BenchmarkSpec(
    name="read_bandwidth",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"vector_width": WIDTHS, "reads": (16, 32, 64, 256), "buffer_mib": (0, 512, 128, 2048),
            "index": ("int32", "uint32")},
    knobs={
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
    sweep=CLPEAK_SWEEP + NEIGHBOUR_SWEEP + OCCUPANCY_SWEEP + UNSIGNED_SWEEP,
    # clpeak's 512 MiB float16 shapes (its best width on every device measured) and the best
    # neighbours on the two CPU runtimes, at clpeak's buffer: the quick profile compares with it
    quick_sweep=[{"vector_width": 16, "reads": 16, "layout": layout, "buffer_mib": 512}
                 for layout in ("strided", "blocked")]
    + [{"vector_width": 16, "reads": 16, "loop": "dynamic", "unroll": "none", "buffer_mib": 512},
       {"vector_width": 1, "reads": 32}, {"vector_width": 16, "reads": 32}]
    + [p for p in UNSIGNED_SWEEP if p["vector_width"] == 16],
    constraints=[_full_unroll_needs_constant],
    analysis="read_bandwidth",
    group="memory",
    tolerance={"float32": 1e-5},
    rotate_buffers=True,
)
