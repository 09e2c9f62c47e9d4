"""The column_walk analysis on synthetic records whose shares are known."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from tests.characterize_tests._records import DEVICE, record

GiB = float(1 << 30)


def walk_record(arrays, rows, pitch, bandwidth, status="ok"):
    point = {"arrays": arrays, "vector_width": 4, "rows": rows, "pitch": pitch,
             "workgroup": [257 if pitch == "offset" else 256, 1]}
    return record(point, {"nb": 64, "s": rows, "c": 1028}, GiB / bandwidth,
                  work={"bytes": GiB}, status=status)


def test_each_pitch_gives_its_table_by_the_rows_of_all_arrays():
    # the one-row baseline of a line is the median of both pitches' one-row points (40 and 30:
    # 35 for one array; 48 and 48 for three). Offset rows: one array at 2 rows (4 streams) 28
    # (0.8), at 8 rows (16) 21 (0.6); three arrays at 4 rows (16) 33.6 (0.7): the median at 16
    # streams of 0.6 and 0.7 is 0.65. Aliased rows: one array at 8 rows (16 lines) 7 (0.2).
    recs = [walk_record(1, 1, "offset", 40e9), walk_record(1, 1, "aliased", 30e9),
            walk_record(1, 2, "offset", 28e9), walk_record(1, 8, "offset", 21e9),
            walk_record(3, 1, "offset", 48e9), walk_record(3, 1, "aliased", 48e9),
            walk_record(3, 4, "offset", 33.6e9),
            walk_record(1, 8, "aliased", 7e9),
            walk_record(1, 4, "aliased", 1e9, status="failed")]
    result = get_analysis("column_walk")(recs, DEVICE, None)
    tables = {c.name: c.value for c in result.characteristics}
    streams = tables["bandwidth_share_by_item_streams"]
    assert [s["streams"] for s in streams] == [2, 4, 16]
    # at 4 streams: one array's 2 rows (0.8) and three arrays' one row (48 / 48)
    assert [s["share"] for s in streams] == pytest.approx([40 / 35, (0.8 + 1.0) / 2, 0.65])
    lines = tables["bandwidth_share_by_item_set_lines"]
    assert [s["lines"] for s in lines] == [2, 4, 16]
    assert [s["share"] for s in lines] == pytest.approx([30 / 35, 1.0, 0.2])
    plot = {line["label"]: line for line in result.series["share_vs_streams"]["lines"]}
    assert plot["1 in + out, 16 B items"]["x"] == [2, 4, 16]
    assert plot["1 in + out, 16 B items"]["y"] == pytest.approx([40 / 35, 0.8, 0.6])


def test_a_pitch_without_a_longer_walk_measures_nothing_there():
    recs = [walk_record(1, 1, "offset", 40e9), walk_record(1, 4, "offset", 30e9),
            walk_record(1, 1, "aliased", 40e9)]
    result = get_analysis("column_walk")(recs, DEVICE, None)
    assert [c.name for c in result.characteristics] == ["bandwidth_share_by_item_streams"]
    assert any("bandwidth_share_by_item_set_lines" in n for n in result.notes)
    # no one-row point at all: nothing
    assert get_analysis("column_walk")([walk_record(1, 4, "offset", 30e9)], DEVICE,
                                       None).characteristics == ()
