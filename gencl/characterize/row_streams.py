"""Row-streams family: DRAM bandwidth against the rows a work-group keeps open in each array.

``row_streams`` (spec ``row_streams``): ``out = in₀ + … `` over 2-D arrays past the caches, work-
groups of one 1 KiB run a row and 1 … 32 rows. Each (arrays, element width) line's bandwidth at
every height over its own one-row bandwidth is that height's share; the median over the lines
is ``bandwidth_share_by_group_rows`` (the model divides a launch's DRAM bandwidth by it at the
rows its work-group touches in each array). The lines of different array counts show whether
the rows of one array or the rows of all arrays together set the share: on the EPYC VM they
collapse by the rows of one array (a scratch sweep: 8 rows over two arrays, 16 rows in all,
kept 0.63–0.79 of one row's bandwidth; 2 rows over six arrays, 12 in all, 0.87–1.02; 8 rows
over six arrays, 48 in all, 0.69–0.82).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize.bandwidth import bandwidth_of
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis


def group_rows(record: Mapping[str, Any]) -> int:
    """Rows of each array one work-group touches: its height."""
    return int(record["point"]["workgroup"][1])


def bandwidth(record: Mapping[str, Any]) -> float:
    """Bytes read and written over the median kernel time (``bandwidth_of``)."""
    return bandwidth_of(record)[0]


def _line(record: Mapping[str, Any]) -> tuple[int, int]:
    return int(record["point"]["arrays"]), int(record["point"].get("vector_width", 1))


@analysis("row_streams")
def analyze_row_streams(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                        clock_hz: float | None) -> AnalysisResult:
    """bandwidth_share_by_group_rows: per height, the median over (arrays, width) lines of the
    bandwidth over the line's one-row bandwidth."""
    ok = ok_records(records)
    lines: dict[tuple[int, int], dict[int, Mapping[str, Any]]] = {}
    for r in ok:
        lines.setdefault(_line(r), {})[group_rows(r)] = r
    based = {k: by for k, by in lines.items() if 1 in by and len(by) > 1}
    if not based:
        return AnalysisResult((), notes=("no line of row_streams points with a one-row group "
                                         "and a taller one",))
    heights = sorted({h for by in based.values() for h in by})
    shares = {h: [bandwidth(by[h]) / bandwidth(by[1]) for by in based.values() if h in by]
              for h in heights}
    table = [{"rows": h, "share": float(np.median(shares[h]))} for h in heights]
    chars = [Characteristic(
        "bandwidth_share_by_group_rows", table, "[{rows: rows of each array, share}]",
        method="per (arrays, element width) line of out = in₀ + …, past the caches, timed in "
               "interleaved rounds: the bandwidth at each work-group height over the line's "
               "one-row bandwidth; per height the median over the lines",
        variants=tuple(r["variant_id"] for by in based.values() for r in by.values()))]
    names = [f"{a} in + out, {4 * w} B items" for a, w in sorted(based)]
    series = {
        "bandwidth_vs_group_rows": {
            "title": "DRAM bandwidth vs work-group height (rows of each array)",
            "lines": [{"label": name, "x": [h for h in heights if h in based[k]],
                       "y": [bandwidth(based[k][h]) for h in heights if h in based[k]]}
                      for name, k in zip(names, sorted(based))],
            "xlabel": "rows of each array a work-group touches", "ylabel": "bandwidth (B/s)",
            "xscale": "log"},
        "share_vs_open_rows": {
            "title": "Bandwidth share vs the rows open in all arrays together",
            "lines": [{"label": name,
                       "x": [(k[0] + 1) * h for h in heights if h in based[k]],
                       "y": [bandwidth(based[k][h]) / bandwidth(based[k][1]) for h in heights
                             if h in based[k]]} for name, k in zip(names, sorted(based))],
            "xlabel": "rows open in all arrays", "ylabel": "share of one row's bandwidth",
            "xscale": "log"},
    }
    return AnalysisResult(tuple(chars), series)
