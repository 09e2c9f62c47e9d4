"""The rows a work-group keeps open, counted on the real generator's programs against closed
forms, and the share of DRAM's bandwidth the measured table gives them (``_row_streams``)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from gencl.model import compute_stats, load_device_profile, params_from, params_from_profile
from gencl.model._row_streams import (
    array_runs, dram_plateau_bytes, group_row_share, group_rows, share_at)

ROOT = Path(__file__).resolve().parents[2]
EPYC = ROOT / "bench_results" / "pocl-debian-cpu-epyc" / "profile.json"
TABLE = ((1.0, 1.0), (2.0, 0.9), (4.0, 0.8), (8.0, 0.7), (16.0, 0.6))
STAIRCASE = ((1 << 20, 60e9), (16 << 20, 45e9), (64 << 20, 36e9), (1 << 30, 33e9))


def _stats(spec_name, point, sizes):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load(spec_name)
    return compute_stats(transform_program(spec, spec.complete(point)), sizes, subgroup_size=16)


@pytest.mark.parametrize("height", [1, 4, 16])
def test_the_benchmarks_own_groups_keep_their_height_open_in_each_array(height):
    # row_streams' out = in0 + in1 + in2, float4 items, 64 × height groups: each array's rows of
    # the group are one run each (64 items × 16 B, contiguous), rows 17 KiB apart
    stats = _stats("specs/row_streams.py",
                   {"arrays": 3, "vector_width": 4, "workgroup": (64, height)},
                   {"m": 64, "c": 64 * 17})
    rows = group_rows(stats)
    assert {name: runs for name, (runs, _) in rows.items()} == \
        {"in0": height, "in1": height, "in2": height, "out": height}
    assert {moved for _, moved in rows.values()} == {16.0}  # one float4 an item


@pytest.mark.parametrize("workgroup, u_rows", [((16, 1), 3), ((16, 4), 6), ((32, 8), 10)])
def test_jacobis_groups_read_their_reach_of_u_and_their_height_of_f_and_u_new(workgroup,
                                                                             u_rows):
    # the padded five-point Jacobi: u's rows y − 1 … y + height (the north and south
    # neighbours), f's and u_new's the group's own rows
    stats = _stats("tuning/jacobi.py", {"boundary": "padded", "workgroup": workgroup},
                   {"n": 256})
    runs = {name: r for name, (r, _) in group_rows(stats).items()}
    assert runs == {"u": u_rows, "f": workgroup[1], "u_new": workgroup[1]}


def test_runs_merge_within_the_gap_and_split_beyond_it():
    # two accesses 16 B apart, 8 items of 4 B along x (32 B a row of the group), 2 rows 4 KiB
    # apart: 2 runs; rows 300 B apart lie within a run's end + RUN_GAP_BYTES: 1 run
    assert array_runs([0, 16], [4, 4096], [8, 2], 4) == 2
    assert array_runs([0, 16], [4, 300], [8, 2], 4) == 1
    # items along x further apart than the gap (a blocked layout): each its own run
    assert array_runs([0], [1024, 0], [4, 1], 4) == 4
    # a negative step along x reaches below the item's address: still one run
    assert array_runs([0], [-4, 8192], [16, 3], 4) == 3
    # too many addresses to enumerate: not counted
    assert array_runs(list(range(0, 1 << 22, 4)), [4, 1 << 30], [1, 2], 4) is None


def test_the_share_is_the_bytes_harmonic_mean_past_the_staircases_plateau():
    stats = _stats("tuning/jacobi.py", {"boundary": "padded", "workgroup": (16, 8)},
                   {"n": 4096})
    base = params_from({}, {"name": "cpu", "device_type": "CPU", "compute_units": 2,
                            "max_clock_hz": 2.6e9})
    p = dataclasses.replace(base, footprint_bandwidths=STAIRCASE, group_row_shares=TABLE)
    # the staircase is within 15 % of its last step from 64 MiB on
    assert dram_plateau_bytes(p) == 64 << 20
    assert sum(stats.footprint.values()) > 64 << 20
    rows = group_rows(stats)
    expect = sum(b for _, b in rows.values()) / sum(b / share_at(r, TABLE)
                                                    for r, b in rows.values())
    assert group_row_share(stats, p) == pytest.approx(expect)
    # u's 10 rows between 8 (0.7) and 16 (0.6), in log rows; f's and u_new's 8 rows at 0.7
    assert share_at(10, TABLE) == pytest.approx(0.7 - 0.1 * math.log(10 / 8) / math.log(2))
    assert 0.6 < group_row_share(stats, p) < 0.7
    # in the caches (n = 1024: 12 MB) the table does not apply, nor without a table
    small = _stats("tuning/jacobi.py", {"boundary": "padded", "workgroup": (16, 8)},
                   {"n": 1024})
    assert group_row_share(small, p) == 1.0
    assert group_row_share(stats, dataclasses.replace(p, group_row_shares=())) == 1.0


def test_the_epyc_profile_feeds_the_table_and_a_gpu_leaves_it_out(tmp_path):
    params = params_from_profile(load_device_profile(EPYC))
    assert params.sources["bandwidth_share_by_group_rows"] == "measured"
    assert params.group_row_shares[0] == (1.0, 1.0)
    assert all(s < 1.0 for _, s in params.group_row_shares[1:])
    # the same numbers on a GPU: n/a (its heights change the warps' shape, priced elsewhere)
    data = json.loads(EPYC.read_text())
    gpu = dict(data["device"], device_type="GPU")
    summary = json.loads(EPYC.with_name("summary.json").read_text())
    on_gpu = params_from(summary, gpu)
    assert on_gpu.group_row_shares == () and \
        on_gpu.sources["bandwidth_share_by_group_rows"] == "n/a"
    # a profile without the benchmark: nominal, the same bandwidth at every height
    summary.pop("bandwidth_share_by_group_rows")
    bare = params_from(summary, data["device"])
    assert bare.group_row_shares == () and \
        bare.sources["bandwidth_share_by_group_rows"] == "nominal"
