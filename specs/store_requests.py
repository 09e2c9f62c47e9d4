"""Wide stores: streams of 1–2 input and 1–2 output arrays at 4–16 floats a work item.

Work item i reads element i of each input, sums them and stores the sum, scaled, into element
i of each output (``o_k[i] = (a_0[i] + …) · (k + 1)``), every element a ``floatW`` (W = the
``vector_width`` knob). Every byte is read or written once, the arrays far beyond the
last-level cache, so the bytes a stream moves are the same at every width; what changes is the
store's shape. A sub-group's store instruction moves at most a 16-byte chunk a lane: at
``float4`` its 32 lanes fill four whole 128-byte lines, at ``float8`` the lanes lie 32 bytes
apart and each chunk instruction writes half of eight lines, at ``float16`` a quarter of
sixteen. Loads of the same shape cost nothing beyond the stream (the H200 reads three arrays at
178 µs at ``float2`` to ``float16`` alike), stores do: 1 input and 2 outputs run 202 µs at
``float4``, 270 at ``float8`` and 407 at ``float16`` (tools/wide_stores.py, 2026-11-29). The
analysis ``store_requests`` (gencl/characterize/store_requests.py) fits those times to the store
line requests beyond one a line and reports their rate and how far they overlap the stream.
"""

import loopy as lp
import numpy as np

from gencl.characterize.store_requests import bytes_moved
from gencl.generate.knobs.vector import vectorize
from gencl.spec import BenchmarkSpec, Knob

#: (inputs, outputs) of the streams measured: one output and two, one input and two
STREAMS = ((1, 1), (2, 1), (1, 2), (2, 2))
WIDTHS = (4, 8, 16)
#: bytes of one array: beyond any GPU's last-level cache; a CPU's L3
ARRAY_BYTES = {"GPU": 256 << 20, "CPU": 32 << 20, "quick": 1 << 20}


def _names(point):
    return ([f"a{k}" for k in range(point["inputs"])],
            [f"o{k}" for k in range(point["outputs"])])


def program(point):
    ins, outs = _names(point)
    # the sum once, into a private vector: written into each output's expression, NVIDIA's
    # OpenCL loads the inputs again after the first float16 store (2 inputs, 2 outputs: 497 µs
    # where the same stream in plain OpenCL C, tools/wide_stores.py, runs 416)
    total = " + ".join(f"{a}[i]" for a in ins)
    body = "\n".join([f"<> s = {total}",
                      *(f"{o}[i] = s * {k + 1}.0f" for k, o in enumerate(outs))])
    args = [lp.GlobalArg(a, np.float32, shape=("m",), is_input=True, is_output=False)
            for a in ins]
    args += [lp.GlobalArg(o, np.float32, shape=("m",), is_input=False, is_output=True)
             for o in outs]
    t = lp.make_kernel("{[i]: 0 <= i < m}", body, [*args, lp.ValueArg("m", np.int32)],
                       name="store_requests", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    # whole work-groups (sizes): no guard around the stores
    t = lp.assume(t, f"m mod {point['workgroup'] * point['vector_width']} = 0")
    # the width is the benchmark's axis, not a knob: which arrays it splits depends on the stream
    return vectorize(t, "i", point["vector_width"], arrays=ins + outs, temporaries=["s"],
                     size="m")


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    arrays = point["inputs"] + point["outputs"]
    each = min(ARRAY_BYTES[kind], device.max_alloc_bytes, device.global_mem_bytes // (2 * arrays))
    unit = point["workgroup"] * point["vector_width"]
    return {"m": max(unit, each // 4 // unit * unit)}


def verify_sizes(point, device):
    return {"m": 4 * point["workgroup"] * point["vector_width"]}


def inputs(point, sizes, rng):
    ins, _ = _names(point)
    return {a: rng.standard_normal(sizes["m"]).astype(np.float32) for a in ins}


def reference(values, point, sizes):
    ins, outs = _names(point)
    total = values[ins[0]]
    for a in ins[1:]:  # the kernel's order of additions
        total = (total + values[a]).astype(np.float32)
    return {o: (total * np.float32(k + 1)).astype(np.float32) for k, o in enumerate(outs)}


SPEC = BenchmarkSpec(
    name="store_requests",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"inputs": (1, 2), "outputs": (1, 2), "vector_width": WIDTHS},
    knobs={"workgroup": Knob("workgroup", (256,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved},
    sweep=[{"inputs": i, "outputs": o, "vector_width": w} for i, o in STREAMS for w in WIDTHS],
    quick_sweep=[{"inputs": 1, "outputs": o, "vector_width": w} for o in (1, 2)
                 for w in (4, 16)],
    analysis="store_requests",
    group="memory",
    tolerance={"float32": 1e-6},
)
