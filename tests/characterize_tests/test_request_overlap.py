"""request_overlap: every lane of a gather reads its own line and a coalesced read's sub-group
one line, the fit recovers each level's and each lane pattern's overlap exponent and the
gathers' rate from synthetic records, too few points give none, and the quick sweep runs on
PoCL (matches numpy, feeds the analysis)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.request_overlap import (
    EXPONENT_KEYS, LEVEL_TABLES, LINE_EXPONENT_KEYS, RATE_KEYS, RESIDENT_EXPONENT_KEY,
    TABLE_BYTES, line_requests)
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record

SIZES = {"n": 1 << 19, "K": 16}


@pytest.mark.parametrize("table", sorted(TABLE_BYTES))
@pytest.mark.parametrize("line", [64, 128])
def test_every_lane_of_a_sub_group_reads_its_own_line(table, line):
    import sys

    spec = load_spec("request_overlap")
    module = sys.modules[spec.program.__module__]
    table_index, strided = module.table_index, TABLE_BYTES[table] <= module.STRIDED_MAX_BYTES
    floats = TABLE_BYTES[table] // 4
    for gathers in (1, 16):
        for k in (0, 7):
            for r in range(gathers):
                for first in (0, 32 * 1000, 32 * 5001):  # sub-groups, also once the index wraps
                    lanes = np.arange(first, first + 32)
                    index = table_index(lanes, k, r, gathers, floats)
                    assert index.min() >= 0 and index.max() < floats
                    distinct = len(set(index * 4 // line))
                    # strided: exactly; hashed (a larger table): a collision is rare
                    assert distinct == 32 if strided else distinct >= 31


@pytest.mark.parametrize("table", sorted(TABLE_BYTES))
def test_a_coalesced_reads_sub_group_reads_one_whole_line(table):
    import sys

    spec = load_spec("request_overlap")
    table_index = sys.modules[spec.program.__module__].table_index
    floats = TABLE_BYTES[table] // 4
    lines = set()
    for k in (0, 7):
        for r in range(16):
            for first in (0, 32 * 1000, 32 * 5001):
                index = table_index(np.arange(first, first + 32), k, r, 16, floats, "coalesced")
                assert index.min() >= 0 and index.max() < floats
                assert index[0] % 32 == 0 and list(np.diff(index)) == [1] * 31  # 128 bytes
                lines.add(int(index[0]) // 32)
    assert len(lines) > 16  # the reads move over the table


def _point(table, gathers, stream, lanes="spread", resident=0):
    return {"table": table, "gathers": gathers, "stream": stream, "lanes": lanes,
            "resident": resident, "workgroup": 256}


#: line requests/s of 16 gathers alone past the levels' tables (the L2 overflowing, then DRAM)
BEYOND = {"16MiB": 110e9, "64MiB": 45e9, "256MiB": 31e9, "1GiB": 29e9}


def _records(p_first, p_next, t_dram=200e-6, rates=None, lines=None):
    """Times of the overlap form at each level's table: the stream alone t_dram, G gathers
    alone G·k, both the p-norm; the same for coalesced reads where *lines* gives each level's
    (exponent, line requests/s); and 16 gathers alone at the larger tables."""
    rates = rates or {"first": 800e9, "next": 130e9}
    out = []
    for level, p in (("first", p_first), ("next", p_next)):
        table = LEVEL_TABLES[level]
        out.append(record(_point(table, 0, "on"), SIZES, t_dram, vid=f"{level}-0"))
        patterns = [("spread", (1, 2, 4, 8, 16), p, rates[level])]
        if lines and level in lines:
            patterns.append(("coalesced", (4, 16, 32, 64, 128, 256), *lines[level]))
        for lanes, counts, exponent, rate in patterns:
            for g in counts:
                tag = f"{level}-{lanes}-{g}" if lanes == "coalesced" else f"{level}-{g}"
                alone = line_requests(_point(table, g, "off", lanes), SIZES) / rate
                out.append(record(_point(table, g, "off", lanes), SIZES, alone,
                                  vid=f"{tag}-off"))
                both = (t_dram ** exponent + alone ** exponent) ** (1 / exponent)
                out.append(record(_point(table, g, "on", lanes), SIZES, both, vid=f"{tag}-on"))
    for table, rate in BEYOND.items():
        out.append(record(_point(table, 16, "off"), SIZES,
                          line_requests(_point(table, 16, "off"), SIZES) / rate))
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
    # the rate by footprint: each table's best without the stream, smallest first
    curve = chars["gather_requests_by_footprint"].value
    assert [c["footprint_bytes"] for c in curve] == sorted(TABLE_BYTES.values())
    assert [c["requests_per_s"] for c in curve] == pytest.approx(
        [800e9, 130e9, *BEYOND.values()])


def test_the_fit_recovers_the_coalesced_reads_exponent_apart_from_the_gathers():
    result = get_analysis("request_overlap")(_records(12.0, 1.5, lines={"next": (2.0, 60e9)}),
                                             DEVICE, 2e9)
    chars = {c.name: c for c in result.characteristics}
    assert chars[LINE_EXPONENT_KEYS["next"]].value == pytest.approx(2.0, rel=0.05)
    assert chars[EXPONENT_KEYS["next"]].value == pytest.approx(1.5, rel=0.05)
    # the gathers' rates and the footprint curve are the spread reads' alone
    assert chars[RATE_KEYS["next"]].value == pytest.approx(130e9)
    assert [c["requests_per_s"] for c in chars["gather_requests_by_footprint"].value] == \
        pytest.approx([800e9, 130e9, *BEYOND.values()])
    series = result.series["request_overlap_time_vs_gathers"]
    assert series["x"] == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert series["y"]["next, coalesced, stream on"][0] == pytest.approx(200e-6)
    assert series["y"]["next, coalesced, stream off"][1] is None  # no coalesced G = 1
    # records from before the coalesced reads (no lanes in their points): the gathers' fit
    old = [{**r, "point": {k: v for k, v in r["point"].items() if k != "lanes"}}
           for r in _records(12.0, 1.5)]
    names = {c.name for c in get_analysis("request_overlap")(old, DEVICE, 2e9).characteristics}
    assert EXPONENT_KEYS["next"] in names and LINE_EXPONENT_KEYS["next"] not in names


def _resident_records(resident, exponent, t_dram, counts=(4, 16, 32, 64, 128, 256)):
    """One occupancy's coalesced reads beside the stream: the overlap form at *exponent*."""
    sizes = {"n": 132 * resident, "K": (1 << 23) // (132 * resident)}
    out = [record(_point("4MiB", 0, "on", "coalesced", resident), sizes, t_dram,
                  vid=f"r{resident}-0")]
    for g in counts:
        alone = line_requests(_point("4MiB", g, "off", "coalesced"), sizes) / 60e9
        out.append(record(_point("4MiB", g, "off", "coalesced", resident), sizes, alone,
                          vid=f"r{resident}-{g}-off"))
        both = (t_dram ** exponent + alone ** exponent) ** (1 / exponent)
        out.append(record(_point("4MiB", g, "on", "coalesced", resident), sizes, both,
                          vid=f"r{resident}-{g}-on"))
    return out


def test_the_fit_recovers_the_coalesced_exponent_at_each_occupancy():
    recs = _records(12.0, 1.5, lines={"next": (2.0, 60e9)})
    for resident, exponent, t_dram in ((512, 1.2, 260e-6), (1024, 1.8, 210e-6),
                                       (2048, 2.4, 200e-6)):
        recs += _resident_records(resident, exponent, t_dram)
    recs += _resident_records(256, 1.0, 400e-6, counts=(4, 16))  # too few points: left out
    result = get_analysis("request_overlap")(recs, DEVICE, 2e9)
    chars = {c.name: c for c in result.characteristics}
    curve = chars[RESIDENT_EXPONENT_KEY].value
    assert [c["resident_items"] for c in curve] == [512, 1024, 2048]
    assert [c["exponent"] for c in curve] == pytest.approx([1.2, 1.8, 2.4], rel=0.05)
    # the many-wave launch's figures stay its own
    assert chars[LINE_EXPONENT_KEYS["next"]].value == pytest.approx(2.0, rel=0.05)
    assert chars[EXPONENT_KEYS["next"]].value == pytest.approx(1.5, rel=0.05)
    assert any("256 items a compute unit: too few points" in n for n in result.notes)
    # the curve names the variants of the occupancies it holds, not those left out
    assert chars[RESIDENT_EXPONENT_KEY].variants and not any(
        v.startswith("r256-") for v in chars[RESIDENT_EXPONENT_KEY].variants)
    plot = result.series["request_overlap_exponent_vs_resident"]
    assert plot["x"] == [512, 1024, 2048]
    assert plot["y"]["exponent"] == pytest.approx([1.2, 1.8, 2.4], rel=0.05)
    # without occupancy points: no curve
    plain = get_analysis("request_overlap")(_records(12.0, 1.5, lines={"next": (2.0, 60e9)}),
                                            DEVICE, 2e9)
    assert RESIDENT_EXPONENT_KEY not in {c.name for c in plain.characteristics}
    assert "request_overlap_exponent_vs_resident" not in plain.series


def test_an_occupancy_point_runs_one_wave_as_long_as_the_many_wave_launch(engine):
    spec = load_spec("request_overlap")

    class Device:
        device_type, compute_units = "GPU", 132

    many = spec.sizes(_point("4MiB", 16, "on", "coalesced"), Device, False)
    one = spec.sizes(_point("4MiB", 16, "on", "coalesced", 512), Device, False)
    assert one["n"] == 132 * 512 and one["n"] % 256 == 0
    assert one["n"] * one["K"] == pytest.approx(many["n"] * many["K"], rel=0.01)
    # on PoCL: the points build, match numpy on random table values, and feed the fit's form
    from gencl.measure import run_points

    points = [spec.complete(_point("4MiB", g, s, "coalesced", 256))
              for g, s in ((0, "on"), (16, "on"), (16, "off"))]
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    assert {m.sizes["n"] for m in results} == {256 * engine.info.compute_units}


def test_too_few_points_no_exponent():
    recs = [r for r in _records(4.0, 4.0) if r["point"]["table"] == LEVEL_TABLES["first"]
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
    assert {(p["table"], p["gathers"], p["stream"], p["lanes"]) for p in points} == {
        (table, g, s, lanes) for table in LEVEL_TABLES.values()
        for g, s, lanes in ((0, "on", "spread"), (4, "on", "spread"), (4, "off", "spread"))
    } | {(LEVEL_TABLES["next"], 4, s, "coalesced") for s in ("on", "off")}
    for p in points:  # the stream's rows and the gathers, each as the point says
        source = generate(spec, p).source
        assert source.count("src[") == (16 if p["stream"] == "on" else 0)
        assert source.count("table[") == p["gathers"]
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("request_overlap")([m.to_json() for m in results],
                                             engine.info.to_json(), None)
    rates = {c.name: c.value for c in result.characteristics}
    # 2 gather counts: too few for a fit
    assert set(rates) == {*RATE_KEYS.values(), "gather_requests_by_footprint"}
    assert all(math.isfinite(rates[k]) and rates[k] > 0 for k in RATE_KEYS.values())
