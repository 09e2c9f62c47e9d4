"""The item_issue benchmark on the real PoCL device: its float4 items run one at a time, as its
own machine code says, and the analysis prices an instruction from them."""

from __future__ import annotations

import json

import pytest

from gencl.characterize import get_analysis
from gencl.cli import main


def test_the_items_run_one_at_a_time_and_give_a_rate(tmp_path):
    out = tmp_path / "item_issue.json"
    assert main(["run", "item_issue", "--all", "--device", "pocl", "--size", "m=256",
                 "--repeats", "5", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    ok = [r for r in data["results"] if r["status"] == "ok"]
    assert len(ok) == 4, [r["reason"] for r in data["results"]]
    isas = [r["extra"].get("isa") for r in ok]
    if not all(isas):
        pytest.skip("no work-group machine code counted (objdump missing?)")
    # each item's float4 arithmetic on its own 128-bit vectors, none across items
    assert all(isa["packed_arithmetic_bits"] == 128 for isa in isas), isas
    result = get_analysis("item_issue")(data["results"], data["device"], None)
    (rate,) = result.characteristics
    # between a tenth of an instruction a cycle on the whole device and 64 a cycle a core
    clock, cores = data["device"]["max_clock_hz"] or 1e9, data["device"]["compute_units"]
    assert 0.1 * clock < rate.value < 64 * clock * cores
