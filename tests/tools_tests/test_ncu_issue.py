"""tools/ncu_issue.py: the instructions Nsight Compute counted (2026-12-03, an H200, 22 box2d9,
laplace3d, box3d27 and helmholtz3d variants as CUDA, bench_results/nvidia-h200/ncu-issue/) paired
with their variants and their OpenCL records, and priced beside loopy's lane count."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "ncu_issue.py"
DATA = ROOT / "bench_results" / "nvidia-h200" / "ncu-issue"

_spec = importlib.util.spec_from_file_location("ncu_issue", TOOL)
tool = importlib.util.module_from_spec(_spec)
sys.modules["ncu_issue"] = tool
_spec.loader.exec_module(tool)


#: the folders of ncu runs and their variants: ncu-reads/ (2026-12-03, thirtieth session) holds
#: 14 Jacobi, aniso2d and vardiff3d temporal variants whose updates read global arrays, and
#: ncu-one-point/ 4 laplace3d and helmholtz3d streams whose items own one point a plane
FOLDERS = [(DATA, 22), (DATA.parent / "ncu-reads", 14), (DATA.parent / "ncu-one-point", 4)]


@pytest.mark.parametrize("data,variants", FOLDERS)
def test_each_launch_pairs_with_the_variant_printed_for_it(data, variants):
    counted = tool.read_ncu((data / "ncu.csv").read_text())
    times = tool.read_times((data / "times.txt").read_text())
    assert set(counted) == set(times) and len(counted) == variants
    # the point ncu's process printed for a launch is the one the timing run printed for its id
    printed = {line.split("\t")[0]: json.loads(line.split("\t")[1])
               for line in (data / "times.txt").read_text().splitlines() if "\t" in line}
    assert all(counted[v]["point"] == printed[v] for v in counted)
    # every launch has every metric asked for; a warp instruction is at most 32 lanes' worth
    for m in counted.values():
        assert set(tool.METRICS) <= set(m)
        assert m["smsp__inst_executed.sum"] <= m["smsp__thread_inst_executed.sum"] \
            <= 32 * m["smsp__inst_executed.sum"]


def test_a_row_carries_its_records_time_and_the_models_counts():
    counted = tool.read_runs([(DATA / "ncu.csv").read_text(), (DATA / "stalls.csv").read_text()])
    times = tool.read_times((DATA / "times.txt").read_text())
    one = {v: m for v, m in counted.items() if v.startswith("box2d9-")
           and m["point"]["temporal"] == "none"}
    space = ROOT / "bench_results" / "nvidia-h200" / "box2d9" / "space.json"
    (row,) = tool.rows(one, times, [str(space)])
    (point,) = (m["point"] for m in one.values())
    record = next(r for r in json.loads(space.read_text())["results"]
                  if r["point"] == point and r["status"] == "ok")
    assert row["opencl_s"] == record["median_s"] and row["cuda_s"] == times[row["variant"]]
    assert row["loopy_issue_s"] > 0 and row["sass_issue_s"] > 0 and row["model_s"] > 0
    # the CUDA time's share a warp waited on global loads; a single sweep has no update wait
    (m,) = one.values()
    waited = m[tool.stall_metric("long_scoreboard")]
    assert row["global_wait_s"] == times[row["variant"]] * waited \
        / m["smsp__average_warp_latency_per_inst_issued.ratio"]
    assert 0 < row["global_wait_s"] < row["cuda_s"] and row["model_wait_s"] == 0.0
    assert row["variant"] in tool.table([row])


@pytest.mark.parametrize("data", [d for d, _ in FOLDERS])
def test_the_stall_run_names_the_same_launches(data):
    """The second ncu run (stall reasons) pairs with the same variants, every reason present."""
    first = tool.read_ncu((data / "ncu.csv").read_text())
    stalls = tool.read_ncu((data / "stalls.csv").read_text())
    assert set(stalls) == set(first)
    for vid, m in stalls.items():
        assert m["point"] == first[vid]["point"]
        assert m["smsp__inst_executed.sum"] == first[vid]["smsp__inst_executed.sum"]
        assert all(tool.stall_metric(r) in m for r in tool.STALLS)
