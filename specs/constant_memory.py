"""Constant memory (seed 000 §VI, Table III): ``__constant`` bandwidth by stride, and its cache.

``test="bandwidth"``: groups of 256 work items each read ``R`` = 64 words of a 2.25 KiB
``__constant`` array (a loopy ``ConstantArg``, emitted as ``__constant float *``) and store their
sum. Work item ``l`` of a group reads word ``(l mod 32)·stride + r`` at step ``r``: stride 0 is a
broadcast (every work item of a warp reads the same word, the case constant memory is built for);
at stride s ≥ 1 the 32 lanes of a warp read 32 different words spanning 32·s·4 bytes, which the
constant cache serves one address after another. The read loop is fully unrolled, so every
address is one base register (computed once) plus a compile-time offset. Bytes are counted per
work item (seed 000's bytesComm = work items × loads × 4 B), not the bytes the cache delivers per
warp.

``test="walk"``: the varying-size random walk of ``random_walk`` (the same pointer-chase program,
``gencl.spec.pointer_chase``) restricted to ``__constant`` memory, footprints 256 B up to the
device's ``max_constant_buffer_size`` (64 KiB on NVIDIA), three per octave, slots 64 B apart
(the constant cache's line on NVIDIA): the staircase gives the constant cache sizes and
latencies (seed 000 Table III found an 8 KB constant cache on a Kepler GPU). On the H200 the walk
runs at the L1's 40 cycles and rises gradually to 56 at 64 KiB without a step: no level inside
the 64 KiB a ``__constant`` buffer may hold (docs/memory.md says what that does and does not show).
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec
from gencl.spec.pointer_chase import ring_array, walk_program, walk_reference

KIB = 1 << 10
READS = 64           # reads per work item
GROUP = 256          # work items per group
LANES = 32           # a warp: lanes l and l + 32 read the same words
STRIDES = (0, 1, 2, 4, 8, 16)
WORDS = LANES * max(STRIDES) + READS  # the bandwidth test's __constant array (576 floats)
#: walk footprints, three per octave: 256 B … 1 MiB (capped by the device's constant buffer size)
FOOTPRINTS = tuple(sorted({int(round(256 * 2 ** (k / 3) / 64)) * 64
                           for k in range(0, 3 * 12 + 1)}))
QUICK_FOOTPRINTS = tuple(256 << k for k in range(0, 9))  # 256 B … 64 KiB, one per octave
SPACING = 64


def _bandwidth_program(point):
    knl = lp.make_kernel(
        "{[g, l, r]: 0 <= g < G and 0 <= l < W and 0 <= r < R}",
        """
        for g, l
            <> acc = 0 {id=init}
            for r
                acc = acc + cst[(l % L)*S + r] {id=sum, dep=init}
            end
            dst[g, l] = acc {dep=sum}
        end
        """,
        [lp.ConstantArg("cst", np.float32, shape=("M",)),
         lp.GlobalArg("dst", np.float32, shape=("G", "W"), is_input=False, is_output=True),
         lp.ValueArg("G", np.int32)],
        name="constant_bandwidth", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, W=GROUP, S=point["stride"], R=READS, M=WORDS, L=LANES)
    return lp.tag_inames(knl, {"g": "g.0", "l": "l.0", "r": "unr"})


def program(point):
    if point["test"] == "walk":
        return walk_program("constant", name="constant_walk")
    return _bandwidth_program(point)


def _is_gpu(device):
    return device is not None and device.device_type.upper() == "GPU"


def sizes(point, device, quick):
    """Walk: 16 Ki steps (≥ 16 passes over ≤ 1024 slots; 2 Ki quick). Bandwidth: enough groups to
    fill every compute unit many times (64 Ki work items per CU on a GPU)."""
    if point["test"] == "walk":
        slots = point["footprint"] // SPACING
        steps = 2048 if quick else int(min(128 * KIB, max(16 * KIB, 4 * slots)))
        return {"n": point["footprint"] // 4, "K": steps}
    per_cu = 2 if quick else (256 if _is_gpu(device) else 16)
    return {"G": int(device.compute_units) * per_cu}


def verify_sizes(point, device):
    if point["test"] == "walk":
        return {"n": point["footprint"] // 4, "K": 300}
    return {"G": 3}


def inputs(point, sizes, rng):
    if point["test"] == "walk":
        nxt = ring_array(sizes["n"], SPACING // 4, "random", rng)
        return {"nxt": nxt, "state": np.array([0], dtype=np.int32)}
    return {"cst": rng.standard_normal(WORDS).astype(np.float32)}


def reference(values, point, sizes):
    if point["test"] == "walk":
        return walk_reference(values, sizes["K"])
    cst = values["cst"]
    lid = np.arange(GROUP)
    acc = np.zeros(GROUP, dtype=np.float32)
    for r in range(READS):  # the kernel's order of additions, in float32
        acc = (acc + cst[(lid % LANES) * point["stride"] + r]).astype(np.float32)
    return {"dst": np.broadcast_to(acc, (sizes["G"], GROUP)).copy()}


def bytes_read(point, sizes):
    """Bandwidth test: work items × reads × 4 B (per work item, seed 000); walk: 4 B per step."""
    if point["test"] == "walk":
        return sizes["K"] * 4
    return sizes["G"] * GROUP * READS * 4


def steps(point, sizes):
    return sizes["K"] if point["test"] == "walk" else 0


def _fits_constant_memory(point, device):
    if point["test"] == "walk":
        if point["stride"] != 0:
            return "the walk has no stride"
        if device is not None and point["footprint"] > device.constant_mem_bytes:
            return (f"footprint {point['footprint']} B above the device's constant buffer size "
                    f"{device.constant_mem_bytes} B")
    elif point["footprint"] != FOOTPRINTS[0]:
        return "the bandwidth test has a fixed 2.25 KiB array"
    return None


SPEC = BenchmarkSpec(
    name="constant_memory",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"test": ("bandwidth", "walk"), "stride": STRIDES,
            "footprint": tuple(sorted(set(FOOTPRINTS) | set(QUICK_FOOTPRINTS)))},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read, "steps": steps},
    sweep=[{"test": "bandwidth", "stride": s} for s in STRIDES]
    + [{"test": "walk", "footprint": f} for f in FOOTPRINTS],
    quick_sweep=[{"test": "bandwidth", "stride": s} for s in (0, 1, 16)]
    + [{"test": "walk", "footprint": f} for f in QUICK_FOOTPRINTS],
    constraints=[_fits_constant_memory],
    analysis="constant_memory",
    group="memory",
    tolerance={"float32": 1e-5, "int32": 0.0},
)
