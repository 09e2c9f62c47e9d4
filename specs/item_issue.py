"""Vector-typed items one at a time on a CPU: the instructions a second a runtime issues where it
ran a work-group's items one after another, each on its own vectors.

A CPU runtime runs a work-group's items as a loop and leaves vectorizing it to LLVM (PoCL).
Where an item's code is vector-typed (``float4``) LLVM does the item's own arithmetic on its own
vectors and runs the items one after another (box2d25's ``float4`` items on the EPYC: 20–30
cycles each, docs/tuning.md, "Open rows priced"). The model prices what such items issue, each
``floatN`` operation and access one instruction a 64-byte chunk, at ``vector_item_issue_per_s``
(``gencl.model._predict.item_issue_time``; scalar items one at a time, every lane operation
one instruction, at ``item_issue_per_s``, still nominal: LLVM vectorized every scalar walk tried
so far). Here each ``float4`` item sums ``loads`` weighted vectors of a small table the first
cache level holds (its work-group's 256 vectors and ``16 · loads`` past them, 12 KiB at most),
in four independent partial sums, and stores the sum: ``2 · loads + 1`` instructions an item as
the model counts them (a load and a multiply-add a vector, the store;
``tests/characterize_tests/test_item_issue.py`` holds the model's own count to it). The
analysis (``gencl/characterize/item_issue.py``) fits an item's time against that count over the
points whose machine code ran the items one at a time (``extra["isa"]``: no packed arithmetic
wider than the item's own 128-bit vectors, ``gencl.measure._isa.vectorized_across_items``); one
over the slope is the rate, for the whole device (the store stream and the launch stay in the
intercept). A GPU runs no item on its own: it skips every point.
"""

import loopy as lp
import numpy as np

from gencl.characterize._hardware import is_gpu
from gencl.spec import BenchmarkSpec, Knob

LOADS = (4, 8, 16, 32)
GROUP = 256
#: the table offset of each further vector an item reads (vectors): a work-group reads 256
#: consecutive vectors a load, each load 16 further on, so at 32 loads the table is 752 vectors
STEP = 16
WIDTH = 4  # float4 items: the width PoCL leaves to each item's own vectors
#: independent partial sums an item keeps (every count of loads is a multiple)
ACCUMULATORS = 4


def table_vectors(loads: int) -> int:
    return GROUP + STEP * (loads - 1)


def weight(k: int) -> str:
    """The k-th vector's weight, a float literal (a Python float would make loopy compute in
    double and cast the float4 sum to a float)."""
    return f"{1.0 / (k + 1)!r}f"


def program(point):
    loads = point["loads"]
    # the vectors summed into ACCUMULATORS partial sums, each of every ACCUMULATORS-th vector:
    # one sum of all would be a chain of dependent additions, its latency (not the items'
    # issue) the time at 32 loads (a first form: 4.3 ns an item at 32 loads, 1.5 at 16)
    sums = [f"acc{a}[v] = " + " + ".join(f"{weight(k)} * table[i + {STEP * k}, v]"
                                         for k in range(a, loads, ACCUMULATORS))
            + " {inames=j:i:v}" for a in range(ACCUMULATORS)]
    total = " + ".join(f"acc{a}[v]" for a in range(ACCUMULATORS))
    t = lp.make_kernel(
        f"{{[j, i, v]: 0 <= j < m and 0 <= i < {GROUP} and 0 <= v < {WIDTH}}}",
        "\n".join(sums + [f"out[j, i, v] = {total}"]),
        [lp.GlobalArg("table", np.float32, shape=(table_vectors(loads), WIDTH)),
         lp.GlobalArg("out", np.float32, shape=("m", GROUP, WIDTH), is_input=False,
                      is_output=True),
         lp.ValueArg("m", np.int32)]
        + [lp.TemporaryVariable(f"acc{a}", np.float32, shape=(WIDTH,), dim_tags="vec")
           for a in range(ACCUMULATORS)],
        name="item_issue", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        silenced_warnings=["v1_scheduler_fallback"])
    t = lp.tag_inames(t, {"v": "vec"})
    t = lp.tag_array_axes(t, "table", "c,vec")
    return lp.tag_array_axes(t, "out", "c,c,vec")


def sizes(point, device, quick):
    """Work-groups: 2¹² (2¹⁰ quick), 2²⁰ items (16 MiB of sums stored)."""
    return {"m": (1 << 10) if quick else (1 << 12)}


def verify_sizes(point, device):
    return {"m": 2}


def inputs(point, sizes, rng):
    table = rng.uniform(-1, 1, size=(table_vectors(point["loads"]), WIDTH))
    return {"table": table.astype(np.float32)}


def reference(values, point, sizes):
    table = values["table"].astype(np.float64)
    total = sum(table[STEP * k:STEP * k + GROUP] * np.float32(1.0 / (k + 1))
                for k in range(point["loads"]))  # the partial sums' order: within tolerance
    return {"out": np.broadcast_to(total, (sizes["m"], GROUP, WIDTH)).astype(np.float32)}


def instructions_per_item(point) -> int:
    """What the model counts an item issues: a load and a multiply-add a vector, one store."""
    return 2 * point["loads"] + 1


def instructions(point, sizes):
    return float(instructions_per_item(point) * sizes["m"] * GROUP)


def _cpu_only(point, device):
    if device is not None and is_gpu(device):
        return "a GPU runs no item on its own (its lanes issue together)"
    return None


SPEC = BenchmarkSpec(
    name="item_issue",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"loads": LOADS},
    knobs={"workgroup": Knob("workgroup", ((GROUP, 1),), {"inames": ("i", "j")})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"instructions": instructions},
    constraints=(_cpu_only,),
    sweep=[{"loads": n} for n in LOADS],
    analysis="item_issue",
    group="compute",
    tolerance={"float32": 1e-5},
    # the figure is a slope between points: on a machine whose speed drifts (a VM) each point
    # timed back to back would carry its own moment's speed into it
    rounds=10,
)
