"""Scalar vs vector arithmetic (seed 003 §3.1): floatW/intW/doubleW chains, one work item vs device.

Each work item runs one dependent multiply-add chain ``x = x*a + b`` on W consecutive elements
held as one OpenCL vector (the ``vector`` knob splits the element iname and tags it ``vec``).
``scope`` "single" launches one work item (latency and in-item parallelism), "device" fills the
device. The analysis reports the throughput of each width relative to the scalar kernel.
"""

import loopy as lp
import numpy as np

from gencl.characterize._hardware import max_concurrent_items
from gencl.spec import BenchmarkSpec, Knob

DTYPES = {"float32": np.float32, "uint32": np.uint32, "float64": np.float64}
CHAIN = 256


def program(point):
    dtype = DTYPES[point["dtype"]]
    t = lp.make_kernel(
        "{[i, r, k]: 0 <= i < n and 0 <= r < reps and 0 <= k < K}",
        """
        for i
            <> x = src[i] {id=init}
            for r
                for k
                    x = x * a + b {id=step, dep=init}
                end
            end
            dst[i] = x {dep=step}
        end
        """,
        [lp.GlobalArg("src", dtype, shape=("n",)),
         lp.GlobalArg("dst", dtype, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("a", dtype), lp.ValueArg("b", dtype),
         lp.ValueArg("n", np.int32), lp.ValueArg("reps", np.int32)],
        name="vec_chain", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.fix_parameters(t, K=CHAIN)


def _items(point, device, quick):
    if point["scope"] == "single":
        return 1
    if device.device_type.upper() != "GPU":
        return int(device.compute_units) * point["workgroup"] * (1 if quick else 4)
    per_cu, _ = max_concurrent_items(device)
    return int(device.compute_units) * int(per_cu or 1024)


def sizes(point, device, quick):
    """Elements = work items × W; steps per chain: 64 Ki for one item, 16 Ki for the device."""
    steps = (65536 if point["scope"] == "single" else 16384) // (16 if quick else 1)
    return {"n": _items(point, device, quick) * point["vector_width"],
            "reps": max(1, steps // CHAIN)}


def verify_sizes(point, device):
    wg = 1 if point["scope"] == "single" else point["workgroup"]
    return {"n": wg * point["vector_width"], "reps": 1}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    if point["dtype"] == "uint32":
        src = rng.integers(0, 2**32, size=sizes["n"], dtype=np.uint64).astype(np.uint32)
        return {"src": src, "a": dtype(rng.integers(3, 2**31) | 1),
                "b": dtype(rng.integers(1, 2**31))}
    return {"src": rng.uniform(-1, 1, sizes["n"]).astype(dtype),
            "a": dtype(rng.uniform(0.5, 0.9)), "b": dtype(rng.uniform(0.1, 0.5))}


def reference(values, point, sizes):
    dtype = DTYPES[point["dtype"]]
    x, a, b = values["src"].copy(), dtype(values["a"]), dtype(values["b"])
    with np.errstate(over="ignore"):
        for _ in range(sizes["reps"] * CHAIN):
            x = (x * a + b).astype(dtype)
    return {"dst": x}


def ops(point, sizes):
    """2 operations per element per multiply-add."""
    return 2 * sizes["n"] * sizes["reps"] * CHAIN


def _scope_matches_workgroup(point, device):
    if (point["scope"] == "single") != (point["workgroup"] == 1):
        return "one work item is a work-group of 1; the device scope uses larger work-groups"
    if device is not None and point["dtype"] == "float64" and not device.fp64:
        return "no double precision on this device"
    return None


WIDTHS = (1, 2, 4, 8, 16)

SPEC = BenchmarkSpec(
    name="vectorization",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES), "scope": ("device", "single")},
    knobs={
        "vector_width": Knob("vector", WIDTHS,
                             {"iname": "i", "arrays": ("src", "dst"), "temporaries": ("x",),
                              "size": "n"}),
        "unroll": Knob("unroll", (16, "none"), {"iname": "k"}),
        "workgroup": Knob("workgroup", (256, 1, 64), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"ops": ops},
    sweep=[{"dtype": d, "scope": s, "vector_width": w, "workgroup": 1 if s == "single" else 256}
           for d in DTYPES for s in ("single", "device") for w in WIDTHS],
    quick_sweep=[{"dtype": "float32", "scope": s, "vector_width": w,
                  "workgroup": 1 if s == "single" else 64}
                 for s in ("single", "device") for w in (1, 4)],
    constraints=[_scope_matches_workgroup],
    analysis="vectorization",
    group="compute",
    tolerance={"float32": 1e-4, "float64": 1e-10, "uint32": 0.0},
)
