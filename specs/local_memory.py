"""Local memory bandwidth (static vs dynamic ``__local``, one work item vs a full group) and bank
conflicts by stride.

Each work group fills a ``__local`` buffer of 16 words per work item from global memory, then
every work item reads ``R`` = 64 words, the r-th at word ``(lid·stride + r·W) mod M``: at stride 1
consecutive work items hit consecutive banks; at stride s, ``gcd(s, banks)`` work items of a warp
share a bank and are served one after the other (seed 000 §III). The r·W term moves every read to
a different row, so no read can be merged with the next into a wider load. ``allocation`` is the
buffer as a sized ``__local`` array (static) or a ``__local`` kernel argument sized at launch
(dynamic, the local-memory knob's transform); ``workgroup=1`` is one work item per group. Word
sizes: 4 bytes (float32, strides 1…32) and 8 bytes (float64, strides 1…64).
"""

import loopy as lp
import numpy as np

from gencl.generate.knobs import local_temporary_to_argument
from gencl.spec import BenchmarkSpec

DTYPES = {"float32": np.float32, "float64": np.float64}
READS = 64
WORDS_PER_ITEM = 16


def program(point):
    dtype, w = DTYPES[point["dtype"]], point["workgroup"]
    m = w * WORDS_PER_ITEM
    knl = lp.make_kernel(
        "{[g, l, j, r]: 0 <= g < G and 0 <= l < W and 0 <= j < J and 0 <= r < R}",
        """
        for g, l
            for j
                lbuf[l + W*j] = src[g, l + W*j] {id=fill}
            end
            <> acc = 0 {id=init}
            for r
                acc = acc + lbuf[(l*S + r*W) % M] {id=sum, dep=init:fill}
            end
            dst[g, l] = acc {dep=sum}
        end
        """,
        [lp.GlobalArg("src", dtype, shape=("G", m)),
         lp.GlobalArg("dst", dtype, shape=("G", w), is_input=False, is_output=True),
         lp.TemporaryVariable("lbuf", dtype, shape=(m,), address_space=lp.AddressSpace.LOCAL),
         lp.ValueArg("G", np.int32)],
        name="local_memory", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, W=w, S=point["stride"], R=READS, M=m, J=WORDS_PER_ITEM)
    knl = lp.tag_inames(knl, {"g": "g.0", "l": "l.0", "r": "unr"})
    if point["allocation"] == "dynamic":
        knl = local_temporary_to_argument(knl, "lbuf")
    return knl


def sizes(point, device, quick):
    """Enough groups to fill every compute unit many times over (two per CU in quick mode)."""
    per_cu = 2 if quick else (32 if point["workgroup"] > 1 else 512)
    return {"G": device.compute_units * per_cu}


def verify_sizes(point, device):
    return {"G": 3}


def inputs(point, sizes, rng):
    m = point["workgroup"] * WORDS_PER_ITEM
    return {"src": rng.standard_normal((sizes["G"], m)).astype(DTYPES[point["dtype"]])}


def reference(values, point, sizes):
    src = values["src"]
    w = point["workgroup"]
    m = w * WORDS_PER_ITEM
    lid = np.arange(w)
    acc = np.zeros((src.shape[0], w), dtype=src.dtype)
    for r in range(READS):
        acc = (acc + src[:, (lid * point["stride"] + r * w) % m]).astype(src.dtype)
    return {"dst": acc}


def bytes_read(point, sizes):
    return sizes["G"] * point["workgroup"] * READS * np.dtype(DTYPES[point["dtype"]]).itemsize


def _strides_of_word(point, device):
    limit = 32 if point["dtype"] == "float32" else 64
    if point["stride"] > limit:
        return f"strides of {point['dtype']} words go to {limit}"
    if point["workgroup"] == 1 and point["stride"] != 1:
        return "one work item has no bank conflicts to vary"
    return None


def _fp64(point, device):
    if point["dtype"] == "float64" and device is not None and not device.fp64:
        return "device has no fp64"
    return None


STRIDES = tuple(range(1, 65))
BANDWIDTH = [{"allocation": a, "workgroup": w, "dtype": d}
             for a in ("static", "dynamic") for w in (256, 1) for d in DTYPES]
CONFLICTS = ([{"stride": s} for s in range(2, 33)]
             + [{"dtype": "float64", "stride": s} for s in (2, 3, 4, 8, 16, 32, 64)])

SPEC = BenchmarkSpec(
    name="local_memory",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES), "allocation": ("static", "dynamic"),
            "workgroup": (256, 1), "stride": STRIDES},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read},
    sweep=BANDWIDTH + CONFLICTS,
    quick_sweep=[{"allocation": a, "workgroup": w} for a in ("static", "dynamic")
                 for w in (256, 1)] + [{"stride": s} for s in (2, 4, 32)]
    + [{"dtype": "float64", "stride": s} for s in (1, 64)],
    constraints=[_strides_of_word, _fp64],
    analysis="local_memory",
    group="memory",
    tolerance={"float32": 1e-4, "float64": 1e-10},
)
