"""fill_overlap: every read a sub-group makes of either table is one whole line, the fills'
places never repeat within an item's reads, the fit recovers the exponent (over the hits and
the fills' own requests, as the model counts them) from synthetic records whose answer is
known, too few points or a form that does not fit give none, and the quick sweep runs on PoCL
(matches numpy, feeds the analysis)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.fill_overlap import (
    EXPONENT_KEY, FILL_ROWS, FILLS_BYTES, HITS_BYTES, hit_requests)
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record

SIZES = {"n": 1 << 19, "K": 64}


def _module():
    return sys.modules[load_spec("fill_overlap").program.__module__]


def test_every_read_of_a_sub_group_is_one_whole_line():
    m = _module()
    for first in (0, 32 * 1000, SIZES["n"] - 32):
        lanes = np.arange(first, first + 32)
        for k in (0, 7, 15):
            for f in range(FILL_ROWS):
                index = m.fills_index(lanes, k, f)
                assert index.min() >= 0 and index.max() < FILLS_BYTES // 4
                assert index[0] % 32 == 0 and list(np.diff(index)) == [1] * 31
            for h in range(max(m.HITS)):
                index = m.hits_index(lanes, k, h)
                assert index.min() >= 0 and index.max() < HITS_BYTES // 4
                assert index[0] % 32 == 0 and list(np.diff(index)) == [1] * 31


def test_reads_never_share_a_place_where_the_first_level_could_keep_it():
    m = _module()
    # an item's fills over its K × F reads: every line new (its first level keeps none)
    lines = [int(m.fills_index(0, k, f)) // 32 for k in range(SIZES["K"])
             for f in range(FILL_ROWS)]
    assert len(set(lines)) == len(lines)
    # an iteration's hits: distinct places (a compiler folds reads of one place into one load),
    # and the window moves with the iteration (no read is the same in every one)
    places = [[int(m.hits_index(0, k, h)) for h in range(max(m.HITS))] for k in range(16)]
    assert all(len(set(row)) == len(row) for row in places)
    assert len({row[0] for row in places}) == 16


def _point(hits, fills):
    return {"hits": hits, "fills": fills, "workgroup": 256}


def _records(p, t_fill=300e-6, rate=250e9, hits=(4, 8, 16, 32, 48, 64)):
    out = [record(_point(0, "on"), SIZES, t_fill, vid="fill")]
    for g in hits:
        alone = hit_requests(_point(g, "off"), SIZES) / rate
        out.append(record(_point(g, "off"), SIZES, alone, vid=f"{g}-off"))
        # the fills' own line requests (F an iteration) join the hits' in the requests term
        requests = hit_requests(_point(g + FILL_ROWS, "off"), SIZES) / rate
        both = (t_fill ** p + requests ** p) ** (1 / p)
        out.append(record(_point(g, "on"), SIZES, both, vid=f"{g}-on"))
    return out


@pytest.mark.parametrize("p", [1.3, 4.0])
def test_the_fit_recovers_the_exponent(p):
    recs = _records(p)
    recs.append(record(_point(16, "on"), SIZES, 1e-9, status="wrong_answer", vid="bad"))
    result = get_analysis("fill_overlap")(recs, DEVICE, 2e9)
    (exponent,) = result.characteristics
    assert exponent.name == EXPONENT_KEY and exponent.value == pytest.approx(p, rel=0.05)
    assert exponent.variants == tuple(f"{g}-on" for g in (4, 8, 16, 32, 48, 64))
    series = result.series["fill_overlap_time_vs_hits"]
    assert series["x"] == [0, 4, 8, 16, 32, 48, 64]
    assert series["y"]["fills off"][0] is None  # no point without fills or hits
    assert any(n.startswith("4 first-level reads an iteration, no fills: 250.0·10⁹")
               for n in result.notes)


def test_too_few_points_give_no_exponent():
    result = get_analysis("fill_overlap")(_records(2.0, hits=(4, 8)), DEVICE, 2e9)
    assert result.characteristics == ()
    assert any("too few points" in n for n in result.notes)


def test_a_form_that_does_not_fit_gives_no_exponent():
    # the points with both: every other one three times slower
    noisy = [record(r["point"], SIZES, float(r["median_s"]) * (3.0 if r["variant_id"] in (
        "8-on", "32-on", "64-on") else 1.0), vid=r["variant_id"]) for r in _records(2.0)]
    result = get_analysis("fill_overlap")(noisy, DEVICE, 2e9)
    assert result.characteristics == ()
    assert any("does not fit" in n for n in result.notes)


def test_quick_sweep_on_pocl(engine):
    from gencl.measure import run_points

    spec = load_spec("fill_overlap")
    points = spec.sweep_points(engine.info, quick=True)
    assert {(p["hits"], p["fills"]) for p in points} == {
        (0, "on"), (4, "on"), (4, "off"), (16, "on"), (16, "off")}
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("fill_overlap")([m.to_json() for m in results],
                                          engine.info.to_json(), None)
    assert sum("no fills" in n for n in result.notes) == 2
