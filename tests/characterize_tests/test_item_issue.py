"""The item_issue benchmark: its instruction count is the model's own, and its analysis fits the
rate over the points whose build ran the items one at a time. (The model does not read the rate:
docs/compute.md, "item_issue".)"""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from gencl.model import compute_stats, params_from
from gencl.model._predict import access_instructions, vector_op_instructions
from gencl.model._vector_rate import vectorized
from gencl.spec import load_spec
from tests.characterize_tests._records import record

CPU = {"name": "synthetic cpu", "device_type": "CPU", "platform": "Portable Computing Language",
       "compute_units": 2, "max_clock_hz": 3e9}
ITEMS = 1 << 20
#: seconds an item: 2 ns of store and loop, 0.1 ns an instruction (1e10 a second)
BASE, PER_INSTRUCTION = 2e-9, 0.1e-9
#: a build that ran the items one at a time (their own 128-bit vectors), and one as lanes
ONE_AT_A_TIME, AS_LANES = {"packed_arithmetic_bits": 128}, {"packed_arithmetic_bits": 512}


@pytest.mark.parametrize("loads", load_spec("item_issue").params["loads"])
def test_the_count_is_what_the_model_counts_an_item_issues(loads):
    """The closed form 2 · loads + 1 against the model's count for a vector-typed item one at a
    time (``_predict.item_issue_time``: its operations a chunk each, its accesses a chunk
    each), on the spec's own program."""
    spec = load_spec("item_issue")
    point = spec.complete({"loads": loads})
    m = 4
    stats = compute_stats(spec.program(point), {"m": m}, subgroup_size=16)
    p = params_from({}, CPU)
    assert vectorized(stats)
    counted = vector_op_instructions(stats, p) + sum(access_instructions(a, p)
                                                     for a in stats.accesses)
    items = m * 256
    assert counted / items == pytest.approx(2 * loads + 1)
    assert spec.metrics["instructions"](point, {"m": m}) == pytest.approx(counted)


def issue_record(loads, isa, *, status="ok"):
    instructions = 2 * loads + 1
    return record({"loads": loads, "workgroup": (256, 1)}, {"m": ITEMS // 256},
                  (BASE + PER_INSTRUCTION * instructions) * ITEMS, status=status,
                  work={"instructions": float(instructions * ITEMS)},
                  extra={"isa": isa} if isa is not None else {})


def test_the_rate_is_one_over_the_slope_of_the_points_run_one_item_at_a_time():
    recs = [issue_record(n, ONE_AT_A_TIME) for n in (4, 8, 16, 32)]
    # a point the build ran as lanes (far faster an item) and a failed one count for nothing
    recs += [{**issue_record(64, AS_LANES), "median_s": 1e-6}, issue_record(2, None,
                                                                             status="failed")]
    result = get_analysis("item_issue")(recs, CPU, None)
    (rate,) = result.characteristics
    assert rate.name == "vector_item_issue_per_s"
    assert rate.value == pytest.approx(1 / PER_INSTRUCTION)
    assert len(rate.variants) == 4


@pytest.mark.parametrize("isa", [AS_LANES, None])
def test_builds_run_as_lanes_or_uncounted_measure_nothing(isa):
    recs = [issue_record(n, isa) for n in (4, 8, 16, 32)]
    result = get_analysis("item_issue")(recs, CPU, None)
    assert not result.characteristics
    assert "not measured" in result.notes[0]


def test_a_gpu_runs_no_point():
    spec = load_spec("item_issue")
    gpu = {"device_type": "GPU"}
    assert spec.sweep_points(gpu) == [] and len(spec.sweep_points(CPU)) == 4
    assert "GPU" in spec.excluded(spec.complete({}), gpu)
