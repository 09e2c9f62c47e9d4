"""local_memory: static and dynamic buffers, a group and one work item, strided reads, 8-byte
words, vector widths and ILP chains all sum to numpy's answer."""

from __future__ import annotations

import dataclasses

from gencl.spec import load_spec
from gencl.verify import rules_for
from gencl.verify.ptx import SHARED_DECLARATION, SHARED_POINTER_PARAM
from tests.specs_tests._check import check_points


def _wide(point) -> bool:
    """A conflict-free full-group point with more than one word per access or several chains."""
    return (point["stride"] == 1 and point["workgroup"] > 1
            and (point["vector_width"] > 1 or point["ilp"] > 1))


def test_quick_variants_match_numpy(engine):
    points = check_points(engine, "local_memory")
    assert {p["allocation"] for p in points} == {"static", "dynamic"}
    assert {p["workgroup"] for p in points} == {256, 1}
    assert max(p["stride"] for p in points) == 64
    # vector and ILP variants of the bandwidth test are among the verified points
    assert any(_wide(p) and p["vector_width"] > 1 and p["ilp"] > 1 for p in points)
    assert {p["dtype"] for p in points if _wide(p)} == {"float32", "float64"}


def test_bandwidth_sweep_spans_vector_width_and_ilp(engine):
    """The full sweep: every width 1…8 and several chain counts at stride 1; the conflict sweep
    keeps one word, one chain, so its stride-1 reference is the plain point."""
    spec = load_spec("local_memory")
    points = spec.sweep_points(engine.info)
    wide = [p for p in points if _wide(p)]
    assert {p["vector_width"] for p in wide} == {1, 2, 4, 8}
    assert {p["ilp"] for p in wide} >= {1, 2, 4}
    conflicts = [p for p in points if p["stride"] > 1]
    assert len(conflicts) >= 30
    assert all(p["vector_width"] == 1 and p["ilp"] == 1 for p in conflicts)


def test_ptx_rules_count_every_read():
    """On NVIDIA the unrolled pass must keep its 64 reads (16 bytes per ld.shared at most) and the
    buffer must be where the allocation knob put it."""
    spec = load_spec("local_memory")
    static = rules_for(spec, spec.complete({"vector_width": 8}))
    assert static[r"\bld\.shared\b"] == 128 and static[SHARED_DECLARATION] == 1
    dynamic = rules_for(spec, spec.complete({"allocation": "dynamic", "dtype": "float64"}))
    assert dynamic[r"\bld\.shared\b"] == 64 and dynamic[SHARED_POINTER_PARAM] == 1
    assert r"\bld\.shared\b" not in rules_for(spec, spec.complete({"unroll": "none"}))


def test_quick_sizes_stand_clear_of_a_cpu_launch_floor(engine):
    """On a CPU a quick full-group point runs an eighth of the full run's items and every pass
    (at two groups of one pass PoCL's ~50 µs launch floor was all it measured); a GPU's quick
    run stays two groups a compute unit, one pass."""
    spec = load_spec("local_memory")
    cpu = engine.info
    assert cpu.device_type.upper() == "CPU"
    gpu = dataclasses.replace(cpu, device_type="GPU")
    point = {"dtype": "float32", "workgroup": 256, "stride": 1, "vector_width": 4, "ilp": 4,
             "unroll": "full", "allocation": "static"}
    full = spec.sizes(point, cpu, quick=False)
    quick = spec.sizes(point, cpu, quick=True)
    assert quick["K"] == full["K"] > 1
    assert quick["G"] * 8 == full["G"]
    # local bytes a quick CPU launch reads: 8 Ki items of 4 KiB each, 32 MiB a compute unit
    items = quick["G"] // cpu.compute_units * point["workgroup"]
    assert items * quick["K"] * 64 * point["vector_width"] * 4 == 32 << 20
    assert spec.sizes(point, gpu, quick=True) == {"G": 2 * cpu.compute_units, "K": 1}
