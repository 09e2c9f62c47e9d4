"""Barrier-separated load phase: a work-group stages its tile in __local, barrier, then computes.

The smallest prefetching stencil: ``dst[i] = src[i] + src[i + 1]``. With the ``local`` knob
(loopy ``add_prefetch``, the transform Jacobi's local tile uses) each work-group first copies its
tile of ``src`` plus a one-element halo from global into ``__local`` memory, passes a work-group
barrier, then every work item reads its element and its neighbour from ``__local`` and stores to
global. ``local = "none"`` is the same kernel reading ``src`` from global directly (no tile, no
barrier). The difference is what the barrier-separated phase costs: while a group's warps wait at
the barrier for the slowest load of the tile, none of them can run ahead (issue its compute and
stores, start the next group's loads), so the global-memory latency is exposed once per group and
barrier, and a larger group waits for more warps. Why it matters: on the H200 Jacobi's local-tile
variants take 480–710 µs where the DRAM floor is 190 µs, and get slower as the group grows.

``tiles`` = 2 gives each work-group two tiles one after the other (rows r = 0, 1 of ``src``): two
load phases, and loopy puts two barriers around each (the fetch of round r + 1 must wait until
round r has read the tile), 4 per group. Against ``tiles`` = 1 at the same work-group size and the
same total it says whether the cost follows load phases (ratio 1) or barriers (ratio 2).

The total is fixed, 2^26 work items on a GPU (256 MiB per buffer, past the L2; Jacobi's 8192²),
2^20 on a CPU (quick too), 2^16 on a GPU in quick mode; the analysis ``barrier_phase`` turns the
time difference into a cost per group-barrier on one compute unit and fits it against the
work-group size.
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

WORKGROUPS = (64, 128, 256, 512, 1024)
LOCAL = ("none", "static", "dynamic")
#: PTX of a work-group barrier (``barrier(CLK_LOCAL_MEM_FENCE)``)
BARRIER = r"\b(?:bar|barrier)\.sync\b"


def program(point):
    """1 tile: 1-D ``dst[i]``; 2 tiles: rows ``r`` of a (tiles, n) array, r a loop inside each
    work item (it is not a work-group axis, so every round prefetches its own tile)."""
    tiles = point["tiles"]
    if tiles == 1:
        domain, body, shape = "{[i]: 0 <= i < n}", "dst[i] = src[i] + src[i + 1]", ()
    else:
        domain = f"{{[r, i]: 0 <= r < {tiles} and 0 <= i < n}}"
        body, shape = "dst[r, i] = src[r, i] + src[r, i + 1]", (tiles,)
    return lp.make_kernel(
        domain, body,
        [lp.GlobalArg("src", np.float32, shape=(*shape, "n + 1")),
         lp.GlobalArg("dst", np.float32, shape=(*shape, "n"), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32)],
        name="barrier_phase", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        # every group fills its own tile (not a race); the dynamic tile is linearized early
        silenced_warnings=["v1_scheduler_fallback", "write_race(src_fetch_rule)"])


def barriers_per_group(point):
    """Work-group barriers each group passes, as loopy places them (the count
    ``lp.get_synchronization_map`` gives per work item; a test checks the two agree): one after
    the fetch; with several tiles also one before each fetch (the previous round's reads)."""
    if point["local"] == "none":
        return 0
    return 1 if point["tiles"] == 1 else 2 * point["tiles"]


def sizes(point, device, quick):
    """A fixed total of work items for every work-group size and tile count of a run. A CPU runs
    2^20 in quick mode too: at 2^16 every launch sat on PoCL's ~50 µs launch floor (60–87 µs on
    a 16-core Xeon), which left a few µs of difference to fit."""
    gpu = device.device_type.upper() == "GPU"
    total = (1 << 16 if gpu else 1 << 20) if quick else (1 << 26 if gpu else 1 << 20)
    return {"n": total // point["tiles"]}


def verify_sizes(point, device):
    # three full groups and a partial one: the guards of the last group and its halo are checked
    return {"n": 3 * point["workgroup"] + 5}


def groups(point, sizes):
    return -(-sizes["n"] // point["workgroup"])


def _shape(point, sizes):
    return (sizes["n"] + 1,) if point["tiles"] == 1 else (point["tiles"], sizes["n"] + 1)


def inputs(point, sizes, rng):
    # uniform, not normal: 3× faster to draw, and a GPU launch reads 256 MiB
    return {"src": rng.random(_shape(point, sizes), dtype=np.float32)}


def reference(values, point, sizes):
    src = values["src"]
    return {"dst": src[..., :-1] + src[..., 1:]}


def bytes_moved(point, sizes):
    """DRAM traffic: src once (the neighbour comes from a cache or the tile), dst once."""
    return point["tiles"] * (2 * sizes["n"] + 1) * 4


def group_barriers(point, sizes):
    """Work-group barriers of one launch: groups × barriers per group (0 without a tile)."""
    return groups(point, sizes) * barriers_per_group(point)


def ptx_rules(point):
    """The barrier and both ``__local`` reads survive NVIDIA's compiler; the plain kernel has no
    barrier at all (the tile's ``.shared`` declaration or pointer is a generic rule)."""
    if point["local"] == "none":
        return {BARRIER: 0}
    return {BARRIER: 1 if point["tiles"] == 1 else 2, r"\bld\.shared\b": 2}


SWEEP = ([{"tiles": 1, "local": m, "workgroup": w} for m in ("none", "static")
          for w in WORKGROUPS]
         + [{"tiles": 1, "local": "dynamic", "workgroup": w} for w in (128, 1024)]
         + [{"tiles": 2, "local": m, "workgroup": w} for m in ("none", "static")
            for w in (128, 256, 1024)])
QUICK_SWEEP = ([{"tiles": 1, "local": m, "workgroup": w} for m in ("none", "static")
                for w in (64, 256, 1024)]
               + [{"tiles": 2, "local": m, "workgroup": 256} for m in ("none", "static")])

SPEC = BenchmarkSpec(
    name="barrier_phase",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"tiles": (1, 2)},
    knobs={
        "workgroup": Knob("workgroup", WORKGROUPS, {"inames": ("i",)}),
        "local": Knob("local_memory", LOCAL, {"array": "src", "sweep_inames": ("i_inner",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved, "barriers": group_barriers},
    sweep=SWEEP,
    quick_sweep=QUICK_SWEEP,
    analysis="barrier_phase",
    group="runtime",
    tolerance={"float32": 0.0},
    ptx_rules=ptx_rules,
    extra={"barriers_per_group": barriers_per_group},
)
