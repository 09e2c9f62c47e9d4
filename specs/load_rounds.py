"""Load rounds under load: the time of one round of dependent, coalesced DRAM loads at a given
number of bytes in flight per compute unit.

``items_per_cu`` × compute units work items (one wave: 64-item groups, at most 2,048 items a
compute unit) each walk ``chains`` independent chains for ``K`` steps. Chain j of item i starts
at row 0, column i of its own block of ``K`` + 1 rows of ``m`` words; the word at row r,
column i holds the index of row s(r), column i, where s is a random single cycle through the
block's rows (Sattolo's), so each step's address is the last step's value, and the lanes of a
sub-group read consecutive words of one row: a coalesced load per step, as a stencil's stream
reads its rows, that cannot be issued before the last one returned. A launch reads K rows of
each block, each once, and ends at row s^K(0), which the reference checks; the blocks together
are 256 MiB on a GPU (5× Hopper's L2), so every round comes from DRAM. The analysis ``load_rounds``
(gencl/characterize/load_rounds.py) turns the points into round time against bytes in flight
per compute unit (items per CU × chains × 4 B).
"""

import math

import loopy as lp
import numpy as np

from gencl.characterize.load_rounds import WORD_BYTES, bytes_read, steps
from gencl.spec import BenchmarkSpec, Knob
from gencl.spec.pointer_chase import sattolo_ring

ITEMS_PER_CU = (64, 128, 256, 512, 1024, 2048)
CHAINS = (1, 4, 16)
GROUP = 64
#: bytes of all blocks together: beyond any GPU's last-level cache; a CPU's L3
READ_BYTES = {"GPU": 256 << 20, "CPU": 64 << 20, "quick": 4 << 20}


def program(point):
    c = point["chains"]
    total = " + ".join(f"idx[{j}]" for j in range(c))
    t = lp.make_kernel(
        "{[i, j0, j, k]: 0 <= i < m and 0 <= j0, j < C and 0 <= k < K}",
        f"""
        for i
            for j0
                idx[j0] = j0 * (K + 1) * m + i {{id=start}}
            end
            for k
                for j
                    idx[j] = nxt[idx[j]] {{id=step, dep=start}}
                end
            end
            ends[i] = {total} {{dep=step}}
        end
        """,
        [lp.GlobalArg("nxt", np.int32, shape=("C * (K + 1) * m",), is_input=True,
                      is_output=False),
         lp.GlobalArg("ends", np.int32, shape=("m",), is_input=False, is_output=True),
         lp.TemporaryVariable("idx", np.int32, shape=("C",),
                              address_space=lp.AddressSpace.PRIVATE),
         lp.ValueArg("m", np.int32), lp.ValueArg("K", np.int32)],
        name="load_rounds", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    t = lp.fix_parameters(t, C=c)
    t = lp.tag_inames(t, {"j0": "unr", "j": "unr"})
    # the chains' steps side by side in each k (independent loads in flight together)
    t = lp.prioritize_loops(t, "k,j")
    return lp.assume(t, f"m mod {point['workgroup']} = 0 and m >= {point['workgroup']} "
                        "and K >= 1")


def _steps(chains, m, read_bytes):
    """Steps (rows read of each block): together at least *read_bytes*, 64 at least."""
    return max(64, math.ceil(read_bytes / (chains * m * WORD_BYTES)))


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    m = point["items_per_cu"] * max(1, device.compute_units)
    return {"m": m, "K": _steps(point["chains"], m, READ_BYTES[kind])}


def verify_sizes(point, device):
    return {"m": 2 * point["workgroup"], "K": 8}


def blocks(chains, m, rows, rng):
    """The blocks' words: row r, column i of block j holds the index of row s_j(r), column i of
    block j, s_j a random single cycle through the *rows* rows (one per block)."""
    i = np.arange(m, dtype=np.int64)[None, :]
    out = [j * rows * m + (sattolo_ring(rows, rng)[:, None] * m + i).ravel()
           for j in range(chains)]
    return np.concatenate(out).astype(np.int32)


def inputs(point, sizes, rng):
    return {"nxt": blocks(point["chains"], sizes["m"], sizes["K"] + 1, rng)}


def reference(values, point, sizes):
    m, rows, c = sizes["m"], sizes["K"] + 1, point["chains"]
    nxt = values["nxt"]
    idx = np.stack([j * rows * m + np.arange(m) for j in range(c)]).astype(np.int64)
    for _ in range(sizes["K"]):
        idx = nxt[idx].astype(np.int64)
    return {"ends": idx.sum(axis=0).astype(np.int32)}


SPEC = BenchmarkSpec(
    name="load_rounds",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"items_per_cu": ITEMS_PER_CU, "chains": CHAINS},
    knobs={"workgroup": Knob("workgroup", (GROUP,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read, "steps": steps},
    sweep=[{"items_per_cu": n, "chains": c} for c in CHAINS for n in ITEMS_PER_CU],
    quick_sweep=[{"items_per_cu": n, "chains": c} for c, n in ((1, 64), (4, 256), (16, 1024))],
    analysis="load_rounds",
    group="memory",
    tolerance={"int32": 0.0},
)
