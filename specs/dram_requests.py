"""DRAM line requests: a read stream whose rows start on a cache line or some bytes into one.

Work item i reads ``reads`` = 4 elements of e = 4·``vector_width`` bytes, read r at element i of
row r, sums them and stores one float (aligned, 1/(4·W) of the traffic). Each row starts
``offset_bytes`` into a 128-byte line (rows are padded to whole lines), so every byte is read
once, from DRAM (the buffer is 1 GiB on a GPU, far beyond its last-level cache), and only the
number of line requests changes: a warp's 32 floats from a line's start are one request, from
64 bytes in two half-line requests, the neighbouring warp asking for the line's other half; a
warp's 32 float4 are 4 requests from a line's start and 5 from 64 bytes in.

That is what a stencil's padded rows pay when the pad is not a whole line (the suite's 16-float
pads put rows 64 bytes into NVIDIA's 128-byte lines): the same bytes in twice the requests.
The analysis ``dram_requests`` (gencl/characterize/dram_requests.py) reports the best bandwidth
of rows on a line and of rows 64 bytes in (``aligned_rows_read_bw_Bps``,
``offset_rows_read_bw_Bps``).
"""

import loopy as lp
import numpy as np

from gencl.characterize.dram_requests import READS, bytes_read
from gencl.spec import BenchmarkSpec, Knob

OFFSETS = (0, 32, 64)
WIDTHS = (1, 4)
#: bytes one launch reads: beyond any GPU's last-level cache (tens of MiB); a CPU's L3
READ_BYTES = {"GPU": 1 << 30, "CPU": 64 << 20, "quick": 4 << 20}
LINE_BYTES = 128


def row_pad(point):
    """Pad elements after each row: one line, so that every row starts where the first does."""
    return LINE_BYTES // (4 * point["vector_width"])


def shift(point):
    """Elements from a row's start to its first read one (``offset_bytes``)."""
    return point["offset_bytes"] // (4 * point["vector_width"])


def program(point):
    w = point["vector_width"]
    vec = w > 1
    lanes = " + ".join(f"acc[{k}]" for k in range(w))
    at = f"src[r, i + {shift(point)}" + (", l1]" if vec else "]")
    t = lp.make_kernel(
        f"{{[i, l0, l1, r]: 0 <= i < m and 0 <= l0, l1 < {w} and 0 <= r < {READS}}}",
        f"""
        for i
            acc[l0] = 0 {{id=init}}
            for r
                acc[l1] = acc[l1] + {at} {{id=sum, dep=init}}
            end
            <> total = {lanes} {{id=total, dep=sum}}
            dst[i] = if(flag * total != 0, total, 0) {{dep=total}}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=(READS, f"m + {row_pad(point)}") + ((w,) if vec
                                                                                  else ()),
                      dim_tags="c,c,vec" if vec else "c,c"),
         lp.GlobalArg("dst", np.float32, shape=("m",), is_input=False, is_output=True),
         lp.TemporaryVariable("acc", np.float32, shape=(w,), dim_tags="vec" if vec else "c",
                              address_space=lp.AddressSpace.PRIVATE),
         lp.ValueArg("flag", np.int32), lp.ValueArg("m", np.int32)],
        name="dram_requests", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    t = lp.tag_inames(t, {"l0": "vec", "l1": "vec"} if vec else {"l0": "unr", "l1": "unr"})
    t = lp.tag_inames(t, {"r": "unr"})
    return lp.assume(t, f"m mod {point['workgroup']} = 0 and m >= {point['workgroup']}")


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    return {"m": READ_BYTES[kind] // (READS * 4 * point["vector_width"])}


def verify_sizes(point, device):
    return {"m": 4 * point["workgroup"]}


def inputs(point, sizes, rng):
    shape = (READS, sizes["m"] + row_pad(point)) + ((point["vector_width"],)
                                                    if point["vector_width"] > 1 else ())
    return {"src": rng.standard_normal(shape).astype(np.float32), "flag": 1}


def reference(values, point, sizes):
    src = values["src"]
    rows = src[:, shift(point):shift(point) + sizes["m"]]
    acc = np.zeros(rows.shape[1:], dtype=np.float32)
    for r in range(READS):  # the kernel's order of additions
        acc = (acc + rows[r]).astype(np.float32)
    total = acc if acc.ndim == 1 else np.float32(0)
    if acc.ndim == 2:
        for k in range(acc.shape[1]):
            total = (total + acc[:, k]).astype(np.float32)
    return {"dst": np.where(total != 0, total, 0).astype(np.float32)}


SPEC = BenchmarkSpec(
    name="dram_requests",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"offset_bytes": OFFSETS, "vector_width": WIDTHS},
    knobs={"workgroup": Knob("workgroup", (256,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read},
    sweep=[{"vector_width": w, "offset_bytes": o} for w in WIDTHS for o in OFFSETS],
    quick_sweep=[{"vector_width": 1, "offset_bytes": 0}, {"vector_width": 1, "offset_bytes": 64}],
    analysis="dram_requests",
    group="memory",
    tolerance={"float32": 1e-5},
)
