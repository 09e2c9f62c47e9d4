"""Items a CPU runtime runs one at a time, walking their rows: whether the items are lanes
before and after a build (``_vector_rate.items_as_lanes``), the rows and set lines one item
walks counted on the real generator's programs against closed forms, and the share of DRAM's
bandwidth the column_walk tables give them (``_row_streams``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gencl.model import compute_stats, load_device_profile, params_from, params_from_profile
from gencl.model._row_streams import group_row_share, item_walk, item_walk_share, share_at
from gencl.model._vector_rate import items_as_lanes, with_isa

ROOT = Path(__file__).resolve().parents[2]
EPYC = ROOT / "bench_results" / "pocl-debian-cpu-epyc" / "profile.json"
STREAMS = ((2.0, 1.0), (8.0, 0.9), (32.0, 0.5))
SET_LINES = ((2.0, 1.0), (8.0, 0.9), (16.0, 0.6), (64.0, 0.2))
ROWS = ((1.0, 1.0), (2.0, 0.9), (8.0, 0.7))
STAIRCASE = ((1 << 20, 60e9), (64 << 20, 36e9), (1 << 30, 33e9))


def _stats(spec_name, point, sizes):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load(spec_name)
    return compute_stats(transform_program(spec, spec.complete(point)), sizes, subgroup_size=16)


def _walk(arrays, rows, pitch, bands=4096):
    # column_walk's own points, float4 items: c items a row at the pitch's bytes
    c = {"offset": 1028, "aliased": 1024}[pitch]
    return _stats("specs/column_walk.py",
                  {"arrays": arrays, "vector_width": 4, "rows": rows, "pitch": pitch,
                   "workgroup": ({"offset": 257, "aliased": 256}[pitch], 1)},
                  {"nb": bands, "s": rows, "c": c})


def _cpu(**tables):
    base = params_from({}, {"name": "cpu", "device_type": "CPU", "compute_units": 2,
                            "max_clock_hz": 2.6e9})
    return dataclasses.replace(base, footprint_bandwidths=STAIRCASE, **tables)


def test_before_a_build_items_with_a_loop_or_a_vector_type_are_not_lanes():
    walk = _walk(1, 4, "offset")
    assert walk.extra["kept_loops"] == ("r",)
    assert not items_as_lanes(walk)
    # a scalar Jacobi item without a loop: lanes, until its build says otherwise
    jacobi = _stats("tuning/jacobi.py", {"boundary": "padded", "workgroup": (32, 4)},
                    {"n": 256})
    assert jacobi.extra["kept_loops"] == () and items_as_lanes(jacobi)
    assert not items_as_lanes(with_isa(jacobi, {"packed_arithmetic_bits": 128}))
    # float4 items without a loop: one at a time (their own vectors), unless packed wider
    vec = _stats("tuning/jacobi.py", {"boundary": "padded", "vector_width": 4,
                                      "workgroup": (32, 4)}, {"n": 256})
    assert vec.extra["kept_loops"] == () and not items_as_lanes(vec)
    assert items_as_lanes(with_isa(vec, {"packed_arithmetic_bits": 512}))


@pytest.mark.parametrize("arrays, rows", [(1, 4), (3, 8)])
def test_the_benchmarks_own_items_walk_their_rows_in_all_arrays(arrays, rows):
    # each array's s rows are runs of their own: (arrays + 1) × s in all; rows a line apart
    # put one line of each array in a set, rows 16 KiB apart all of them
    assert item_walk(_walk(arrays, rows, "offset")) == ((arrays + 1) * rows, arrays + 1)
    assert item_walk(_walk(arrays, rows, "aliased")) == ((arrays + 1) * rows,
                                                         (arrays + 1) * rows)
    # one row: no walk
    assert item_walk(_walk(arrays, 1, "offset")) is None


def test_a_walks_share_is_the_smaller_tables_and_its_own_groups_add_nothing():
    p = _cpu(group_row_shares=ROWS, item_stream_shares=STREAMS, item_set_line_shares=SET_LINES)
    offset, aliased = _walk(1, 8, "offset"), _walk(1, 8, "aliased")
    # 16 streams (0.7 by log interpolation between 8 and 32), 2 lines a set (1.0)
    assert item_walk_share(offset, p) == pytest.approx(share_at(16, STREAMS))
    assert share_at(16, STREAMS) == pytest.approx(0.7)
    # 16 streams, 16 lines a set: 0.6 < 0.7
    assert item_walk_share(aliased, p) == pytest.approx(0.6)
    # one-row groups walking 8 rows: the group's rows are the item's, row_streams adds 1.0
    assert sum(offset.footprint.values()) > 64 << 20
    assert group_row_share(offset, p) == pytest.approx(0.7)
    assert group_row_share(aliased, p) == pytest.approx(0.6)
    # without column_walk's tables (nominal), row_streams' share at the group's 8 rows
    bare = dataclasses.replace(p, item_stream_shares=(), item_set_line_shares=())
    assert group_row_share(offset, bare) == pytest.approx(0.7)  # ROWS at 8
    assert item_walk_share(offset, bare) == 1.0
    # items shown to run as lanes walk nothing
    lanes = with_isa(offset, {"packed_arithmetic_bits": 512})
    assert item_walk_share(lanes, p) == 1.0
    # in the caches the share does not apply
    small = _walk(1, 8, "aliased", bands=16)
    assert group_row_share(small, p) == 1.0


def test_a_walking_item_in_a_taller_group_pays_the_group_rows_beyond_its_own():
    # sobel2d's float4 items streamed over 4 rows in 32 × 4 groups: the item's rows of p (6),
    # gx and gy (4 each); the group's are 4× each of gx's and gy's
    stats = _stats("tuning/sobel2d.py", {"vector_width": 4, "stream_j": 4, "workgroup": (32, 4)},
                   {"ny": 4096, "nx": 4096})
    walk = item_walk(stats)
    assert walk is not None and walk[0] == 6 + 4 + 4
    p = _cpu(group_row_shares=ROWS, item_stream_shares=STREAMS)
    share = group_row_share(stats, p)
    assert share < item_walk_share(stats, p) < 1.0


def test_the_epyc_profile_feeds_both_tables_and_a_gpu_leaves_them_out():
    params = params_from_profile(load_device_profile(EPYC))
    for key in ("bandwidth_share_by_item_streams", "bandwidth_share_by_item_set_lines"):
        assert params.sources[key] == "measured"
    assert params.item_stream_shares and params.item_set_line_shares
    # power-of-two rows lose far more than rows a set apart
    assert share_at(32, params.item_set_line_shares) < share_at(32, params.item_stream_shares)
    data = json.loads(EPYC.read_text())
    summary = json.loads(EPYC.with_name("summary.json").read_text())
    on_gpu = params_from(summary, dict(data["device"], device_type="GPU"))
    assert on_gpu.item_stream_shares == () == on_gpu.item_set_line_shares
    assert on_gpu.sources["bandwidth_share_by_item_streams"] == "n/a"
    summary.pop("bandwidth_share_by_item_set_lines")
    bare = params_from(summary, data["device"])
    assert bare.item_set_line_shares == () and \
        bare.sources["bandwidth_share_by_item_set_lines"] == "nominal"
