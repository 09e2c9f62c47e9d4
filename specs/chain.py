"""Dependent arithmetic chains of seed 000 §III–V: occupancy roofline and pipeline latencies.

Each work item runs ``chains`` independent chains (ILP) of ``chain × reps`` dependent instructions
of one type, written once as an explicit private accumulator array ``x[c]`` (the ``ilp`` knob
interleaves them). Instruction types: SP add+mul ``(x+b)*a`` (cannot contract to an fma), SP
multiply-add ``x*a+b`` (fma.rn.f32), INT ``x*a+b`` on uint32 (mad.lo), DP ``x*a+b`` (fma.rn.f64),
native SF ``native_cos(x)`` and software SF ``cos(x)``. The coefficients are runtime scalars with
|a| < 1, so float chains converge to their fixed point (a numpy reference is cheap and exact) and
nothing can be folded. The store is guarded by a runtime flag (seed 000 §III) so the chain stays.
Each chain starts from its own random input.
Concurrency per compute unit is set by the work-group size and concWG: the launch has
NbrCU × concWG × ``runs`` work-groups and a dynamic ``__local`` pad of floor(MaxLocalMem / concWG)
bytes (eq. 2). ``runs`` > 1 queues several rounds of work-groups per compute unit (seed 000's
runs_CU, which the analysis corrects for): on a CPU a core slowed by another process then does
fewer of them instead of holding the kernel up while the other cores idle.

The ``vector_width`` knob makes each chain a floatW (doubleW, uintW) value: a work item then runs
``ilp`` independent vector chains, the shape of clpeak's compute kernels. A CPU OpenCL runtime
needs it: PoCL does not vectorize a work-group loop whose body is itself a loop, so scalar chains
run one SIMD lane wide there. Sizes count lanes (``n`` = work items × W), so the reference, the
inputs and the op count do not change with W; ``instructions`` counts vector instructions.
"""

import loopy as lp
import numpy as np

from gencl.characterize._hardware import is_gpu, max_concurrent_items, max_conc_wg, warp_width
from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.functions import register_native
from gencl.verify.ptx import LOCAL_TRAFFIC

#: itype -> (dtype, step expression, instructions per step, operations per step)
ITYPES = {
    "sp_addmul": (np.float32, "(x[c] + b) * a", 2, 2),
    "sp_madd": (np.float32, "x[c] * a + b", 1, 2),
    # x*x + b, not x*a + b: with a fixed the compiler composes the unrolled affine steps into one
    # (NVIDIA's PTX showed 1 mad.lo for 16 steps); a quadratic step cannot be composed
    "int_madd": (np.uint32, "x[c] * x[c] + b", 1, 2),
    "dp_madd": (np.float64, "x[c] * a + b", 1, 2),
    "native_sf": (np.float32, "native_cos(x[c])", 1, 1),
    "sf": (np.float32, "cos(x[c])", 1, 1),
}

#: Dependent steps per chain in a timing run (chain × reps), by itype: long enough that one warp
#: alone runs ≥ 100 µs on a GPU (launch overhead < 5 %), short enough for slow software SF.
STEPS = {"sp_addmul": 65536, "sp_madd": 65536, "int_madd": 65536, "dp_madd": 65536,
         "native_sf": 16384, "sf": 4096}


def program(point):
    dtype, step, _, _ = ITYPES[point["itype"]]
    t = lp.make_kernel(
        "{[i, c, r, k]: 0 <= i < n and 0 <= c < C and 0 <= r < reps and 0 <= k < K}",
        f"""
        for i
            for c
                x[c] = src[c, i] {{id=init}}
            end
            for r
                for k
                    for c
                        x[c] = {step} {{id=step, dep=init}}
                    end
                end
            end
            for c
                dst[c, i] = x[c] {{if=flag, dep=step}}
            end
        end
        """,
        # each chain starts from its own random row of src (no chain index used as a value: in
        # a vector chain it would be cast to the scalar type, which OpenCL C rejects)
        [lp.GlobalArg("src", dtype, shape=("C", "n")),
         lp.GlobalArg("dst", dtype, shape=("C", "n"), is_input=False, is_output=True),
         lp.ValueArg("a", dtype), lp.ValueArg("b", dtype), lp.ValueArg("flag", np.int32),
         lp.ValueArg("n", np.int32), lp.ValueArg("reps", np.int32),
         # typed explicitly: the INT chain must time 32-bit multiplies (NVIDIA's PTX once
         # showed 64-bit ones when x was inferred from an int iname)
         lp.TemporaryVariable("x", dtype, shape=("C",))],
        name="chain", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        # add/mul must stay add and mul: with contraction on, NVIDIA fuses each mul with the next
        # step's add into an fma (its PTX showed 63 fma.rn.f32 and 2 add.f32 for 64 steps)
        preambles=[("00_fp_contract", "#pragma OPENCL FP_CONTRACT OFF")]
        if point["itype"] == "sp_addmul" else [],
        silenced_warnings=["v1_scheduler_fallback"])
    if point["itype"] == "native_sf":
        t = register_native(t, "native_cos")
    return lp.fix_parameters(t, K=int(point["chain"]))


#: Room left for the kernel's own local memory: NVIDIA reports 1 byte for a kernel without any,
#: and pad + that must not exceed MaxLocalMem. 64 B keeps floor(MaxLocalMem/concWG) − 64 above
#: MaxLocalMem/(concWG+1) for every concWG up to 27 on 48 KiB, so the pad still caps concurrency.
PAD_SLACK = 64


def _local_pad_bytes(point, device):
    # eq. 2: localMem = floor(MaxLocalMem / concWG), less the kernel's own share
    return int(device.local_mem_bytes) // int(point["conc_wg"]) - PAD_SLACK


def sizes(point, device, quick):
    """NbrCU × concWG × runs work-groups of the chosen size, each chain ``STEPS`` long; ``n``
    counts lanes (work items × vector width)."""
    steps = STEPS[point["itype"]] // (16 if quick else 1)
    items = int(device.compute_units) * point["conc_wg"] * point["runs"] * point["workgroup"]
    return {"n": items * point["vector_width"],
            "reps": max(1, steps // point["chain"]),
            "local_pad_bytes": _local_pad_bytes(point, device)}


def verify_sizes(point, device):
    return {"n": point["workgroup"] * point["vector_width"], "reps": 1,
            "local_pad_bytes": _local_pad_bytes(point, device)}


def inputs(point, sizes, rng):
    dtype = ITYPES[point["itype"]][0]
    shape = (point["ilp"], sizes["n"])
    if point["itype"] == "int_madd":
        src = rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(np.uint32)
        a = dtype(rng.integers(3, 2**31) | 1)
        b = dtype(rng.integers(1, 2**31))
    else:
        src = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
        a, b = dtype(rng.uniform(0.5, 0.9)), dtype(rng.uniform(0.1, 0.5))
    return {"src": src, "a": a, "b": b, "flag": 1}


def reference(values, point, sizes):
    itype = point["itype"]
    dtype = ITYPES[itype][0]
    a, b = dtype(values["a"]), dtype(values["b"])
    x = values["src"].astype(dtype)
    with np.errstate(over="ignore"):
        for _ in range(sizes["reps"] * point["chain"]):
            if itype == "sp_addmul":
                x = (x + b) * a
            elif itype in ("native_sf", "sf"):
                x = np.cos(x)
            elif itype == "int_madd":
                x = x * x + b  # uint32 wraps like the kernel
            else:
                x = x * a + b  # floats converge to b/(1-a)
    return {"dst": x.astype(dtype)}


def steps(point, sizes):
    return sizes["reps"] * point["chain"]


def ops(point, sizes):
    """Operations counted as seed 000 does: 2 per add+mul or multiply-add, 1 per SF."""
    return sizes["n"] * point["ilp"] * steps(point, sizes) * ITYPES[point["itype"]][3]


def instructions(point, sizes):
    """Instructions under study (instrKernel × workItems): add and mul count apart; a vector
    instruction counts once."""
    items = sizes["n"] // point["vector_width"]
    return items * point["ilp"] * steps(point, sizes) * ITYPES[point["itype"]][2]


def ptx_rules(point):
    """Instructions the unrolled chain body must contain in NVIDIA's PTX."""
    unroll = point["unroll"] if isinstance(point["unroll"], int) else 1
    least = unroll * point["ilp"] * point.get("vector_width", 1)  # PTX has no vector FMA
    return {
        "sp_addmul": {r"\badd(\.rn)?(\.ftz)?\.f32\b": least, r"\bmul(\.rn)?(\.ftz)?\.f32\b": least},
        "sp_madd": {r"\bfma\.rn(\.ftz)?\.f32\b": least},
        "int_madd": {r"\bmad\.lo\.[su]32\b": least},
        "dp_madd": {r"\bfma\.rn\.f64\b": least},
        "native_sf": {r"\bcos\.approx(\.ftz)?\.f32\b": least},
        # software cos keeps its argument-reduction table on the stack (ld.local), not a spill
        "sf": {r"\bfma\.rn(\.ftz)?\.f32\b": least, LOCAL_TRAFFIC: None},
    }[point["itype"]]


def _vector_arithmetic(point, device):
    if point["vector_width"] > 1 and point["itype"] in ("native_sf", "sf"):
        return "loopy cannot vectorize function calls (cos): per-lane code, not a vector chain"
    return None


def _runs_on_cpus(point, device):
    if point["runs"] > 1 and device is not None and is_gpu(device):
        return "several runs of work-groups per compute unit: CPU points (a GPU sweeps concWG)"
    return None


def _fits_device(point, device):
    if device is None:
        return None
    wg, conc = point["workgroup"], point["conc_wg"]
    if wg > device.max_work_group_size:
        return f"work-group {wg} > device maximum {device.max_work_group_size}"
    if point["itype"] == "dp_madd" and not device.fp64:
        return "no double precision on this device"
    warp, _ = warp_width(device)
    if is_gpu(device) and warp and wg % warp:
        return f"work-group {wg} is not a multiple of the warp ({warp})"
    max_items, _ = max_concurrent_items(device)
    max_wgs, _ = max_conc_wg(device)
    if max_wgs is not None and conc > max_wgs:
        return f"concWG {conc} > MaxConcWG {max_wgs}"
    if max_items is not None and wg * conc > max_items:
        return f"{wg * conc} concurrent work items > {max_items} per compute unit"
    return None


#: (work-group size, concWG): concurrent work items per CU from one warp to full occupancy.
CONCURRENCY = [(16, 1), (32, 1), (64, 1), (128, 1), (256, 1), (512, 1), (1024, 1), (1024, 2)]

#: The itypes clpeak also measures (SP, DP, INT multiply-add), and sp_addmul, whose peaks come
#: from vector-typed chains on a CPU.
PEAK_ITYPES = ("sp_madd", "dp_madd", "int_madd", "sp_addmul")
#: (vector width, ILP) on a CPU: a core needs about latency × FMA ports (4 × 2) independent
#: SIMD-register chains; PoCL vectorizes only the explicit vector types (16 floats fill AVX-512,
#: 8 AVX2), Intel's runtime vectorizes scalar chains across work items; integer multiplies have
#: ~10-cycle latency and want more chains.
CPU_VECTOR_CHAINS = [(1, 8), (1, 16), (4, 8), (8, 8), (8, 16), (16, 4), (16, 8)]
#: (vector width, ILP) on a GPU at full occupancy: 8 independent multiply-adds per work item in
#: three shapes (clpeak's best on the H200 was float8).
GPU_VECTOR_CHAINS = [(8, 1), (4, 2), (2, 4)]


def cpu_vector_point(itype, width, ilp):
    """A CPU point: 256 lanes per work-group whatever the width (work-groups of 256 / W items,
    16 at W=16: one AVX-512 vector of work items for Intel's vectorizer), so every width runs
    equally long; 8 runs per core so a core another process slows does not stall the launch."""
    return {"itype": itype, "vector_width": width, "ilp": ilp, "workgroup": 256 // width,
            "conc_wg": 1, "runs": 8}


#: clpeak's integer kernel (1.1.2 and 2.x): ``x = y*x + y; y = x*y + x`` on intW, one dependent
#: chain per work item (ILP 1), 2 operations (a multiply and an add) per statement, as ``x*x + b``
#: here; its best width on Intel's CPU runtime was int16, whose compiler then runs 16 work items'
#: chains side by side (16 independent AVX-512 chains for the ~10-cycle vpmulld)
CLPEAK_INT_CHAINS = [(16, 1), (16, 2), (8, 2)]
VECTOR_SWEEP = [cpu_vector_point(it, w, ilp)
                for it in PEAK_ITYPES[:3] for w, ilp in CPU_VECTOR_CHAINS] \
    + [cpu_vector_point("int_madd", w, ilp) for w, ilp in CLPEAK_INT_CHAINS] \
    + [cpu_vector_point("sp_addmul", w, ilp) for w, ilp in ((8, 8), (16, 8))] \
    + [{"itype": it, "vector_width": w, "ilp": ilp, "workgroup": 1024, "conc_wg": 2}
       for it in PEAK_ITYPES for w, ilp in GPU_VECTOR_CHAINS]
#: quick: the shapes that won on PoCL (explicit 16- and 8-wide vectors) and on Intel's runtime
#: (scalar chains it vectorizes across work items; clpeak's float8 there is the same shape;
#: 16 integer chains for the ~10-cycle vpmulld; clpeak's int16 and int16 × 2 chains)
QUICK_VECTOR_SWEEP = [cpu_vector_point(it, w, ilp)
                      for it, w, ilp in (("sp_madd", 16, 8), ("sp_madd", 8, 8),
                                         ("sp_madd", 1, 8), ("sp_madd", 1, 16),
                                         ("dp_madd", 8, 8), ("dp_madd", 1, 8),
                                         ("int_madd", 16, 8), ("int_madd", 1, 16),
                                         ("int_madd", 16, 1), ("int_madd", 16, 2))]

SPEC = BenchmarkSpec(
    name="chain",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"itype": tuple(ITYPES), "chain": (1024, 256, 4096), "conc_wg": (1, 2, 4, 8, 16, 32),
            "runs": (1, 4, 8, 16)},
    knobs={
        "vector_width": Knob("vector", (1, 2, 4, 8, 16),
                             {"iname": "i", "arrays": ("src", "dst"), "temporaries": ("x",),
                              "size": "n", "per_instruction": True}),
        "ilp": Knob("ilp", (1, 2, 4, 8, 16), {"iname": "c", "param": "C"}),
        "unroll": Knob("unroll", (16, 8, 32, "none", "hint"), {"iname": "k"}),
        "workgroup": Knob("workgroup", (256, 16, 32, 64, 128, 512, 1024), {"inames": ("i",)}),
        "local_pad": Knob("local_pad", (True, False)),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"ops": ops, "instructions": instructions},
    sweep=[{"itype": it, "ilp": ilp, "workgroup": wg, "conc_wg": conc}
           for it in ITYPES for ilp in (1, 2, 4) for wg, conc in CONCURRENCY] + VECTOR_SWEEP,
    quick_sweep=[{"itype": it, "ilp": ilp, "workgroup": wg}
                 for it, ilp in (("sp_madd", 1), ("sp_madd", 2), ("int_madd", 1), ("sf", 1))
                 for wg in (16, 64)] + QUICK_VECTOR_SWEEP,
    constraints=[_vector_arithmetic, _runs_on_cpus, _fits_device],
    analysis="occupancy",
    group="compute",
    tolerance={"float32": 1e-4, "float64": 1e-10, "uint32": 0.0},
    ptx_rules=ptx_rules,
    extra={"itypes": ITYPES, "steps": steps},
)
