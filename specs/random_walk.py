"""Random walk (seed 000 §VI-B/C): completion latency Λ per memory type and the cache staircase.

One work item (one warp with one active lane, Mei & Chu's setting: no other request hides the
latency) chases pointers through a Sattolo ring: every load's address is the previous load's
value. ``memory`` is where the ring lives: global, local, constant or private (local and private
copy it from global first; seed 000 §VI-B). The varying-size walk over ``footprint`` bytes, 1 KiB
to 256 MiB on a GPU (≥ 4× the 50 MB L2 of Hopper), log-spaced at three points per octave, is
the latency staircase that the analysis fits with eq. 6 to find cache sizes and latencies.
Walked slots are ``spacing`` bytes apart (one per 128-byte line by default) so a footprint is
warm after fewer steps; ``pattern="stride"`` walks the slots in order at spacings 4 … 512 B over
a footprint between L1 and L2: the cache line (fetch granularity) is the spacing where the
per-step latency stops rising (Saavedra-Barrera / Mei & Chu with whole-kernel timing; the
per-access method is ``fine_chase``).

``pattern="page_local"`` walks the same lines in an order that finishes a granule (2 MiB on a
GPU, 64 KiB on a CPU: a page or a few) before it moves to another granule at random: the data
caches see the same footprint, the TLB one miss per granule instead of one per step once the
footprint passes its reach. It runs from 1 MiB up, twelve footprints per octave between 20 and
80 MiB on a GPU, where Hopper's L2 halves (25 MiB each: the near one, then the far one) have
their steps: the staircase of these walks is the cache hierarchy without address
translation, and its last plateau the DRAM latency.
The walker's position is kept in ``state`` between launches, so the engine's repeated launches
continue the walk through the whole ring (seed 000's "multiple passes").
"""

import numpy as np

from gencl.spec import BenchmarkSpec
from gencl.verify.ptx import LOCAL_TRAFFIC
from gencl.spec.pointer_chase import MEMORIES, ring_array, walk_program, walk_reference

KIB, MIB = 1 << 10, 1 << 20


def _log_spaced(lo, octaves, per_octave):
    """Footprints lo · 2^(k/per_octave), rounded to whole 128-byte lines."""
    return tuple(sorted({int(round(lo * 2 ** (k / per_octave) / 128)) * 128 or lo
                         for k in range(0, per_octave * octaves + 1)}))


#: log-spaced footprints, three per octave: 1 KiB … 256 MiB, twelve per octave 160 … 336 KiB
#: (a GPU's L1 step: its size is read from the walks inside the step, so it needs several)
FOOTPRINTS = tuple(sorted({f for f in _log_spaced(KIB, 18, 3) if not 160 * KIB < f < 336 * KIB}
                          | set(_log_spaced(160 * KIB, 1, 12)[1:])))
#: page-local walks: 1 … 16 MiB one per octave, 16 … 20 MiB six per octave, 20 … 80 MiB twelve
#: per octave (the steps of Hopper's two 25 MiB L2 partitions: each starts at its capacity and
#: is complete only ~1.4× past it), 80 … 90 MiB, then 128, 181, 256 MiB (the DRAM plateau)
PAGE_LOCAL = tuple(sorted(set(_log_spaced(MIB, 4, 1))
                          | {f for f in _log_spaced(16 * MIB, 15, 6)[:16]
                             if not 20 * MIB <= f <= 81 * MIB}
                          | set(_log_spaced(20 * MIB, 2, 12))
                          | set(_log_spaced(128 * MIB, 1, 2))))
#: the granule a page-local walk finishes before moving on: a 2 MiB GPU page, 16 CPU pages
GRANULE = {"GPU": 2 * MIB, "CPU": 64 * KIB}
GPU_MAX, CPU_MAX, QUICK_MAX = 256 * MIB, 64 * MIB, 4 * MIB
#: fixed footprints of the Λ measurement per memory type (all fit any cache of that memory)
FIXED = {"local": 4 * KIB, "constant": 2 * KIB, "private": KIB}
SPACINGS = (4, 8, 16, 32, 64, 128, 256, 512)
#: stride-chase footprints: past L1 (256 KB/SM on Hopper; 32–48 KB on CPUs), inside L2
LINE_FOOTPRINT = {"GPU": 4 * MIB, "CPU": 256 * KIB}


def _is_gpu(device):
    return device is not None and device.device_type.upper() == "GPU"


def program(point):
    return walk_program(point["memory"], point["footprint"] // 4)


def _granule(device):
    return GRANULE["GPU" if device is None or _is_gpu(device) else "CPU"]


def sizes(point, device, quick):
    """Steps per launch: about two passes over the ring's slots, 16 Ki … 128 Ki (4 Ki quick);
    ``granule``: the bytes a page-local walk finishes before it moves on."""
    n = point["footprint"] // 4
    slots = max(1, point["footprint"] // point["spacing"])
    if quick:
        steps = 4096
    else:
        steps = int(min(128 * KIB, max(16 * KIB, 2 * slots)))
    return {"n": n, "K": steps, "granule": _granule(device)}


def verify_sizes(point, device):
    return {"n": point["footprint"] // 4, "K": 200, "granule": _granule(device)}


def inputs(point, sizes, rng):
    spacing = max(1, point["spacing"] // 4)
    nxt = ring_array(sizes["n"], spacing, point["pattern"], rng,
                     granule=sizes.get("granule", GRANULE["GPU"]) // 4)
    return {"nxt": nxt, "state": np.array([0], dtype=np.int32)}


def reference(values, point, sizes):
    return walk_reference(values, sizes["K"])


def steps(point, sizes):
    return sizes["K"]


def _footprint_fits(point, device):
    limit = GPU_MAX if _is_gpu(device) or device is None else CPU_MAX
    if point["footprint"] > limit:
        return f"footprint {point['footprint']} B above this device's walk limit {limit} B"
    if point["memory"] == "constant" and device is not None and \
            point["footprint"] > device.constant_mem_bytes:
        return "footprint above the constant memory size"
    if point["memory"] == "local" and device is not None and \
            point["footprint"] > device.local_mem_bytes:
        return "footprint above the local memory size"
    if point["memory"] in ("local", "private") and point["footprint"] > 64 * KIB:
        return "local/private copies are compile-time sized and small"
    return None


def _stride_on_its_device(point, device):
    if point["pattern"] == "stride" and device is not None:
        want = LINE_FOOTPRINT["GPU" if _is_gpu(device) else "CPU"]
        if point["footprint"] != want:
            return f"the stride chase runs at {want} B on this device"
    return None


def ptx_rules(point):
    """The private-memory walk lives in ld.local/st.local by design: lift the no-spill rule."""
    return {LOCAL_TRAFFIC: None} if point["memory"] == "private" else {}


def _page_local_in_global(point, device):
    if point["pattern"] == "page_local" and (point["memory"] != "global"
                                             or point["spacing"] != 128):
        return "the page-local walk is a global-memory walk, one slot per 128-byte line"
    return None


def _walk_sweep(limit, per_octave_step=1):
    walk = [{"memory": "global", "footprint": f} for f in FOOTPRINTS[::per_octave_step]
            if f <= limit]
    fixed = [{"memory": m, "footprint": f, "spacing": 4} for m, f in FIXED.items()]
    return walk, fixed


_WALK, _FIXED = _walk_sweep(GPU_MAX)
_PAGE_LOCAL = [{"memory": "global", "pattern": "page_local", "footprint": f} for f in PAGE_LOCAL]
_LINE = [{"memory": "global", "pattern": "stride", "footprint": f, "spacing": s}
         for f in sorted(set(LINE_FOOTPRINT.values())) for s in SPACINGS]
_QWALK, _ = _walk_sweep(QUICK_MAX, per_octave_step=3)

SPEC = BenchmarkSpec(
    name="random_walk",
    ptx_rules=ptx_rules,
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"memory": MEMORIES, "pattern": ("random", "stride", "page_local"),
            "footprint": tuple(sorted(set(FOOTPRINTS) | set(FIXED.values()) | set(PAGE_LOCAL)
                                      | set(LINE_FOOTPRINT.values()))),
            "spacing": (128, *[s for s in SPACINGS if s != 128])},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"steps": steps},
    sweep=_WALK + _FIXED + _LINE + _PAGE_LOCAL,
    quick_sweep=_QWALK + _FIXED + [{"memory": "global", "pattern": "stride",
                                    "footprint": LINE_FOOTPRINT["CPU"], "spacing": s}
                                   for s in (4, 16, 64, 256)]
    + [{"memory": "global", "pattern": "page_local", "footprint": f}
       for f in (MIB, 2 * MIB, 4 * MIB)],
    constraints=[_footprint_fits, _stride_on_its_device, _page_local_in_global],
    analysis="random_walk",
    group="memory",
    tolerance={"int32": 0.0},
)
