"""The lane_gathers analysis on synthetic records whose rates are known: each fitted against
the elements the records' machine code moved, not the points' own counts."""

from __future__ import annotations

import pytest

from gencl.characterize import get_analysis
from tests.characterize_tests._records import DEVICE, record

ITEMS = 1 << 20
#: seconds an item: 0.05 ns of loop, 0.14 ns a gathered element, 0.22 a scattered one beyond a
#: first scatter's 0.3 (the array it writes)
BASE, GATHER, FIRST_SCATTER, SCATTER = 0.05e-9, 0.14e-9, 0.3e-9, 0.22e-9


def lane_record(gathers, scatters, *, counted=None, status="ok"):
    g, s = counted if counted else (gathers, scatters)
    per_item = BASE + GATHER * g + ((FIRST_SCATTER + SCATTER * (s - 1)) if s else 0.0)
    isa = {"loop_gathers_per_item": float(g), "loop_scatters_per_item": float(s)}
    return record({"gathers": gathers, "scatters": scatters, "workgroup": 256},
                  {"n": ITEMS, "s": 3}, per_item * ITEMS, status=status,
                  extra={"isa": isa} if counted != () else {})


def test_each_rate_is_one_over_its_slope_against_the_counted_elements():
    recs = [lane_record(g, 0) for g in (0, 1, 2, 4, 8)] + \
        [lane_record(0, s) for s in (1, 2, 4)]
    # a point whose build gathered half of what it asks (the machine code says 2, not 4) is
    # fitted at what it did; a failed record counts for nothing
    recs += [lane_record(4, 0, counted=(2, 0)), lane_record(8, 0, status="failed")]
    result = get_analysis("lane_gathers")(recs, DEVICE, None)
    rates = {c.name: c.value for c in result.characteristics}
    assert rates["lane_gathers_per_s"] == pytest.approx(1 / GATHER)
    # the scatters' slope from the first on: its array's writes stay in the intercept
    assert rates["lane_scatters_per_s"] == pytest.approx(1 / SCATTER)
    labels = [line["label"] for line in result.series["time_vs_elements"]["lines"]]
    assert labels == ["gathers, measured", "gathers, fit", "scatters, measured",
                      "scatters, fit"]


def test_a_build_without_counts_or_gathers_measures_nothing():
    # a GPU's records carry no CPU machine code; a CPU build that loaded one at a time
    # gathered nothing: no rate either way, and a note that says why
    for recs in ([lane_record(g, 0, counted=()) for g in (0, 4)],
                 [lane_record(g, 0, counted=(0, 0)) for g in (0, 4)]):
        result = get_analysis("lane_gathers")(recs, DEVICE, None)
        assert result.characteristics == () and "nothing measured" in result.notes[0]


def test_scatters_counted_at_one_place_give_no_scatter_rate():
    recs = [lane_record(g, 0) for g in (0, 2)] + [lane_record(0, 1)]
    result = get_analysis("lane_gathers")(recs, DEVICE, None)
    assert [c.name for c in result.characteristics] == ["lane_gathers_per_s"]
    assert any(n.startswith("lane_scatters_per_s") for n in result.notes)
