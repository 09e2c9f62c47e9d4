"""Items a CPU runtime left unvectorized (gencl.model._predict.item_issue_time): priced by what
one item issues, where the work-group function's machine code (a Measurement's ``extra["isa"]``)
shows the items were not lanes of packed instructions; unchanged without those counts."""

from __future__ import annotations

import dataclasses

import pytest

from gencl.model import Access, KernelStats, nominal_inputs, params_from, predict
from gencl.model._explain import built_facts, with_built_code
from gencl.model._predict import item_issue_time
from gencl.model._vector_rate import vectorized_across_items, with_isa

CPU = {"name": "cpu", "device_type": "CPU", "compute_units": 2, "max_clock_hz": 2e9,
       "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 64}
GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128,
       "registers_per_block": 65536}
#: a runtime whose scalar chains ran vectorized across items (12 FLOP a cycle a core)
VECTORIZED_CHAINS = {"sp_madd_scalar_peak_flops": 48e9}
ITEMS = 1 << 20


def _stats(width: int = 1, per_lane: bool = False) -> KernelStats:
    # a stencil-like item: 5 loads and a store of its own lanes, 6 adds a lane
    load = Access("u", "global", "load", 4, width, 5.0 * ITEMS * width, 1.0, per_lane=per_lane)
    store = Access("v", "global", "store", 4, width, 1.0 * ITEMS * width, 1.0,
                   per_lane=per_lane)
    return KernelStats(ITEMS, 64, ITEMS // 64, {"float32:add": 6.0 * ITEMS * width},
                       (load, store), {"u": 4.0 * ITEMS * width, "v": 4.0 * ITEMS * width},
                       0.0, 0.0, local_size=(64,))


#: counts of a work-group function whose items were lanes (256-bit packed arithmetic) and of
#: one whose were not (scalar arithmetic; 128-bit packed moves: PoCL's copies of its context)
LANES = {"instructions": 500, "zmm": 0, "ymm": 300, "xmm": 50, "packed_moves": 80,
         "scalar_moves": 10, "gathers": 0, "scatters": 0, "packed_arithmetic": 60,
         "packed_arithmetic_bits": 256, "widest_vector_bits": 256}
SCALAR = {**LANES, "ymm": 0, "packed_moves": 9, "scalar_moves": 90, "packed_arithmetic": 0,
          "packed_arithmetic_bits": 0, "widest_vector_bits": 128}


def test_items_are_lanes_only_where_packed_moves_are_wider_than_an_items_vector():
    assert vectorized_across_items(LANES, 32)
    assert not vectorized_across_items(SCALAR, 32)
    # a float8 item's own 256-bit moves are not its work-group's loop vectorized
    assert not vectorized_across_items(LANES, 256)
    assert with_isa(_stats(), LANES).extra["items_as_lanes"]
    assert not with_isa(_stats(), SCALAR).extra["items_as_lanes"]
    assert not with_isa(_stats(8, per_lane=True), LANES).extra["items_as_lanes"]
    assert "items_as_lanes" not in with_isa(_stats(), None).extra


def test_unvectorized_items_issue_their_operations_and_accesses_one_at_a_time():
    p = params_from(VECTORIZED_CHAINS, CPU)
    # nominal: two instructions a cycle a compute unit, and explain says so
    assert p.item_issue_per_s == pytest.approx(2 * 2e9 * 2)
    assert p.sources["item_issue_per_s"] == "nominal"
    assert "item_issue_per_s" in nominal_inputs("compute", p)
    scalar = with_isa(_stats(), SCALAR)
    # 6 adds + 5 loads + 1 store an item, one instruction each
    assert item_issue_time(scalar, p) == pytest.approx(12.0 * ITEMS / p.item_issue_per_s)
    assert predict(scalar, p).terms["compute"] == pytest.approx(item_issue_time(scalar, p))
    # a measured rate prices them instead
    measured = params_from({**VECTORIZED_CHAINS, "item_issue_per_s": 4e9}, CPU)
    assert measured.sources["item_issue_per_s"] == "measured"
    assert item_issue_time(scalar, measured) == pytest.approx(12.0 * ITEMS / 4e9)
    # lane by lane, a float4 item issues each lane's access and operation
    lanes4 = with_isa(_stats(4, per_lane=True), SCALAR)
    assert item_issue_time(lanes4, p) == pytest.approx(4 * 12.0 * ITEMS / p.item_issue_per_s)


def test_vector_typed_items_one_at_a_time_issue_a_vector_operation_a_chunk():
    p = params_from(VECTORIZED_CHAINS, CPU)
    # whole float4s: 6 adds, 5 loads and a store an item, each one instruction (16 bytes fit
    # one 64-byte chunk), for ITEMS float4 items
    float4 = with_isa(_stats(4), SCALAR)
    assert item_issue_time(float4, p) == pytest.approx(12.0 * ITEMS / p.item_issue_per_s)
    # float32 as 32 lanes: each add and access two 64-byte chunks
    wide = with_isa(_stats(32), SCALAR)
    assert item_issue_time(wide, p) == pytest.approx(2 * 12.0 * ITEMS / p.item_issue_per_s)
    # where they were lanes, nothing
    assert item_issue_time(with_isa(_stats(2), {**LANES, "packed_arithmetic_bits": 512}),
                           p) == 0.0


def test_a_float2_items_own_128_bit_registers_are_not_lanes():
    # x86 has no 64-bit packed floats: a float2 item's arithmetic and a scalar item's index
    # arithmetic use 128-bit registers of their own; wider ones show items run as lanes
    assert not vectorized_across_items({**LANES, "packed_arithmetic_bits": 128}, 64)
    assert not vectorized_across_items({**LANES, "packed_arithmetic_bits": 128}, 32)
    assert vectorized_across_items({**LANES, "packed_arithmetic_bits": 256}, 64)


def test_nothing_changes_without_counts_or_where_the_items_were_lanes():
    p = params_from(VECTORIZED_CHAINS, CPU)
    plain = predict(_stats(), p).time_s
    assert item_issue_time(_stats(), p) == 0.0
    assert predict(with_isa(_stats(), LANES), p).time_s == pytest.approx(plain)
    # a runtime whose chains were not vectorized either: its scalar rate is one item's already
    unvectorized = params_from({"sp_madd_scalar_peak_flops": 8e9}, CPU)
    assert item_issue_time(with_isa(_stats(), SCALAR), unvectorized) == 0.0
    # a GPU has no such figure, and names none
    gpu = params_from({}, GPU)
    assert gpu.item_issue_per_s == 0.0 and gpu.sources["item_issue_per_s"] == "n/a"
    assert item_issue_time(with_isa(_stats(), SCALAR), gpu) == 0.0


def test_a_barrier_kernels_items_are_not_serialized_twice():
    p = params_from(VECTORIZED_CHAINS, CPU)
    tiled = dataclasses.replace(with_isa(_stats(), SCALAR), barriers_per_item=1.0)
    barrier_only = dataclasses.replace(_stats(), barriers_per_item=1.0)
    # the larger of the barrier's serialization and one item's issue, not their product
    assert predict(tiled, p).terms["compute"] == pytest.approx(
        max(predict(barrier_only, p).terms["compute"], item_issue_time(tiled, p)))


def test_a_records_counts_reach_the_prediction():
    records = [{"build_log": "", "extra": {"isa": SCALAR}}, {"extra": {"sass": {"rounds": 3}}},
               {"extra": {}}]
    logs, facts = built_facts(records)
    assert facts == [{"isa": SCALAR}, {"sass": {"rounds": 3}}, None]
    p = params_from(VECTORIZED_CHAINS, CPU)
    assert predict(with_built_code(_stats(), facts[0]), p).terms["compute"] == pytest.approx(
        item_issue_time(with_isa(_stats(), SCALAR), p))
    assert with_built_code(_stats(), None) == _stats()


def test_explain_names_the_unvectorized_items():
    p = params_from(VECTORIZED_CHAINS, CPU)
    # arithmetic enough that the items' issue, not memory, is the time
    busy = dataclasses.replace(_stats(), ops={"float32:add": 200.0 * ITEMS})
    slow = predict(with_isa(busy, SCALAR), p)
    criterion = {c.name: c for c in slow.criteria}["item_serialization"]
    # the arithmetic as lanes over what the items issue one at a time
    lanes = predict(busy, p)
    assert criterion.value == pytest.approx(lanes.terms["compute"] / slow.terms["compute"])
    assert criterion.value < 1.0 and criterion.speedup > 1.0
    assert "did not vectorize" in criterion.hint
    plain = {c.name: c for c in lanes.criteria}["item_serialization"]
    assert plain.value == pytest.approx(1.0) and plain.speedup == pytest.approx(1.0)
