"""Shared fixtures: the real PoCL device, and a fresh gencl cache per test session."""

from __future__ import annotations

import os

import pytest


# {{{ the order and the grouping of tests on xdist workers (``pytest -n 2``, CI)

#: the longest tests and roughly their cold-cache seconds on the 2-core CI machine (PoCL,
#: ``pytest -n 2``). They start first: a long test handed out last kept one worker busy for
#: minutes after the other had finished (the oclgrind check: 3 minutes at the end). Node-id
#: prefixes; a test not listed keeps its place.
SLOW = {
    "tests/model_tests/test_profile_input.py::test_accuracy_over_a_gathering_kernels": 33,
    "tests/verify_tests/test_all_specs.py::test_every_spec_verifies_under_oclgrind[jacobi]": 33,
    "tests/space_tests/test_user_spec.py::test_space_and_tune_on_a_spec_without_knobs": 22,
    "tests/test_bad_input.py::test_malformed_spec_is_one_line_exit_2": 18,
    "tests/tune_tests/test_profile_warning.py::test_guided_tune_names_a_profile": 12,
    "tests/tune_tests/test_simulate.py::test_the_model_summary_reads_the_records": 12,
    "tests/tune_tests/test_kill.py::test_kill_9_mid_trial_then_restart_at_once": 12,
    "tests/generate_tests/test_auto_space.py::test_knob_less_3d_specs_have_at_least": 11,
    "tests/measure_tests/test_solve.py::test_remainder_sweeps_run_single_sweep": 11,
    "tests/profile_tests/test_clpeak.py::test_profile_records_clpeak_beside_gencl": 10,
    "tests/tune_tests/test_simulate.py::test_a_repeat_of_the_space_is_scored": 9,
    "tests/space_tests/test_user_spec.py::test_space_tune_simulate_explain_verify": 8,
    "tests/model_tests/test_temporal_pricing.py::test_the_guided_sampler_ranks": 8,
    "tests/tune_tests/test_space_device.py::test_points_are_the_devices_valid": 7,
}

#: tests that share an expensive module or session fixture, run on one worker one after the
#: other (node-id prefix: group). Spread over both, each worker made its own copy (a space run
#: of Jacobi, 25-50 s; verify's oclgrind run; a PostgreSQL cluster), or waited idle on the
#: quick profile's lock (~70 s) while the other ran it. xdist's own ``xdist_group`` marks do
#: nothing under pytest 9 (xdist 3.8 renames ``item._nodeid``, which pytest 9 no longer reads).
TOGETHER = {
    # jacobi_h200_space's readers (first: a test of a grouped module below may read it too)
    "tests/space_tests/test_space.py::test_shards_partition_the_space": "jacobi_h200",
    "tests/space_tests/test_space.py::test_sample_keeps_the_named_variants": "jacobi_h200",
    "tests/space_tests/test_space.py::test_a_slice_walked_alone": "jacobi_h200",
    "tests/space_tests/test_temporal_space.py::test_a_sample_draws_half": "jacobi_h200",
    "tests/specs_tests/test_jacobi.py::test_space_on_an_h200_has_over_a_thousand": "jacobi_h200",
    "tests/generate_tests/test_temporal.py::test_spaces_offer_the_temporal_axes": "jacobi_h200",
    "tests/generate_tests/test_temporal.py::test_strip_points_are_offered_within": "jacobi_h200",
    "tests/space_tests/test_temporal_space.py": "temporal_space",
    "tests/profile_tests/test_profile.py": "quick_profile",
    "tests/profile_tests/test_honest_failure.py::test_quick_profile_measures": "quick_profile",
    "tests/verify_tests/test_faults.py": "verify_faults",
    "tests/tune_tests/test_workers.py": "postgres",
}


@pytest.hookimpl(tryfirst=True)  # the order the workers collect in, the order xdist hands out
def pytest_collection_modifyitems(items):
    def seconds(item):
        return next((s for prefix, s in SLOW.items() if item.nodeid.startswith(prefix)), 0)

    items.sort(key=lambda item: -seconds(item))  # stable: every other test keeps its order


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's scheduling by scope with TOGETHER's groups as scopes and every other test a
    scope of its own: a worker is handed the next scope whenever it holds at most two tests,
    the groups (several tests) first, then single tests in collection order (SLOW first)."""
    from xdist.scheduler import LoadScopeScheduling

    class Grouped(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return next((group for prefix, group in TOGETHER.items()
                         if nodeid.startswith(prefix)), nodeid)

    return Grouped(config, log)

# }}}


@pytest.fixture(scope="session", autouse=True)
def _fresh_cache(tmp_path_factory):
    # no test may pass because an earlier run left generated code or binaries in a warm cache
    if "GENCL_CACHE_DIR" not in os.environ:
        os.environ["GENCL_CACHE_DIR"] = str(tmp_path_factory.mktemp("gencl-cache"))
    os.environ.setdefault("GENCL_WORKERS", "1")
    yield


@pytest.fixture(scope="session")
def jacobi_h200_space():
    """Jacobi's space within an H200's limits: its 3.6 M candidate points walked once per worker
    (10-25 s a walk; its readers walked it 10 times), read by the tests of that space, which
    share one worker (TOGETHER). Points are not to be changed in place."""
    from gencl.space import limits_for
    from gencl.spec import load_spec

    return tuple(load_spec("jacobi").points(limits_for("nvidia")))


@pytest.fixture(scope="session")
def engine():
    """The real PoCL CPU device (Debian's where installed and usable, else PyPI's)."""
    from gencl.measure import OpenCLEngine

    eng = OpenCLEngine("pocl", repeats=5, max_attempts=1, min_sample_s=1e-4)
    assert eng.info.slug.startswith("pocl-") and eng.info.device_type == "CPU"
    return eng


@pytest.fixture(scope="session")
def unoptimized_engine():
    """PoCL building without its optimizations (``-cl-opt-disable``), for temporally blocked
    programs: LLVM's passes over their unrolled sweeps took most of the suite's time in CI
    (laplace3d's 2-sweep stream points 2–4 s to build and 0.4–1.8 s to a first launch with
    them, 0.6–1.4 s and 0.2 s without; every fifth temporal point of the stencil suite's sample
    191 → 68 s, on the 2-core EPYC of 2026-12-02; test_temporal's star3d_r4 `stream_async`
    point 15.6 s to build and verify optimized, 7.4 s without, on a 2-core Xeon of 2026-12-03).
    What is checked is the emitted code's answer; the optimizing compilers check it again where
    it runs (every variant a space measures is verified against numpy first, on the H200 too),
    and the single-sweep points build here optimized."""
    from gencl.measure import OpenCLEngine

    return OpenCLEngine("pocl", repeats=5, max_attempts=1, min_sample_s=1e-4,
                        build_options="-cl-opt-disable")
