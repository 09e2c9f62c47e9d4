"""The first level's requests joined to the next level's fills by the exponent fill_overlap
measured: on the real generator's laplace3d with the H200's profile, a variant whose fills
outweigh its DRAM stream is priced lower the further the two overlap, one whose DRAM stream
outweighs its fills not at all, and a profile without the figure prices both as before (the
memory units' exponent: the p-norm of the larger stream with the requests)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from gencl.model import compute_stats, load_device_profile, params_from, predict
from gencl.model._predict import overlap

ROOT = Path(__file__).resolve().parents[2]
SIZES = {"nz": 256, "ny": 256, "nx": 256}


def _h200(*removed_keys):
    """The committed H200 profile's params, without *removed_keys* in its summary."""
    profile = load_device_profile(ROOT / "bench_results/nvidia-h200")
    summary = {k: v for k, v in profile.summary.items() if k not in removed_keys}
    # no dispatch term: at these sizes the groups' starts would hide the memory terms
    return dataclasses.replace(params_from(summary, profile.device_json), group_dispatch_s=0.0)


def _laplace3d(**point):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load("tuning/laplace3d.py")
    return compute_stats(transform_program(spec, spec.complete(point)), SIZES, subgroup_size=32)


def _times(stats, p, exponents):
    return [predict(stats, dataclasses.replace(p, fill_request_overlap_exponent=e)).time_s
            for e in exponents]


def test_fills_beyond_the_dram_stream_are_priced_by_their_overlap():
    p = _h200()
    stats = _laplace3d(workgroup=[32, 4, 1])  # unstreamed: two neighbour planes from the L2
    base = predict(stats, p)
    t_l2, t_bw = base.terms["l2_bandwidth"], base.terms["memory_bandwidth"]
    t_req, t_lat = base.terms["cache_requests"], base.terms["memory_latency"]
    assert t_l2 > t_bw and t_req > 0
    scalar = p.overlap_scalar_exponent
    times = _times(stats, p, (1.0, scalar, 4.0, math.inf))
    assert times == sorted(times, reverse=True) and times[0] > times[-1]
    # the memory units' exponent throughout: at least the p-norm of the fills, the requests
    # and the latency; fully overlapped: at least the larger of fills and requests beside it
    assert times[1] >= overlap((t_l2, t_req, t_lat), scalar) * (1 - 1e-9)
    assert times[-1] >= overlap((max(t_l2, t_req), t_lat), scalar) * (1 - 1e-9)
    assert times[-1] < overlap((t_l2, t_req, t_lat), scalar)


def test_a_stream_that_outweighs_its_fills_is_not_moved():
    p = _h200()
    stats = _laplace3d(workgroup=[32, 8, 1], stream_k=16)  # each plane read once
    base = predict(stats, p)
    assert base.terms["memory_bandwidth"] > base.terms["l2_bandwidth"] > 0
    assert _times(stats, p, (p.overlap_scalar_exponent, 4.0, math.inf)) == \
        pytest.approx([base.time_s] * 3, rel=1e-12)


def test_a_profile_without_the_benchmark_prices_as_the_memory_units_exponent():
    p = _h200("fill_request_overlap_exponent")
    assert p.fill_request_overlap_exponent == p.overlap_scalar_exponent
    assert p.sources["fill_request_overlap_exponent"] == "nominal"
    stats = _laplace3d(workgroup=[32, 4, 1])
    assert predict(stats, p).time_s == pytest.approx(
        _times(stats, p, (p.overlap_scalar_exponent,))[0], rel=1e-12)
