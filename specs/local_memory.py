"""Local memory peak bandwidth (vector width, ILP, static/dynamic, group/one item), bank conflicts.

Each work group fills a small ``__local`` buffer once, then every work item reads it ``K × 64``
times: 64 reads per pass ``k``, read ``q`` at element ``base + k mod Q + C·q`` with
``base = (lid·stride) mod P``. An element is ``vector_width`` words (one floatN per access). Why
this shape (the first version measured 12.9 TB/s on an H200 against clpeak's 28.6 TB/s):

- Local traffic must dominate. The first version filled 16 words per work item from a per-group
  slice of global memory and read only 64, so ¼ of its bytes came from HBM and the kernel ran at
  the global fill's speed. Now the buffer (a few hundred elements, one copy of ``src`` for every
  group, L2-resident) is filled once per group and read 4 KiB per work item: the fill is ~1 % of
  the bytes, from L2, and overlaps other groups' reads.
- No index arithmetic per read. ``base`` is computed once, the pass offset ``k mod Q`` once per
  pass, and with ``r`` unrolled every read is ``lbuf[x + constant]`` (an immediate offset). The
  first version computed ``(lid·S + r·W) mod M`` for every read.
- Bytes per instruction: the ``vector_width`` knob (floatN per lane), independent accumulators:
  the ``ilp`` knob, loop overhead: the ``unroll`` knob. The best conflict-free point is the peak.
- Nothing for the compiler to remove: every pass reads other addresses than the one before
  (``k mod Q``), so no read is loop-invariant; reads are ``C = 2`` elements apart, so no two merge
  into a wider load; the ``ld.shared`` count is a PTX rule.

Banks: at stride 1 consecutive work items read consecutive elements; at stride s,
``gcd(s, banks)`` work items of a warp share a bank (seed 000 §III). ``P = 64 · 2^⌈log2 s⌉`` ≥ 64·s
keeps the addresses of the 32 (or 64) work items of a warp distinct, so wrapping changes no bank
and merges no address; ``k mod Q`` and ``C·q`` are the same for every work item and change no bank
either.
``allocation`` is the buffer as a sized ``__local`` array (static) or a ``__local`` kernel argument
sized at launch (dynamic); ``workgroup=1`` is one work item per group. Word sizes: 4 bytes
(float32, strides 1…32) and 8 bytes (float64, strides 1…64); strides with one-word elements only.
"""

import math

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob
from gencl.verify.ptx import SHARED_DECLARATION, SHARED_POINTER_PARAM

DTYPES = {"float32": np.float32, "float64": np.float64}
READS = 64  # reads per work item per pass, split over the ilp chains
STEP = 2  # C: elements between consecutive reads (never adjacent: no merged wider loads)
PASS_OFFSETS = 8  # Q: pass k reads at offset k mod Q
BYTES_PER_ITEM = 4096  # local bytes each work item reads per launch (full runs)
ITEMS_PER_CU = 65536  # work items per compute unit per launch: ≥ 32 waves of a full SM
CPU_QUICK_SHARE = 8  # a CPU's quick run: this share of the full run's work items
MAX_LOAD_BYTES = 16  # NVIDIA's widest load (ld.shared.v4.f32 / .v2.f64)


def _window(point) -> int:
    """P: the range of ``base``, in elements (1 for one work item: it has no neighbours)."""
    if point["workgroup"] == 1:
        return 1
    return 64 * (1 << (point["stride"] - 1).bit_length())


def elements(point) -> int:
    """Buffer length in elements: everything read, rounded up to whole fill rows of W."""
    need = _window(point) + PASS_OFFSETS - 1 + STEP * (READS - 1) + 1
    return math.ceil(need / point["workgroup"]) * point["workgroup"]


def footprint_bytes(point) -> int:
    word = np.dtype(DTYPES[point["dtype"]]).itemsize
    return elements(point) * point["vector_width"] * word


def program(point):
    dtype, w = DTYPES[point["dtype"]], point["workgroup"]
    m = elements(point)
    knl = lp.make_kernel(
        [f"{{[g, l]: 0 <= g < G and 0 <= l < {w}}}",
         f"{{[j]: 0 <= j < {m // w}}}",
         "{[e, i, r, k, i2]: 0 <= e < V and 0 <= i < I and 0 <= r < R and 0 <= k < K"
         " and 0 <= i2 < I}"],
        """
        for g, l
            for j, e
                lbuf[l + W*j, e] = src[l + W*j, e] {id=fill}
            end
            <> base = (l*S) % P {id=base}
            for i, e
                acc[i, e] = 0 {id=init}
            end
            for k, r, i, e
                acc[i, e] = acc[i, e] + lbuf[base + k % Q + C*(r*I + i), e] \
                    {id=sum, dep=init:fill:base}
            end
            for e
                out[e] = 0 {id=out0}
            end
            for i2, e
                out[e] = out[e] + acc[i2, e] {id=outsum, dep=out0:sum}
            end
            for e
                dst[g, l, e] = out[e] {dep=outsum}
            end
        end
        """,
        [lp.GlobalArg("src", dtype, shape=("M", "V")),
         lp.GlobalArg("dst", dtype, shape=("G", "W", "V"), is_input=False, is_output=True),
         lp.TemporaryVariable("lbuf", dtype, shape=("M", "V"),
                              address_space=lp.AddressSpace.LOCAL),
         lp.TemporaryVariable("acc", dtype, shape=("I", "V"),
                              address_space=lp.AddressSpace.PRIVATE),
         lp.TemporaryVariable("out", dtype, shape=("V",), address_space=lp.AddressSpace.PRIVATE),
         lp.ValueArg("G", np.int32), lp.ValueArg("K", np.int32)],
        name="local_memory", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        # every group fills its own __local copy (no race across g); ilp/vec tags need loopy's
        # v1 scheduler
        silenced_warnings=["write_race(fill)", "v1_scheduler_fallback"])
    knl = lp.fix_parameters(knl, W=w, S=point["stride"], P=_window(point), M=m,
                            R=READS // point["ilp"], Q=PASS_OFFSETS, C=STEP,
                            V=point["vector_width"])
    knl = lp.assume(knl, "K >= 1")
    # passes outermost, then reads, chains, vector lanes: one pass is straight-line code
    knl = lp.prioritize_loops(knl, "k,r,i,e")
    return lp.tag_inames(knl, {"g": "g.0", "l": "l.0", "i2": "unr"})


def _passes(point, quick):
    if quick:
        return 1
    word = np.dtype(DTYPES[point["dtype"]]).itemsize
    return max(1, BYTES_PER_ITEM // (READS * point["vector_width"] * word))


def sizes(point, device, quick):
    """64 Ki work items per CU (512 one-item groups), 4 KiB read by each.

    Many short-lived groups: ≥ 32 waves of a full compute unit, so a partial last wave costs ~1 %
    whatever occupancy a variant gets (registers of wide unrolled variants can lower it). A CPU
    runs an eighth of that in quick mode, every pass: two groups of one pass a compute unit sat
    on PoCL's ~50 µs launch floor (57–70 µs for every point on a 16-core Xeon), which priced the
    local reads of Jacobi's ``strip`` scheme at 1.6× their measured time."""
    w = point["workgroup"]
    full = 512 if w == 1 else max(1, ITEMS_PER_CU // w)  # groups a compute unit, full run
    if quick and device.device_type.upper() != "GPU":
        per_cu = max(1, full // CPU_QUICK_SHARE)
        return {"G": device.compute_units * per_cu, "K": _passes(point, False)}
    return {"G": device.compute_units * (2 if quick else full), "K": _passes(point, quick)}


def verify_sizes(point, device):
    """Two groups and Q + 1 passes, so the pass offset wraps once."""
    return {"G": 2, "K": PASS_OFFSETS + 1}


def inputs(point, sizes, rng):
    shape = (elements(point), point["vector_width"])
    return {"src": rng.standard_normal(shape).astype(DTYPES[point["dtype"]])}


def reference(values, point, sizes):
    """The kernel's sums in its order: chain i takes reads i, i+I, …; chains summed last."""
    src, w, chains = values["src"], point["workgroup"], point["ilp"]
    dtype = src.dtype
    base = (np.arange(w) * point["stride"]) % _window(point)
    acc = np.zeros((chains, w, src.shape[1]), dtype=dtype)
    for k in range(sizes["K"]):
        for q in range(READS):
            acc[q % chains] += src[base + k % PASS_OFFSETS + STEP * q]
    out = np.zeros((w, src.shape[1]), dtype=dtype)
    for i in range(chains):
        out += acc[i]
    return {"dst": np.broadcast_to(out, (sizes["G"], w, src.shape[1]))}


def bytes_read(point, sizes):
    """Bytes read from ``__local`` (the one fill per group, < 1 % on a GPU, is not counted)."""
    word = np.dtype(DTYPES[point["dtype"]]).itemsize
    return (sizes["G"] * point["workgroup"] * sizes["K"] * READS * point["vector_width"]
            * word)


def ptx_rules(point):
    """The buffer is where the allocation knob says, and no read was merged, hoisted or dropped:
    with ``r`` unrolled one pass holds 64 reads, each one ``ld.shared`` per 16 bytes."""
    rules = {SHARED_DECLARATION if point["allocation"] == "static" else SHARED_POINTER_PARAM: 1}
    if point["unroll"] == "full":
        word = np.dtype(DTYPES[point["dtype"]]).itemsize
        loads = max(1, point["vector_width"] * word // MAX_LOAD_BYTES)
        rules[r"\bld\.shared\b"] = READS * loads
    return rules


def _space(point, device):
    limit = 32 if point["dtype"] == "float32" else 64
    if point["stride"] > limit:
        return f"strides of {point['dtype']} words go to {limit}"
    if point["workgroup"] == 1 and point["stride"] != 1:
        return "one work item has no bank conflicts to vary"
    if point["vector_width"] > 1 and point["stride"] != 1:
        return "bank-conflict strides are measured with one-word elements"
    if device is not None and point["workgroup"] > device.max_work_group_size:
        return f"work-group {point['workgroup']} > device maximum {device.max_work_group_size}"
    if device is not None and footprint_bytes(point) > device.local_mem_bytes:
        return (f"{footprint_bytes(point)} B of __local exceed the device's "
                f"{device.local_mem_bytes}")
    return None


def _fp64(point, device):
    if point["dtype"] == "float64" and device is not None and not device.fp64:
        return "device has no fp64"
    return None


STRIDES = tuple(range(1, 65))
#: static vs dynamic, a group vs one work item, both word sizes: one-word reads, one chain
BASE = [{"allocation": a, "workgroup": w, "dtype": d}
        for a in ("static", "dynamic") for w in (256, 1) for d in DTYPES]
#: bytes per access and independent chains (the peak is the best of these)
WIDE = ([{"vector_width": v, "ilp": i} for v in (1, 2, 4, 8) for i in (1, 2, 4)
         if (v, i) != (1, 1)]
        + [{"dtype": "float64", "vector_width": v, "ilp": i} for v in (1, 2, 4, 8)
           for i in (1, 4) if (v, i) != (1, 1)])
#: loop overhead (a loop of unrolled 8, a plain loop), 1024 work items, dynamic, one item
LOOPS = ([{"vector_width": v, "unroll": 8} for v in (1, 4, 8)]
         + [{"vector_width": v, "unroll": "none"} for v in (1, 4)])
OTHER = ([{"workgroup": 1024, "vector_width": v} for v in (1, 4, 8)]
         + [{"allocation": "dynamic", "vector_width": 4}]
         + [{"workgroup": 1, "vector_width": v, "ilp": i} for v, i in ((1, 4), (4, 1), (4, 4))])
CONFLICTS = ([{"stride": s} for s in range(2, 33)]
             + [{"dtype": "float64", "stride": s} for s in (2, 3, 4, 8, 16, 32, 64)])

SPEC = BenchmarkSpec(
    name="local_memory",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES), "workgroup": (256, 1, 1024), "stride": STRIDES},
    knobs={
        "vector_width": Knob("vector", (1, 2, 4, 8),
                             {"iname": "e", "arrays": ("src", "dst", "lbuf", "acc", "out")}),
        "ilp": Knob("ilp", (1, 2, 4, 8), {"iname": "i", "param": "I"}),
        "unroll": Knob("unroll", ("full", 8, "none"), {"iname": "r"}),
        # last: a dynamic buffer linearizes the program
        "allocation": Knob("local_allocation", ("static", "dynamic"), {"temporary": "lbuf"}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read},
    sweep=BASE + WIDE + LOOPS + OTHER + CONFLICTS,
    quick_sweep=[{"allocation": a, "workgroup": w} for a in ("static", "dynamic")
                 for w in (256, 1)]
    + [{"vector_width": 4, "ilp": 4}, {"dtype": "float64", "vector_width": 2, "ilp": 2},
       {"vector_width": 8, "unroll": 8, "allocation": "dynamic"},
       {"workgroup": 1, "vector_width": 2, "ilp": 4}]
    + [{"stride": s} for s in (2, 4, 32)]
    + [{"dtype": "float64", "stride": s} for s in (1, 64)],
    constraints=[_space, _fp64],
    analysis="local_memory",
    group="memory",
    tolerance={"float32": 1e-4, "float64": 1e-10},
    ptx_rules=ptx_rules,
)
