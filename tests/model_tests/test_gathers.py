"""Gathers counted on the data (gencl.model._gathers): which loads are gathers, each sub-group
instruction's lines and sectors and each work-group's new lines against closed forms, and how
the model prices them (first level, next level, the resident groups' lines, the fallback)."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._gathers import gather_requests, gather_shares, gather_sites
from gencl.model._predict import access_efficiency, cache_requests, gather_misses
from gencl.model._stats import _linearized
from gencl.spec import load_spec

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
N, GROUP = 256, 64
#: spmv_ell's own instructions, in small kernels of this file's slot counts and x lengths
SPMV = sys.modules[load_spec("spmv_ell").program.__module__].INSTRUCTIONS


def _kernel(src: str, slots: int = 2, x_floats: int = 1 << 16):
    import loopy as lp

    knl = lp.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < K}", src,
        [lp.GlobalArg("val", np.float32, shape=("K", "n")),
         lp.GlobalArg("col", np.int32, shape=("K", "n")),
         lp.GlobalArg("x", np.float32, shape=(x_floats,)),
         lp.GlobalArg("y", np.float32, shape=("n",), is_output=True),
         lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, K=slots)
    return lp.split_iname(knl, "i", GROUP, outer_tag="g.0", inner_tag="l.0")


def _values(col: np.ndarray, x_floats: int = 1 << 16) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"col": col.astype(np.int32), "val": rng.standard_normal(col.shape).astype(np.float32),
            "x": rng.standard_normal(x_floats).astype(np.float32)}


def _counts(col: np.ndarray, src: str = SPMV):
    t = _kernel(src, slots=col.shape[0])
    counted = gather_requests(_linearized(t), _values(col), {"n": N}, (GROUP,), (N // GROUP,),
                              32)
    return gather_shares(counted, "x", 128), counted["x"]


def test_the_gathers_are_the_loads_whose_index_the_data_gives():
    t = _kernel(SPMV)
    assert [(insn.id, name) for insn, name, _ in gather_sites(t.default_entrypoint)] == \
        [("add", "x")]
    # a subscript inside the subscript is one too; an index of inames is none
    nested = _kernel("y[i] = sum(k, val[k, i] * x[col[k, i]])")
    assert [name for _, name, _ in gather_sites(nested.default_entrypoint)] == ["x"]
    plain = _kernel("y[i] = sum(k, val[k, i] * x[i])")
    assert gather_sites(plain.default_entrypoint) == []


def test_a_chase_whose_index_is_written_twice_is_no_gather():
    # load_rounds' idx[j] = nxt[idx[j]]: which write a load reads is a question of order
    from gencl.spec import load_spec

    spec = load_spec("load_rounds")
    t = spec.program(spec.complete({"items_per_cu": 64, "chains": 1}))
    assert gather_sites(t.default_entrypoint) == []


i = np.arange(N)


@pytest.mark.parametrize("col, lines, sectors, new_share", [
    # coalesced: a sub-group's 32 floats are one 128-byte line, four sectors; each slot's
    # requests of a group (2 sub-groups × 2 slots) touch its 2 lines: half are new
    (np.stack([i, i]), 1.0, 4.0, 0.5),
    # a line a lane (32 floats apart): 32 lines and sectors a request, and the second slot
    # comes back to the first's lines
    (np.stack([32 * i, 32 * i]), 32.0, 32.0, 0.5),
    # every lane the same float: one line, one sector; a group's 4 requests, 1 line
    (np.zeros((2, N), dtype=np.int64), 1.0, 1.0, 0.25),
    # two slots a line a lane, apart: nothing comes back
    (np.stack([32 * i, 32 * i + 16384]), 32.0, 32.0, 1.0),
])
def test_lines_and_sectors_of_each_request_against_closed_forms(col, lines, sectors, new_share):
    shares, counted = _counts(col)
    assert counted["requests"] == (N // 32) * 2  # every group sampled: 8 sub-groups × 2 slots
    assert counted["groups"] == N // GROUP
    assert shares.lines_per_request == lines
    assert shares.sectors_per_request == sectors
    assert shares.new_share == pytest.approx(new_share)


def test_a_nested_subscript_is_counted_the_same():
    col = np.stack([32 * i, 32 * i + 16384])
    nested, _ = _counts(col, "y[i] = sum(k, val[k, i] * x[col[k, i]])")
    assert nested == _counts(col)[0]


def test_stats_mark_the_gather_only_with_data():
    col = np.stack([32 * i, 32 * i])
    t = _kernel(SPMV)
    with_data = compute_stats(t, {"n": N}, subgroup_size=32, values=_values(col))
    without = compute_stats(t, {"n": N}, subgroup_size=32)
    (x,) = [a for a in with_data.accesses if a.array == "x"]
    assert x.gather and x.lid0_stride == 0.0  # loopy sees no lane stride in x[j]
    assert set(with_data.extra["gathers"]) == {"x"}
    assert not any(a.gather for a in without.accesses) and without.extra["gathers"] == {}


def _priced(col, summary=None, x_floats=1 << 16):
    t = _kernel(SPMV, x_floats=x_floats)
    stats = compute_stats(t, {"n": N}, subgroup_size=32, values=_values(col, x_floats))
    (x,) = [a for a in stats.accesses if a.array == "x"]
    return stats, x, params_from(summary or {}, GPU)


def test_a_gathers_requests_and_bytes_come_from_the_data():
    stats, x, p = _priced(np.stack([32 * i, 32 * i]))
    # 512 lane loads of x: 16 sub-group instructions of 32 lines each
    assert cache_requests(x, stats, p) == 16 * 32
    # a sector a lane moved for 4 useful bytes
    assert access_efficiency(x, p, stats) == pytest.approx(4 / 32)
    coalesced, xc, _ = _priced(np.stack([i, i]))
    assert cache_requests(xc, coalesced, p) == 16 and access_efficiency(xc, p, coalesced) == 1


def test_a_gathered_array_the_first_level_holds_misses_nothing():
    col = np.stack([32 * i, 32 * i + 16384])
    small = {"cache_levels": [{"size_bytes": 512 << 10, "latency_cycles": 30}]}
    stats, x, p = _priced(col, small)  # x: 256 KiB
    assert gather_misses(x, stats, p, 1000.0) == 0.0


@pytest.mark.parametrize("first_bytes, misses", [
    (1 << 20, 500.0),   # the resident group's lines fit: only the new half misses
    (2048, 875.0),      # a quarter of them fit: 500 new + 500 × 3/4 returning
])
def test_a_groups_returning_requests_hit_while_the_resident_groups_lines_fit(first_bytes,
                                                                             misses):
    # both slots on the same lines: half of a group's requests are new; a group touches 64
    # lines (its 64 items a line each), and one group is resident a compute unit (256 items
    # over 4): 8 KiB of lines
    col = np.stack([32 * i, 32 * i])
    summary = {"cache_levels": [{"size_bytes": first_bytes, "latency_cycles": 30},
                                {"size_bytes": 1 << 30, "latency_cycles": 300}]}
    stats, x, p = _priced(col, summary, x_floats=1 << 20)  # x: 4 MiB, past the first level
    assert gather_shares(stats.extra["gathers"], "x", 128).lines_per_group == 64
    assert gather_misses(x, stats, p, 1000.0) == pytest.approx(misses)


def test_the_gather_terms_join_by_the_measured_exponents():
    """A line a lane from an array past the first level: its requests cost the next level's
    gather rate, joined to the DRAM term by next_level_request_overlap_exponent (1: a sum;
    64: a max)."""
    col = np.stack([32 * i, 32 * i + 16384])
    base = {"cache_levels": [{"size_bytes": 16 << 10, "latency_cycles": 30}],
            "copy_bw_Bps": 1e9, "next_level_gather_requests_per_s": 1e9,
            "first_level_gather_requests_per_s": 1e12}
    times = {}
    for p_next in (1.0, 64.0):
        stats, _, p = _priced(col, {**base, "next_level_request_overlap_exponent": p_next},
                              x_floats=1 << 20)
        times[p_next] = predict(stats, p)
    sum_, max_ = times[1.0], times[64.0]
    gathers = 512 / 1e9  # 16 instructions × 32 lines, all new, at 1e9 a second
    # (the other loads' few first-level requests besides)
    assert sum_.terms["cache_requests"] == pytest.approx(gathers, rel=0.05)
    # DRAM's 21.5 µs (its copy bandwidth 1 GB/s) the larger: a max is DRAM's alone, a sum
    # adds the gathers' whole time
    assert max_.time_s == pytest.approx(max_.terms["memory_bandwidth"])
    assert sum_.time_s - max_.time_s == pytest.approx(gathers, rel=0.01)


def test_without_the_benchmark_the_cache_requests_rates_price_a_gather():
    col = np.stack([32 * i, 32 * i + 16384])
    stats, _, p = _priced(col, {"cache_requests_per_s": 2e9, "l2_requests_per_s": 1e9})
    assert p.first_gather_requests_per_s == 2e9 and p.next_gather_requests_per_s == 1e9
    assert p.sources["next_level_gather_requests_per_s"] == "nominal"
    flat = dataclasses.replace(p, next_gather_requests_per_s=2e9)
    assert predict(stats, p).terms["cache_requests"] > predict(stats, flat).terms["cache_requests"]


def test_the_next_levels_gather_rate_follows_the_gathered_arrays_footprint():
    """request_overlap's rates by table size past the first level, log-log between the points,
    flat beyond them; its one next-level rate without them."""
    from gencl.model._predict import next_gather_rate

    summary = {"cache_levels": [{"size_bytes": 64 << 10, "latency_cycles": 30}],
               "next_level_gather_requests_per_s": 100e9,
               "gather_requests_by_footprint": [
                   {"footprint_bytes": 8 << 10, "requests_per_s": 800e9},   # the first level's
                   {"footprint_bytes": 4 << 20, "requests_per_s": 100e9},
                   {"footprint_bytes": 64 << 20, "requests_per_s": 25e9}]}
    p = params_from(summary, GPU)
    assert next_gather_rate(1 << 20, p) == pytest.approx(100e9)  # below the first past L1
    assert next_gather_rate(16 << 20, p) == pytest.approx(50e9)   # halfway in log footprint
    assert next_gather_rate(1 << 30, p) == pytest.approx(25e9)
    bare = params_from({"next_level_gather_requests_per_s": 100e9}, GPU)
    assert bare.sources["gather_requests_by_footprint"] == "nominal"
    assert next_gather_rate(1 << 30, bare) == 100e9


@pytest.mark.parametrize("col, lines", [
    (np.stack([i, i]), [[1, 2], [4, 8]]),            # a group's 64 floats: 2 lines
    (np.stack([32 * i, 32 * i]), [[1, 64], [4, 256]]),  # a line an item
])
def test_runs_of_consecutive_groups_count_the_lines_they_touch(col, lines):
    _, counted = _counts(col)
    assert counted["wave_lines"]["128"] == lines


def test_the_working_set_of_the_resident_groups():
    """``wave_bytes``: log-log between the counted runs, in proportion beyond the longest;
    ``gathered_bytes``: that at the device's resident groups, at most the array."""
    from gencl.model._gathers import wave_bytes
    from gencl.model._predict import gathered_bytes

    counted = {"x": {"wave_lines": {"128": [[1, 10], [4, 40], [16, 80]]}}}
    assert wave_bytes(counted, "x", 128, 2) == pytest.approx(20 * 128)
    assert wave_bytes(counted, "x", 128, 64) == pytest.approx(320 * 128)
    assert wave_bytes(counted, "y", 128, 4) is None
    stats, x, p = _priced(np.stack([32 * i, 32 * i]), x_floats=1 << 20)
    # one group resident on each of 4 compute units: 4 groups, 256 lines of the 4 MiB x
    assert gathered_bytes(x, stats, p) == pytest.approx(256 * 128)
    small = dataclasses.replace(stats, footprint={**stats.footprint, "x": 1000.0})
    assert gathered_bytes(x, small, p) == 1000.0


def test_a_gather_not_counted_on_the_data_says_why():
    t = _kernel(SPMV)
    without = compute_stats(t, {"n": N}, subgroup_size=32)
    assert "inputs were not drawn" in without.extra["gathers_not_counted"]
    # data without the index array: the indices cannot be evaluated
    values = {k: v for k, v in _values(np.stack([i, i])).items() if k != "col"}
    bad = compute_stats(t, {"n": N}, subgroup_size=32, values=values)
    assert bad.extra["gathers"] == {}
    assert "could not be evaluated" in bad.extra["gathers_not_counted"]
    counted = compute_stats(t, {"n": N}, subgroup_size=32, values=_values(np.stack([i, i])))
    assert "gathers_not_counted" not in counted.extra
    plain = compute_stats(_kernel("y[i] = sum(k, val[k, i] * x[i])"), {"n": N},
                          subgroup_size=32)
    assert "gathers_not_counted" not in plain.extra


def test_explain_prints_why_a_gather_was_not_counted(capsys):
    from gencl.model._report import print_explanation

    stats, _, p = _priced(np.stack([i, i]))
    stats = dataclasses.replace(stats, extra={**stats.extra, "gathers": {},
                                              "gathers_not_counted": "a reason"})
    print_explanation("k", {}, {"n": N}, stats, predict(stats, p), p)
    out = capsys.readouterr().out
    assert "not counted on the data: a reason" in out.replace("\n", " ")
