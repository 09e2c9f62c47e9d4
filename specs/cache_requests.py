"""Cache request throughput, first level and beyond: loads whose lanes are ``stride`` apart.

Work item i reads ``reads`` = 32 elements (unrolled), e = 4·``vector_width`` bytes each (float,
float4, float16 through the vector knob), lane (i mod 32) at ``(i mod 32)·stride·e`` past the
read's start. A sub-group load instruction costs one cache request per distinct line its lanes
touch: 1 line at stride 1 (float), up to one per lane once the lane stride reaches a line; a
float16 lane is four 16-byte loads, each spanning 16 lines at stride 1.

``level`` 1: read r starts at byte r·128 of a small buffer and every warp of every group reads
the same few KiB (≤ 4 KiB + 4 KiB of row shifts), so after the first touch all loads hit the
first-level cache and DRAM plays no part. ``level`` 2: read r starts one whole warp's span
further (no line is read twice by a warp), and consecutive warps read disjoint regions of a
``LEVEL2_BYTES`` buffer, so every request misses the first level (at most a few hundred KiB per
compute unit) and is served by the next (a GPU's L2; a CPU's L2 or L3), DRAM again playing no
part after the first pass. Level 2 has one instruction per element (float, float4) so that no
request can merge with another in flight. One more level-2 point reads float rows 64 bytes into
a line (``offset_bytes``): each warp's load is two half-line requests of two sectors, which the
suite's stencils make with their 16-float pads.

The analysis ``cache_requests`` counts the requests of every point
(gencl/characterize/cache_requests.py) and reports the highest requests/s of each level. Lane
strides past one 128-byte line add no line and are left out. 2^22 work items on a GPU, 2^16 on
a CPU, 2^14 quick.
"""

import loopy as lp
import numpy as np

from gencl.characterize.cache_requests import LANE_PERIOD, LEVEL2_BYTES, ROW_SHIFT_BYTES
from gencl.spec import BenchmarkSpec, Knob

READS = 32
STRIDES = (1, 2, 4, 8, 16, 32)
WIDTHS = (1, 4, 16)
#: level-2 points: (vector width, lane stride): a full line per instruction (float, stride 1)
#: and one 32-byte sector per lane (float at 8 and 32 floats apart, float4 at 8)
LEVEL2 = ((1, 1), (1, 8), (1, 32), (4, 1), (4, 8))


def _rows_per_shift(point):
    """Rows of ``vector_width`` floats between read r and read r+1: one line (level 1), one
    warp's span (level 2)."""
    if point["level"] == 2:
        return LANE_PERIOD * point["stride"]
    return ROW_SHIFT_BYTES // (4 * point["vector_width"])


def _regions(point):
    """Disjoint regions the warps cycle through (level 2: LEVEL2_BYTES in all). Odd, so that
    the warps one compute unit holds at once (groups handed out round-robin: a stride of
    compute units × warps per group, an even number) fall in different regions."""
    if point["level"] != 2:
        return 1
    count = LEVEL2_BYTES // (point["reads"] * _rows_per_shift(point) * 4 * point["vector_width"])
    return max(1, count - 1 + count % 2)


def program(point):
    """Rows of V floats (V = vector width: the vector knob turns a row into one floatV)."""
    knl = lp.make_kernel(
        "{[i, v, r]: 0 <= i < n and 0 <= v < V and 0 <= r < R}",
        """
        for i, v
            <> acc = 0 {id=init}
            for r
                acc = acc + src[O + r*H + (i % P)*S + ((i // P) % W)*B, v] {id=sum, dep=init}
            end
            dst[i, v] = if(flag * acc != 0, acc, 0) {dep=sum}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=("M", "V")),
         lp.GlobalArg("dst", np.float32, shape=("n", "V"), is_input=False, is_output=True),
         lp.ValueArg("flag", np.int32), lp.ValueArg("n", np.int32), lp.ValueArg("M", np.int32)],
        name="cache_requests", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, V=point["vector_width"], S=point["stride"], R=point["reads"],
                            P=LANE_PERIOD, H=_rows_per_shift(point), W=_regions(point),
                            B=_region_rows(point), O=_offset_rows(point))
    return lp.tag_inames(knl, {"r": "unr"})


def _region_rows(point):
    """Rows of one warp's region (level 2: everything its reads touch)."""
    return point["reads"] * _rows_per_shift(point) if point["level"] == 2 else 0


def _offset_rows(point):
    """Rows of V floats before every read's start: ``offset_bytes`` into its line."""
    return point["offset_bytes"] // (4 * point["vector_width"])


def _rows(point):
    return _offset_rows(point) + (_regions(point) - 1) * _region_rows(point) + \
        (point["reads"] - 1) * _rows_per_shift(point) + (LANE_PERIOD - 1) * point["stride"] + 1


def sizes(point, device, quick):
    if quick:
        n = 1 << 14
    else:
        n = 1 << 22 if device.device_type.upper() == "GPU" else 1 << 16
    return {"n": n, "M": _rows(point)}


def verify_sizes(point, device):
    return {"n": 4 * point["workgroup"], "M": _rows(point)}


def inputs(point, sizes, rng):
    src = rng.standard_normal((sizes["M"], point["vector_width"])).astype(np.float32)
    return {"src": src, "flag": 1}


def reference(values, point, sizes):
    src = values["src"]
    items = np.arange(sizes["n"])
    base = _offset_rows(point) + items % LANE_PERIOD * point["stride"] + \
        (items // LANE_PERIOD) % _regions(point) * _region_rows(point)
    acc = np.zeros((sizes["n"], src.shape[1]), dtype=np.float32)
    for r in range(point["reads"]):  # the kernel's order of additions
        acc = (acc + src[r * _rows_per_shift(point) + base]).astype(np.float32)
    return {"dst": np.where(acc != 0, acc, 0).astype(np.float32)}


def bytes_loaded(point, sizes):
    """Bytes the lanes ask for (not the lines the cache serves)."""
    return sizes["n"] * point["reads"] * 4 * point["vector_width"]


def _within_one_line(point, device):
    if point["stride"] * 4 * point["vector_width"] > ROW_SHIFT_BYTES:
        return "a lane stride past one 128-byte line touches no more lines"
    return None


def _level2_points(point, device):
    if point["level"] == 2 and (point["vector_width"], point["stride"]) not in LEVEL2:
        return "level 2 measures the patterns of LEVEL2 only"
    return None


def _offset_points(point, device):
    if point["offset_bytes"] and (point["level"], point["vector_width"], point["stride"]) != \
            (2, 1, 1):
        return "rows off a line are measured at level 2, float, stride 1 only"
    return None


SPEC = BenchmarkSpec(
    name="cache_requests",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"stride": STRIDES, "reads": (READS,), "level": (1, 2), "offset_bytes": (0, 64)},
    knobs={
        "vector_width": Knob("vector", WIDTHS,
                             {"iname": "v", "arrays": ("src", "dst"), "temporaries": ("acc",)}),
        "workgroup": Knob("workgroup", (256,), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_loaded},
    sweep=[{"vector_width": w, "stride": s, "level": 1} for w in WIDTHS for s in STRIDES]
    + [{"vector_width": w, "stride": s, "level": 2} for w, s in LEVEL2]
    + [{"vector_width": 1, "stride": 1, "level": 2, "offset_bytes": 64}],
    quick_sweep=[{"vector_width": 1, "stride": 1, "level": 1},
                 {"vector_width": 1, "stride": 32, "level": 1},
                 {"vector_width": 4, "stride": 8, "level": 1},
                 {"vector_width": 16, "stride": 1, "level": 1},
                 {"vector_width": 1, "stride": 32, "level": 2},
                 {"vector_width": 1, "stride": 1, "level": 2, "offset_bytes": 64}],
    constraints=[_within_one_line, _level2_points, _offset_points],
    analysis="cache_requests",
    group="memory",
    tolerance={"float32": 1e-5},
)
