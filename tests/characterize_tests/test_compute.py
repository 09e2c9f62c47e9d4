"""Compute analyses: the paper's equations on hand-checked numbers, and a real PoCL run."""

from __future__ import annotations

import json
import math

import pytest

from gencl.characterize import get_analysis
from gencl.characterize.divergence import detect_width, divergent_fraction, f_divergence
from gencl.characterize.occupancy import cpi, ridge_point, run_geometry, theoretical_peak
from gencl.characterize.vectorization import speedups

NV = {"device_type": "GPU", "platform": "NVIDIA CUDA", "compute_capability": "9.0",
      "warp_size": 32, "compute_units": 132, "max_clock_hz": 1.98e9, "local_mem_bytes": 49152,
      "max_work_group_size": 1024}


def test_run_geometry_counts_runs():
    # 3 CUs × 2 WGs of 96 items (3 warps) each, 18 WGs → 3 runs (seed 000 Fig. 4 ×3)
    g = run_geometry(18 * 96, 96, local_mem_size=24576, max_local_mem=49152, max_conc_wg=32,
                     warp_size=32, max_conc_warps=64, compute_units=3)
    assert (g.wg, g.conc_wg, g.warps_wg, g.actual_warp_size, g.runs_cu) == (18, 2, 3, 32.0, 3)
    cpi_cu, cpi_warp = cpi(3e-6, 100, g, 96, 1e9)  # 1000 cycles/run over 100×96×2 instructions
    assert math.isclose(cpi_cu, 1000 / 19200) and math.isclose(cpi_warp, 32 * 1000 / 19200)


def test_partial_warp_and_ridge():
    g = run_geometry(132 * 48, 48, local_mem_size=49152, max_local_mem=49152, max_conc_wg=32,
                     warp_size=32, max_conc_warps=64, compute_units=132)
    assert g.warps_wg == 2 and g.actual_warp_size == 24 and g.runs_cu == 1
    assert ridge_point([32, 64, 128, 256], [1, 2, 3.9, 4], 4) == 128


def _record(itype, ilp, wg, conc, seconds, steps=1000):
    n = 132 * wg * conc
    per = {"sp_addmul": (2, 2), "sp_madd": (1, 2)}[itype]
    return {"status": "ok", "variant_id": f"v{itype}{ilp}{wg}", "median_s": seconds,
            "ci95_s": 0.0, "point": {"itype": itype, "ilp": ilp, "workgroup": wg,
                                     "conc_wg": conc, "local_pad": True},
            "sizes": {"n": n, "local_pad_bytes": 49152 // conc},
            "work": {"ops": n * ilp * steps * per[1], "instructions": n * ilp * steps * per[0]}}


def test_occupancy_latencies_from_synthetic_pipeline():
    # a pipeline with Λ = 4, λ = 0.25 cycles per warp instruction at 1 GHz: one run each
    recs = []
    for wg in (32, 64, 128, 256, 512, 1024):
        warps = wg // 32
        cycles = 1000 * max(4, 0.25 * warps)  # 1000 dependent instructions per item
        recs.append(_record("sp_madd", 1, wg, 1, cycles / 1e9))
    res = get_analysis("occupancy")(recs, NV, 1e9)
    chars = {c.name: c.value for c in res.characteristics}
    assert math.isclose(chars["sp_madd_completion_latency_cycles"], 4.0)
    assert math.isclose(chars["sp_madd_issue_latency_cycles"], 0.25)
    assert chars["sp_madd_ridge_work_items"] == 512  # 16 warps × λ = Λ: the pipeline is full
    curve = res.series["curves"]["sp_madd/ilp1"]
    assert curve["work_items"] == [32, 64, 128, 256, 512, 1024]


def test_throughput_above_theoretical_is_an_error():
    rec = _record("sp_addmul", 1, 1024, 2, 1e-9)  # absurdly fast
    res = get_analysis("occupancy")([rec], NV, None)
    assert not any(c.name == "sp_peak_flops" for c in res.characteristics)
    assert any(n.startswith("ERROR") for n in res.notes)


def test_throughput_at_the_ceiling_within_its_interval_is_reported():
    # 1024 × 2 items per CU of 1000 dependent adds and multiplies in 8.0 µs: 1.01× the H100
    # table's CUs × lanes × 2 × clock, with a 95 % interval of ± 5 %
    rec = {**_record("sp_addmul", 1, 1024, 2, 8.0e-6), "ci95_s": 0.4e-6}
    res = get_analysis("occupancy")([rec], NV, None)
    peak = next(c for c in res.characteristics if c.name == "sp_peak_flops")
    ceiling = res.series["itypes"]["sp_addmul"]["theoretical_ops_per_s"]
    assert 1.0 < peak.value / ceiling < 1.05
    assert not any(n.startswith("ERROR") for n in res.notes)
    assert any("within its 95 % interval" in n for n in res.notes)
    tight = {**rec, "ci95_s": 0.0}  # the same figure measured without spread is an error
    assert any(n.startswith("ERROR") for n in get_analysis("occupancy")([tight], NV, None).notes)


def test_a_cpu_without_a_clock_seen_has_no_ceiling():
    # PoCL on a 2-core VM: 1.09× CUs × lanes × 2 × the clock /proc/cpuinfo shows (the host's
    # SIMD width), which its cores boost above
    cpu = {"device_type": "CPU", "compute_units": 2, "max_clock_hz": 2e9,
           "local_mem_bytes": 1 << 19, "max_work_group_size": 4096}
    wg, steps = 64, 1000
    ops = 2 * wg * 8 * 2 * steps  # 8-wide madd chains, ILP 1: 2 flops a lane a step
    rate = 1.09 * theoretical_peak(cpu, "float32", 2e9)
    rec = {"status": "ok", "variant_id": "v8", "median_s": ops / rate, "ci95_s": 0.0,
           "point": {"itype": "sp_madd", "ilp": 1, "workgroup": wg, "vector_width": 8},
           "sizes": {"n": 2 * wg * 8}, "work": {"ops": ops, "instructions": ops / 2}}
    seen_nothing = get_analysis("occupancy")([rec], cpu, None)
    assert any(c.name == "sp_madd_peak_flops" for c in seen_nothing.characteristics)
    assert any("the cores ran above it" in n for n in seen_nothing.notes)
    seen = get_analysis("occupancy")([rec], cpu, 2e9)  # a clock cpufreq saw is a bound
    assert not any(c.name == "sp_madd_peak_flops" for c in seen.characteristics)
    assert any(n.startswith("ERROR") for n in seen.notes)


def test_divergence_width_and_f_divergence():
    conv = [1, 2, 4, 8, 16, 32, 64]
    perf = [1 / min(4, math.ceil(32 / c)) for c in conv]  # an ideal 32-wide SIMT machine
    assert detect_width(conv, perf) == 32
    fr = [divergent_fraction(c, 4, 32) for c in conv]
    fd = f_divergence(fr, perf)
    assert fd["fraction"] == [0.0, 0.5, 0.75]
    assert fd["relative_performance"] == [1.0, 0.5, 0.25]
    assert fd["grid_relative_performance"][-1] == 0.25


def test_vector_speedups():
    assert speedups([1, 2, 4], [1.0, 2.0, 3.0]) == {1: 1.0, 2: 2.0, 4: 3.0}
    assert speedups([2, 4], [1.0, 2.0]) == {}


@pytest.mark.parametrize("name", ["chain", "vectorization", "divergence"])
def test_quick_sweep_on_pocl_feeds_its_analysis(name, tmp_path, monkeypatch):
    from gencl.measure import OpenCLEngine, run_points
    from gencl.spec import load_spec

    monkeypatch.setenv("GENCL_WORKERS", "1")
    spec = load_spec(name)
    engine = OpenCLEngine(repeats=3)
    points = spec.sweep_points(engine.info, quick=True)[:2]
    results = run_points(spec, points, engine, quick=True)
    assert all(m.status == "ok" for m in results), [m.reason for m in results]
    res = get_analysis(spec.analysis)([m.to_json() for m in results], engine.info.to_json(),
                                      None)
    json.dumps(res.to_json())  # the profile writes it as JSON
    assert res.characteristics


CPU = {"device_type": "CPU", "platform": "Portable Computing Language", "compute_units": 2,
       "max_clock_hz": 2.8e9, "local_mem_bytes": 1 << 20, "max_work_group_size": 4096}


def _chain_record(itype, width, ilp, seconds, wg=16, runs=8, steps=4096):
    items = 2 * wg * runs
    return {"status": "ok", "variant_id": f"{itype}-w{width}-i{ilp}", "median_s": seconds,
            "ci95_s": 0.0, "point": {"itype": itype, "vector_width": width, "ilp": ilp,
                                     "workgroup": wg, "conc_wg": 1, "runs": runs,
                                     "local_pad": True},
            "sizes": {"n": items * width, "local_pad_bytes": 1 << 19},
            "work": {"ops": items * width * ilp * steps * 2,
                     "instructions": items * ilp * steps}}


def test_peak_is_the_best_vector_width_and_the_scalar_rate_is_kept():
    recs = [_chain_record("sp_madd", 1, ilp, 1e-2) for ilp in (1, 2, 4)]
    recs += [_chain_record("sp_madd", 16, 8, 2e-2), _chain_record("sp_madd", 8, 8, 2e-2),
             _chain_record("sp_madd", 4, 8, 1e-2),
             dict(_chain_record("sp_madd", 2, 8, 1e-5), status="wrong_answer")]
    res = get_analysis("occupancy")(recs, CPU, 2.8e9)
    chars = {c.name: c for c in res.characteristics}
    rate = lambda r: r["work"]["ops"] / r["median_s"]  # noqa: E731
    assert chars["sp_madd_peak_flops"].value == rate(recs[3])  # float16 × 8 chains
    assert chars["sp_madd_peak_flops"].variants == ("sp_madd-w16-i8",)
    assert chars["sp_madd_scalar_peak_flops"].value == rate(recs[2])  # ILP 4, scalar
    by_width = res.series["itypes"]["sp_madd"]["peak_by_vector_width"]
    assert set(by_width) == {"1", "4", "8", "16"}  # the failed float2 counts nowhere
    assert res.series["peak_vs_vector_width"]["x"] == [1, 4, 8, 16]
    # λ/Λ and the roofline are the paper's, from scalar chains only
    assert set(res.series["curves"]) == {"sp_madd/ilp1", "sp_madd/ilp2", "sp_madd/ilp4"}


def test_vector_only_itype_still_has_a_peak():
    res = get_analysis("occupancy")([_chain_record("dp_madd", 8, 8, 1e-2)], CPU, 2.8e9)
    names = {c.name for c in res.characteristics}
    assert "dp_peak_flops" in names and "dp_scalar_peak_flops" not in names
