"""Fine-grained pointer chase (seed 002 §3, Mei & Chu): size, line, sets and ways of L1 and L2.

One work item walks a fixed-stride ring and times every load with two reads of the SM's
``%clock`` (inline PTX carried by loopy ``CInstruction``s: ``gencl.spec.pointer_chase.
clocked_walk_program``); the latencies stay in ``__local`` memory (a histogram of the timed pass
and the last 1024 one by one) until the walk ends. NVIDIA only: other OpenCL compilers reject
PTX, so on any other platform the benchmark is skipped with that reason.

Each ``level`` is explored adaptively (``gencl.characterize.fine_chase.explore_level``): a size
scan at a coarse stride, a bisection to one stride, the line-size runs (N = C + δ at 32 B), the
sets/ways runs (N = C + k·line at the line). L1: footprints 8 KiB … 512 KiB (8 per octave,
stride 32 B; the L1 is what the kernel's 10 KiB of ``__local`` records leave of the unified
L1/shared memory: less than a kernel without ``__local`` gets, as the H200's driver splits it).
``L1_128``: the same L1 scanned at one access per 128-B line (its capacity against the 32-B
scan's tells the allocation unit from the 32-B sector). L2: 4 MiB … 96 MiB (4 per octave,
stride 128 B: one access per line), every access there an L1 miss. Every run is one launch: one
untimed pass, then ≥ 1024 timed steps (whole passes); its window is placed on the ring's first
1024 slots. Each run's walk is checked against the host's (the window's positions and the final
one) before its latencies count.

``L1_full``: the L1 as a kernel without ``__local`` gets it (the levels above lose ~230 KiB of
it to their records' carveout). Another kernel, ``windowed_walk_program``: the clock read after
each load's issue (the next load waits for it), a 64-access window in registers, and the slow
accesses of every timed pass counted in a register. Its runs are the capacity-vs-stride
searches of ``gencl.characterize.cache_geometry`` (largest all-hit ring per stride, any
replacement policy): line, sets and ways as ``l1_line_bytes``, ``l1_sets``, ``l1_ways``. Each
run is checked against the host by the walk's final position. After the stride searches, stage
``ways`` (``gencl.characterize.eviction_set``): from 3 rings of 1.1 × capacity random lines of a
4 MiB buffer, a minimal ring that does not fit (W + 1 lines of one set, any index function),
by group testing; each test one launch of the same kernel on a ring of those lines, recorded
with its repetition, number and ring fingerprint so the analysis replays the reductions.
"""

import math

import numpy as np

from gencl.characterize.cache_geometry import StridePlan, explore
from gencl.characterize.fine_chase import LevelPlan, explore_level
from gencl.spec import BenchmarkSpec
from gencl.spec.pointer_chase import (
    BIN, REG_WINDOW, WINDOW, clocked_reference, clocked_walk_program, ring_array,
    windowed_walk_program)

KIB, MIB = 1 << 10, 1 << 20
PLANS = {
    "L1": LevelPlan("L1", 8 * KIB, 512 * KIB, per_octave=8, stride=32, line_stride=32),
    # one access per 128-B line: with 32-B sectors allocated per 128-B line this sees the same
    # capacity as the 32-B scan, with 32-B lines four times more (the allocation unit)
    "L1_128": LevelPlan("L1_128", 8 * KIB, 512 * KIB, per_octave=8, stride=128,
                        line_stride=128),
    "L2": LevelPlan("L2", 4 * MIB, 96 * MIB, per_octave=4, stride=128, line_stride=32),
}
QUICK_PLANS = {
    "L1": LevelPlan("L1", 8 * KIB, 512 * KIB, per_octave=2, stride=32, line_stride=32,
                    max_line=256, ways_steps=(1, 2)),
    "L1_128": LevelPlan("L1_128", 8 * KIB, 512 * KIB, per_octave=2, stride=128,
                        line_stride=128, max_line=512, ways_steps=(1, 2)),
    "L2": LevelPlan("L2", 4 * MIB, 64 * MIB, per_octave=1, stride=128, line_stride=128,
                    max_line=512, ways_steps=(1, 2)),
}
#: Levels measured without __local (``windowed_walk_program``: the window in registers), by
#: the capacity-vs-stride method (``gencl.characterize.cache_geometry``): the L1 at the size a
#: kernel without __local gets. Strides: powers of two 32 B … 512 KiB (capacity; the plateau of
#: the ways past sets × line), odd multiples of 32 B to 480 B (the line), 3·2^k from 384 B
#: (the index); the fetch scan and the miss calibration walk 4 MiB (past the L1, inside L2);
#: then the minimal eviction sets (the ways under a hashed index): 3 starting rings, ≤ 600 tests
#: each ((W + 1)·log2(1910) ≈ 100 for 8 ways).
FULL_PLANS = {
    "L1_full": StridePlan(
        "L1_full", tuple(1 << k for k in range(5, 20)),
        line_strides=(96, 160, 224, 288, 352, 480),
        index_strides=tuple(3 << k for k in range(7, 18, 2)),
        fetch_bytes=4 * MIB),
}
QUICK_FULL_PLANS = {
    "L1_full": StridePlan("L1_full", tuple(1 << k for k in range(5, 16, 2)),
                          line_strides=(160,), index_strides=(384,), fetch_bytes=4 * MIB,
                          warm_passes=4, ways_repeats=2, ways_budget=200),
}
#: the walk the standard path (gencl verify, gencl run) checks: 16 KiB at 32 B
DEFAULT_FOOTPRINT, DEFAULT_STRIDE = 16 * KIB, 32


def is_full(level):
    """A level measured by the register-window kernel (no __local)."""
    return level.endswith("_full")


def program(point):
    return windowed_walk_program() if is_full(point["level"]) else clocked_walk_program()


def run_sizes(footprint, stride):
    """Launch sizes of one run: one untimed pass, whole timed passes covering the window, the
    start placed so the window holds the ring's first ``WINDOW`` slots (or all of them)."""
    n = footprint // 4
    slots = max(1, n // (stride // 4))
    passes = max(1, math.ceil(WINDOW / slots))
    start = WINDOW % slots
    return {"n": n, "start": start * (stride // 4), "K0": slots, "S": passes * slots,
            "slots": slots, "passes": passes, "stride": stride}


def window_sizes(lines, stride, warm_passes, threshold=None, elements=None, start=0):
    """Launch sizes of one register-window run: a ring of *lines* slots *stride* bytes apart
    (or, with *elements*, any ring of *lines* slots in an array of that many elements, walked
    from element *start*), *warm_passes* untimed passes, then whole timed passes (≥ 4, ≥ the
    window)."""
    passes = max(4, math.ceil(REG_WINDOW / lines))
    timed = passes * lines
    thr = 0xFFFFFFFF if threshold is None or not math.isfinite(threshold) else int(threshold)
    return {"n": elements or lines * stride // 4, "start": start, "K0": warm_passes * lines,
            "L": timed - REG_WINDOW, "thr": thr, "lines": lines, "passes": passes,
            "stride": stride}


def window_final(sizes, positions=None):
    """Where a register-window run ends: ``K0 + S + 1`` loads from the ring's first slot
    (slot k at element *positions[k]*, by default k·stride/4)."""
    loads = sizes["K0"] + sizes["passes"] * sizes["lines"] + 1
    slot = loads % sizes["lines"]
    at = positions[slot] if positions is not None else slot * (sizes["stride"] // 4)
    return np.array([at], dtype=np.int32)


def sizes(point, device, quick):
    if is_full(point["level"]):
        return window_sizes(DEFAULT_FOOTPRINT // DEFAULT_STRIDE, DEFAULT_STRIDE, 2)
    return run_sizes(DEFAULT_FOOTPRINT, DEFAULT_STRIDE)


def inputs(point, sizes, rng):
    return {"nxt": ring_array(sizes["n"], sizes["stride"] // 4, "stride", rng)}


def timed_positions(sizes):
    """Ring positions (elements) after each timed step of a run of *sizes*."""
    slots, step = sizes["slots"], sizes["stride"] // 4
    first = sizes["start"] // step + sizes["K0"] + 1
    return ((first + np.arange(sizes["S"])) % slots) * step


def reference(values, point, sizes):
    if is_full(point["level"]):
        return {"state": window_final(sizes)}  # the latencies are the device's own
    return clocked_reference(timed_positions(sizes))


def _nvidia_only(point, device):
    if device is not None and not device.is_nvidia:
        return f"per-access clock needs inline PTX; not available on {device.platform}"
    return None


def ptx_rules(point):
    """Every clock read survives into the PTX (two around the timed load; the register
    window's one per step, one after its first load and one in the counting loop)."""
    return {r"mov\.u32\s+%r\d+,\s*%clock;": REG_WINDOW + 2 if is_full(point["level"]) else 2}


# {{{ the runner: seed 002's steps on the device

class _Failed(Exception):
    pass


def _one_run(engine, built, spec, level, footprint, stride, stage, rng):
    """One launch: (Measurement, run dict for the plan)."""
    from gencl.measure import Measurement

    sz = run_sizes(footprint, stride)
    point = {"level": level, "stage": stage, "footprint": footprint, "stride": stride}
    vid = f"{spec.name}-{level}-{stage}-{footprint}-{stride}"
    nxt = ring_array(sz["n"], stride // 4, "stride", rng)
    seconds, got = _launch_once(engine, built, sz, nxt)
    want = clocked_reference(timed_positions(sz))
    hist = got["out_hist"].astype(np.int64)
    if not (np.array_equal(got["out_j"], want["out_j"])
            and np.array_equal(got["state"], want["state"]) and hist.sum() == sz["S"]):
        return Measurement(vid, spec.name, point, sz, "wrong_answer",
                           "the walk's positions or the histogram's total differ from the "
                           "host's", source_hash=built.variant.source_hash), None
    count = sz["S"]
    window = [int(got["out_t"][(count - WINDOW + i) % WINDOW]) for i in range(WINDOW)]
    run = {"slots": sz["slots"], "passes": sz["passes"], "bin_cycles": BIN,
           "hist": {str(i): int(c) for i, c in enumerate(hist) if c},
           "window_first": (sz["start"] // (stride // 4) + sz["K0"] + count - WINDOW)
           % sz["slots"]}
    if stage in ("line", "sets"):
        run["window"] = window
    m = Measurement.timed(vid, spec.name, point, sz, (seconds,), max_error=0.0,
                          launches_per_sample=1, attempts=1,
                          source_hash=built.variant.source_hash,
                          binary_hash=built.binary_hash, extra=run)
    return m, {**point, **run}


def _window_run(engine, built, spec, level, lines, stride, stage, threshold, warm, rng):
    """One launch of the register-window kernel on a ring of *lines* slots *stride* bytes
    apart: (Measurement, run dict for the plan)."""
    sz = window_sizes(lines, stride, warm, threshold)
    point = {"level": level, "stage": stage, "lines": lines, "stride": stride}
    nxt = ring_array(sz["n"], stride // 4, "stride", rng)
    return _launch_window(engine, built, spec, point, f"{spec.name}-{level}-{stage}-{lines}-"
                          f"{stride}", sz, nxt, window_final(sz), threshold, {})


def _ring_run(engine, built, spec, level, lines, line_bytes, threshold, warm, info, filler):
    """One launch of the register-window kernel on a ring of arbitrary lines (line numbers
    *lines*, walked in that order) of the region *filler* covers (its other elements: random
    valid indices): an eviction-set test; *info* goes into the record as it is."""
    pos = np.asarray(lines, dtype=np.int64) * (line_bytes // 4)
    nxt = filler.copy()
    nxt[pos] = np.roll(pos, -1)
    sz = window_sizes(len(pos), line_bytes, warm, threshold, elements=len(filler),
                      start=int(pos[0]))
    point = {"level": level, "stage": info["stage"], "lines": len(pos), "stride": line_bytes}
    vid = f"{spec.name}-{level}-{info['stage']}-{info['rep']}-{info['test']}-{len(pos)}"
    extra = {k: v for k, v in info.items() if k != "stage"}
    return _launch_window(engine, built, spec, point, vid, sz, nxt, window_final(sz, pos),
                          threshold, extra)


def _launch_window(engine, built, spec, point, vid, sz, nxt, final, threshold, extra):
    """Bind, launch, check the walk's final position, and read the window and the counts:
    (Measurement, run dict for the plan)."""
    from gencl.measure import Measurement

    seconds, got = _launch_once(engine, built, sz, nxt)
    if not np.array_equal(got["state"], final):
        return Measurement(vid, spec.name, point, sz, "wrong_answer",
                           "the walk's final position differs from the host's",
                           source_hash=built.variant.source_hash), None
    run = {"passes": sz["passes"], "warm_passes": sz["K0"] // sz["lines"],
           "threshold": threshold if math.isfinite(threshold) else None,
           "slow": int(got["out_n"][0]), "total": int(got["out_n"][1]),
           "window": [int(t) for t in got["out_t"]], **extra}
    m = Measurement.timed(vid, spec.name, point, sz, (seconds,), max_error=0.0,
                          launches_per_sample=1, attempts=1,
                          source_hash=built.variant.source_hash,
                          binary_hash=built.binary_hash, extra=run)
    return m, {**point, **run, "threshold": threshold}


def run(engine, spec, points, quick):
    """Explore each level with the device as the plan's ``measure``; one record per launch."""
    from gencl.generate import generate
    from gencl.measure import BuildFailure, Measurement
    from gencl.measure._measurement import device_error_status

    out = []
    if not points:
        return out
    kernels = {}
    for point in points:
        full = is_full(point["level"])
        if full in kernels:
            continue
        try:
            kernels[full] = engine.build(generate(spec, spec.complete(point)))
        except BuildFailure as exc:
            kernels[full] = exc
    rng = np.random.default_rng(0)
    for point in points:
        level = point["level"]
        built = kernels[is_full(level)]
        if isinstance(built, BuildFailure):
            out.append(Measurement(f"{spec.name}-{level}", spec.name, dict(point), {},
                                   built.status, built.reason, build_log=built.log))
            continue
        if is_full(level):
            out.extend(_explore_full(engine, built, spec, level, quick, rng))
            continue
        plan = (QUICK_PLANS if quick else PLANS)[level]

        def measure(footprint, stride, stage, level=level, built=built):
            try:
                m, r = _one_run(engine, built, spec, level, footprint, stride, stage, rng)
            except Exception as exc:  # noqa: BLE001 -- recorded; this level stops
                engine.reset()
                m, r = Measurement(
                    f"{spec.name}-{level}-{stage}-{footprint}-{stride}", spec.name,
                    {"level": level, "stage": stage, "footprint": footprint,
                     "stride": stride}, {}, device_error_status(exc),
                    f"{type(exc).__name__}: {str(exc)[:300]}"), None
            out.append(m)
            if r is None:
                raise _Failed(m.reason)
            return r

        try:
            explore_level(plan, measure)
        except _Failed:
            continue
    return out


def _explore_full(engine, built, spec, level, quick, rng):
    """The capacity-vs-stride searches of one level, then its eviction sets; one record per
    launch, a failed launch recorded with its reason and the level stopped there."""
    out = []
    plan = (QUICK_FULL_PLANS if quick else FULL_PLANS)[level]
    try:
        explore(plan, *_probes(engine, built, spec, level, plan, rng, out))
    except _Failed:
        pass
    return out


def _probes(engine, built, spec, level, plan, rng, out):
    """(probe, ring_probe) of ``cache_geometry.explore`` on the device: each launch's record
    appended to *out*; a failed one recorded with its reason, then ``_Failed``."""
    from gencl.measure import Measurement
    from gencl.measure._measurement import device_error_status

    def launch(attempt, vid, point):
        try:
            m, r = attempt()
        except Exception as exc:  # noqa: BLE001 -- recorded; this level stops
            engine.reset()
            m, r = Measurement(vid, spec.name, point, {}, device_error_status(exc),
                               f"{type(exc).__name__}: {str(exc)[:300]}"), None
        out.append(m)
        if r is None:
            raise _Failed(m.reason)
        return r

    def probe(lines, stride, stage, threshold, warm):
        return launch(lambda: _window_run(engine, built, spec, level, lines, stride, stage,
                                          threshold, warm, rng),
                      f"{spec.name}-{level}-{stage}-{lines}-{stride}",
                      {"level": level, "stage": stage, "lines": lines, "stride": stride})

    region = plan.ways_region_bytes // 4
    filler = rng.integers(0, region, size=region).astype(np.int32)

    def ring_probe(lines, line_bytes, threshold, warm, info):
        return launch(lambda: _ring_run(engine, built, spec, level, lines, line_bytes,
                                        threshold, warm, info, filler),
                      f"{spec.name}-{level}-{info['stage']}-{info['rep']}-{info['test']}",
                      {"level": level, "stage": info["stage"], "lines": len(lines),
                       "stride": line_bytes})

    return probe, ring_probe

# }}}


SPEC = BenchmarkSpec(
    name="fine_chase",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"level": (*PLANS, *FULL_PLANS)},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=lambda point, device: sizes(point, device, True),
    sweep=[{"level": level} for level in (*PLANS, *FULL_PLANS)],
    constraints=[_nvidia_only],
    runner=run,
    ptx_rules=ptx_rules,
    analysis="fine_chase",
    group="memory",
    tolerance={"int32": 0.0, "uint32": 0.0},
)


def _launch_once(engine, built, sizes, nxt):
    """(seconds, outputs) of one launch of the walk *nxt*."""
    bound = engine.bind(built, sizes, {"nxt": nxt})
    try:
        return engine.run_once(built, bound), engine.read_outputs(bound)
    finally:
        bound.release()
