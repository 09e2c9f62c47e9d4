"""Item-issue family: the instructions a second a CPU runtime issues running items one at a time.

``item_issue`` (spec ``item_issue``): ``float4`` items each sum ``loads`` weighted vectors of a
table the first cache level holds and store the sum, ``2 · loads + 1`` instructions an item as
the model counts them (``specs/item_issue.py``). Only the points whose work-group function ran
the items one at a time count (``extra["isa"]``: no packed arithmetic wider than an item's own
vectors, ``gencl.measure._isa.vectorized_across_items``); an item's seconds are fitted against
its instructions by least squares (``numpy.polyfit``), and one over the slope is
``vector_item_issue_per_s``, instructions a second over the whole device (the store stream and the
launch stay in the intercept). The model prices what items run one at a time issue by it
(``gencl.model._predict.item_issue_time``). A GPU (no point runs there) or a build that ran the
items as lanes measures nothing, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gencl.characterize._cycles import ok_records
from gencl.characterize._registry import AnalysisResult, Characteristic, analysis
from gencl.measure._isa import vectorized_across_items

#: an item's own vectors: float4
ITEM_VECTOR_BITS = 128


def one_at_a_time(record: Mapping[str, Any]) -> bool:
    """Whether the record's build ran its items one at a time (False without counts)."""
    isa = (record.get("extra") or {}).get("isa") or {}
    return bool(isa) and not vectorized_across_items(isa, ITEM_VECTOR_BITS)


def items(record: Mapping[str, Any]) -> float:
    """Work items of the record's launch: its work-groups (``m``) × the group's items."""
    return float(record["sizes"]["m"]) * float(np.prod(record["point"]["workgroup"]))


def instructions_per_item(record: Mapping[str, Any]) -> float:
    """What the model counts an item of the record issues (the spec's ``instructions``
    metric over its items)."""
    return float(record["work"]["instructions"]) / items(record)


def seconds_per_item(record: Mapping[str, Any]) -> float:
    return float(record["median_s"]) / items(record)


@analysis("item_issue")
def analyze_item_issue(records: Sequence[Mapping[str, Any]], device: Mapping[str, Any],
                       clock_hz: float | None) -> AnalysisResult:
    """vector_item_issue_per_s: one over the slope of an item's time against its instructions, over
    the points run one item at a time."""
    ok = ok_records(records)
    points = [r for r in ok if one_at_a_time(r)]
    if len({instructions_per_item(r) for r in points}) < 2:
        why = ("no point ran" if not ok else
               "the builds ran the items as lanes of packed instructions, or carry no machine "
               "code counts (objdump missing)")
        return AnalysisResult((), notes=(f"vector_item_issue_per_s: {why}: not measured",))
    xs = np.array([instructions_per_item(r) for r in points])
    ys = np.array([seconds_per_item(r) for r in points])
    slope, intercept = np.polyfit(xs, ys, 1)
    if slope <= 0:
        return AnalysisResult((), notes=(
            "vector_item_issue_per_s: an item's time does not rise with its instructions: not "
            "measured",))
    rate = Characteristic(
        "vector_item_issue_per_s", float(1.0 / slope), "instructions/s",
        method="one over the least-squares slope of an item's median time against the "
               "instructions the model counts it (2 · loads + 1), over the points whose "
               "machine code ran the items one at a time",
        variants=tuple(r["variant_id"] for r in points))
    order = np.argsort(xs)
    series = {"time_vs_instructions": {
        "title": "Time an item vs its instructions (float4 items one at a time)",
        "lines": [{"label": "measured", "x": xs[order].tolist(), "y": ys[order].tolist()},
                  {"label": "fit", "x": xs[order].tolist(),
                   "y": (intercept + slope * xs[order]).tolist()}],
        "xlabel": "instructions an item (the model's count)", "ylabel": "seconds an item"}}
    return AnalysisResult((rate,), series)
