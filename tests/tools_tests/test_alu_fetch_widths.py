"""tools/alu_fetch_widths.py: alu_fetch's raw results fitted per vector width (the H200's,
2026-12-05, bench_results/nvidia-h200/alu-fetch-widths/), and synthetic curves whose exponents
are known."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.characterize_tests.test_alu_fetch import records

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "bench_results" / "nvidia-h200" / "alu-fetch-widths"

_spec = importlib.util.spec_from_file_location("alu_fetch_widths",
                                               ROOT / "tools" / "alu_fetch_widths.py")
tool = importlib.util.module_from_spec(_spec)
sys.modules["alu_fetch_widths"] = tool
_spec.loader.exec_module(tool)


def test_each_widths_exponent_is_recovered():
    bw, peak = 4e12, 60e12
    recs = [r for seed, (w, p) in enumerate(((1, 2), (4, 5))) for r in records(
        w, bw, peak * w ** 0.5, smooth=p, noise=0.003, seed=seed)]
    rows = tool.width_rows(recs)
    assert [r["type"] for r in rows] == ["float", "float4"]
    assert [r["exponent"] for r in rows] == [pytest.approx(2, rel=0.15), pytest.approx(5, rel=0.15)]
    # the max() fit's flat level: the bytes at the bandwidth, raised a little by the rounded corner
    nbytes = records(1, bw, peak)[0]["work"]["bytes"]
    assert rows[0]["t_mem_s"] == pytest.approx(nbytes / bw, rel=0.1)


@pytest.mark.parametrize("name", ["alu_fetch.json", "alu_fetch_repeat.json"])
def test_the_committed_table_is_the_tools_output(name):
    rows = tool.width_rows(json.loads((DATA / name).read_text())["results"])
    assert [r["type"] for r in rows] == ["float", "float2", "float4", "float8", "float16"]
    # the H200: the wider the chain, the more of the loads' time its arithmetic hides
    assert [r["exponent"] for r in rows] == sorted(r["exponent"] for r in rows)
    assert tool.table(DATA / name).splitlines()[2:] == \
        (DATA / "widths.md").read_text().split("\n\n")[
            1 if name == "alu_fetch.json" else 3].splitlines()
