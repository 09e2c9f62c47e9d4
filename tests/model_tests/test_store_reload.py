"""The store_reload term: which stores a later load of the same array follows (the item's
program order, loops and straight-line code alike), whether a sub-group's lines are its own, and
the wait per store the store_reload benchmark measured, against closed forms."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import loopy as lp
import numpy as np
import pytest

from gencl.model import compute_stats, params_from, predict
from gencl.model._predict import shares_lines, store_reload_time

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 1 << 14
ROWS = 8


def _rows(statement: str, *, offset: int = 16, block: int = 1, rows: str = "K") -> object:
    """Each item walks *rows* rows of its column (a loop the code keeps where *rows* is a
    parameter), *block* rows a pass unrolled, element i + *offset* of a row of n + 32 floats;
    groups of 64."""
    knl = lp.make_kernel(
        "{[i, k, b]: 0 <= i < n and 0 <= k < %s and 0 <= b < %d}" % (rows, block),
        statement.format(at=f"{block} * k + b, i + {offset}"),
        [lp.GlobalArg("x", np.float32, shape=(f"{block} * K", "n + 32")),
         lp.GlobalArg("y", np.float32, shape=(f"{block} * K", "n + 32")),
         lp.ValueArg("n", np.int32), lp.ValueArg("K", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 64, inner_tag="l.0", outer_tag="g.0")
    knl = lp.tag_inames(knl, {"b": "unr"})
    knl = lp.prioritize_loops(knl, "k,b")
    return compute_stats(knl, {"n": ITEMS, "K": ROWS}, subgroup_size=32)


@pytest.mark.parametrize("statement, block, reloaded", [
    # in place in a kept loop: every pass's store but the last is followed by the next load
    ("x[{at}] = 2 * x[{at}] + 1", 1, {"x": ROWS - 1}),
    # two rows a pass in straight-line code: the first row's store precedes the second's load
    ("x[{at}] = 2 * x[{at}] + 1", 2, {"x": 2 * ROWS - 1}),
    # into another array: no load of y follows a store of y
    ("y[{at}] = 2 * x[{at}] + 1", 1, {}),
])
def test_stores_a_later_load_of_the_same_array_follows(statement, block, reloaded):
    trace = _rows(statement, block=block).extra["item_trace"]
    assert trace["reloaded_stores"] == reloaded


def test_a_single_update_in_place_waits_for_nothing():
    # x[i] = 2 x[i] + 1, no loop: the item's one load comes before its one store
    trace = _rows("x[{at}] = 2 * x[{at}] + 1", rows="1").extra["item_trace"]
    assert trace["reloaded_stores"] == {}


@pytest.mark.parametrize("offset, lanes, shared, shared_float4", [
    (0, 32, False, False),  # from a line's start: whole lines (128 and 512 bytes)
    (16, 32, True, True),   # 64 bytes into a line: each line holds two sub-groups' elements
    (0, 16, True, False),   # 16 lanes: half a line of floats, two lines of float4s
])
def test_a_sub_group_shares_lines_where_its_row_is_off_a_line(offset, lanes, shared,
                                                               shared_float4):
    # a load and, a row of 1,024 floats later, a store: 4 bytes an item along the row
    entry = {"pos": [0, 1], "addr": [4 * offset, 4 * offset + 4096], "load": [True, False],
             "step": [4]}
    assert shares_lines(entry, lanes, 128) is shared
    # a float4 store: its four lanes share one position, the first lane starts the segment
    vector = {"pos": [0] * 4 + [1] * 4, "load": [True] * 4 + [False] * 4, "step": [16],
              "addr": [4 * offset + 4 * k for k in range(4)]
              + [4 * offset + 4096 + 4 * k for k in range(4)]}
    assert shares_lines(vector, lanes, 128) is shared_float4


def _h200():
    summary = json.loads((ROOT / "bench_results/nvidia-h200/summary.json").read_text())
    device = json.loads((ROOT / "bench_results/nvidia-h200/profile.json").read_text())["device"]
    return params_from(summary, device)


def test_each_reloaded_store_of_a_sub_group_costs_its_compute_unit_the_measured_wait():
    p = _h200()
    assert 5e-9 < p.store_reload_s < 3e-8  # the committed H200 figure: 12.5 ns
    stats = _rows("x[{at}] = 2 * x[{at}] + 1")
    expected = (ROWS - 1) * ITEMS / 32 / p.compute_units * p.store_reload_s
    assert store_reload_time(stats, p) == pytest.approx(expected)
    assert predict(stats, p).terms["store_reload"] == pytest.approx(expected)
    # rows on a line: no line is shared, no wait; a copy: no reload
    assert store_reload_time(_rows("x[{at}] = 2 * x[{at}] + 1", offset=0), p) == 0.0
    assert store_reload_time(_rows("y[{at}] = 2 * x[{at}] + 1"), p) == 0.0
    # not measured: not priced
    assert store_reload_time(stats, dataclasses.replace(p, store_reload_s=0.0)) == 0.0


def test_the_wait_adds_to_the_time():
    p = _h200()
    stats = _rows("x[{at}] = 2 * x[{at}] + 1")
    with_wait = predict(stats, p)
    without = predict(stats, dataclasses.replace(p, store_reload_s=0.0))
    assert with_wait.time_s == pytest.approx(without.time_s + with_wait.terms["store_reload"])
    # the criterion names the time the wait takes and the fix
    (crit,) = [c for c in with_wait.criteria if c.name == "store_reload"]
    assert crit.speedup == pytest.approx(with_wait.time_s / without.time_s)
    assert "second array" in crit.hint
