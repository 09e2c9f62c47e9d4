"""First-level hits beside next-level fills: how far a stencil's cached neighbour rows overlap
the lines its work-groups fetch from the L2.

``n`` work items each run ``K`` iterations; an iteration reads ``F`` = 4 coalesced floats of
a ``fills`` table that the next level holds and the first does not (4 MiB, at a place that
moves by an odd number of lines every read: a sub-group's read is one whole 128-byte line, new
to its compute unit's first level) when ``fills`` is on, and ``hits`` coalesced floats of a
16 KiB table every first level holds (a sub-group's read one whole line that its first level
already has: a neighbour row another sub-group brought in). Points without the fills time the
hits alone; the fills without hits the next level alone; the points with both, how far the two
overlap, as a 3-D stencil's unstreamed items read their plane's rows from the first level and
the neighbouring planes' from the next. The analysis ``fill_overlap``
(gencl/characterize/fill_overlap.py) fits the overlap exponent.
"""

import loopy as lp
import numpy as np
from pymbolic import var as Variable

from gencl.characterize.fill_overlap import (
    FILL_ROWS, FILLS_BYTES, HITS_BYTES, fill_bytes, hit_requests)
from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.read_sums import read_sums

#: hits an iteration: at most the window's 64 lines (no two reads of an iteration share a
#: place: a compiler folds those into one load, request_overlap's note on its 8 KiB table)
HITS = (0, 4, 8, 16, 32, 48, 64)
GROUP = 256
#: items and iterations per size class
ITEMS = {"GPU": 1 << 19, "CPU": 1 << 14, "quick": 1 << 12}
ITERATIONS = {"GPU": 64, "CPU": 8, "quick": 2}
#: floats a fills read moves by each read: 4,099 lines, odd, so the places of an item's
#: K × F = 256 reads never repeat in the table's 32,768 lines and its compute unit's first level,
#: which holds far fewer, keeps none of them
FILL_STEP = 32 * 4099
#: lines the hits' window moves by each iteration (odd: the window visits every place of the
#: table's first half), and the window's places: an iteration's hits read lines
#: ``(37 k) mod 64`` to that + G − 1 of the table's 128
HIT_STEP = 37
HIT_PLACES = 64


def fills_index(i, k, f):
    """Float of the fills table that read *f* of iteration *k* of item *i* loads."""
    return (i + (k * FILL_ROWS + f) * FILL_STEP) % (FILLS_BYTES // 4)


def hits_index(i, k, h):
    """Float of the hits table that read *h* of iteration *k* of item *i* loads: the item's lane
    of line h of the iteration's window. An iteration's reads lie at fixed offsets from one
    place (no arithmetic a read: a load with an immediate offset, as a stencil's neighbour rows
    are), distinct within it, and the window moves with k (no read is loop-invariant)."""
    return i % 32 + 32 * ((k * HIT_STEP) % HIT_PLACES + h)


def program(point):
    g, fills = point["hits"], point["fills"] == "on"
    i, k = Variable("i"), Variable("k")
    reads = [("f", "F", f"fills[{fills_index(i, k, Variable('f'))}]")] if fills else []
    reads += [("h", "G", f"hits[{hits_index(i, k, Variable('h'))}]")] if g else []
    return read_sums("fill_overlap", reads,
                     [lp.GlobalArg("fills", np.float32, shape=(FILLS_BYTES // 4,)),
                      lp.GlobalArg("hits", np.float32, shape=(HITS_BYTES // 4,))],
                     point["workgroup"], F=FILL_ROWS, **{"G": g} if g else {})


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    return {"n": ITEMS[kind], "K": ITERATIONS[kind]}


def verify_sizes(point, device):
    return {"n": 2 * point["workgroup"], "K": 2}


def inputs(point, sizes, rng):
    # small integers: every sum is exact in float32, whatever the order
    return {name: rng.integers(0, 4, size=size // 4).astype(np.float32)
            for name, size in (("fills", FILLS_BYTES), ("hits", HITS_BYTES))}


def reference(values, point, sizes):
    n, g = sizes["n"], point["hits"]
    i = np.arange(n, dtype=np.int64)
    acc = np.zeros(n, dtype=np.float64)
    for k in range(sizes["K"]):
        if point["fills"] == "on":
            for f in range(FILL_ROWS):
                acc += values["fills"][fills_index(i, k, f)]
        for h in range(g):
            acc += values["hits"][hits_index(i, k, h)]
    return {"out": acc.astype(np.float32)}


SWEEP = [{"hits": g, "fills": fills} for g in HITS for fills in ("on", "off")
         if g or fills == "on"]

SPEC = BenchmarkSpec(
    name="fill_overlap",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"hits": HITS, "fills": ("on", "off")},
    knobs={"workgroup": Knob("workgroup", (GROUP,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": fill_bytes, "requests": hit_requests},
    sweep=SWEEP,
    quick_sweep=[p for p in SWEEP if p["hits"] in (0, 4, 16)],
    analysis="fill_overlap",
    group="memory",
    tolerance={"float32": 0.0},
)
