"""Packed gathers and scatters on a CPU: what one element costs where a runtime ran its items as
the lanes of gather and scatter instructions.

A CPU runtime runs a work-group's items as a loop and leaves vectorizing it to LLVM (PoCL); an
item's load or store whose address LLVM cannot prove contiguous across items becomes a packed
gather or scatter, one element an item a pass. On the EPYC VM, Jacobi's branch form in one-row
work-groups gathers six of its neighbours so and scatters its result twice (against one of each
in taller groups) and runs 3–4× slower at the same bytes (docs/tuning.md, "Gathers and scatters
in a CPU build"). Here each work item reads ``gathers`` elements of a 16 KiB table, which the
first cache level holds, at addresses no compiler can prove contiguous (``(i · s + k · 97) mod
4096``, ``s`` a run-time stride), sums them and stores the sum contiguously; or it writes
``scatters`` elements of an array as long as the items, each at a permuted place near its
neighbours' (``(i · s + k · 97) mod n``). What each variant gathered and scattered is read from
its own machine code (``extra["isa"]``: ``loop_gathers_per_item``, ``loop_scatters_per_item``,
``gencl.measure._isa``), not taken from the point; the analysis
(``gencl/characterize/lane_gathers.py``) fits the time an item against them:
``lane_gathers_per_s`` over the points that do not scatter, ``lane_scatters_per_s`` over those
that do (from one scatter on: the first also writes the array, traffic the model prices as
DRAM's, not as the instruction's). A GPU has no such instructions (its lanes load and store on
their own) and its builds carry no CPU machine code: the analysis says so and measures nothing.
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

GATHERS = (0, 1, 2, 4, 8)
SCATTERS = (0, 1, 2, 4)
#: table elements (16 KiB of float32: the first cache level of any CPU holds it)
TABLE = 4096
#: the items' stride through the table, a kernel argument (not a constant the compiler could
#: turn into shuffles of contiguous loads); odd, so the items cover the whole table
STRIDE = 3
#: the table offset of each further element an item reads
OFFSET = 97
GROUP = 256


def gathered_at(k: int) -> str:
    """The table element an item's k-th gather reads."""
    return f"(i * s + {k * OFFSET}) & {TABLE - 1}"


def scattered_at(k: int) -> str:
    """The element of ``marks`` (n of them, as the items) an item's k-th scatter writes: a
    permutation of the items (s odd, n a power of two), moved k · 97 along. An item's places
    lie near its neighbours' (12 bytes apart), so a core writes lines of its own work-groups,
    not a table both cores write at once (that measured the lines moving between the cores)."""
    return f"(i * s + {k * OFFSET}) & (n - 1)"


def program(point):
    g, c = point["gathers"], point["scatters"]
    # a mask, not loopy's modulo (a helper with a branch, which LLVM does not vectorize)
    reads = " + ".join(f"table[{gathered_at(k)}]" for k in range(g))
    # each scatter writes its place's own index: the items that share a place write the same
    # value, so the result does not depend on their order (nor on any barrier between them)
    marks = "\n".join(
        f"<int32> p{k} = {scattered_at(k)}\n"
        f"marks[p{k}] = p{k} {{id=m{k}"
        + (f", dep=m{k - 1}, nosync={':'.join(f'm{j}' for j in range(k))}}}" if k else "}")
        for k in range(c))
    args = [lp.GlobalArg("table", np.float32, shape=(TABLE,)),
            lp.GlobalArg("out", np.float32, shape=("n",), is_input=False, is_output=True),
            lp.ValueArg("s", np.int32), lp.ValueArg("n", np.int32)]
    if c:
        args.insert(1, lp.GlobalArg("marks", np.float32, shape=("n",), is_input=True,
                                    is_output=True))
    t = lp.make_kernel(
        "{[i]: 0 <= i < n}", f"out[i] = {reads or 'i'}\n{marks}", args,
        name="lane_gathers", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    # whole work-groups (``sizes`` makes them so): no bounds check
    return lp.assume(t, f"n mod {GROUP} = 0 and n >= {GROUP}")


def sizes(point, device, quick):
    """Items: 2²² (2²⁰ quick), whole work-groups; the stride."""
    return {"n": (1 << 20) if quick else (1 << 22), "s": STRIDE}


def verify_sizes(point, device):
    return {"n": 2 * point["workgroup"], "s": STRIDE}


def inputs(point, sizes, rng):
    values = {"table": rng.random(TABLE, dtype=np.float32) + np.float32(0.5)}
    if point["scatters"]:
        values["marks"] = rng.random(sizes["n"], dtype=np.float32) - np.float32(2.0)
    return values


def reference(values, point, sizes):
    i = np.arange(sizes["n"], dtype=np.int64)
    out = np.zeros(sizes["n"], np.float32) if point["gathers"] else i.astype(np.float32)
    for k in range(point["gathers"]):
        out = out + values["table"][(i * sizes["s"] + k * OFFSET) % TABLE]
    if not point["scatters"]:
        return {"out": out}
    marks = np.array(values["marks"], np.float32)
    for k in range(point["scatters"]):
        places = (i * sizes["s"] + k * OFFSET) % sizes["n"]
        marks[places] = places
    return {"out": out, "marks": marks}


def elements(point, sizes):
    """Table elements the launch gathers and scatters."""
    return float((point["gathers"] + point["scatters"]) * sizes["n"])


SPEC = BenchmarkSpec(
    name="lane_gathers",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"gathers": GATHERS, "scatters": SCATTERS},
    knobs={"workgroup": Knob("workgroup", (GROUP,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"ops": elements},
    # one axis at a time from the point that does neither
    sweep=[{"gathers": g, "scatters": 0} for g in GATHERS]
    + [{"gathers": 0, "scatters": c} for c in SCATTERS if c],
    analysis="lane_gathers",
    group="memory",
    tolerance={"float32": 1e-5},
    exempt=frozenset({"race"}),  # the scatters' shared places, written the same value
    # the figure is a slope between points: on a machine whose speed drifts (a VM) each point
    # timed back to back would carry its own moment's speed into it
    rounds=10,
)
