"""The lane_gathers benchmark on the real PoCL device: each variant's build gathers what its
point asks, as its own machine code counts, and the analysis prices an element from them."""

from __future__ import annotations

import json

import pytest

from gencl.characterize import get_analysis
from gencl.cli import main


def test_the_builds_gather_and_scatter_what_their_points_ask(tmp_path):
    out = tmp_path / "lane_gathers.json"
    assert main(["run", "lane_gathers", "--device", "pocl", "--size", "n=65536",
                 "--repeats", "5", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    ok = [r for r in data["results"] if r["status"] == "ok"]
    assert len(ok) == 8, [r["reason"] for r in data["results"]]
    counted = [(r["point"], r["extra"]["isa"]) for r in ok if r["extra"].get("isa")]
    if not counted:
        pytest.skip("no work-group machine code counted (objdump missing?)")
    gathered = [(pt, isa) for pt, isa in counted if isa["loop_gathers_per_item"]]
    if not gathered:
        pytest.skip("this CPU's build loads each element one at a time: no packed gathers")
    # where the build gathered, one element an item for each the point asks
    for point, isa in gathered:
        assert isa["loop_gathers_per_item"] == point["gathers"]
    for point, isa in counted:
        if isa["loop_scatters_per_item"]:
            assert isa["loop_scatters_per_item"] == point["scatters"]
    result = get_analysis("lane_gathers")(data["results"], data["device"], None)
    rates = {c.name: c.value for c in result.characteristics}
    assert rates["lane_gathers_per_s"] > 1e8
