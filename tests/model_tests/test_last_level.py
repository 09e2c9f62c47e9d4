"""Re-touch misses past the last level: a register-blocked row's requests that miss the first
level come from DRAM again, a sector each, where the resident items' footprints overflow the
largest measured cache (``_cache_reuse.last_level_hit_share``), against closed forms."""

from __future__ import annotations

import dataclasses

import loopy as lp
import numpy as np
import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._cache_reuse import (
    first_level_hit_share, item_footprint_bytes, last_level_hit_share)
from gencl.model._predict import _concurrency, cache_requests

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "max_work_group_size": 1024}
ITEMS = 1 << 16


def test_an_items_footprint_is_its_distinct_sectors():
    trace = {"arrays": {"u": {"addr": [0, 4, 8, 28, 32, 100]},   # sectors 0, 1, 3
                        "v": {"addr": [64, 64, 68]}}}             # sector 2
    assert item_footprint_bytes(trace, 32) == 4 * 32
    assert item_footprint_bytes(None, 32) == 0.0


def _blocked_row(block: int):
    """Each item copies *block* consecutive floats of a row (lanes *block* floats apart: the
    next block element's instruction comes back to the lines the first one touched)."""
    knl = lp.make_kernel(
        "{[i, b]: 0 <= i < n and 0 <= b < %d}" % block,
        f"y[{block} * i + b] = 2.0f * x[{block} * i + b]",
        [lp.GlobalArg("x", np.float32, shape=(f"{block} * n",)),
         lp.GlobalArg("y", np.float32, shape=(f"{block} * n",), is_input=False,
                      is_output=True),
         lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    knl = lp.tag_inames(knl, {"b": "unr"})
    return compute_stats(knl, {"n": ITEMS}, subgroup_size=32)


@pytest.mark.parametrize("last_level, hit", [(1 << 40, 1.0), (1 << 10, None)])
def test_blocked_rows_misses_come_from_dram_where_the_footprints_overflow(last_level, hit):
    stats = _blocked_row(8)
    # a first level of 1 KiB holds no sub-group's lines: every re-touch misses it
    p = params_from({"cache_levels": [{"size_bytes": 1024}, {"size_bytes": last_level}]}, GPU)
    conc = _concurrency(stats, p)
    footprint = item_footprint_bytes(stats.extra["item_trace"], p.sector_bytes)
    assert footprint == 2 * 32  # 8 floats of x and of y: one sector each
    share = last_level_hit_share(stats, conc, p)
    assert share == pytest.approx(hit if hit is not None
                                  else last_level / (footprint * conc * p.compute_units))
    gaps = sum(cache_requests(a, stats, p) for a in stats.accesses if a.leaves_gaps)
    misses = gaps * (1.0 - first_level_hit_share(stats, "subgroup_lines", conc, p))
    assert misses > 0
    # the same device with a last level that holds everything (its re-read rules unchanged)
    fits = dataclasses.replace(p, cache_level_bytes=(1024, 1 << 40))
    extra = predict(stats, p).terms["memory_bandwidth"] \
        - predict(stats, fits).terms["memory_bandwidth"]
    assert extra == pytest.approx(misses * (1.0 - share) * p.sector_bytes / p.dram_bw)
    # explain names them: DRAM re-reads a cache that held every item's lines would spare
    reuse = {c.name: c for c in predict(stats, p).criteria}["dram_reuse"]
    assert (reuse.value < 1.0) == (hit is None)
    assert "outgrow the last cache level" in reuse.hint


def test_rows_of_one_element_an_item_have_no_retouch_to_miss():
    stats = _blocked_row(1)
    assert not any(a.leaves_gaps for a in stats.accesses)
    tiny = params_from({"cache_levels": [{"size_bytes": 1024}, {"size_bytes": 1024}]}, GPU)
    fits = dataclasses.replace(tiny, cache_level_bytes=(1024, 1 << 40))
    assert predict(stats, tiny).terms["memory_bandwidth"] \
        == predict(stats, fits).terms["memory_bandwidth"]
