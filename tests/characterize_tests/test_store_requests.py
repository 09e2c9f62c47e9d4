"""store_requests: the excess requests of a wide store in closed form, the rate and exponent
recovered from synthetic streams whose answer is known, no figure where wide stores cost nothing
or on a CPU, and the quick sweep on PoCL (each variant matches numpy, stores whole vectors)."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from gencl.characterize.store_requests import excess_store_requests
from gencl.spec import load_spec
from tests.characterize_tests._records import DEVICE, record

M = 1 << 24


def point(inputs, outputs, width):
    return {"inputs": inputs, "outputs": outputs, "vector_width": width, "workgroup": 256}


def test_excess_requests_of_a_wide_store():
    sizes = {"m": M}
    # float4: 32 lanes × 16 B fill four lines, one request each
    assert excess_store_requests(point(1, 1, 4), sizes) == 0
    assert excess_store_requests(point(2, 1, 2), sizes) == 0
    # float8: two chunk instructions an item, each over 8 lines: M/16 requests, M/32 beyond one
    # a line; float16: four over 16 lines, M/8 requests; per output
    assert excess_store_requests(point(1, 1, 8), sizes) == pytest.approx(M / 32)
    assert excess_store_requests(point(1, 2, 8), sizes) == pytest.approx(2 * M / 32)
    assert excess_store_requests(point(1, 1, 16), sizes) == pytest.approx(M / 8 - M / 32)


def streams(rate, p, own, widths=(4, 8, 16)):
    out = []
    for (i, o), t in own.items():
        for w in widths:
            e = excess_store_requests(point(i, o, w), {"m": M})
            time = (t ** p + (e / rate) ** p) ** (1 / p)
            out.append(record(point(i, o, w), {"m": M}, time, vid=f"s{i}{o}{w}"))
    return out


def test_rate_and_exponent_recovered():
    own = {(1, 1): 40e-6, (1, 2): 60e-6, (2, 2): 80e-6}
    recs = streams(50e9, 1.3, own)
    recs.append(record(point(1, 1, 16), {"m": M}, 1e-9, status="wrong_answer", vid="bad"))
    result = get_analysis("store_requests")(recs, DEVICE, None)
    rate, exponent = result.characteristics
    assert rate.name == "store_requests_per_s" and rate.value == pytest.approx(50e9, rel=1e-3)
    assert exponent.name == "store_request_overlap_exponent"
    assert exponent.value == pytest.approx(1.3, rel=1e-3)
    assert "bad" not in rate.variants
    assert any(n.startswith("fit: 50.0·10⁹ requests/s") for n in result.notes)


def test_wide_stores_at_the_stream_pace_give_no_figure():
    recs = [record(point(1, 1, w), {"m": M}, 40e-6 * (1 + 0.005 * w)) for w in (4, 8, 16)]
    result = get_analysis("store_requests")(recs, DEVICE, None)
    assert result.characteristics == ()
    assert any(n.startswith("no figure: the widest stores are at most") for n in result.notes)


def test_no_figure_on_a_cpu():
    cpu = {**DEVICE, "device_type": "CPU", "warp_size": None}
    result = get_analysis("store_requests")(streams(50e9, 1.3, {(1, 1): 40e-6}), cpu, None)
    assert result.characteristics == ()
    assert any("no figure on a CPU" in n for n in result.notes)


def test_quick_sweep_on_pocl(engine):
    from gencl.generate import generate
    from gencl.measure import run_points

    spec = load_spec("store_requests")
    points = spec.sweep_points(engine.info, quick=True)
    assert {(p["outputs"], p["vector_width"]) for p in points} == {(1, 4), (1, 16), (2, 4), (2, 16)}
    for p in points:  # every output stored as one floatW a work item
        source = generate(spec, p).source
        w = p["vector_width"]
        assert all(f"__global float{w} *__restrict__ o{k}" in source
                   for k in range(p["outputs"]))
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    result = get_analysis("store_requests")([m.to_json() for m in results],
                                            engine.info.to_json(), None)
    assert result.characteristics == ()  # a CPU: the times in the notes, no figure
    assert sum("floats an item" in n for n in result.notes) == len(points)
