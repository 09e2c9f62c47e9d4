"""load_rounds: the ring a walk follows, the best round time per bytes in flight from synthetic
records, and the quick sweep on PoCL (matches numpy, walks coalesced rows, feeds the analysis)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.load_rounds import inflight_bytes_per_cu
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record


def point(items, chains, wg=64):
    return {"items_per_cu": items, "chains": chains, "workgroup": wg}


def test_every_step_reads_the_next_row_of_its_own_column():
    spec = load_spec("load_rounds")
    m, steps = 8, 5
    nxt = spec.inputs(point(64, 2), {"m": m, "K": steps}, np.random.default_rng(3))["nxt"]
    rows = steps + 1
    assert nxt.shape == (2 * rows * m,)
    for j in range(2):
        block = nxt[j * rows * m:(j + 1) * rows * m].reshape(rows, m) - j * rows * m
        # a column stays a column: every word of a row points into one next row, same column
        assert (block % m == np.arange(m)).all()
        succ = block[:, 0] // m
        assert (block // m == succ[:, None]).all()
        # one cycle through every row, so a walk of K < rows steps never reads a row twice
        seen, r = set(), 0
        for _ in range(rows):
            seen.add(r)
            r = succ[r]
        assert r == 0 and seen == set(range(rows))


def test_best_round_per_inflight():
    steps = 1000
    recs = [record(point(64, 1), {"m": 64 * 132, "K": steps}, 600e-9 * steps, vid="a"),
            record(point(256, 4), {"m": 256 * 132, "K": steps}, 900e-9 * steps, vid="b"),
            # 1,024 items × 1 chain: the same 4 KiB in flight as b, and faster
            record(point(1024, 1), {"m": 1024 * 132, "K": steps}, 800e-9 * steps, vid="c"),
            record(point(2048, 16), {"m": 2048 * 132, "K": 64}, 1e-9, status="wrong_answer",
                   vid="bad")]
    result = get_analysis("load_rounds")(recs, DEVICE, 2e9)
    (curve,) = result.characteristics
    assert curve.name == "round_time_by_inflight"
    assert curve.value == [{"inflight_bytes_per_cu": 256, "round_s": pytest.approx(600e-9)},
                           {"inflight_bytes_per_cu": 4096, "round_s": pytest.approx(800e-9)}]
    assert curve.variants == ("a", "c")
    s = result.series["round_time_vs_inflight"]
    assert s["x"] == [256, 4096]
    assert s["y"]["1 chain"] == [pytest.approx(600e-9), pytest.approx(800e-9)]
    assert s["y"]["4 chains"] == [None, pytest.approx(900e-9)]
    assert any("round 600 ns, 1200 cycles" in n for n in result.notes)


def test_no_record_no_figure():
    result = get_analysis("load_rounds")([], DEVICE, None)
    assert result.characteristics == ()


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points

    spec = load_spec("load_rounds")
    points = spec.sweep_points(engine.info, quick=True)
    assert {inflight_bytes_per_cu(p) for p in points} == {256, 4096, 65536}
    for p in points:  # each chain's step: one load whose index is the last load's value
        source = generate(spec, p).source
        assert source.count("= nxt[idx[") == p["chains"]
        assert source.count("for (int k") == 1  # all chains step in the same loop
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("load_rounds")([m.to_json() for m in results],
                                         engine.info.to_json(), None)
    (curve,) = result.characteristics
    assert [c["inflight_bytes_per_cu"] for c in curve.value] == [256, 4096, 65536]
    assert all(math.isfinite(c["round_s"]) and c["round_s"] > 0 for c in curve.value)
