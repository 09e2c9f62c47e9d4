"""request_overlap: every lane of a gather reads its own line, the fit recovers the overlap
exponent and the requests' rate from synthetic records, too few points give none, and the quick
sweep runs on PoCL (matches numpy, feeds the analysis)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.request_overlap import (
    EXPONENT_KEYS, RATE_KEYS, TABLE_BYTES, line_requests, table_index)
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record

SIZES = {"n": 1 << 19, "K": 16}


@pytest.mark.parametrize("level", sorted(TABLE_BYTES))
@pytest.mark.parametrize("line", [64, 128])
def test_every_lane_of_a_sub_group_reads_its_own_line(level, line):
    floats = TABLE_BYTES[level] // 4
    for gathers in (1, 16):
        for k in (0, 7):
            for r in range(gathers):
                for first in (0, 32 * 1000, 32 * 5001):  # sub-groups, also once the index wraps
                    lanes = np.arange(first, first + 32)
                    index = table_index(lanes, k, r, gathers, floats)
                    assert len(set(index * 4 // line)) == 32
                    assert index.min() >= 0 and index.max() < floats


def _point(level, gathers, stream):
    return {"level": level, "gathers": gathers, "stream": stream, "workgroup": 256}


def _records(p_first, p_next, t_dram=200e-6, rates=None):
    """Times of the overlap form: the stream alone t_dram, G gathers alone G·k, both the
    p-norm."""
    rates = rates or {"first": 800e9, "next": 130e9}
    out = []
    for level, p in (("first", p_first), ("next", p_next)):
        out.append(record(_point(level, 0, "on"), SIZES, t_dram, vid=f"{level}-0"))
        for g in (1, 2, 4, 8, 16):
            alone = line_requests(_point(level, g, "off"), SIZES) / rates[level]
            out.append(record(_point(level, g, "off"), SIZES, alone, vid=f"{level}-{g}-off"))
            both = (t_dram ** p + alone ** p) ** (1 / p)
            out.append(record(_point(level, g, "on"), SIZES, both, vid=f"{level}-{g}-on"))
    return out


def test_the_fit_recovers_each_levels_exponent_and_rate():
    result = get_analysis("request_overlap")(_records(12.0, 1.5), DEVICE, 2e9)
    chars = {c.name: c for c in result.characteristics}
    assert chars[EXPONENT_KEYS["first"]].value == pytest.approx(12.0, rel=0.05)
    assert chars[EXPONENT_KEYS["next"]].value == pytest.approx(1.5, rel=0.05)
    assert chars[RATE_KEYS["first"]].value == pytest.approx(800e9)
    assert chars[RATE_KEYS["next"]].value == pytest.approx(130e9)
    assert chars[EXPONENT_KEYS["next"]].variants == tuple(f"next-{g}-on" for g in (1, 2, 4, 8,
                                                                                    16))
    series = result.series["request_overlap_time_vs_gathers"]
    assert series["x"] == [0, 1, 2, 4, 8, 16]
    assert series["y"]["first, stream off"][0] is None  # no point without stream or gathers


def test_too_few_points_no_exponent():
    recs = [r for r in _records(4.0, 4.0) if r["point"]["level"] == "first"
            and (r["point"]["gathers"] in (0, 1) or r["point"]["stream"] == "off")]
    result = get_analysis("request_overlap")(recs, DEVICE, None)
    names = {c.name for c in result.characteristics}
    assert EXPONENT_KEYS["first"] not in names and RATE_KEYS["first"] in names
    assert any("too few points" in n for n in result.notes)
    assert get_analysis("request_overlap")([], DEVICE, None).characteristics == ()


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points

    spec = load_spec("request_overlap")
    points = spec.sweep_points(engine.info, quick=True)
    assert {(p["level"], p["gathers"], p["stream"]) for p in points} == {
        (level, g, s) for level in TABLE_BYTES for g, s in ((0, "on"), (4, "on"), (4, "off"))}
    for p in points:  # the stream's rows and the gathers, each as the point says
        source = generate(spec, p).source
        assert source.count("src[") == (16 if p["stream"] == "on" else 0)
        assert source.count("table[") == p["gathers"]
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("request_overlap")([m.to_json() for m in results],
                                             engine.info.to_json(), None)
    rates = {c.name: c.value for c in result.characteristics}
    assert set(rates) == set(RATE_KEYS.values())  # 2 gather counts: too few for a fit
    assert all(math.isfinite(v) and v > 0 for v in rates.values())
