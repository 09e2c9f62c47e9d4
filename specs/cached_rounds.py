"""Cached rounds under load: what a load round costs when its lines are already in a cache, with
every resident item waiting for its own, after a round from DRAM.

A stencil's loop pass issues its loads in several rounds (ptxas batches them as registers let it:
``gencl.measure._sass``); only the first reads a row new to the caches, the later ones re-read
lines the item's neighbours brought in. ``load_rounds`` measures the first kind; this benchmark
measures the second. Every work item walks a chain as ``load_rounds`` does (``items_per_cu`` ×
compute units items, 64-item groups, ``K`` steps, each a coalesced row of a 256 MiB ring in
DRAM), and after each DRAM step takes ``hits`` dependent steps through a small table that a cache
holds:

    idx = nxt[idx + (h mod 32) − lane]          one DRAM round (the offset is 0: h keeps its lane)
    h   = near[h − (h mod 32) + (idx mod 32)]   × hits: one cached round each

``near`` is a ring of ``rows`` rows of 32 words (a random single cycle through the rows, each
word keeping its lane), so a sub-group's step reads one 128-byte line, and each step waits for
the last. ``level`` sizes the table: ``l1`` 4 rows (512 B, held by every first-level cache),
``l2`` 32,768 rows (4 MiB: past the first level, well inside the last). The step time grows by
one cached round per hit: the analysis ``cached_rounds`` (gencl/characterize/cached_rounds.py)
fits that slope per level at each load.
"""

import math

import loopy as lp
import numpy as np

from gencl.characterize.load_rounds import WORD_BYTES
from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.pointer_chase import sattolo_ring

ITEMS_PER_CU = (64, 512, 2048)
HITS = (0, 1, 2, 4)
LEVELS = {"l1": 4, "l2": 32768}  # rows of 32 words in the cached table
LANES = 32
GROUP = 64
#: bytes of the DRAM ring: beyond any GPU's last-level cache; a CPU's L3
READ_BYTES = {"GPU": 256 << 20, "CPU": 64 << 20, "quick": 4 << 20}


def program(point):
    hits = int(point["hits"])
    after = ["step"] + [f"hit{q}" for q in range(hits)]  # each hit waits for the last load
    hit_steps = "".join(f"""
                h = near[h - h % {LANES} + idx % {LANES}] {{id=hit{q}, dep={after[q]}}}"""
                        for q in range(hits))
    t = lp.make_kernel(
        "{[i, k]: 0 <= i < m and 0 <= k < K}",
        f"""
        for i
            <int32> idx = i {{id=start}}
            <int32> h = i % {LANES} {{id=lane}}
            for k
                idx = nxt[idx + h % {LANES} - i % {LANES}] {{id=step, dep=start:lane}}{hit_steps}
            end
            ends[i] = idx + h {{dep={after[-1]}}}
        end
        """,
        [lp.GlobalArg("nxt", np.int32, shape=("(K + 1) * m",), is_input=True, is_output=False),
         lp.GlobalArg("near", np.int32, shape=(LEVELS[point["level"]] * LANES,), is_input=True,
                      is_output=False),
         lp.GlobalArg("ends", np.int32, shape=("m",), is_input=False, is_output=True),
         lp.ValueArg("m", np.int32), lp.ValueArg("K", np.int32)],
        name="cached_rounds", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.assume(t, f"m mod {point['workgroup']} = 0 and m >= {point['workgroup']} "
                        "and K >= 1")


def steps(point, sizes):
    """DRAM steps one launch runs (each followed by ``hits`` cached steps)."""
    return float(sizes["K"])


def rounds(point, sizes):
    """Load rounds one item waits: a DRAM round and ``hits`` cached rounds a step."""
    return float(sizes["K"]) * (1 + int(point["hits"]))


def bytes_read(point, sizes):
    """Bytes the lanes of one launch read from the DRAM ring."""
    return float(sizes["m"]) * WORD_BYTES * float(sizes["K"])


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    m = point["items_per_cu"] * max(1, device.compute_units)
    return {"m": m, "K": max(64, math.ceil(READ_BYTES[kind] / (m * WORD_BYTES)))}


def verify_sizes(point, device):
    return {"m": 2 * point["workgroup"], "K": 8}


def ring(rows, m, rng):
    """The DRAM ring: row r, column i holds the index of row s(r), column i (s: a random single
    cycle through the rows)."""
    i = np.arange(m, dtype=np.int64)[None, :]
    return (sattolo_ring(rows, rng)[:, None] * m + i).ravel().astype(np.int32)


def table(rows, rng):
    """The cached table: row r, lane l holds the index of row t(r), lane l (t: a random single
    cycle through the rows; the identity for one row)."""
    lanes = np.arange(LANES, dtype=np.int64)[None, :]
    succ = sattolo_ring(rows, rng) if rows > 1 else np.zeros(1, dtype=np.int64)
    return (succ[:, None] * LANES + lanes).ravel().astype(np.int32)


def inputs(point, sizes, rng):
    return {"nxt": ring(sizes["K"] + 1, sizes["m"], rng),
            "near": table(LEVELS[point["level"]], rng)}


def reference(values, point, sizes):
    nxt, near = values["nxt"].astype(np.int64), values["near"].astype(np.int64)
    i = np.arange(sizes["m"], dtype=np.int64)
    idx, h = i.copy(), i % LANES
    for _ in range(sizes["K"]):
        idx = nxt[idx + h % LANES - i % LANES]
        for _ in range(int(point["hits"])):
            h = near[h - h % LANES + idx % LANES]
    return {"ends": (idx + h).astype(np.int32)}


SPEC = BenchmarkSpec(
    name="cached_rounds",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"items_per_cu": ITEMS_PER_CU, "hits": HITS, "level": tuple(LEVELS)},
    knobs={"workgroup": Knob("workgroup", (GROUP,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read, "steps": steps, "rounds": rounds},
    sweep=[{"items_per_cu": n, "hits": q, "level": lv} for lv in LEVELS for n in ITEMS_PER_CU[1:]
           for q in HITS],
    quick_sweep=[{"items_per_cu": 64, "hits": q, "level": lv} for lv in LEVELS for q in (0, 2)],
    analysis="cached_rounds",
    group="memory",
    tolerance={"int32": 0.0},
)
