"""The row_streams analysis on synthetic records whose shares are known."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from tests.characterize_tests._records import DEVICE, record

GiB = float(1 << 30)


def rows_record(arrays, width, height, bandwidth, status="ok"):
    point = {"arrays": arrays, "vector_width": width, "workgroup": [256 // width, height]}
    return record(point, {"m": 1024, "c": 1088}, GiB / bandwidth, work={"bytes": GiB},
                  status=status)


def test_each_height_is_the_median_share_over_the_lines():
    # three lines with a one-row point: shares at 4 rows 0.8, 0.9 and 0.6 (median 0.8); at 16
    # rows only two lines (0.5, 0.7: median 0.6). A line without its one-row point and a failed
    # record count for nothing.
    recs = [rows_record(1, 4, 1, 30e9), rows_record(1, 4, 4, 24e9), rows_record(1, 4, 16, 15e9),
            rows_record(3, 4, 1, 40e9), rows_record(3, 4, 4, 36e9), rows_record(3, 4, 16, 28e9),
            rows_record(1, 16, 1, 20e9), rows_record(1, 16, 4, 12e9),
            rows_record(3, 16, 4, 1e9), rows_record(3, 16, 8, 1e9),
            rows_record(1, 4, 2, 60e9, status="failed")]
    result = get_analysis("row_streams")(recs, DEVICE, None)
    (char,) = result.characteristics
    assert char.name == "bandwidth_share_by_group_rows"
    assert [s["rows"] for s in char.value] == [1, 4, 16]
    assert [s["share"] for s in char.value] == pytest.approx([1.0, 0.8, 0.6])
    plot = {line["label"]: line for line in result.series["bandwidth_vs_group_rows"]["lines"]}
    assert plot["1 in + out, 16 B items"]["x"] == [1, 4, 16]
    assert plot["1 in + out, 16 B items"]["y"] == pytest.approx([30e9, 24e9, 15e9])
    # a line without a height has no point there (the H200's float4 groups of 32 rows)
    assert plot["1 in + out, 64 B items"]["x"] == [1, 4]
    # the same shares against the rows open in all arrays together: (arrays + 1) × height
    lines = {line["label"]: line for line in result.series["share_vs_open_rows"]["lines"]}
    assert lines["3 in + out, 16 B items"]["x"] == [4, 16, 64]
    assert lines["3 in + out, 16 B items"]["y"] == pytest.approx([1.0, 0.9, 0.7])


def test_no_line_with_a_one_row_point_measures_nothing():
    recs = [rows_record(1, 4, 2, 30e9), rows_record(1, 4, 4, 24e9), rows_record(3, 4, 1, 40e9)]
    result = get_analysis("row_streams")(recs, DEVICE, None)
    assert result.characteristics == () and result.notes
