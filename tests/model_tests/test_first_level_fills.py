"""What a work-group brings into the first-level cache, against closed forms on the real
generator's laplace3d (a 7-point star: the group's tile, its halo rows and its neighbour planes,
each sector once; a line request for each warp load that needs a new sector) and on a row that
starts 64 bytes into a line, and how the next level's measured rates price it."""

from __future__ import annotations

import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._cache_reuse import first_level_fills
from gencl.model._params import nominal_inputs

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128}
SIZES = {"nz": 64, "ny": 64, "nx": 128}


def _laplace3d(**point):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load("tuning/laplace3d.py")
    return compute_stats(transform_program(spec, spec.complete(point)), SIZES, subgroup_size=32)


@pytest.mark.parametrize("point, sectors, requests", [
    # 32×4 items, a warp a row of 128 bytes that starts 64 bytes into a line: two half-line
    # requests a row. Sectors: the planes above and below, 4 rows of 4 (32); the centre plane,
    # its 4 rows and the halo rows above and below (24), and beside each centre row the sector
    # its west and its east neighbour reach into (8); the stored rows (16). Requests: 2 planes ×
    # 4 rows × 2, 4 centre rows × 2, the side sectors' lines 4 × 2, 2 halo rows × 2, 4 stored × 2
    ({"workgroup": [32, 4, 1]}, 32 + 24 + 8 + 16, 16 + 8 + 8 + 4 + 8),
    # 128×1: one row of 16 sectors in each plane above and below (32), three in the centre plane
    # (48) and its two side sectors, the stored row (16): more halo for as many items; requests:
    # 4 warps × 2 half lines × (planes 2, centre 1, halo rows 2, stored 1), the ends' side lines
    ({"workgroup": [128, 1, 1]}, 32 + 48 + 2 + 16, 4 * 2 * 6 + 2),
    # streamed through 4 planes: 6 planes of the tile (96), each centre plane's halo rows (4 × 8)
    # and side sectors (4 × 8), 4 stored tiles (64): each plane read once, not 3 times; requests:
    # 6 planes × 4 warps × 2, 4 centre planes × (8 side lines + 2 halo rows × 2), 4 × 4 × 2 stored
    ({"workgroup": [32, 4, 1], "stream_k": 4}, 96 + 32 + 32 + 64, 48 + 48 + 32),
    # float4, 32×4 items = 128 × 4 points: the planes above and below (2 × 64), the centre
    # plane's 6 rows (96), one side vector's sector beside each centre row (8), stores (64).
    # A warp's row is 512 bytes from 64 bytes into a line: 5 lines. The west vectors come
    # first and reach 16 bytes further back (5 lines), the centre's last sector is theirs, the
    # east vectors' last sector is new (1): 2 planes × 4 rows × 5, 4 centre rows × 6, 2 halo
    # rows × 5, 4 stored × 5
    ({"workgroup": [32, 4, 1], "vector_width": 4}, 128 + 96 + 8 + 64, 40 + 24 + 10 + 20),
])
def test_a_group_brings_its_tile_halo_and_planes_in_once(point, sectors, requests):
    """Rows are 640 bytes apart (128 points padded to 160, 16 a side), so every row starts 64
    bytes into a 128-byte line, as the buffer's rows do: the trace keeps each address's place in
    a line. A row of 32 floats is 4 sectors in two half lines, and the west and east neighbours
    of its ends reach one sector beyond each."""
    stats = _laplace3d(**point)
    assert first_level_fills(stats.extra["item_trace"], line=128, sector=32, subgroup=32) == \
        (requests, sectors * 32)


def test_the_trace_keeps_the_first_items_addresses_in_a_page():
    """On a kernel whose rows are not whole lines (Jacobi's branch layout, 100 + 16 columns of
    464 bytes), the trace's lowest address of each array is the middle work-group's first item's
    own lowest address, modulo TRACE_ALIGN: its north neighbour for u, its point for f and
    u_new. So every row of the group lies where it lies in the buffer, each at its own place in
    a line."""
    from gencl.api import load
    from gencl.generate import transform_program
    from gencl.model._stats import TRACE_ALIGN

    spec = load("tuning/jacobi.py")
    point = spec.complete({"boundary": "branch", "workgroup": (32, 4)})
    n, cols = 100, 100 + 16
    trace = compute_stats(transform_program(spec, point), {"n": n},
                          subgroup_size=32).extra["item_trace"]
    assert trace["local"] == [32, 4]
    gx, gy = ((g - 1) // 2 for g in trace["groups"])
    i0, j0 = gy * 4, gx * 32  # the group's first item: row i0, column j0 (local axis 0)
    lowest = {"u": (i0 - 1) * cols + j0, "f": i0 * cols + j0, "u_new": i0 * cols + j0}
    for name, element in lowest.items():
        array = trace["arrays"][name]
        assert array["step"] == [4, cols * 4]
        assert min(array["addr"]) == element * 4 % TRACE_ALIGN, name
    assert min(trace["arrays"]["u"]["addr"]) % 128 != 0  # an unaligned row, as laid out


def test_a_row_off_the_line_asks_twice_per_warp():
    """Two warps load a float row: starting on a 128-byte line, one line each (2 requests of 4
    sectors); starting 64 bytes in, each warp's 128 bytes are two half lines (4 requests) for
    the same 8 sectors: the second warp needs other sectors of the line the first asks for."""
    def row(start):
        return {"arrays": {"u": {"pos": [0], "addr": [start], "load": [True], "bytes": 4,
                                 "step": [4]}}, "length": 1, "local": [64]}

    assert first_level_fills(row(0), line=128, sector=32, subgroup=32) == (2, 256)
    assert first_level_fills(row(64), line=128, sector=32, subgroup=32) == (4, 256)


def test_no_trace_no_fills():
    assert first_level_fills(None, line=128, sector=32, subgroup=32) is None
    empty = {"arrays": {}, "length": 0, "local": [32]}
    assert first_level_fills(empty, line=128, sector=32, subgroup=32) is None


def test_the_next_levels_rates_price_the_fills_where_they_are_slower_than_drams():
    """terms["l2_bandwidth"] = groups × (requests / l2_line_requests_per_s + sectors /
    l2_sectors_per_s), or groups × bytes / l2_read_bw_Bps where only that was measured. Where
    DRAM is slower the time is the same as without the figures (DRAM's bytes pass the same
    level: the slower sets the pace); where the next level is far slower the time is its term,
    its bottleneck, and the first_level_fills criterion offers the time at DRAM's pace."""
    stats = _laplace3d(workgroup=[128, 1, 1])
    requests, moved = first_level_fills(stats.extra["item_trace"], line=128, sector=32,
                                        subgroup=32)
    base = {"copy_bw_Bps": 1e12, "cache_requests_per_s": 1e15, "group_dispatch_s": 1e-15,
            "global_latency_cycles": 1.0}
    bare = predict(stats, params_from(base, GPU))
    assert bare.terms["l2_bandwidth"] == 0.0
    fast = predict(stats, params_from({**base, "l2_read_bw_Bps": 1e15}, GPU))
    assert fast.terms["l2_bandwidth"] == pytest.approx(moved * stats.groups / 1e15)
    assert fast.terms["l2_bandwidth"] < fast.terms["memory_bandwidth"]
    assert fast.time_s == pytest.approx(bare.time_s)
    split = {"l2_line_requests_per_s": 2e7, "l2_sectors_per_s": 4e7, "l2_read_bw_Bps": 1e15}
    slow = predict(stats, params_from({**base, **split}, GPU))
    t_l2 = stats.groups * (requests / 2e7 + moved / 32 / 4e7)  # the split, not the bandwidth
    assert slow.terms["l2_bandwidth"] == pytest.approx(t_l2)
    assert slow.bottleneck == "l2_bandwidth"
    assert slow.time_s == pytest.approx(t_l2, rel=1e-3)
    criterion = {c.name: c for c in slow.criteria}["first_level_fills"]
    assert criterion.value == pytest.approx(slow.terms["memory_bandwidth"] / t_l2)
    assert criterion.speedup == pytest.approx(slow.time_s / bare.time_s)
    assert {c.name: c for c in fast.criteria}["first_level_fills"].speedup == 1.0


def test_without_the_figures_the_fills_are_not_priced_and_explain_says_so():
    p = params_from({}, GPU)
    assert p.l2_bw == 0.0 and p.sources["l2_read_bw_Bps"] == "nominal"
    assert p.l2_line_requests_per_s == p.l2_sectors_per_s == 0.0
    assert {"l2_read_bw_Bps", "l2_line_requests_per_s", "l2_sectors_per_s"} <= \
        set(nominal_inputs("l2_bandwidth", p))
    measured = params_from({"l2_read_bw_Bps": 8e12, "l2_line_requests_per_s": 2.8e11,
                            "l2_sectors_per_s": 3.8e11}, GPU)
    assert measured.l2_bw == 8e12 and measured.l2_sectors_per_s == 3.8e11
    assert nominal_inputs("l2_bandwidth", measured) == []


def test_a_next_level_slower_than_dram_is_not_taken_for_one():
    """A first level is filled from a cache, never slower than DRAM's copy: a level-2 figure
    below it measured something else (Debian's PoCL on a 2-core EPYC: 10 GB/s beside a 51 GB/s
    copy, the runtime's scalar loop over warp-shaped strides), and the fills are not priced."""
    slow = params_from({"copy_bw_Bps": 5.1e10, "l2_read_bw_Bps": 1.0e10}, GPU)
    assert slow.l2_bw == 0.0 and slow.sources["l2_read_bw_Bps"] == "nominal"
    stats = _laplace3d(workgroup=[128, 1, 1])
    assert predict(stats, slow).terms["l2_bandwidth"] == 0.0
    fast = params_from({"copy_bw_Bps": 5.1e10, "l2_read_bw_Bps": 2.0e11}, GPU)
    assert fast.l2_bw == 2.0e11 and fast.sources["l2_read_bw_Bps"] == "measured"


def test_stack_distances_count_the_distinct_keys_between_two_touches():
    """Against the definition, on random events: for each touch of a key touched before, the
    distinct keys touched strictly between the two positions."""
    import numpy as np

    from gencl.model._cache_reuse import reuse_stack_distances

    rng = np.random.default_rng(7)
    pairs = np.unique(np.stack([rng.integers(0, 400, 3000), rng.integers(0, 60, 3000)], 1),
                      axis=0)
    t, key = pairs[:, 0], pairs[:, 1]
    prev, distance = reuse_stack_distances(t, key)
    expected_prev, expected = [], []
    for i in range(len(t)):
        earlier = t[(key == key[i]) & (t < t[i])]
        expected_prev.append(earlier.max() if len(earlier) else -1)
        if len(earlier):
            between = (t > earlier.max()) & (t < t[i])
            expected.append(len(set(key[between].tolist())))
    assert prev.tolist() == expected_prev
    assert distance.tolist() == expected


def _rows_then_first_again(rows):
    """A group of one warp that reads *rows* aligned rows of 32 floats (4 sectors, one line
    each), one a position, then the first row again."""
    order = list(range(rows)) + [0]
    return {"arrays": {"u": {"pos": list(range(rows + 1)), "addr": [r * 4096 for r in order],
                             "load": [True] * (rows + 1), "bytes": 4, "step": [4]}},
            "length": rows + 1, "local": [32]}


@pytest.mark.parametrize("groups, cache, refills", [
    # 7 rows of 4 sectors between the two reads of row 0: 28 × 32 B = 896 B a group
    (1, 1024, (0.0, 0.0)),
    (1, 896, (0.0, 0.0)),  # exactly what it holds
    (2, 1024, (1.0, 128.0)),  # a second group beside it: 1,792 B, row 0 comes again
    (1, 800, (1.0, 128.0)),
])
def test_a_row_read_again_after_the_cache_let_it_go_is_filled_again(groups, cache, refills):
    """``first_level_refills``: the group's re-read misses where the resident groups × the
    distinct sectors read since its first read exceed the first level: its 4 sectors again, in
    one line request. ``first_level_fills`` counts each sector once whatever the cache."""
    from gencl.model._cache_reuse import first_level_refills

    trace = _rows_then_first_again(8)
    assert first_level_fills(trace, line=128, sector=32, subgroup=32) == (8, 8 * 128)
    assert first_level_refills(trace, line=128, sector=32, subgroup=32, resident_groups=groups,
                               cache=cache) == refills


def test_a_stream_of_blocked_rows_refills_only_past_the_first_level():
    """laplace3d with 2 rows an item around a 4-plane stream reads each row's neighbour rows
    again the stream after: with a first level that holds everything nothing comes again,
    with a small one the re-read rows do, and the more groups share it the more."""
    from gencl.model._cache_reuse import first_level_refills

    trace = _laplace3d(workgroup=[32, 4, 1], stream_k=4, block_j=2).extra["item_trace"]
    args = {"line": 128, "sector": 32, "subgroup": 32}
    _, once = first_level_fills(trace, **args)
    assert first_level_refills(trace, resident_groups=8, cache=1 << 30, **args) == (0.0, 0.0)
    few = first_level_refills(trace, resident_groups=1, cache=4 << 10, **args)
    many = first_level_refills(trace, resident_groups=8, cache=4 << 10, **args)
    assert 0 < few[1] < many[1]
    assert 0 < few[0] <= many[0]
    assert many[1] < 3 * once  # each sector comes again at most once per neighbour row
