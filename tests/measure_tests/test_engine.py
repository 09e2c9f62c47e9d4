"""The engine on the real PoCL device: right variants pass, wrong ones are recorded, not timed."""

from __future__ import annotations

import dataclasses
import json
import time

import numpy as np
import pytest

from gencl.generate import lower
from gencl.measure import ResultsFile, measure_variant, results_header, run_points
from gencl.spec import load_spec
from tests.generate_tests._programs import AXPY


def test_copy_spec_every_sweep_variant_is_right(engine):
    spec = load_spec("copy")
    points = spec.sweep_points(quick=True)
    results = run_points(spec, points, engine, quick=True)
    assert len(results) == len(points) >= 5
    bad = [(m.point, m.status, m.reason) for m in results if m.status != "ok"]
    assert not bad
    for m in results:
        assert len(m.samples_s) >= 5 and m.median_s > 0 and m.metrics["bytes"] > 0
        assert m.ci95_s >= 0 and m.launches_per_sample >= 1


def test_copy_element_sizes_use_vector_types():
    spec = load_spec("copy")
    v = lower(spec, spec.complete({"dtype": "float32", "vector_width": 4, "loop": "constant",
                                   "unroll": "full"}))
    assert "__global float4 const *__restrict__ src" in v.source
    v = lower(spec, spec.complete({"dtype": "int8", "vector_width": 1}))
    assert "__global char const *__restrict__ src" in v.source


def test_wrong_variant_is_rejected_and_recorded_not_timed(engine):
    wrong = dataclasses.replace(AXPY, reference=lambda v, p, s: {"y": v["a"] * v["x"] - v["y0"]})
    v = lower(wrong, {"vector_width": 4, "workgroup": 32})
    m = measure_variant(engine, wrong, v, {"n": 16 * 64 * 3})
    assert m.status == "wrong_answer" and "error" in m.reason
    assert m.samples_s == () and m.median_s is None


def test_unwritten_outputs_fail_because_outputs_are_poisoned(engine):
    # a kernel that writes only half its output: the poison left in the rest must be caught
    v = lower(AXPY, {"vector_width": 1, "workgroup": 32})
    m = measure_variant(engine, AXPY, v, {"n": 16 * 64 * 3})
    assert m.status == "ok"
    half = dataclasses.replace(v, global_size=(f"({v.global_size[0]}) // 2",))
    m = measure_variant(engine, AXPY, half, {"n": 16 * 64 * 3})
    assert m.status == "wrong_answer"


def test_build_error_is_recorded(engine):
    v = lower(AXPY, {"vector_width": 1, "workgroup": 32})
    broken = dataclasses.replace(v, source=v.source.replace("a * x", "a * undeclared_x"),
                                 id=v.id + "-broken")
    m = measure_variant(engine, AXPY, broken, {"n": 2048})
    assert m.status == "build_error" and m.reason


def test_oversized_work_group_is_out_of_resources(engine):
    v = lower(AXPY, {"vector_width": 1, "workgroup": 32})
    big = engine.info.max_work_group_size * 2
    source = v.source.replace("reqd_work_group_size(32, 1, 1)",
                              f"reqd_work_group_size({big}, 1, 1)")
    huge = dataclasses.replace(v, source=source, local_size=(str(big),),
                               global_size=(str(big),), id=v.id + "-huge")
    m = measure_variant(engine, AXPY, huge, {"n": 2048})
    assert m.status in ("out_of_resources", "build_error"), m


def test_a_launch_beyond_local_memory_is_refused_before_it_runs():
    """PoCL aborts the process on ``__local`` arrays beyond its local memory (an assertion, no
    CL_OUT_OF_RESOURCES): verification refuses such a launch with the reason, and a
    measurement records it as out_of_resources. box2d9's largest strip tile holds 1 MiB of
    ``__local`` floats; this device is given a limit one byte short of what the kernel says
    it needs, so the guard, not the device's size, decides (the kernel would run on a CPU whose
    cache PoCL reports as 1 MiB or more)."""
    import pyopencl as cl

    from gencl.measure import OpenCLEngine, OutOfResources, verify_variant

    spec = load_spec("box2d9")
    point = spec.complete({"temporal": "strip", "sweeps": 2, "temporal_points": (512, 256),
                           "workgroup": (32, 4)})
    eng = OpenCLEngine("pocl", repeats=3, max_attempts=1, min_sample_s=1e-4)
    variant = lower(spec, point)
    built = eng.build(variant)
    need = built.kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE,
                                            eng.cl_device)
    assert need >= 1 << 20
    eng.info = dataclasses.replace(eng.info, local_mem_bytes=need - 1)
    sizes = spec.verify_sizes(point, eng.info)
    rng = np.random.default_rng(3)
    with pytest.raises(OutOfResources, match=f"local memory {need} B > device limit"):
        verify_variant(eng, spec, built, sizes, spec.inputs(point, sizes, rng))
    m = measure_variant(eng, spec, variant, sizes)
    assert m.status == "out_of_resources" and f"{need} B" in m.reason


def test_results_stream_and_resume(engine, tmp_path):
    spec = load_spec("copy")
    points = spec.sweep_points()[:3]
    path = tmp_path / "copy.json"
    sink = ResultsFile(path, results_header(engine))
    run_points(spec, points[:2], engine, quick=True, sink=sink)
    # interrupted here: nothing final written, but both measurements are on disk
    assert not path.exists()
    lines = sink.partial.read_text().splitlines()
    assert len(lines) == 3 and "results_header" in lines[0]  # the run's header, two results
    again = ResultsFile(path, results_header(engine))
    assert len(again.done_ids) == 2
    new = run_points(spec, points, engine, quick=True, sink=again)
    assert len(new) == 1  # only the unfinished point is measured
    again.close()
    data = json.loads(path.read_text())
    assert data["schema_version"] == "1.0" and len(data["results"]) == 3
    assert data["device"]["slug"] == engine.info.slug and data["gencl_version"]
    assert all(np.isfinite(r["median_s"]) for r in data["results"])


def test_a_runaway_kernel_times_out_and_the_engine_goes_on():
    """The engine waits on events in a helper thread (blocking clWaitForEvents, which Intel's CPU
    runtime needs to run kernels on both cores); a kernel past the limit is still a timeout."""
    from gencl.measure import OpenCLEngine

    spec = load_spec("chain")
    point = spec.complete({"itype": "sp_madd", "workgroup": 16, "ilp": 1})
    variant = lower(spec, point)
    slow = OpenCLEngine("pocl", repeats=3, max_attempts=1, timeout_s=0.2)
    # a second or two of dependent FMAs on 32 lanes (short: the kernel runs on after the timeout)
    long = {**spec.sizes(point, slow.info, False), "reps": 1 << 15}
    start = time.perf_counter()
    m = measure_variant(slow, spec, variant, long)
    assert m.status == "timeout" and "no result after 0.2 s" in m.reason
    assert time.perf_counter() - start < 30


def test_a_binary_from_the_cache_comes_with_its_builds_log(engine):
    """A binary reloaded from the cache prints no compiler summary (NVIDIA's registers and
    spills, which the model reads), so the source build's log is kept beside it and returned."""
    from gencl.generate._cache import cache_dir
    from gencl.measure._build import build_key, build_program

    v = lower(AXPY, {"vector_width": 1, "workgroup": 16})
    v = dataclasses.replace(v, source=v.source + "\n// log-beside-binary test\n",
                            id=v.id + "-log")
    first = build_program(engine.ctx, engine.cl_device, v, "", {})
    key = build_key(v.source, "", engine.cl_device.name, engine.cl_device.driver_version)
    log_file = cache_dir() / "binaries" / f"{key}.log"
    assert not first.from_cache and log_file.read_text().strip() == first.build_log
    log_file.write_text("ptxas info    : Used 40 registers")  # what a source build said
    again = build_program(engine.ctx, engine.cl_device, v, "", {})
    assert again.from_cache and again.build_log == "ptxas info    : Used 40 registers"
