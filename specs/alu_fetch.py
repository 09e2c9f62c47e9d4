"""ALU:fetch ratio (seed 004 §III-A, §IV-A): where a kernel turns from memory- to arithmetic-bound.

Each work item loads ``inputs`` values (float, or floatW, W = 2 … 16, through the ``vector``
knob), then runs one dependent chain of ``x = x·a + v[h]`` multiply-adds that walks over the
loaded values ``4 × ratio`` times, and stores ``x``: every load feeds the arithmetic and the
stored result depends on all of it, so no compiler can drop either (seed 004: "every input …
has to be used"). ``a`` and the start value ``b`` are runtime scalars (|a| < 1, so the chain
stays bounded and the numpy reference is exact to rounding). ``ratio`` follows seed 004's
convention (AMD's StreamKernelAnalyzer): ALU:fetch 1.0 is four ALU instructions per fetch
instruction, so a kernel with ``inputs`` loads runs ``4 × ratio × inputs`` multiply-adds (one
instruction per float or floatW value). Ratios 0.25 … 64, log-spaced. A launch moves 256 MiB
on a GPU (5× the 50 MB L2 of Hopper), 64 MiB on a CPU, 1 MiB quick; time ≈ max(bytes /
bandwidth, ops / peak), and the analysis finds the ratio where the two meet. A floatW chain is
W independent lanes an item: the analysis also fits how far each width's arithmetic hides
behind its loads (``overlap_exponent_by_vector_width``).
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

#: ALU:fetch ratios (seed 004 units): 4 × ratio multiply-adds per loaded value, 0.25 … 64
RATIOS = (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
QUICK_RATIOS = {1: (0.25, 1, 4, 16, 64), 2: (0.25, 4, 64), 4: (0.25, 4, 64), 8: (0.25, 4, 64),
                16: (0.25, 4, 64)}
#: float and floatW: each width's chain has W independent lanes an item, and how far its
#: arithmetic hides behind the loads (the overlap exponent) is measured per width
WIDTHS = (1, 2, 4, 8, 16)


def passes(point):
    """Passes of the chain over the loaded values: 4 × ratio (seed 004's 4:1 convention)."""
    return int(round(4 * point["ratio"]))


def program(point):
    t = lp.make_kernel(
        "{[i, f, j, h]: 0 <= i < n and 0 <= f < F and 0 <= j < J and 0 <= h < F}",
        """
        for i
            for f
                <> v[f] = src[f, i] {id=load}
            end
            <> x = b {id=init}
            for j
                for h
                    x = x * a + v[h] {id=fma, dep=init:load}
                end
            end
            dst[i] = x {dep=fma}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=("F", "n")),
         lp.GlobalArg("dst", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("a", np.float32), lp.ValueArg("b", np.float32),
         lp.ValueArg("n", np.int32)],
        name="alu_fetch", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        silenced_warnings=["v1_scheduler_fallback"])
    reps = passes(point)
    t = lp.fix_parameters(t, F=int(point["inputs"]), J=reps)
    # v[h] must index registers: the pass over the inputs is straight-line code. The passes are
    # one constant-trip loop with an unroll hint, unrolled by the OpenCL compiler: the same code
    # shape at every ratio (loopy's full unroll of 1024 multiply-adds costs seconds per variant;
    # a loop split by loopy made PoCL stop vectorizing across work items, a 20× cliff that is
    # not the ALU bound).
    t = lp.tag_inames(t, {"f": "unr", "h": "unr", "j": "unr_hint"})
    return lp.prioritize_loops(t, "j,h")


def sizes(point, device, quick):
    """Floats per input array: the launch moves (inputs + 1) × 4 B per float lane."""
    total = 1 << 20 if quick else (256 << 20 if device.device_type.upper() == "GPU" else 64 << 20)
    total = min(total, device.max_alloc_bytes // 2)
    unit = point["vector_width"] * point["workgroup"]
    n = max(unit, total // ((point["inputs"] + 1) * 4) // unit * unit)
    return {"n": n}


def verify_sizes(point, device):
    return {"n": 3 * point["vector_width"] * point["workgroup"]}


def inputs(point, sizes, rng):
    # uniform, not normal: 3× faster to draw, and a GPU launch reads 256 MiB
    return {"src": rng.random((point["inputs"], sizes["n"]), dtype=np.float32),
            "a": np.float32(rng.uniform(0.5, 0.9)), "b": np.float32(rng.uniform(0.1, 0.5))}


def reference(values, point, sizes):
    src, a = values["src"], np.float32(values["a"])
    x = np.full(src.shape[1], values["b"], dtype=np.float32)
    for _ in range(passes(point)):
        for row in src:
            x = (x * a + row).astype(np.float32)
    return {"dst": x}


def bytes_moved(point, sizes):
    """Loads plus the one store per float lane."""
    return sizes["n"] * (point["inputs"] + 1) * 4


def flops(point, sizes):
    """2 per multiply-add per float lane (a float4 multiply-add is 8)."""
    return 2 * sizes["n"] * point["inputs"] * passes(point)


def loads(point, sizes):
    """Load instructions: one per input per work item (a float4 load is one)."""
    return sizes["n"] // point["vector_width"] * point["inputs"]


SPEC = BenchmarkSpec(
    name="alu_fetch",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"ratio": RATIOS, "inputs": (4, 8, 16)},
    knobs={
        "vector_width": Knob("vector", WIDTHS, {"iname": "i", "arrays": ("src", "dst"),
                                                "temporaries": ("v", "x"), "size": "n"}),
        "workgroup": Knob("workgroup", (256, 64, 128, 512, 1024), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved, "flops": flops, "loads": loads},
    sweep=[{"ratio": r, "vector_width": w} for w in WIDTHS for r in RATIOS],
    quick_sweep=[{"ratio": r, "vector_width": w} for w, rs in QUICK_RATIOS.items() for r in rs],
    analysis="alu_fetch",
    group="memory",
    tolerance={"float32": 1e-4},
    rotate_buffers=True,
)
