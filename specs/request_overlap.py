"""Cache requests beside a DRAM stream: how far gathers and coalesced reads hide behind it.

How far a gather's line requests (at the first level and at the next) and a stencil's coalesced
ones (at the next) overlap streamed DRAM traffic, and a gather's rate against the table's
footprint.

``n`` work items each run ``K`` iterations; an iteration reads ``S`` = 16 coalesced floats of a
stream (``src[k, s, i]``: DRAM, 512 MiB on a GPU) when ``stream`` is on, and ``gathers`` floats
of a table, at a place that moves every iteration: with ``lanes=spread`` the lanes lie
``LANE_STEP`` floats apart (every lane its own line, as a random gather's); with
``lanes=coalesced`` (the 4 MiB table only) neighbouring lanes read neighbouring floats (a
sub-group's 32 lanes one 128-byte line, as a stencil's neighbour rows that the L2 holds). The
table is ``table`` bytes: 8 KiB, which any first-level cache holds, 4 MiB, which no GPU's
first level holds and its L2 does, and 16 MiB to 1 GiB (16 gathers, no stream: the rate as
the footprint outgrows the L2). Each item adds what it read and stores the sum once. Points
without the stream time the requests alone; the stream without gathers times DRAM alone; the
points with both, how far the two overlap.
The analysis ``request_overlap`` (gencl/characterize/request_overlap.py) fits the overlap
exponent per level and lays out the rate by footprint.
"""

import loopy as lp
import numpy as np
from pymbolic import var as Variable

from gencl.characterize.request_overlap import (
    LEVEL_TABLES, STREAM_ROWS, TABLE_BYTES, bytes_streamed, line_requests)
from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.read_sums import read_sums

GATHERS = (0, 1, 2, 4, 8, 16)
#: coalesced reads an iteration: each is 4 bytes an item, a sixteenth of the stream's 16 rows,
#: so it takes more of them than gathers to outrun the stream
COALESCED_GATHERS = (4, 16, 32, 64, 128, 256)
LANES = ("spread", "coalesced")
GROUP = 256
#: items and iterations per size class: the stream is 16 × K × n floats
ITEMS = {"GPU": 1 << 19, "CPU": 1 << 14, "quick": 1 << 12}
ITERATIONS = {"GPU": 16, "CPU": 8, "quick": 2}
#: items a compute unit holds at once, for the coalesced reads' overlap by occupancy (0: the
#: many-wave launch)
RESIDENT = (256, 512, 1024, 2048)

#: floats between neighbouring lanes' table reads: more than a 128-byte line, so every lane of
#: a sub-group reads its own line (a random gather's pattern), also once the index wraps, and
#: each lane's word at another place in its line (another bank of the first level)
LANE_STEP = 65
#: floats the table read moves by each iteration (odd: the reads spread over the table)
ITERATION_STEP = 40503
#: the largest table read in strides; a larger one is read at hashed places (below)
STRIDED_MAX_BYTES = 4 << 20
#: floats a coalesced read moves by each iteration: an odd number of 128-byte lines, so every
#: sub-group's read stays one whole line and the reads spread over the table
COALESCED_STEP = 32 * 1267


def table_index(i, k, r, gathers, floats, lanes="spread"):
    """Float index of gather *r* of iteration *k* of item *i* in a *floats*-long table (numpy
    arrays, or pymbolic variables for the kernel's text).

    ``coalesced``: item i reads float i, moved by ``COALESCED_STEP`` each read (a sub-group of
    32 items whose first is a multiple of 32 reads one whole 128-byte line).

    Up to ``STRIDED_MAX_BYTES`` the lanes lie ``LANE_STEP`` floats apart: every lane its own
    line, exactly. A larger table is read at hashed places (a multiply, an xor-shift and a
    multiply, in 64-bit integers that never overflow): strided lanes would sweep its DRAM
    pages in order, which a random gather does not (an H100 diagnostic: random gathers from
    1 GiB 29·10⁹ requests/s); at 16 MiB a sub-group's 32 lanes touch 31.998 lines on average."""
    step = k * max(gathers, 1) + r
    if lanes == "coalesced":
        return (i + step * COALESCED_STEP) % floats
    if floats * 4 <= STRIDED_MAX_BYTES:
        return (i * LANE_STEP + step * ITERATION_STEP) % floats
    h = (i * 2654435761 + step * ITERATION_STEP) % (1 << 32)
    return (((h ^ (h >> 13)) * 1540483477) >> 7) % floats


def program(point):
    g, stream = point["gathers"], point["stream"] == "on"
    floats = TABLE_BYTES[point["table"]] // 4
    table = table_index(*map(Variable, "ikr"), g, floats, point["lanes"])
    reads = [("s", "S", "src[k, s, i]")] if stream else []
    reads += [("r", "G", f"table[{table}]")] if g else []
    return read_sums("request_overlap", reads,
                     [lp.GlobalArg("src", np.float32, shape=("K", "S", "n")),
                      lp.GlobalArg("table", np.float32, shape=("T",))],
                     point["workgroup"], S=STREAM_ROWS, **{"G": g} if g else {}, T=floats)


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    resident = int(point.get("resident", 0))
    if not resident:
        return {"n": ITEMS[kind], "K": ITERATIONS[kind]}
    # one wave of *resident* items a compute unit, each iterating as long as the many-wave
    # launch's items together do
    n = resident * max(1, int(device.compute_units))
    return {"n": n, "K": max(1, ITEMS[kind] * ITERATIONS[kind] // n)}


def verify_sizes(point, device):
    return {"n": 2 * point["workgroup"], "K": 2}


def inputs(point, sizes, rng):
    n, k = sizes["n"], sizes["K"]
    # small integers: every sum is exact in float32, whatever the order
    # (drawn as bytes: a 1 GiB table of int64 first would be 2 GiB)
    return {"src": rng.integers(0, 4, size=(k, STREAM_ROWS, n), dtype=np.uint8)
            .astype(np.float32),
            "table": rng.integers(0, 4, size=TABLE_BYTES[point["table"]] // 4, dtype=np.uint8)
            .astype(np.float32)}


def reference(values, point, sizes):
    n, k_max, g = sizes["n"], sizes["K"], point["gathers"]
    table = values["table"]
    i = np.arange(n, dtype=np.int64)
    acc = np.zeros(n, dtype=np.float64)
    for k in range(k_max):
        if point["stream"] == "on":
            acc += values["src"][k].sum(axis=0)
        for r in range(g):
            acc += table[table_index(i, k, r, g, table.size, point["lanes"])]
    return {"out": acc.astype(np.float32)}


#: the overlap points at each level's table, and the coalesced reads' at the next level's (the
#: stream alone once); 16 gathers alone at every larger one. No coalesced reads at the first
#: level: its 8 KiB table is 64 lines, so a compiler folds an iteration's reads of one place
#: into one load (an H100 run, 2026-11-26: rates from 29 to 589·10⁹ lines/s with no order)
SWEEP = [{"table": table, "gathers": g, "stream": stream, "lanes": "spread"}
         for table in LEVEL_TABLES.values() for g in GATHERS for stream in ("on", "off")
         if g or stream == "on"] + [
    {"table": LEVEL_TABLES["next"], "gathers": g, "stream": stream, "lanes": "coalesced"}
    for g in COALESCED_GATHERS for stream in ("on", "off")
] + [{"table": table, "gathers": GATHERS[-1], "stream": "off", "lanes": "spread"}
     for table in TABLE_BYTES if table not in LEVEL_TABLES.values()]
#: the coalesced reads again at each occupancy, with the stream alone there
SWEEP += [{"table": LEVEL_TABLES["next"], "gathers": g, "stream": stream, "lanes": "coalesced",
           "resident": resident}
          for resident in RESIDENT for g in (0, *COALESCED_GATHERS) for stream in ("on", "off")
          if g or stream == "on"]

SPEC = BenchmarkSpec(
    name="request_overlap",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"table": tuple(TABLE_BYTES), "gathers": tuple(sorted({*GATHERS, *COALESCED_GATHERS})),
            "stream": ("on", "off"), "lanes": LANES, "resident": (0, *RESIDENT)},
    knobs={"workgroup": Knob("workgroup", (GROUP,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_streamed, "requests": line_requests},
    sweep=SWEEP,
    quick_sweep=[p for p in SWEEP if p["gathers"] in (0, 4) and p["table"] in
                 LEVEL_TABLES.values() and not p.get("resident")],
    analysis="request_overlap",
    group="memory",
    tolerance={"float32": 0.0},
)
