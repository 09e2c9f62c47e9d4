"""Cache requests beside a DRAM stream: how far a gather's line requests overlap streamed DRAM
traffic, at the first level and at the next.

``n`` work items each run ``K`` iterations; an iteration reads ``S`` = 16 coalesced floats of a
stream (``src[k, s, i]``: DRAM, 512 MiB on a GPU) when ``stream`` is on, and ``gathers`` floats
of a table whose lanes lie ``LANE_STEP`` floats apart (every lane its own line, as a random
gather's), at a place that moves every iteration. The table is ``TABLE_BYTES[level]``: 8 KiB,
which any first-level cache holds (``first``), or 4 MiB, which no GPU's first level holds and
its L2 does (``next``). Each item adds what it read and stores the sum once. Points without the
stream time the requests alone; the stream without gathers times DRAM alone; the points with
both, how far the two overlap. The analysis ``request_overlap``
(gencl/characterize/request_overlap.py) fits the overlap exponent per level.
"""

import loopy as lp
import numpy as np
from pymbolic import var as Variable

from gencl.characterize.request_overlap import (
    STREAM_ROWS, TABLE_BYTES, bytes_streamed, line_requests, table_index)
from gencl.spec import BenchmarkSpec, Knob

GATHERS = (0, 1, 2, 4, 8, 16)
GROUP = 256
#: items and iterations per size class: the stream is 16 × K × n floats
ITEMS = {"GPU": 1 << 19, "CPU": 1 << 14, "quick": 1 << 12}
ITERATIONS = {"GPU": 16, "CPU": 8, "quick": 2}


def program(point):
    g, stream = point["gathers"], point["stream"] == "on"
    table = table_index(*map(Variable, "ikr"), g, TABLE_BYTES[point["level"]] // 4)
    terms, inames, bounds = [], ["i", "k"], ["0 <= i < n", "0 <= k < K"]
    if stream:
        terms.append("sum(s, src[k, s, i])")
        inames.append("s")
        bounds.append("0 <= s < S")
    if g:
        terms.append(f"sum(r, table[{table}])")
        inames.append("r")
        bounds.append("0 <= r < G")
    domain = f"{{[{', '.join(inames)}]: {' and '.join(bounds)}}}"
    t = lp.make_kernel(
        domain,
        f"""
        for i
            <> acc = 0 {{id=zero}}
            for k
                acc = acc + {" + ".join(terms)} {{id=add, dep=zero}}
            end
            out[i] = acc {{dep=add}}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=("K", "S", "n")),
         lp.GlobalArg("table", np.float32, shape=("T",)),
         lp.GlobalArg("out", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32), lp.ValueArg("K", np.int32)],
        name="request_overlap", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    t = lp.fix_parameters(t, S=STREAM_ROWS, **{"G": g} if g else {},
                          T=TABLE_BYTES[point["level"]] // 4)
    t = lp.tag_inames(t, {name: "unr" for name in ("s", "r") if name in inames})
    return lp.assume(t, f"n mod {point['workgroup']} = 0 and n >= {point['workgroup']} "
                        "and K >= 1")


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    return {"n": ITEMS[kind], "K": ITERATIONS[kind]}


def verify_sizes(point, device):
    return {"n": 2 * point["workgroup"], "K": 2}


def inputs(point, sizes, rng):
    n, k = sizes["n"], sizes["K"]
    # small integers: every sum is exact in float32, whatever the order
    return {"src": rng.integers(0, 4, size=(k, STREAM_ROWS, n)).astype(np.float32),
            "table": rng.integers(0, 4, size=TABLE_BYTES[point["level"]] // 4)
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
            acc += table[table_index(i, k, r, g, table.size)]
    return {"out": acc.astype(np.float32)}


SWEEP = [{"level": level, "gathers": g, "stream": stream}
         for level in ("first", "next") for g in GATHERS for stream in ("on", "off")
         if g or stream == "on"]

SPEC = BenchmarkSpec(
    name="request_overlap",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"level": ("first", "next"), "gathers": GATHERS, "stream": ("on", "off")},
    knobs={"workgroup": Knob("workgroup", (GROUP,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_streamed, "requests": line_requests},
    sweep=SWEEP,
    quick_sweep=[p for p in SWEEP if p["gathers"] in (0, 4)],
    analysis="request_overlap",
    group="memory",
    tolerance={"float32": 0.0},
)
