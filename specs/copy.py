"""Copy kernel of seed 000 §VI-A: bandwidth and issue latency by element size and loop kind.

Each work item reads ``reads`` elements strided by the number of work items (coalesced), sums them
and stores the sum through the paper's result guard: the stored value depends on the computed sum,
so no compiler can drop the loads. Element sizes 1, 2, 4, 8, 16 bytes are char, short, float,
float2, float4 (dtype × vector width). The loop bound is a compile-time constant (optionally fully
unrolled) or a kernel argument ("dynamic loop" of seed 000 Fig. 6).
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

DTYPES = {"int8": np.int8, "int16": np.int16, "float32": np.float32}


def program(point):
    dtype = DTYPES[point["dtype"]]
    return lp.make_kernel(
        "{[i, r]: 0 <= i < n and 0 <= r < R}",
        """
        for i
            <> acc = 0 {id=init}
            for r
                acc = acc + src[r, i] {id=sum, dep=init}
            end
            dst[i] = if(flag * acc != 0, acc, 0) {dep=sum}
        end
        """,
        [lp.GlobalArg("src", dtype, shape=("R", "n")),
         lp.GlobalArg("dst", dtype, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("flag", np.int32), lp.ValueArg("n", np.int32), lp.ValueArg("R", np.int32)],
        name="copy", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def element_bytes(point):
    return np.dtype(DTYPES[point["dtype"]]).itemsize * point["vector_width"]


def sizes(point, device, quick):
    """Elements per row: a read volume well past the last-level cache (64 MiB on a CPU, 1 GiB on a
    GPU; 4 MiB in quick mode), a multiple of work-group × vector width."""
    total = 4 << 20 if quick else (1 << 30 if device.device_type.upper() == "GPU" else 64 << 20)
    total = min(total, device.max_alloc_bytes // 2)
    itemsize = np.dtype(DTYPES[point["dtype"]]).itemsize
    unit = point["vector_width"] * point["workgroup"]
    n = max(unit, total // (point["reads"] * itemsize) // unit * unit)
    return {"n": n, "R": point["reads"]}


def verify_sizes(point, device):
    unit = point["vector_width"] * point["workgroup"]
    return {"n": 4 * unit + (0 if point["vector_width"] > 1 else 7), "R": point["reads"]}


def inputs(point, sizes, rng):
    """Random bytes as integers (the sums wrap in the kernel and the reference alike), uniform
    floats in [0.5, 1.5): drawn in the element type, since the timing buffer is 1 GiB on a GPU
    (drawn as int64 or float64 and converted, 5 s a point: most of the suite's copy time)."""
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["R"], sizes["n"])
    if np.issubdtype(dtype, np.integer):
        # random 64-bit words cut into bytes: 4× faster than rng.bytes (3 s a GiB on the H200 host)
        nbytes = shape[0] * shape[1] * np.dtype(dtype).itemsize
        words = rng.integers(0, 2**64 - 1, size=-(-nbytes // 8), dtype=np.uint64, endpoint=True)
        src = words.view(np.uint8)[:nbytes].view(dtype).reshape(shape)
    else:
        src = rng.random(shape, dtype=dtype)
        src += dtype(0.5)
    return {"src": src, "flag": 1}


def reference(values, point, sizes):
    src = values["src"]
    acc = np.zeros(src.shape[1], dtype=src.dtype)
    for row in src:  # the kernel's order of additions, in the element type (ints wrap)
        acc = (acc + row).astype(src.dtype)
    return {"dst": np.where(values["flag"] * acc != 0, acc, 0).astype(src.dtype)}


def bytes_moved(point, sizes):
    # reads plus the one guarded store per element (taken: flag=1 and the sum is non-zero)
    return sizes["n"] * (sizes["R"] + 1) * np.dtype(DTYPES[point["dtype"]]).itemsize


def _full_unroll_needs_constant(point, device):
    if point["unroll"] == "full" and point["loop"] == "dynamic":
        return "a dynamic loop cannot be fully unrolled"
    return None


def _vectors_of_floats(point, device):
    if point["vector_width"] > 1 and point["dtype"] != "float32":
        return "element sizes above 4 bytes are float vectors"
    return None


ELEMENTS = [("int8", 1), ("int16", 1), ("float32", 1), ("float32", 2), ("float32", 4)]

LOOP_KINDS = (("constant", "full"), ("constant", "none"), ("dynamic", "none"))
BASE_SWEEP = [{"dtype": d, "vector_width": w, "reads": r, "loop": loop, "unroll": u}
              for d, w in ELEMENTS for r in (16,) for loop, u in LOOP_KINDS]
# seed 000 Fig. 6: bandwidth against reads per work item, for each loop kind
READS_SWEEP = [{"dtype": "float32", "vector_width": 1, "reads": r, "loop": loop, "unroll": u}
               for r in (1, 4, 64) for loop, u in LOOP_KINDS]
# a true copy (one read, one write per element) for every element size: copy_bw_Bps
COPY_SWEEP = [{"dtype": d, "vector_width": w, "reads": 1, "loop": "constant", "unroll": "full"}
              for d, w in ELEMENTS if (d, w) != ("float32", 1)]
# bandwidth against work-group size (the 256 point is in BASE_SWEEP)
OCCUPANCY_SWEEP = [{"dtype": "float32", "vector_width": 4, "reads": 16, "loop": "constant",
                    "unroll": "full", "workgroup": wg} for wg in (64, 128, 512, 1024)]

SPEC = BenchmarkSpec(
    name="copy",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES), "reads": (16, 1, 2, 4, 8, 32, 64, 128)},
    knobs={
        "vector_width": Knob("vector", (1, 2, 4, 8, 16),
                             {"iname": "i", "arrays": ("src", "dst"), "temporaries": ("acc",),
                              "size": "n"}),
        "loop": Knob("trip_count", ("constant", "dynamic"), {"param": "R", "source": "reads"}),
        "unroll": Knob("unroll", ("full", "none"), {"iname": "r"}),
        "workgroup": Knob("workgroup", (256, 64, 128, 512, 1024), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved},
    sweep=BASE_SWEEP + READS_SWEEP + COPY_SWEEP + OCCUPANCY_SWEEP,
    quick_sweep=BASE_SWEEP + OCCUPANCY_SWEEP[::3],
    constraints=[_full_unroll_needs_constant, _vectors_of_floats],
    analysis="bandwidth",
    group="memory",
    tolerance={"float32": 1e-5, "int8": 0.0, "int16": 0.0},
    rotate_buffers=True,
    extra={"element_bytes": element_bytes},
)
