"""Fine-grained chase (seed 002 §3): the plan and the analysis recover a simulated cache's size,
line, sets, ways and fetch unit from per-access latencies; the kernel carries the %clock asm;
off NVIDIA the benchmark is skipped with its reason."""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.fine_chase import LevelPlan, analyze_level, explore_level, sectoring
from gencl.spec.pointer_chase import BIN, WINDOW

KIB = 1 << 10


class SimCache:
    """A set-associative LRU cache with sectored lines, timed per access like the kernel.

    ``hashed``: the set is ``line ^ line/T ^ line/T²`` mod T (an XOR fold: every aligned block
    of T lines fills every set once, as modulo does, but a set's lines are not T apart).
    """

    def __init__(self, line, sets, ways, fetch, *, hashed=False, hit=40, miss=290, seed=0):
        self.line, self.nsets, self.ways, self.fetch = line, sets, ways, fetch
        self.hashed, self.hit, self.miss = hashed, hit, miss
        self.rng = np.random.default_rng(seed)

    def _set(self, la):
        t = self.nsets
        return (la ^ (la // t) ^ (la // (t * t))) % t if self.hashed else la % t

    def _access(self, sets, addr):
        la, sector = addr // self.line, (addr % self.line) // self.fetch
        ways = sets.setdefault(self._set(la), OrderedDict())
        if la in ways:
            ways.move_to_end(la)
            if sector in ways[la]:
                return self.hit
            ways[la].add(sector)
            return self.miss
        if len(ways) >= self.ways:
            ways.popitem(last=False)
        ways[la] = {sector}
        return self.miss

    def measure(self, footprint, stride, stage, level="L"):
        """What one kernel launch of the fine chase records (the spec's run layout)."""
        slots = footprint // stride
        passes = max(1, math.ceil(WINDOW / slots))
        start, warm, timed = WINDOW % slots, slots, passes * slots
        sets: dict = {}
        hist: dict[int, int] = {}
        window = []
        jitter = self.rng.integers(0, 6, size=warm + timed)
        for g in range(warm + timed):
            lat = self._access(sets, ((start + g) % slots) * stride) + int(jitter[g])
            if g >= warm:
                hist[lat // BIN] = hist.get(lat // BIN, 0) + 1
                if g >= warm + timed - WINDOW:
                    window.append(lat)
        return {"level": level, "stage": stage, "footprint": footprint, "stride": stride,
                "slots": slots, "passes": passes, "bin_cycles": BIN,
                "hist": {str(k): v for k, v in hist.items()}, "window": window,
                "window_first": (start + warm + timed - WINDOW) % slots}


@pytest.mark.parametrize("cache,plan,want", [
    # an L1: 16 KiB, 128 B lines of 32 B sectors, 16 sets × 8 ways, modulo index
    (SimCache(128, 16, 8, 32), LevelPlan("L1", 2 * KIB, 64 * KIB, per_octave=8, stride=32),
     {"size_bytes": 16 * KIB, "line_bytes": 128, "ways": 8, "sets": 16, "fetch_bytes": 32,
      "sets_from_period": 16}),
    # an L2 slice: 128 KiB, 64 sets × 16 ways, XOR-hashed index, scanned at one access per line
    (SimCache(128, 64, 16, 32, hashed=True, seed=1),
     LevelPlan("L2", 16 * KIB, 512 * KIB, per_octave=4, stride=128),
     {"size_bytes": 128 * KIB, "line_bytes": 128, "ways": 16, "sets": 64, "fetch_bytes": 32}),
    # whole-line fills, 64 B lines, 4 ways
    (SimCache(64, 32, 4, 64, seed=2), LevelPlan("L1", 2 * KIB, 32 * KIB, per_octave=8, stride=32),
     {"size_bytes": 8 * KIB, "line_bytes": 64, "ways": 4, "sets": 32, "fetch_bytes": 64}),
])
def test_geometry_is_recovered_from_per_access_latencies(cache, plan, want):
    runs = explore_level(plan, cache.measure)
    got = analyze_level(runs)
    for key, value in want.items():
        assert got.get(key) == pytest.approx(value), (key, got)
    assert got["hit_latency_cycles"] == pytest.approx(42, abs=4)
    assert got["miss_latency_cycles"] == pytest.approx(292, abs=4)
    if cache.hashed:
        assert "sets_from_period" not in got and "hashed" in got["set_index"]
    else:
        assert got["set_index"].startswith(f"line mod {want['sets']}")


def test_nothing_missing_in_range_is_not_a_level():
    cache = SimCache(128, 16, 8, 32)
    runs = explore_level(LevelPlan("L1", 2 * KIB, 8 * KIB, per_octave=2), cache.measure)
    got = analyze_level(runs)
    assert "size_bytes" not in got and len(runs) == 5  # the scan only


def test_analysis_reads_records_and_names_levels():
    cache = SimCache(128, 16, 8, 32)
    runs = explore_level(LevelPlan("L1", 2 * KIB, 64 * KIB, per_octave=4),
                         lambda f, s, stage: cache.measure(f, s, stage, level="L1"))
    records = [{"variant_id": f"r{i}", "status": "ok",
                "point": {k: r[k] for k in ("level", "stage", "footprint", "stride")},
                "extra": {k: v for k, v in r.items()
                          if k not in ("level", "stage", "footprint", "stride")}}
               for i, r in enumerate(runs)]
    result = get_analysis("fine_chase")(records, {}, None)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["l1_line_bytes"] == 128 and chars["l1_ways"] == 8
    assert chars["l1_size_bytes"] == 16 * KIB and chars["cache_geometry"]["L1"]["sets"] == 16
    assert "fine_chase_l1_misses_vs_footprint" in result.series


@pytest.mark.parametrize("line,fetch,hashed,same", [
    (128, 32, False, True),    # 128-B lines of 32-B sectors: the same footprint at both strides
    (32, 32, False, True),     # 32-B lines, plain index: the 128-B stride reaches 1/4 of the sets
    (32, 32, True, False),     # 32-B lines, hashed index: 4× the footprint at 128 B
    (128, 128, False, None),   # whole-line fills: one 32-B access in four misses, never half
])
def test_sectoring_from_scans_at_two_strides(line, fetch, hashed, same):
    """16 KiB scanned at 32 B and at 128 B: the fetch unit is bounded only when every 32-B
    access misses past the level, and the same capacity at both strides is reported as such
    (it does not tell a 128-B allocation unit from a plain set index)."""
    cache = SimCache(line, 16 * KIB // (line * 8), 8, fetch, hashed=hashed, seed=3)
    feet = (4 * KIB, 8 * KIB, 12 * KIB, 16 * KIB, 20 * KIB, 32 * KIB, 48 * KIB, 64 * KIB,
            96 * KIB, 128 * KIB)
    got = sectoring([cache.measure(f, 32, "scan") for f in feet],
                    [cache.measure(f, 128, "scan") for f in feet])
    if same is None:
        assert got is None  # the 32-B scan never half-misses: no step to compare
        return
    assert got is not None
    assert got["same_capacity"] is same, got
    assert ("fetch_bytes_at_most" in got) == (fetch <= 32), got


def test_committed_h200_fine_chase_reads_a_sectored_l1():
    """The H200 rerun: its L1 fills at the same footprint at 32 B and 128 B and every 32-B
    access misses past it: ≤ 32 B fetched per miss; no line size claimed."""
    import json
    from pathlib import Path

    # the run of a2d60b3, kept as it was (a later run adds the L1_full level, which reports a
    # line): bench_results/nvidia-h200/raw/fine_chase.json then
    raw = Path(__file__).parent / "data" / "h200_fine_chase_a2d60b3.json"
    data = json.loads(raw.read_text())
    result = get_analysis("fine_chase")(data["results"], data["device"], None)
    chars = {c.name: c.value for c in result.characteristics}
    units = chars["l1_sectoring"]
    assert units["same_capacity"] and units["fetch_bytes_at_most"] == 32
    assert "l1_line_bytes" not in chars


def test_kernel_carries_the_clock_asm_and_is_skipped_off_nvidia(engine):
    from gencl.generate import generate
    from gencl.profile._suite import _skipped_here
    from gencl.spec import load_spec

    spec = load_spec("fine_chase")
    source = generate(spec, spec.complete({"level": "L1"})).source
    assert source.count('asm volatile("mov.u32 %0, %%clock;"') == 2
    assert "__local uint win_t" in source and "__local uint hist" in source
    # the load sits between the two clock reads, its value stored to __local before the second
    body = source[source.index("(t0)"):source.index("(t1)")]
    assert "j = nxt[j];" in body and "win_j[" in body
    assert spec.sweep_points(engine.info) == []
    reason = _skipped_here(spec, engine.info, quick=False)
    assert reason.startswith("per-access clock needs inline PTX; not available on ")


@pytest.mark.parametrize("footprint,stride", [(16 * KIB, 32), (64 * KIB, 32), (8 * KIB, 128)])
def test_runner_bookkeeping_on_a_real_device(engine, footprint, stride):
    """The spec's one-launch runner on PoCL, with the clock reads replaced by portable C that
    makes each access's "latency" the next position mod 97: the walk is checked against the
    host, the histogram holds every timed step, and the window is in access order."""
    import dataclasses

    from gencl.generate import generate
    from gencl.spec import load_spec
    from gencl.spec.pointer_chase import clocked_walk_program

    spec = load_spec("fine_chase")
    portable = dataclasses.replace(spec, name="fine_chase_portable", program=lambda _p:
                                   clocked_walk_program(clock=("t0 = 0;",
                                                               "t1 = (uint)(j % 97);")))
    built = engine.build(generate(portable, portable.complete({"level": "L1"})))
    one_run = spec.runner.__globals__["_one_run"]
    m, run = one_run(engine, built, spec, "L1", footprint, stride, "line",
                     np.random.default_rng(3))
    assert m.status == "ok", m.reason
    slots, step = footprint // stride, stride // 4
    assert run["slots"] == slots and sum(run["hist"].values()) == m.sizes["S"]
    accessed = (run["window_first"] + np.arange(WINDOW)) % slots
    assert run["window"] == list((((accessed + 1) % slots) * step) % 97)
    if slots >= WINDOW:
        assert run["window_first"] == 0  # the window sits on the ring's first slots
    assert m.extra["hist"] == run["hist"] and m.point["stage"] == "line"


def test_ways_ignore_misses_that_do_not_grow_with_the_extra_lines():
    from gencl.characterize.fine_chase import ways_from

    def run(k):  # k extra lines: 17 slow accesses per line (16 ways + 1), 15 TLB refills
        slow = 17 * k + 15
        return {"footprint": (1 << 20) + 128 * k, "stride": 128, "slots": 10000, "passes": 1,
                "bin_cycles": 4, "hist": {"10": 10000 - slow, "100": slow}}

    runs = [run(k) for k in (1, 2, 3, 4)]
    slope, pts = ways_from(runs, 1 << 20, 128, limit=200.0)
    assert slope == pytest.approx(17.0) and [k for k, _ in pts] == [1, 2, 3, 4]


def test_misses_that_fall_as_the_ring_grows_are_not_read_as_a_line():
    """Misses that come and go run to run (a level that is not LRU at its capacity, as the
    H200's L1 beside 10 KiB of __local): no line, sets or ways, and the reason names the
    counts; the size is the bytes the level held, not the footprint of the first stray miss."""
    def run(footprint, stage, slow):
        slots = footprint // 32
        return {"level": "L1", "stage": stage, "footprint": footprint, "stride": 32,
                "slots": slots, "passes": 1, "bin_cycles": 4,
                "hist": {"12": slots - slow, "72": slow}}

    kib = [8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 64]
    frac = [0, 0, 0.02, 0, 0.1, 0.15, 0.3, 0.5, 0.9, 1.0, 1.0]
    runs = [run(k * KIB, "scan", int(f * k * KIB // 32)) for k, f in zip(kib, frac)]
    runs += [run(10 * KIB + d, "line", slow) for d, slow in
             zip(range(32, 33 * 8, 32), (8, 0, 0, 21, 0, 44, 15, 0))]
    got = analyze_level(runs)
    assert "line_bytes" not in got and "ways" not in got
    assert "fall 4 times" in got["not_lru"]
    assert got["half_miss_bytes"] == pytest.approx(28 * KIB, rel=0.02)
    assert 16 * KIB <= got["size_bytes"] <= 24 * KIB and got["clean_bytes"] == 10 * KIB


def test_register_window_kernel_has_no_local_memory_and_every_clock_read(engine):
    """The L1_full level's kernel: no __local (the L1 keeps its full size on a unified
    L1/shared array), a clock read after each of the window's loads, all in one work item;
    skipped off NVIDIA like the other levels."""
    from gencl.generate import generate
    from gencl.spec import load_spec
    from gencl.spec.pointer_chase import REG_WINDOW

    spec = load_spec("fine_chase")
    source = generate(spec, spec.complete({"level": "L1_full"})).source
    assert "__local" not in source and "reqd_work_group_size(1, 1, 1)" in source
    assert source.count('asm volatile("mov.u32 %0, %%clock;"') == REG_WINDOW + 2
    # load, then clock, in turn: the clock after load u, the next load waits for load u
    body = source[source.index("(clk[0])"):source.index(f"(clk[{REG_WINDOW}])")]
    assert body.count("j = nxt[j];") == REG_WINDOW and body.count("%%clock") == REG_WINDOW
    assert "clk[" not in source[source.index("for (int k"):source.index("state[0]")]
    assert spec.sweep_points(engine.info) == []


@pytest.mark.parametrize("lines,stride,warm", [(8, 128, 2), (300, 32, 1), (64, 512, 3)])
def test_register_window_bookkeeping_on_a_real_device(engine, lines, stride, warm):
    """The L1_full runner's one launch on PoCL, the clock reads replaced by C that makes each
    access's "latency" the loaded position mod 97: the walk's end is checked against the host,
    the window holds the first timed latencies in order, and the count above the threshold and
    the sum cover every timed access (window and loop)."""
    import dataclasses

    from gencl.generate import generate
    from gencl.spec import load_spec
    from gencl.spec.pointer_chase import REG_WINDOW, windowed_walk_program

    spec = load_spec("fine_chase")
    fake = ("clk[0] = 0;", "clk[{after}] = clk[{step}] + (uint)(j % 97);",
            "now = prev + (uint)(j % 97);")
    portable = dataclasses.replace(spec, name="fine_chase_portable",
                                   program=lambda _p: windowed_walk_program(clock=fake))
    built = engine.build(generate(portable, portable.complete({"level": "L1_full"})))
    window_run = spec.runner.__globals__["_window_run"]
    m, run = window_run(engine, built, spec, "L1_full", lines, stride, "capacity", 50.0, warm,
                        np.random.default_rng(5))
    assert m.status == "ok", m.reason
    passes = max(4, -(-REG_WINDOW // lines))
    timed = np.arange(passes * lines)
    k0 = warm * lines
    lat = (((k0 + 2 + timed) % lines) * (stride // 4)) % 97
    assert run["window"] == lat[:REG_WINDOW].tolist()
    assert run["slow"] == int((lat > 50).sum()) and run["total"] == int(lat.sum())
    assert run["passes"] == passes and m.point == {"level": "L1_full", "stage": "capacity",
                                                   "lines": lines, "stride": stride}


@pytest.mark.parametrize("level", ["L1", "L1_full"])
def test_standard_verification_path_of_both_kernels(engine, level):
    """``gencl verify``'s path (spec sizes, inputs, reference) on PoCL with portable clocks:
    both kernels end the walk where the host says."""
    import dataclasses

    from gencl.generate import generate
    from gencl.measure import verify_variant
    from gencl.spec import load_spec
    from gencl.spec.pointer_chase import clocked_walk_program, windowed_walk_program

    spec = load_spec("fine_chase")
    prog = (windowed_walk_program(clock=("clk[0] = 0;", "clk[{after}] = clk[{step}] + 1;",
                                         "now = prev + 1;"))
            if level == "L1_full" else clocked_walk_program(clock=("t0 = 0;", "t1 = 1;")))
    portable = dataclasses.replace(spec, name="fine_chase_portable", program=lambda _p: prog)
    point = portable.complete({"level": level})
    built = engine.build(generate(portable, point))
    sizes = portable.verify_sizes(point, engine.info)
    values = portable.inputs(point, sizes, np.random.default_rng(8))
    assert verify_variant(engine, portable, built, sizes, values) <= 1.0


def _portable_full(engine):
    """The L1_full kernel on PoCL, each access's "latency" the loaded position mod 97."""
    import dataclasses

    from gencl.generate import generate
    from gencl.spec import load_spec
    from gencl.spec.pointer_chase import windowed_walk_program

    spec = load_spec("fine_chase")
    fake = ("clk[0] = 0;", "clk[{after}] = clk[{step}] + (uint)(j % 97);",
            "now = prev + (uint)(j % 97);")
    portable = dataclasses.replace(spec, name="fine_chase_portable",
                                   program=lambda _p: windowed_walk_program(clock=fake))
    return spec, engine.build(generate(portable, portable.complete({"level": "L1_full"})))


def test_ring_of_arbitrary_lines_on_a_real_device(engine):
    """An eviction-set test's launch on PoCL: a ring of lines in any order of a region whose
    other elements are random, walked in that order; the end checked against the host, the
    window and the counts cover the timed accesses; the info kept in the record."""
    spec, built = _portable_full(engine)
    ring_run = spec.runner.__globals__["_ring_run"]
    rng = np.random.default_rng(9)
    region = 1 << 16  # elements
    filler = rng.integers(0, region, size=region).astype(np.int32)
    lines = [int(x) for x in rng.choice(region // 32, 37, replace=False)]
    info = {"stage": "ways", "rep": 1, "test": 4, "ring_crc": 123}
    m, run = ring_run(engine, built, spec, "L1_full", lines, 128, 50.0, 3, info, filler)
    assert m.status == "ok", m.reason
    pos = np.array(lines) * 32
    passes = max(4, -(-64 // len(lines)))
    lat = pos[(3 * len(lines) + 2 + np.arange(passes * len(lines))) % len(lines)] % 97
    assert run["window"] == lat[:64].tolist()
    assert run["slow"] == int((lat > 50).sum()) and run["total"] == int(lat.sum())
    assert m.point == {"level": "L1_full", "stage": "ways", "lines": 37, "stride": 128}
    assert m.extra["rep"] == 1 and m.extra["test"] == 4 and m.variant_id.endswith("-1-4-37")


def test_eviction_set_tests_on_a_real_device_replay_from_their_records(engine):
    """The runner's eviction-set stage on PoCL, through the runner's own ring probe (outcomes
    from the portable clock, so some rings "fit" and some do not): its records, read back as
    the analysis reads them, replay the same reductions test for test."""
    import json

    from gencl.characterize.cache_geometry import StridePlan
    from gencl.characterize.eviction_set import explore_ways, replay_ways, starting_pools
    from gencl.characterize.fine_chase import runs_of

    spec, built = _portable_full(engine)
    probes = spec.runner.__globals__["_probes"]
    plan = StridePlan("L1_full", (128,), ways_region_bytes=1 << 17)
    out = []
    _, ring_probe = probes(engine, built, spec, "L1_full", plan, np.random.default_rng(2), out)
    pools = starting_pools(40, plan.ways_region_bytes // 128, 2, seed=4)
    runs = explore_ways(pools, ring_probe, 128, 60.0, 1, budget=40)
    assert len(out) == len(runs) > 4 and all(m.status == "ok" for m in out)
    records = [json.loads(json.dumps(m.to_json())) for m in out]  # as raw/fine_chase.json
    assert len({r["variant_id"] for r in records}) == len(records)  # none merged away
    replayed = replay_ways(runs_of(records))
    assert len(replayed) == 2 and [f["tests"] for f in replayed] == [
        sum(r["rep"] == k for r in runs) for k in (0, 1)]
    assert not any("do not replay" in (f.get("why") or "") for f in replayed)
