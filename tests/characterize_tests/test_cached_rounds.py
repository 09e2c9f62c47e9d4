"""cached_rounds: the cached table keeps each word in its lane, the slope per level and load from
synthetic records, and the quick sweep on PoCL (matches numpy, each hit a load of the table,
feeds the analysis)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record


def point(items, hits, level, wg=64):
    return {"items_per_cu": items, "hits": hits, "level": level, "workgroup": wg}


def test_the_table_is_one_ring_through_its_rows_keeping_every_lane():
    spec = load_spec("cached_rounds")
    near = spec.inputs(point(512, 2, "l1"), {"m": 128, "K": 5},
                       np.random.default_rng(5))["near"]
    rows = near.reshape(-1, 32)
    assert rows.shape == (4, 32)
    assert (rows % 32 == np.arange(32)).all()  # a sub-group's step reads one line
    succ = rows[:, 0] // 32
    assert (rows // 32 == succ[:, None]).all()
    seen, r = set(), 0
    for _ in range(len(rows)):
        seen.add(r)
        r = succ[r]
    assert r == 0 and seen == set(range(len(rows)))


def test_slope_per_level_at_the_heaviest_load():
    steps = 500
    recs = []
    # step = DRAM round + hits × cached round: l1 40 ns, l2 250 ns at 2,048 items; 512 items
    # faster DRAM rounds and a 30 ns l1 round (not the heaviest load: not the figure)
    for items, dram, l1, l2 in ((2048, 600e-9, 40e-9, 250e-9), (512, 400e-9, 30e-9, 200e-9)):
        for hits in (0, 1, 2, 4):
            for level, cached in (("l1", l1), ("l2", l2)):
                recs.append(record(point(items, hits, level), {"m": items * 132, "K": steps},
                                   (dram + hits * cached) * steps, vid=f"{level}{items}h{hits}"))
    recs.append(record(point(2048, 8, "l1"), {"m": 2048 * 132, "K": steps}, 1e-9,
                       status="wrong_answer"))
    result = get_analysis("cached_rounds")(recs, DEVICE, 2e9)
    chars = {c.name: c for c in result.characteristics}
    assert chars["l1_round_s"].value == pytest.approx(40e-9)
    assert chars["l2_round_s"].value == pytest.approx(250e-9)
    assert set(chars["l2_round_s"].variants) == {f"l22048h{h}" for h in (0, 1, 2, 4)}
    table = {(row["level"], row["items_per_cu"]): row
             for row in chars["cached_round_by_load"].value}
    assert table[("l1", 512)]["round_s"] == pytest.approx(30e-9)
    assert table[("l2", 512)]["dram_round_s"] == pytest.approx(400e-9)
    assert any("l2, 2048 items per CU: DRAM round 600 ns, cached round 250 ns (500 cycles)" in n
               for n in result.notes)
    series = result.series["step_time_vs_hits"]
    assert series["x"] == [0, 1, 2, 4]
    assert series["y"]["l1, 2048 items/CU"][2] == pytest.approx(680e-9)


def test_one_hit_count_gives_no_slope():
    recs = [record(point(2048, 2, "l1"), {"m": 2048 * 132, "K": 100}, 1e-4)]
    result = get_analysis("cached_rounds")(recs, DEVICE, None)
    assert result.characteristics == ()
    assert any("no slope" in n for n in result.notes)
    assert get_analysis("cached_rounds")([], DEVICE, None).characteristics == ()


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points

    spec = load_spec("cached_rounds")
    points = spec.sweep_points(engine.info, quick=True)
    assert {(p["level"], p["hits"]) for p in points} == {("l1", 0), ("l1", 2), ("l2", 0),
                                                         ("l2", 2)}
    for p in points:  # a DRAM step, then each hit one load of the table that waits for the last
        source = generate(spec, p).source
        assert source.count("= nxt[") == 1
        assert source.count("h = near[") == p["hits"]
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("cached_rounds")([m.to_json() for m in results],
                                           engine.info.to_json(), None)
    chars = {c.name: c for c in result.characteristics}
    assert set(chars) == {"l1_round_s", "l2_round_s", "cached_round_by_load"}
    assert all(math.isfinite(row["dram_round_s"]) for row in chars["cached_round_by_load"].value)
