"""Store then reload: a loop the code keeps whose next pass loads from the array its last pass
stored to, against the same loop storing to another array, with rows on a line or off it.

Each work item walks the ``K`` rows of its own column of an (K, m) array in a rolled loop (its
bound is a kernel argument, and ``opencl_unroll_hint(1)``): pass k loads row k and stores it, in
place (``target=self``: ``x[k, i] = 2 x[k, i] + 1``) or into a second array (``target=other``:
``y[k, i] = 2 x[k, i] + 1``), with each item's element on a line (``offset=0``) or 64 bytes into
one (``offset=16``, as the suite's padded stencils lay out their rows). The rows lie far beyond
the last-level cache. A compiler cannot move a pass's load above the last pass's store to the
same array (their addresses differ by run-time sizes); on NVIDIA's GPUs that load waits where two
sub-groups share each line: the H200 runs the in-place loop 1.99× slower than the copy with rows
off the line (1.40× at ``float4``: 11–14 ns a store instruction a compute unit at either width)
and 1.01–1.03× with rows on it. The analysis ``store_reload``
(gencl/characterize/store_reload.py) turns each pair into seconds per sub-group store
instruction per compute unit.
"""

import loopy as lp
import numpy as np

from gencl.characterize.store_reload import ROWS, bytes_moved, stores
from gencl.spec import BenchmarkSpec, Knob

TARGETS = ("self", "other")
#: where each item's element lies in a row: on a line (0), or 64 bytes into one (16 floats: the
#: suite's padded stencils), where a line holds the elements of two sub-groups
OFFSETS = (0, 16)
#: floats a row holds beyond its m elements: room for the largest offset, rows whole lines
ROW_PAD = 32
#: bytes of one array: beyond any GPU's last-level cache; a CPU's L3
ARRAY_BYTES = {"GPU": 512 << 20, "CPU": 64 << 20, "quick": 4 << 20}


def program(point):
    target = "x" if point["target"] == "self" else "y"
    at = f"k, i + {point['offset']}"
    t = lp.make_kernel(
        "{[i, k]: 0 <= i < m and 0 <= k < K}",
        f"{target}[{at}] = 2.0f * x[{at}] + 1.0f",
        [lp.GlobalArg("x", np.float32, shape=("K", f"m + {ROW_PAD}"), is_input=True,
                      is_output=point["target"] == "self"),
         lp.GlobalArg("y", np.float32, shape=("K", f"m + {ROW_PAD}"), is_input=False,
                      is_output=True),
         lp.ValueArg("m", np.int32), lp.ValueArg("K", np.int32)],
        name="store_reload", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    # each item walks its column: the row loop inside the item's, kept rolled
    # (opencl_unroll_hint(1)) as a stencil's long loop body is: unrolled, the compiler may issue
    # the next passes' loads together and the wait is paid once for several stores
    t = lp.prioritize_loops(t, "i,k")
    t = lp.tag_inames(t, {"k": "unr_hint.1"})
    return lp.assume(t, "m >= 1 and K >= 1")


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    total = min(ARRAY_BYTES[kind], device.max_alloc_bytes // 2)
    unit = point["workgroup"] * point["vector_width"]
    return {"m": max(unit, (total // (ROWS * 4) - ROW_PAD) // unit * unit), "K": ROWS}


def verify_sizes(point, device):
    return {"m": 4 * point["workgroup"] * point["vector_width"], "K": 3}


def inputs(point, sizes, rng):
    x = rng.random((sizes["K"], sizes["m"] + ROW_PAD), dtype=np.float32) + np.float32(0.5)
    return {"x": x} if point["target"] == "self" else {"x": x, "y": np.zeros_like(x)}


def reference(values, point, sizes):
    x = values["x"]
    cols = slice(point["offset"], point["offset"] + sizes["m"])
    out = x.copy() if point["target"] == "self" else np.zeros_like(x)
    out[:, cols] = 2.0 * x[:, cols] + 1.0
    return {"x" if point["target"] == "self" else "y": out}


SPEC = BenchmarkSpec(
    name="store_reload",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"target": TARGETS, "offset": OFFSETS},
    knobs={
        "vector_width": Knob("vector", (1, 4), {"iname": "i", "arrays": ("x", "y"),
                                                "size": "m"}),
        "workgroup": Knob("workgroup", (256,), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved, "stores": stores},
    sweep=[{"target": t, "offset": o, "vector_width": w}
           for o in OFFSETS for w in (1, 4) for t in TARGETS],
    quick_sweep=[{"target": t, "offset": 16, "vector_width": 1} for t in TARGETS],
    analysis="store_reload",
    group="memory",
    tolerance={"float32": 1e-6},
)
