"""The column_walk benchmark on the real PoCL device: every point verifies, each build runs its
items one at a time (as the model takes them before a build), and the analysis gives both
tables."""

from __future__ import annotations

import json

from gencl.characterize import get_analysis
from gencl.cli import main
from gencl.model._vector_rate import vectorized_across_items


def test_the_walks_verify_and_their_builds_run_items_one_at_a_time(tmp_path):
    out = tmp_path / "column_walk.json"
    assert main(["run", "column_walk", "--all", "--device", "pocl", "--knob", "vector_width=4",
                 "--knob", "arrays=1", "--size", "nb=8", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    ok = [r for r in data["results"] if r["status"] == "ok"]
    # six walks at each of two pitches
    assert len(ok) == 12, [r["reason"] for r in data["results"]]
    for r in ok:
        assert r["max_error"] is not None and r["max_error"] <= 1e-6
        isa = r["extra"].get("isa")
        if isa:  # objdump present: the item's loop keeps the items out of packed lanes
            assert not vectorized_across_items(isa, 128), r["point"]
    result = get_analysis("column_walk")(data["results"], data["device"], None)
    names = {c.name for c in result.characteristics}
    assert names == {"bandwidth_share_by_item_streams", "bandwidth_share_by_item_set_lines"}
